/**
 * `panel_export`: write a panel's content as a file under the Jupyter root
 * through JupyterLab's contents manager, with the path rules of Story files
 * (docs/architecture.md, "Report panels"): markdown → `.md`, table → `.csv`,
 * Vega-Lite chart → `.vl.json`, molecule grid → `.csv` (name, smiles,
 * properties).
 */
import { z } from 'zod';
import type { PanelType } from './panel';
import type { ToolSpec } from './toolSpec';

/** The file name ending each panel type exports to. */
export const PANEL_EXPORT_EXTENSIONS: Readonly<Record<PanelType, string>> = {
  markdown: '.md',
  table: '.csv',
  chart: '.vl.json',
  molecules: '.csv'
};

export const PanelExportInput = z
  .object({
    pageId: z.string().min(1).optional().describe('Page to run in; default: the most recently focused page.'),
    target: z.string().min(1).optional().describe("Panel widget id (a docked panel's is its panelId); default: the most recent panel."),
    path: z.string().min(1).max(1024).describe('File under the Jupyter root: .md, .csv, .vl.json by panel type.'),
    overwrite: z.boolean().default(false).describe('Replace an existing file.')
  })
  .strict();
export type PanelExportInput = z.infer<typeof PanelExportInput>;

export const PanelExportOutput = z.object({
  path: z.string(),
  panelId: z.string(),
  type: z.enum(['markdown', 'table', 'chart', 'molecules']),
  bytes: z.number().int().min(0),
  replaced: z.boolean()
});
export type PanelExportOutput = z.infer<typeof PanelExportOutput>;

export const PANEL_EXPORT_TOOL: ToolSpec<typeof PanelExportInput, typeof PanelExportOutput, 'panel'> = {
  name: 'panel_export',
  description: "Write a panel's content as a file under the root (.md, .csv or .vl.json).",
  guide:
    "Write a panel's content as a file under the Jupyter root (markdown .md, table .csv, chart .vl.json, " +
    'molecule grid .csv). No "..", absolute paths or overwriting unless overwrite.',
  runs: 'page',
  input: PanelExportInput,
  output: PanelExportOutput,
  annotations: {
    title: 'Export a report panel',
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false
  },
  target: 'panel',
  mutating: false,
  errors: ['NOT_FOUND', 'STALE_TARGET', 'FORBIDDEN', 'UNSUPPORTED_FORMAT', 'VALIDATION_FAILED']
};
