/**
 * The molspace MCP App: the Viewer shown inside an agent's chat by a host that
 * renders MCP Apps (extension `io.modelcontextprotocol/ui`, spec 2026-01-26).
 *
 * The gateway declares the extension, serves the `ui://` resources (the App's
 * HTML loader and the script parts it reads back through the host), and, for a
 * tool with an App (`ToolSpec.app`), carries the structure the App draws in the
 * result's `_meta` under {@link APP_STRUCTURE_META}: the model reads only the
 * bounded `structuredContent` and text (docs/architecture.md, "MCP App").
 */
import { z } from 'zod';

/** The MCP Apps extension identifier (client and server `capabilities.extensions`). */
export const APP_EXTENSION = 'io.modelcontextprotocol/ui';
/** The MIME type of an App's HTML resource. */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';
/** The Viewer App: a structure from a tool result, drawn by Mol*. */
export const VIEWER_APP_URI = 'ui://molspace/viewer';
/** The Panel App: a report panel (markdown, table, chart, molecule grid) from a `render_panel` result. */
export const PANEL_APP_URI = 'ui://molspace/panel';
/** Prefix of the App's script parts, read by its loader through the host (`resources/read`). */
export const APP_PART_PREFIX = 'ui://molspace/app/';
/** The result `_meta` key that carries the structure for the App (never read by the model). */
export const APP_STRUCTURE_META = 'molspace/structure';
/** The result `_meta` key that carries a Story file for the App (never read by the model). */
export const APP_STORY_META = 'molspace/story';
/** The result `_meta` key that carries a molecule's depiction (SVG drawn by the server) for the App. */
export const APP_DEPICTION_META = 'molspace/depiction';

/** The result `_meta` key that carries a report panel for the Panel App (never read by the model). */
export const APP_PANEL_META = 'molspace/panel';

/** One file the App draws: text as UTF-8, binary as base64. */
export const AppFile = z.object({
  name: z.string().describe('File name (a path under the Jupyter root, or a title), for errors.'),
  encoding: z.enum(['utf8', 'base64']),
  data: z.string()
});
export type AppFile = z.infer<typeof AppFile>;

/**
 * A PDB entry the App downloads itself (`open {pdbId}`): from the mirror's URL (`PDB_MIRRORS`,
 * src/viewer/pdbDownload.ts), which the App's CSP allows (`connectDomains`); the server sends no bytes.
 */
export const AppDownload = z.object({
  pdbId: z.string().regex(/^[0-9][A-Za-z0-9]{3}$/),
  /** A `PdbMirror` (checked by the App). */
  mirror: z.string()
});
export type AppDownload = z.infer<typeof AppDownload>;

/** `_meta["molspace/structure"]` of a tool result: what the Viewer App draws: a file sent, or a PDB entry to download. */
export const AppStructure = z.object({
  /** A `StructureFormat` (checked by the App: this file imports nothing of the Viewer contract). */
  format: z.string(),
  /** The file; absent exactly when `download` is given. */
  structure: AppFile.optional(),
  download: AppDownload.optional(),
  /** A trajectory's coordinates: `format` is a `CoordinatesFormat`. */
  coordinates: z.object({ format: z.string(), file: AppFile }).nullable(),
  title: z.string(),
  /** A Viewer's view state (`ViewerViewState`: layers, colours, labels, measurements, camera), checked by the App; absent: the initial view. */
  view: z.record(z.string(), z.unknown()).nullable().optional()
});
export type AppStructure = z.infer<typeof AppStructure>;

/** `_meta["molspace/story"]` of a tool result: a Story file the App plays, its steps stepped in the App. */
export const AppStory = z.object({
  format: z.enum(['mvsj', 'mvsx']),
  file: AppFile,
  title: z.string()
});
export type AppStory = z.infer<typeof AppStory>;

/**
 * `_meta["molspace/depiction"]` of a tool result: a molecule drawn by the server (RDKit, SVG), shown
 * where Ketcher cannot run (its engine is WebAssembly, which the MCP Apps default CSP blocks).
 */
export const AppDepiction = z.object({
  svg: z.string(),
  smiles: z.string(),
  formula: z.string(),
  atoms: z.number().int().nonnegative(),
  title: z.string()
});
export type AppDepiction = z.infer<typeof AppDepiction>;

/**
 * `_meta["molspace/panel"]` of a `render_panel` result: the panel the Panel App renders with the
 * notebook's renderer (`src/panel/panelRenderer.ts`). `content` is a `PanelContent`, checked by the
 * App (`checkPanelBounds` of `src/panel/panelContent.ts`, called by `src/app/appPanel.ts`; this file imports nothing of the panel contract); `depictions` are the
 * server's RDKit SVGs of a grid's molecules by SMILES (`GridDepictions`), absent where none were drawn.
 */
export const AppPanel = z.object({
  panelId: z.string(),
  title: z.string(),
  content: z.record(z.string(), z.unknown()),
  depictions: z.record(z.string(), z.string()).optional(),
  /** Why some molecules of a grid have no depiction (the server's words), if any. */
  note: z.string().optional(),
  /**
   * Where the App reads this panel's latest version (`resources/read`), and the gateway's count
   * when it was kept (it grows with every panel kept); absent in an exported file.
   */
  follow: z.object({ uri: z.string(), seq: z.number().int() }).optional()
});
export type AppPanel = z.infer<typeof AppPanel>;
