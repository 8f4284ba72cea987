/**
 * Report panels: one bounded artifact (markdown, a table or a Vega-Lite
 * chart) shown docked in JupyterLab's main area (a page-owned panel) or
 * inline in a notebook (the `molspace.Panel` widget), addressed by a panel
 * id (docs/architecture.md, "Report panels").
 *
 * The schemas here carry the shape; the bounds (`LIMITS.panel*`) and the
 * Vega-Lite schema are checked by the page (`src/panel/panelContent.ts`),
 * which answers TOO_LARGE naming the limit or VALIDATION_FAILED at the bad
 * property.
 */
import { z } from 'zod';
import { LocatedError } from './errors';
import { LIMITS } from './limits';
import { dock } from './toolArgs';
import { ChangeEntry } from './story';
import type { ToolSpec } from './toolSpec';
import { ComponentSelector } from './viewer';
import { PANEL_APP_URI } from './app';

/** Markdown, rendered by JupyterLab's rendermime with its sanitizer (untrusted). */
export const MarkdownContent = z
  .object({
    type: z.literal('markdown'),
    markdown: z.string().describe(`Markdown text, at most ${LIMITS.panelMarkdownChars} characters.`)
  })
  .strict();

/** The type of a table column's cells. */
export const ColumnType = z.enum(['string', 'number', 'integer', 'boolean']);
export type ColumnType = z.infer<typeof ColumnType>;

export const TableColumn = z
  .object({
    name: z.string().min(1).max(200),
    type: ColumnType.default('string'),
    unit: z.string().max(40).optional().describe('Unit of the values, e.g. "kcal/mol".')
  })
  .strict();
export type TableColumn = z.infer<typeof TableColumn>;

/** One cell: a value of its column's type, or null (missing). */
export const TableCell = z.union([z.string(), z.number(), z.boolean(), z.null()]);
export type TableCell = z.infer<typeof TableCell>;

/** A widget id (as `observe` lists it) a link acts on. */
const LinkTarget = z.string().min(1).max(128);

/**
 * What a click on a table row, grid cell or chart mark does, through the
 * Dispatcher as a `ui` call: `act` `{op: "focus", selector}` or
 * `{op: "goto_frame", frame}` on a Viewer, or `story_control` `goto` `key` on
 * a Story (docs/architecture.md, "Report panels").
 */
export const PanelLink = z
  .discriminatedUnion('op', [
    z.object({ op: z.literal('focus'), viewer: LinkTarget.describe('Viewer widget id.'), selector: ComponentSelector }).strict(),
    z
      .object({
        op: z.literal('goto'),
        story: LinkTarget.describe('Story widget id.'),
        key: z.string().min(1).max(200).describe('Snapshot key.')
      })
      .strict(),
    z
      .object({
        op: z.literal('goto_frame'),
        viewer: LinkTarget.describe('Viewer widget id.'),
        frame: z.number().int().min(0).describe('0-based.')
      })
      .strict()
  ])
  .describe('Click: focus selector or go to frame in a Viewer, or go to a Story step.');
export type PanelLink = z.infer<typeof PanelLink>;

/** Links by index: a table's rows, a chart's `spec.data.values` items (one schema, so tools/list folds them to one). */
const PanelLinks = z.array(PanelLink.nullable()).optional().describe('Per row (chart: per data.values item) by index; null: none.');

/** A table: typed columns, rows of cells in column order. */
export const TableContent = z
  .object({
    type: z.literal('table'),
    columns: z.array(TableColumn).min(1),
    rows: z
      .array(z.array(TableCell))
      .describe(`Cells in column order; at most ${LIMITS.panelTableRows} rows, ${LIMITS.panelTableCells} cells.`),
    links: PanelLinks
  })
  .strict();

/**
 * A Vega-Lite v5 chart with inline, bounded data; `links[i]` is followed by a
 * click on a mark drawn from `spec.data.values[i]`.
 */
export const ChartContent = z
  .object({
    type: z.literal('chart'),
    spec: z
      .record(z.string(), z.unknown())
      .describe(`Vega-Lite v5 spec, data inline (data.values, at most ${LIMITS.panelChartDataValues}).`),
    links: PanelLinks
  })
  .strict();

/** One molecule of a grid: a SMILES, an optional name and text/number properties. */
export const GridMolecule = z
  .object({
    smiles: z.string().min(1).describe(`SMILES, at most ${LIMITS.panelSmilesChars} characters.`),
    name: z.string().max(200).optional(),
    properties: z
      .record(z.string().min(1).max(200), z.union([z.string(), z.number()]))
      .optional()
      .describe(`Shown as text; at most ${LIMITS.panelMoleculeProperties}, each value at most ${LIMITS.panelCellChars} characters.`),
    link: PanelLink.optional()
  })
  .strict();
export type GridMolecule = z.infer<typeof GridMolecule>;

/**
 * Molecules as a file's text: SDF (data fields → properties, title line →
 * name) or CSV/TSV with a SMILES column (other columns → properties). The
 * page reads it into `molecules` (docs/architecture.md, "Report panels").
 */
export const MoleculeFile = z
  .object({
    format: z.enum(['sdf', 'csv', 'tsv']),
    text: z.string().min(1).describe(`At most ${LIMITS.panelMoleculeFileBytes} bytes.`),
    smilesColumn: z.string().min(1).max(200).optional().describe('CSV/TSV: default the column named smiles (any case).'),
    nameColumn: z.string().min(1).max(200).optional().describe('Default: a column named name (any case); SDF: the title line.')
  })
  .strict();
export type MoleculeFile = z.infer<typeof MoleculeFile>;

/** A paged grid of 2D depictions (drawn by Indigo) with their properties. */
export const MoleculesContent = z
  .object({
    type: z.literal('molecules'),
    molecules: z.array(GridMolecule).optional().describe(`At most ${LIMITS.panelMolecules} molecules (over: TOO_LARGE); or file.`),
    file: MoleculeFile.optional(),
    pageSize: z.number().int().min(1).max(LIMITS.panelMoleculePageSize).optional().describe('Molecules per page; default 24.')
  })
  .strict();

/**
 * SVG depictions of a grid's molecules by SMILES that a kernel with RDKit
 * sends beside the content (the inline Panel's `_depictions`; not a tool
 * argument), so the first page shows without Indigo. Bounded by
 * `LIMITS.panelDepictionChars` each and `panelDepictionsChars` together; the
 * page shows each as an image (never inline SVG) and ignores one that is not
 * an SVG, which Indigo then draws (src/panel/givenDepictions.ts).
 */
export const GridDepictions = z.record(z.string().min(1).max(LIMITS.panelSmilesChars), z.string());
export type GridDepictions = z.infer<typeof GridDepictions>;

export const PanelContent = z.discriminatedUnion('type', [MarkdownContent, TableContent, ChartContent, MoleculesContent]);
export type PanelContent = z.infer<typeof PanelContent>;
export type MarkdownContent = z.infer<typeof MarkdownContent>;
export type TableContent = z.infer<typeof TableContent>;
export type ChartContent = z.infer<typeof ChartContent>;
export type MoleculesContent = z.infer<typeof MoleculesContent>;
export type PanelType = PanelContent['type'];

/** Where a panel shows: docked in the main area (page-owned) or inline in a notebook (a widget). */
export const PanelPlacement = z.enum(['docked', 'inline']);
export type PanelPlacement = z.infer<typeof PanelPlacement>;

/** A panel id: letters, digits, `_`, `-`, `.`. */
export const PanelId = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,64}$/)
  .describe('Panel id: 1-64 of A-Z a-z 0-9 _ . -');

/** The state of one panel, as `observe`, `render_panel` and the kernel see it. */
export const PanelState = z.object({
  target: z.string().describe('Widget id (observe lists it).'),
  kind: z.literal('panel'),
  panelId: z.string(),
  title: z.string(),
  placement: PanelPlacement,
  type: z.enum(['markdown', 'table', 'chart', 'molecules']),
  ready: z.boolean().describe('True once the content is rendered.'),
  revision: z.number().int().min(0),
  error: LocatedError.nullable()
});
export type PanelState = z.infer<typeof PanelState>;

/** The fields of one panel update, without `pageId`, `target`, `panelId`, `placement`: also the kernel's `control` message. */
export const PANEL_UPDATE_FIELDS = {
  title: z.string().max(LIMITS.panelTitleChars).optional().describe('Panel title; default: kept, or the type.'),
  content: PanelContent,
  expectedRevision: z.number().int().min(0).optional().describe('Fail with REVISION_CONFLICT unless the panel is at this revision.'),
  actionId: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .describe('Idempotency key: a retried actionId returns the first result without applying again.')
};

export const RenderPanelInput = z
  .object({
    pageId: z.string().min(1).optional().describe('Page to run in; default: the most recently focused page.'),
    target: z.string().min(1).optional().describe('Widget id of an existing panel (from observe).'),
    panelId: PanelId.optional().describe('Panel to create or replace; default: a new id.'),
    placement: PanelPlacement.optional().describe('New panels are docked; inline ones come from cells.'),
    dock,
    ...PANEL_UPDATE_FIELDS
  })
  .strict();
export type RenderPanelInput = z.infer<typeof RenderPanelInput>;

export const RenderPanelOutput = z.object({
  panel: PanelState.optional().describe("JupyterLab's panel (absent: no page is open, shown only in the MCP App)."),
  created: z.boolean().describe('True when this call opened a new panel.'),
  previousRevision: z.number().int().nullable(),
  changes: z.array(ChangeEntry),
  replayed: z.boolean().describe('True when an earlier call with this actionId was returned.'),
  app: z
    .object({
      resourceUri: z.string(),
      panelId: z.string(),
      title: z.string(),
      type: z.enum(['markdown', 'table', 'chart', 'molecules']),
      depicted: z.number().int().nonnegative().optional().describe('Molecules drawn by the server (a grid).')
    })
    .optional()
    .describe('No JupyterLab page is open: rendered only in the MCP App (src/contract/app.ts), from this result.')
});
export type RenderPanelOutput = z.infer<typeof RenderPanelOutput>;

export const RENDER_PANEL_TOOL: ToolSpec<typeof RenderPanelInput, typeof RenderPanelOutput, 'panel'> = {
  name: 'render_panel',
  description: 'Show markdown, a table, a Vega-Lite chart or a molecule grid in a docked panel, or replace one by panelId.',
  guide:
    'Show one bounded artifact (markdown, table, Vega-Lite chart with inline data, or a molecule grid from SMILES, SDF, CSV or TSV) in a ' +
    `panel docked in JupyterLab (at most ${LIMITS.dockedPanels} per page), or replace the ` +
    "content of a panel by panelId/target (docked or a cell's inline one). Rendered by " +
    "JupyterLab's sanitizing rendermime; no script runs. Table rows, grid cells and chart marks may link to a " +
    'Viewer selection or frame, or a Story step. Returns once rendered.',
  examples: [
    { panelId: 'notes', content: { type: 'markdown', markdown: '## Findings\nThe ligand sits in the **S1** pocket.' } },
    {
      panelId: 'contacts',
      title: 'Contacts',
      content: {
        type: 'table',
        columns: [{ name: 'residue' }, { name: 'distance', type: 'number', unit: 'Å' }],
        rows: [
          ['ASP 25', 2.9],
          ['GLY 27', 3.4]
        ],
        links: [
          { op: 'focus', viewer: '<viewer id from observe>', selector: { auth_asym_id: 'A', auth_seq_id: 25 } },
          { op: 'goto', story: '<story id from observe>', key: 'binding-site' }
        ]
      }
    },
    {
      content: {
        type: 'chart',
        spec: {
          $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
          data: {
            values: [
              { frame: 0, rmsd: 0 },
              { frame: 1, rmsd: 1.5 }
            ]
          },
          mark: { type: 'line', point: true },
          encoding: { x: { field: 'frame', type: 'quantitative' }, y: { field: 'rmsd', type: 'quantitative' } }
        },
        links: [null, { op: 'goto_frame', viewer: '<viewer id from observe>', frame: 1 }]
      }
    },
    { content: { type: 'molecules', molecules: [{ smiles: 'c1ccccc1O', name: 'phenol', properties: { score: -7.1 } }] } },
    { content: { type: 'molecules', file: { format: 'csv', text: 'smiles,name\nCCO,ethanol' } } }
  ],
  runs: 'page',
  app: PANEL_APP_URI,
  input: RenderPanelInput,
  output: RenderPanelOutput,
  annotations: {
    title: 'Render a report panel',
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false
  },
  target: 'panel',
  mutating: true,
  errors: ['NOT_FOUND', 'STALE_TARGET', 'REVISION_CONFLICT', 'VALIDATION_FAILED', 'UNSUPPORTED_FORMAT', 'TOO_LARGE']
};
