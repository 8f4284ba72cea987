/**
 * `render_panel`: open a docked report panel, or replace the content of a
 * panel (docked or a cell's inline one) addressed by `target` or `panelId`.
 *
 * The call binds to the existing panel when there is one, so the Dispatcher
 * queues it on that panel, checks `expectedRevision` and replays `actionId`
 * as for any widget; a call that creates a panel binds to no target.
 */
import {
  LIMITS,
  MolspaceError,
  RENDER_PANEL_TOOL,
  RenderPanelInput,
  WIDGET_KIND_INFO,
  type PanelContent,
  type PanelState,
  type RenderPanelOutput
} from '../contract';
import { checkPlacement, isDocked } from '../dockPlacement';
import type { DockPlacement } from '../contract/toolArgs';
import { invalidInput } from '../dispatcher/invalidInput';
import type { WidgetRegistry } from '../dispatcher/registry';
import { isTargetOfKind } from '../dispatcher/widgetTarget';
import { givenDepictions, type GivenDepictions } from '../panel/givenDepictions';
import { checkPanelContent } from '../panel/panelContent';
import { checkPanelLinks, linkTarget, linksOf } from '../panel/panelLinkCheck';
import { panelHostOf } from '../panel/panelHost';
import { defaultTitle, type PanelTarget } from '../panel/panelTarget';
import type { PageTool, ToolEnv, ToolResult } from '../dispatcher/pageTool';

/** Panels of this page. */
function panels(registry: WidgetRegistry): PanelTarget[] {
  return registry.list().filter((t): t is PanelTarget => isTargetOfKind(t, 'panel'));
}

/**
 * The panel a call addresses: by `target` (must exist), else by `panelId`
 * (the newest panel of that id; null when there is none yet).
 *
 * @throws MolspaceError `NOT_FOUND` at `/target`.
 */
export function findPanel(registry: WidgetRegistry, args: { target?: string; panelId?: string }): PanelTarget | null {
  if (args.target !== undefined) {
    return registry.get(args.target, 'panel');
  }
  if (args.panelId !== undefined) {
    // A re-run cell makes a new widget with the same panel_id (the old model may live on): the newest wins.
    return (
      panels(registry)
        .filter(p => p.panelId === args.panelId)
        .pop() ?? null
    );
  }
  return null;
}

function newPanelId(registry: WidgetRegistry): string {
  const taken = new Set(panels(registry).map(p => p.panelId));
  let n = 1;
  while (taken.has(`panel-${n}`)) {
    n += 1;
  }
  return `panel-${n}`;
}

async function run(args: RenderPanelInput, bound: PanelTarget | null, env: ToolEnv): Promise<ToolResult> {
  const { registry, source } = env;
  // A panel created by an earlier call queued behind this one's creation.
  const existing = bound ?? findPanel(registry, args);
  if (existing && !bound && args.expectedRevision !== undefined && existing.state().revision !== args.expectedRevision) {
    const current = existing.state().revision;
    throw new MolspaceError(
      'REVISION_CONFLICT',
      `Panel ${existing.targetId} is at revision ${current}, not the expected ${args.expectedRevision}.`,
      '/expectedRevision',
      `Call ${WIDGET_KIND_INFO.panel.observeTool}, check the new state, and retry with expectedRevision ${current}.`,
      { target: existing.targetId, expectedRevision: args.expectedRevision, currentRevision: current, changes: [] }
    );
  }
  if (existing && args.placement !== undefined && args.placement !== existing.placement) {
    throw new MolspaceError(
      'INVALID_INPUT',
      `Panel "${existing.panelId}" is ${existing.placement}; a panel does not move.`,
      '/placement',
      `Omit placement to update it, or use another panelId for a new ${args.placement} panel.`,
      { panelId: existing.panelId, placement: existing.placement }
    );
  }
  if (!existing) {
    checkCreatable(registry, args);
    checkPlacement(args.dock);
  }
  const content = await resolveContent(args.content);
  await checkPanelContent(content, '/content');
  // Links act on widgets: refused now, located, rather than failing later on a person's click.
  await checkPanelLinks(content, registry);
  const kind = content.type;
  const depictions = relayedDepictions(content, env);
  if (existing) {
    const before = existing.state();
    const summary = `render_panel: ${kind} in panel "${existing.panelId}"`;
    const entry = await existing.applyContent({ content, title: args.title, depictions }, source, summary);
    return answer(
      { panel: existing.state(), created: false, previousRevision: before.revision, changes: [entry], replayed: false },
      summary
    );
  }
  const host = panelHostOf(registry)!;
  const panelId = args.panelId ?? newPanelId(registry);
  const docked = host.dock(panelId, args.title ?? defaultTitle(content), content, args.dock ?? besideLinked(content));
  const summary = `render_panel: docked ${kind} panel "${panelId}" opened`;
  const entry = await docked.open(source, summary, depictions);
  return answer({ panel: docked.state(), created: true, previousRevision: null, changes: [entry], replayed: false }, summary);
}

/**
 * The first page of an agent's grid the gateway drew with RDKit
 * (`CallContext.depictions`; absent without RDKit on the server): read as a
 * cell's `_depictions` are (an unusable one is ignored, said in the console,
 * and drawn by Indigo). None for other content.
 */
function relayedDepictions(content: PanelContent, env: ToolEnv): GivenDepictions | undefined {
  const value = env.context?.depictions;
  if (content.type !== 'molecules' || value === undefined) {
    return undefined;
  }
  const read = givenDepictions(value, 'gateway');
  for (const i of read.ignored) {
    console.warn(`molspace render_panel: gateway depiction at /context/depictions${i.where} ignored (Indigo draws it): ${i.reason}`);
  }
  return read;
}

/**
 * A molecule grid given as a file's text, read into its `molecules` form
 * (`../panel/moleculeFile.ts`, loaded on first use with its parsers).
 */
async function resolveContent(content: PanelContent): Promise<PanelContent> {
  if (content.type !== 'molecules' || (content.file === undefined && content.molecules !== undefined)) {
    return content;
  }
  const [{ resolveMoleculeFile }, { molfilesToSmiles }] = await Promise.all([import('../panel/moleculeFile'), import('../panel/depictor')]);
  return resolveMoleculeFile(content, '/content', molfilesToSmiles);
}

/** @throws MolspaceError why no new panel can be opened for these arguments. */
function checkCreatable(registry: WidgetRegistry, args: RenderPanelInput): void {
  const named = args.panelId === undefined ? 'a new panel' : `panel "${args.panelId}"`;
  if (args.expectedRevision !== undefined) {
    throw new MolspaceError(
      'NOT_FOUND',
      `No ${named} to update at revision ${args.expectedRevision}: it does not exist.`,
      '/panelId',
      'Omit expectedRevision to open it, or pass the panelId of an open panel (observe lists them).',
      { panelId: args.panelId ?? null }
    );
  }
  if (args.placement === 'inline') {
    throw new MolspaceError(
      'NOT_FOUND',
      `No inline ${named} in this page; inline panels are displayed by a notebook cell.`,
      '/panelId',
      `Display one from a cell (${WIDGET_KIND_INFO.panel.display}) and pass its panelId, or use placement "docked".`,
      { panelId: args.panelId ?? null }
    );
  }
  if (panelHostOf(registry) === null) {
    throw new MolspaceError(
      'NOT_FOUND',
      'This page cannot dock panels (no JupyterLab main area).',
      '/placement',
      'Open JupyterLab, or update an inline panel by its panelId.',
      {}
    );
  }
  const docked = panels(registry).filter(p => p.placement === 'docked');
  if (docked.length >= LIMITS.dockedPanels) {
    throw new MolspaceError(
      'TOO_LARGE',
      `This page has ${docked.length} docked panels open, the limit (dockedPanels ${LIMITS.dockedPanels}).`,
      '/panelId',
      'Replace the content of an open panel by its panelId, or close one.',
      { limit: 'dockedPanels', max: LIMITS.dockedPanels, open: docked.map(p => p.panelId) }
    );
  }
}

function answer(output: RenderPanelOutput & { panel: PanelState }, summary: string): ToolResult {
  const text = `${summary} (revision ${output.panel.revision}).`;
  return { structuredContent: RENDER_PANEL_TOOL.output.parse(output), text, changes: output.changes, summary, images: [] };
}

/** A retry of an update a page applied without answering (reloaded meanwhile): the panel as it is now. */
function replayed(target: PanelTarget): ToolResult {
  const now = target.state();
  return answer(
    { panel: now, created: false, previousRevision: now.revision, changes: [], replayed: true },
    `render_panel: panel "${now.panelId}" was updated by a page that was reloaded before it answered`
  );
}

export const renderPanel: PageTool = {
  spec: RENDER_PANEL_TOOL,
  parse(rawArgs) {
    const parsed = RenderPanelInput.safeParse(rawArgs);
    if (!parsed.success) {
      throw invalidInput(RENDER_PANEL_TOOL.name, parsed.error);
    }
    const args = parsed.data;
    return {
      args,
      bind: registry => {
        const target = findPanel(registry, args);
        // An update of an existing panel keeps the synced record a cell's (inline) panel has
        // (`appliedActions`; docked panels are the page's own and have none): see `replayed`.
        return { target, run: env => run(args, target, env), ...(target ? { replay: () => replayed(target) } : {}) };
      }
    };
  }
};

/**
 * A new panel whose links act on a docked widget opens below the first such
 * widget (not as a tab over it), so the person sees the rows (or chart) and
 * what a click does at once. Otherwise: the default placement (a tab of the
 * molspace stack).
 */
function besideLinked(content: PanelContent): DockPlacement | undefined {
  for (const { link } of linksOf(content, '')) {
    const { id } = linkTarget(link);
    if (isDocked(id)) {
      return { mode: 'split-bottom', beside: id };
    }
  }
  return undefined;
}
