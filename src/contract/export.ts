/**
 * `export`: write a widget as a file under the Jupyter root (docs/architecture.md, "Export").
 * The path's ending picks the form:
 *
 * - `.html`, any Viewer, Story or panel: one offline file, the same file a cell's `to_html`
 *   writes (`molspace/app/export.py`). The page answers with the widget's App `_meta`
 *   ({@link ExportOutput}'s `app`: `AppStructure`, `AppStory` or `AppPanel` of `./app.ts`); the
 *   gateway, which holds the App's script, writes the file with it and answers the model with
 *   the path and size only. So only a call relayed by the gateway (`CallContext.writesHtml`)
 *   exports `.html`; a cell has `to_html`.
 * - `.mvsx`, `.png`, a Viewer: its view as a MolViewSpec archive (`index.mvsj` and its structure
 *   file, `src/viewer/viewerArchive.ts`), its current frame as a PNG (`act`'s screenshot), written
 *   by the page through JupyterLab's contents manager.
 * - a panel's content as the page writes it through JupyterLab's contents manager: markdown →
 *   `.md`, table → `.csv`, Vega-Lite chart → `.vl.json`, molecule grid → `.csv` (name, smiles,
 *   properties).
 *
 * Path rules are those of Story files (`checkStoryPath`; the gateway applies the same to `.html`).
 */
import { z } from 'zod';
import type { PanelType } from './panel';
import type { ToolSpec } from './toolSpec';

/** The file name ending each panel type exports to (besides `.html`). */
export const PANEL_EXPORT_EXTENSIONS: Readonly<Record<PanelType, string>> = {
  markdown: '.md',
  table: '.csv',
  chart: '.vl.json',
  molecules: '.csv'
};

/** The ending of the one offline file of a Viewer, Story or panel. */
export const HTML_EXPORT_EXTENSION = '.html';

/** A Viewer's own endings besides `.html`: its view as a MolViewSpec archive, its frame as an image. */
export const VIEWER_EXPORT_EXTENSIONS = ['.mvsx', '.png'] as const;

/** The widget kinds `export` writes. */
export const ExportKind = z.enum(['viewer', 'story', 'panel']);
export type ExportKind = z.infer<typeof ExportKind>;

export const ExportInput = z
  .object({
    pageId: z.string().min(1).optional().describe('Page to run in; default: the most recently focused page.'),
    target: z
      .string()
      .min(1)
      .optional()
      .describe('Viewer, Story or panel id; default: the most recent panel (.html: Viewer, Story or panel).'),
    path: z.string().min(1).max(1024).describe('Under the root; its ending picks the form.'),
    overwrite: z.boolean().default(false).describe('Replace an existing file.')
  })
  .strict();
export type ExportInput = z.infer<typeof ExportInput>;

export const ExportOutput = z.object({
  path: z.string(),
  target: z.string(),
  kind: ExportKind,
  /** A panel's content type. */
  type: z.enum(['markdown', 'table', 'chart', 'molecules']).optional(),
  bytes: z.number().int().min(0),
  replaced: z.boolean(),
  /**
   * `.html` only, page → gateway: the App's `_meta` the gateway writes into the file (`bytes` and
   * `replaced` are then the gateway's). The gateway takes it out: an agent never receives it.
   */
  app: z.record(z.string(), z.unknown()).optional()
});
export type ExportOutput = z.infer<typeof ExportOutput>;

export const EXPORT_TOOL: ToolSpec<typeof ExportInput, typeof ExportOutput, null> = {
  name: 'export',
  description: "Write a Viewer, Story or panel under the root: .html (offline), a Viewer's .mvsx/.png, a panel's .md/.csv/.vl.json.",
  guide:
    'Write a widget as a file under the Jupyter root; the ending picks the form. .html: any Viewer, Story or ' +
    'panel as one file that opens anywhere offline (Mol*, the data and the controls inline), as to_html writes ' +
    'from a cell; written by the gateway (a Viewer of an MVS state has no file: UNSUPPORTED_FORMAT). A Viewer ' +
    "also as .mvsx (its view and structure file; an MVS state's data stays at its URLs) or .png (its frame). A panel " +
    'also as markdown .md, table .csv, chart .vl.json, molecule grid .csv. Default target: the most recent ' +
    'panel; with .html, the most recent Viewer, Story or panel; with .mvsx/.png, Viewer. No "..", absolute paths or overwriting unless overwrite. ' +
    'Answers the path and size, never the data.',
  examples: [
    { path: 'reports/results.csv' },
    { target: 'viewer-1', path: 'share/protease.html' },
    { path: 'share/tour.html', overwrite: true }
  ],
  runs: 'page',
  input: ExportInput,
  output: ExportOutput,
  annotations: {
    title: 'Export a widget',
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false
  },
  target: null,
  mutating: false,
  errors: ['NOT_FOUND', 'STALE_TARGET', 'FORBIDDEN', 'UNSUPPORTED_FORMAT', 'VALIDATION_FAILED', 'TOO_LARGE']
};
