/**
 * `export`: a widget as a file under the Jupyter root (src/contract/export.ts).
 *
 * - A panel to `.md`/`.csv`/`.vl.json`: its content as file text, written here through
 *   JupyterLab's contents manager with the path rules of Story files
 *   (`../resources/workspaceFiles.ts`: FORBIDDEN for absolute, `~`, URL and `..` paths and for an
 *   existing file without `overwrite`; UNSUPPORTED_FORMAT at `/path` for another ending).
 * - A Viewer, Story or panel to `.html`: the page holds the widget's data, the gateway the App's
 *   script, so the page answers the widget's App `_meta` in `app` (the `AppStructure`,
 *   `AppStory` or `AppPanel` a cell's `to_html` writes) and the gateway writes the file
 *   (`molspace/gateway/server.py`, `ToolRoutes.export_html`). Only a call the gateway relays
 *   for that (`context.writesHtml`) is answered so; a Viewer of an MVS state has no file
 *   (UNSUPPORTED_FORMAT, as `Viewer.to_html`); data over a bridge frame is TOO_LARGE.
 * - A Viewer to `.mvsx` (`../viewer/viewerArchive.ts`: `index.mvsj` and the structure file; a
 *   Viewer of an MVS state: its state only, its data left at its URLs, which the answer names) or
 *   `.png` (its current frame, `screenshot` at the view's own size), written here as bytes.
 */
import {
  APP_PANEL_META,
  APP_STORY_META,
  APP_STRUCTURE_META,
  BINARY_STRUCTURE_FORMATS,
  EXPORT_TOOL,
  HTML_EXPORT_EXTENSION,
  LIMITS,
  MolspaceError,
  PANEL_EXPORT_EXTENSIONS,
  VIEWER_EXPORT_EXTENSIONS,
  type AppFile,
  type ExportKind,
  type ExportOutput,
  type PanelContent,
  type StructureFormat
} from '../contract';
import { checkStoryPath } from '../resources/workspaceFiles';
import { panelFileText } from '../panel/panelFile';
import type { PageTool, ToolEnv, ToolResult } from '../dispatcher/pageTool';
import { invalidInput } from '../dispatcher/invalidInput';
import type { PanelTarget } from '../panel/panelTarget';
import type { StoryTarget } from '../story/storyTarget';
import type { ViewerTarget } from '../viewer/viewerTarget';

type Exported = ViewerTarget | StoryTarget | PanelTarget;

/** Headroom for the rest of a bridge `result` frame around the App's data, bytes. */
const FRAME_HEADROOM = 64 * 1024;

/** An `AppFile`: text as UTF-8 unless `binary` or not UTF-8, else base64 (as `app_file_json` in Python). */
export function appFile(name: string, bytes: Uint8Array, binary: boolean): AppFile {
  if (!binary) {
    try {
      return { name, encoding: 'utf8', data: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
    } catch {
      // not UTF-8: base64
    }
  }
  let raw = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    raw += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return { name, encoding: 'base64', data: btoa(raw) };
}

function contentOf(target: PanelTarget): PanelContent {
  const state = target.state();
  const content = target.content();
  if (content === null || state.error !== null) {
    throw new MolspaceError(
      'VALIDATION_FAILED',
      `Panel "${state.panelId}" shows no valid content to export${state.error ? ` (${state.error.code}: ${state.error.message})` : ''}.`,
      '/target',
      'Give the panel valid content with render_panel first.',
      { panelId: state.panelId }
    );
  }
  return content;
}

/** The widget's App `_meta`: what the App draws, as a cell's `to_html` writes it. */
function appMeta(target: Exported): Record<string, unknown> {
  if (target.kind === 'panel') {
    const content = contentOf(target);
    return { [APP_PANEL_META]: { panelId: target.panelId, title: target.state().title, content } };
  }
  if (target.kind === 'story') {
    const source = target.sourceFile();
    const title = target.state().title || 'molspace Story';
    const file =
      'mvsx' in source ? appFile('story.mvsx', source.mvsx, true) : appFile('story.mvsj', new TextEncoder().encode(source.mvsj), false);
    return { [APP_STORY_META]: { format: 'mvsx' in source ? 'mvsx' : 'mvsj', file, title } };
  }
  const source = target.sourceFile();
  const state = target.state();
  if (source === null || state.error !== null) {
    throw new MolspaceError(
      state.error ? 'VALIDATION_FAILED' : 'UNSUPPORTED_FORMAT',
      state.error
        ? `Viewer "${target.targetId}" shows no structure to export (${state.error.code}: ${state.error.message}).`
        : 'This Viewer shows an MVS state, whose structure the page downloads: there is no file to export.',
      '/target',
      state.error
        ? 'Export a Viewer that shows its structure.'
        : 'Export a Viewer of a file, text or bytes (open {path} or molspace.Viewer(path)).',
      { target: target.targetId }
    );
  }
  const structure = {
    format: source.format,
    structure: appFile(source.name, source.bytes, BINARY_STRUCTURE_FORMATS.includes(source.format as StructureFormat)),
    coordinates: source.coordinates
      ? {
          format: source.coordinates.format,
          file: appFile(source.coordinates.name, source.coordinates.bytes, source.coordinates.format !== 'lammpstrj')
        }
      : null,
    title: state.title,
    view: target.view()
  };
  return { [APP_STRUCTURE_META]: structure };
}

function htmlAnswer(target: Exported, path: string, env: ToolEnv): ToolResult {
  if (env.context?.writesHtml !== true) {
    throw new MolspaceError(
      'UNSUPPORTED_FORMAT',
      'An .html export is written by the molspace gateway, which holds the App it carries; this call did not come through it.',
      '/path',
      "Ask through molspace's MCP endpoint, or from the widget's cell call its to_html method.",
      { path, source: env.source }
    );
  }
  const app = appMeta(target);
  const output: ExportOutput = {
    path,
    target: target.targetId,
    kind: target.kind,
    ...(target.kind === 'panel' ? { type: contentOf(target).type } : {}),
    bytes: 0,
    replaced: false,
    app
  };
  const json = JSON.stringify(output);
  const bytes = new TextEncoder().encode(json).length;
  const limit = LIMITS.bridgeFrameBytes - FRAME_HEADROOM;
  if (bytes > limit) {
    throw new MolspaceError(
      'TOO_LARGE',
      `The ${target.kind}'s data is ${bytes} bytes as JSON; the page sends the gateway at most ${limit}.`,
      '/target',
      "Export a smaller widget (fewer trajectory frames, rows or molecules), or call its to_html method in the widget's cell (up to 64 MiB).",
      { bytes, limit, target: target.targetId }
    );
  }
  const text = `export: ${target.kind} "${target.targetId}" sent to the gateway to write ${path}.`;
  return { structuredContent: EXPORT_TOOL.output.parse(output), text, changes: [], summary: text, images: [] };
}

async function fileAnswer(target: PanelTarget, path: string, overwrite: boolean, env: ToolEnv): Promise<ToolResult> {
  const content = contentOf(target);
  const checked = checkStoryPath(path, [PANEL_EXPORT_EXTENSIONS[content.type], HTML_EXPORT_EXTENSION]);
  const text = panelFileText(content);
  const replaced = await env.files.writeStoryFile(checked, text, overwrite);
  const bytes = new TextEncoder().encode(text).length;
  const output: ExportOutput = { path: checked, target: target.targetId, kind: 'panel', type: content.type, bytes, replaced };
  const line = `export: ${content.type} panel "${target.panelId}" written to ${checked} (${bytes} bytes${replaced ? ', replaced' : ''}).`;
  return { structuredContent: EXPORT_TOOL.output.parse(output), text: line, changes: [], summary: line, images: [] };
}

function isHtml(path: string): boolean {
  return path.toLowerCase().endsWith(HTML_EXPORT_EXTENSION);
}

/** `.mvsx` or `.png` when the path ends so (a Viewer's own forms), else null. */
function viewerEnding(path: string): (typeof VIEWER_EXPORT_EXTENSIONS)[number] | null {
  return VIEWER_EXPORT_EXTENSIONS.find(e => path.toLowerCase().endsWith(e)) ?? null;
}

function fromBase64(data: string): Uint8Array {
  const raw = atob(data);
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) {
    bytes[i] = raw.charCodeAt(i);
  }
  return bytes;
}

async function viewerFileAnswer(target: ViewerTarget, path: string, overwrite: boolean, env: ToolEnv): Promise<ToolResult> {
  const ending = viewerEnding(path);
  const checked = checkStoryPath(path, [...VIEWER_EXPORT_EXTENSIONS]);
  // refuse an existing file before drawing or zipping anything (writeStoryFile checks again)
  await env.files.checkOverwrite(checked, overwrite);
  let content: Uint8Array;
  let what: string;
  if (ending === '.png') {
    const shot = await target.screenshot({ format: 'png' });
    content = fromBase64(shot.data);
    what = `${shot.width}x${shot.height} PNG`;
  } else {
    // Loaded on use: the archive needs Mol*'s zip writer and MVS code, which JupyterLab's start must not load.
    const { viewerArchive } = await import('../viewer/viewerArchive');
    const archive = await viewerArchive(target);
    content = archive.bytes;
    what = archive.remote.length
      ? `MVS state; its data stays at ${archive.remote.join(', ')}: opening the archive downloads it`
      : `index.mvsj + ${archive.names.join(', ')}`;
  }
  const replaced = await env.files.writeStoryFile(checked, content, overwrite);
  const output: ExportOutput = { path: checked, target: target.targetId, kind: 'viewer', bytes: content.length, replaced };
  const line = `export: viewer "${target.targetId}" written to ${checked} (${what}; ${content.length} bytes${replaced ? ', replaced' : ''}).`;
  return { structuredContent: EXPORT_TOOL.output.parse(output), text: line, changes: [], summary: line, images: [] };
}

/** The kinds a path exports: `.html` any of them; `.mvsx`/`.png` a Viewer; another ending a panel's content. */
function kindsFor(path: string): readonly ExportKind[] {
  return isHtml(path) ? ['viewer', 'story', 'panel'] : viewerEnding(path) ? ['viewer'] : ['panel'];
}

/** The endings a widget kind exports to. */
function endingsOf(kind: ExportKind): string[] {
  return kind === 'viewer'
    ? [HTML_EXPORT_EXTENSION, ...VIEWER_EXPORT_EXTENSIONS]
    : kind === 'story'
      ? [HTML_EXPORT_EXTENSION]
      : [...new Set(Object.values(PANEL_EXPORT_EXTENSIONS)), HTML_EXPORT_EXTENSION];
}

export const exportWidget: PageTool = {
  spec: EXPORT_TOOL,
  parse(rawArgs) {
    const parsed = EXPORT_TOOL.input.safeParse(rawArgs);
    if (!parsed.success) {
      throw invalidInput(EXPORT_TOOL.name, parsed.error);
    }
    const args = parsed.data;
    return {
      args,
      bind: registry => {
        const html = isHtml(args.path);
        const kinds = kindsFor(args.path);
        const any = html || args.target === undefined ? null : registry.find(args.target);
        if (any && (any.kind === 'viewer' || any.kind === 'story' || any.kind === 'panel') && !kinds.includes(any.kind)) {
          const extensions = endingsOf(any.kind);
          throw new MolspaceError(
            'UNSUPPORTED_FORMAT',
            `A ${any.kind} exports as ${extensions.join(', ')}; "${args.path}" ends with none of them.`,
            '/path',
            `Name the file with one of ${extensions.join(', ')}${any.kind === 'panel' ? ' (.md, .csv or .vl.json by its type)' : ''}.`,
            { path: args.path, kind: any.kind, extensions }
          );
        }
        const target: Exported = registry.getOf(args.target, kinds);
        return {
          target,
          run: async env => {
            if (target.kind === 'viewer' && !html) {
              return viewerFileAnswer(target, args.path, args.overwrite, env);
            }
            if (!html) {
              return fileAnswer(target as PanelTarget, args.path, args.overwrite, env);
            }
            const path = checkStoryPath(args.path, [HTML_EXPORT_EXTENSION]);
            return htmlAnswer(target, path, env);
          }
        };
      }
    };
  }
};
