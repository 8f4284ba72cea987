/**
 * Links of report panels (docs/architecture.md, "Report panels"): a table
 * row or grid cell carrying a `PanelLink` gets a button, a chart mark drawn
 * from a linked data value is clickable (`./chartLinks.ts`); a click runs
 * `act` `{op: "focus", selector}` or `{op: "goto_frame", frame}` on the named
 * Viewer or `story_control` `goto` on the named Story through the page's
 * Dispatcher, source `ui`, like any other operation (so the activity panel,
 * the change log and the kernel see it). A refusal (the widget is gone:
 * STALE_TARGET / NOT_FOUND; a selector that matches nothing; a frame out of
 * range; an unknown step) comes back as a located error for the panel to
 * show, re-located under the link's pointer.
 */
import { MolspaceError, type LocatedError, type PanelLink } from '../contract';
import type { IMolspacePage } from '../tokens';
import { revealDocked } from '../dockPlacement';

/**
 * Follow `link` (at JSON pointer `where` of the panel content).
 *
 * @returns null once the Dispatcher applied it, else the located error to show.
 */
export type FollowLink = (link: PanelLink, where: string) => Promise<LocatedError | null>;

/** Make the button of the link at `where` (null: links are not followed here). */
export type LinkButton = (link: PanelLink, where: string) => HTMLElement | null;

/** The tool call a link makes: the Dispatcher's arguments. */
export function linkCall(link: PanelLink): { tool: 'act' | 'story_control'; args: Record<string, unknown> } {
  switch (link.op) {
    case 'focus':
      return { tool: 'act', args: { target: link.viewer, actions: [{ op: 'focus', selector: link.selector }] } };
    case 'goto_frame':
      return { tool: 'act', args: { target: link.viewer, actions: [{ op: 'goto_frame', frame: link.frame }] } };
    case 'goto':
      return { tool: 'story_control', args: { target: link.story, action: 'goto', key: link.key } };
  }
}

/** A one-line label of the button of `link`. */
export function linkLabel(link: PanelLink): string {
  switch (link.op) {
    case 'focus':
      return 'Focus';
    case 'goto_frame':
      return `Frame ${link.frame}`;
    case 'goto':
      return `Go to ${link.key}`;
  }
}

/** The button's tooltip: what a click does, and where. */
export function linkTitle(link: PanelLink): string {
  switch (link.op) {
    case 'focus':
      return `Focus ${JSON.stringify(link.selector)} in Viewer ${link.viewer}`;
    case 'goto_frame':
      return `Go to frame ${link.frame} of Viewer ${link.viewer}`;
    case 'goto':
      return `Go to step "${link.key}" of Story ${link.story}`;
  }
}

/** The fields of a link an error can name: its own value fields, then its target's. */
const VALUE_FIELDS = ['selector', 'frame', 'key'] as const;

/**
 * A dispatcher error re-located for the panel: `where` becomes the link's
 * pointer plus the field the error names (`/target` → `/viewer` or `/story`,
 * `/actions/0/selector` → `/selector`, `/actions/0/frame` → `/frame`,
 * `/key`); the tool's own location stays in `details.toolWhere`.
 */
export function linkError(e: unknown, link: PanelLink, where: string): LocatedError {
  const error = MolspaceError.from(e, 'panel link').toJSON();
  const named = VALUE_FIELDS.find(f => f in link && error.where.endsWith(`/${f}`));
  const field = named ?? (link.op === 'goto' ? 'story' : 'viewer');
  const what = link.op === 'goto' ? `Story ${link.story}` : `Viewer ${link.viewer}`;
  return {
    ...error,
    message: `This link's ${what}: ${error.message}`,
    where: `${where}/${field}`,
    details: { ...error.details, toolWhere: error.where, tool: linkCall(link).tool }
  };
}

/** The page's link follower: every click is one Dispatcher call, source `ui`. */
export function linkFollower(page: Pick<IMolspacePage, 'dispatcher'>): FollowLink {
  return async (link, where) => {
    const { tool, args } = linkCall(link);
    revealDocked(String(args.target)); // a docked target behind another tab comes to the front
    try {
      await page.dispatcher.execute(tool, args, { source: 'ui' });
      return null;
    } catch (e) {
      return linkError(e, link, where);
    }
  };
}
