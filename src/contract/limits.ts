/**
 * Every limit the page, the kernel and the gateway share, in one object.
 *
 * The build emits it as `limits` in `molspace/contract/manifest.json`, so the
 * Python side (kernel `molspace.Story`, the MCP gateway) reads the same
 * numbers instead of keeping its own copies.
 */
export const LIMITS = {
  /**
   * Largest Story source, bytes: MVSJ text (UTF-8), an MVSX archive, and each
   * file unpacked from one. 50 MiB. Beyond it: `TOO_LARGE`.
   */
  storySourceBytes: 50 * 1024 * 1024,
  /** Most snapshots in one Story. Beyond it: `VALIDATION_FAILED`. */
  storySnapshots: 1000,
  /** Longest snapshot description in a Story source, characters. Beyond it: `VALIDATION_FAILED`. */
  storySourceDescriptionChars: 50_000,
  /** Largest text frame on the page <-> gateway bridge websocket, bytes. 16 MiB. */
  bridgeFrameBytes: 16 * 1024 * 1024,
  /** Characters of a snapshot description carried in Story state (longer ones are cut with "…"). */
  descriptionChars: 2000,
  /** Most snapshots listed by one `story_observe` call. */
  maxSnapshotsPerPage: 200,
  /** Snapshots listed by `story_observe` when `limit` is not given. */
  defaultSnapshotsPerPage: 50,
  /** Most widgets listed by one `observe` call. */
  maxWidgetsPerPage: 200,
  /** Widgets listed by `observe` when `limit` is not given. */
  defaultWidgetsPerPage: 50,
  /** Default output budget of observe tools, bytes of structured content. */
  observeOutputBytes: 8192,
  /**
   * Entries of the page's activity log (oldest dropped first), and so the most
   * reads one bridge `served` frame lists: older ones would be dropped at once.
   */
  activityEntries: 500,
  /** How long the gateway gathers mirrored reads before one `served` frame tells the page, ms. */
  servedReadsBatchMs: 100,
  /**
   * Results the gateway keeps to replay a retried `actionId` (gateway/replay.py), bytes of compact
   * JSON, beside its 1,000 actionIds: the oldest are forgotten first beyond it (a retry of one is
   * applied again). 8 MiB: an `act` result carries the Viewer's view (up to `viewerViewBytes`), a
   * screenshot its image.
   */
  replayRecordBytes: 8 * 1024 * 1024,
  /** Most pages `status` lists (default route first); `pageCount` says how many are connected. */
  statusPagesListed: 20,
  /** Longest markdown of one panel, characters. Beyond it: `TOO_LARGE`. */
  panelMarkdownChars: 100_000,
  /** Most rows of one table panel. Beyond it: `TOO_LARGE` (nothing is cut). */
  panelTableRows: 10_000,
  /** Most columns of one table panel. Beyond it: `TOO_LARGE`. */
  panelTableColumns: 100,
  /** Most cells (rows × columns) of one table panel. Beyond it: `TOO_LARGE`. */
  panelTableCells: 200_000,
  /** Longest text of one table cell, characters. Beyond it: `TOO_LARGE`. */
  panelCellChars: 2000,
  /** Largest Vega-Lite spec of one chart panel, bytes of JSON. Beyond it: `TOO_LARGE`. */
  panelChartSpecBytes: 1024 * 1024,
  /** Most inline data values (rows across all `data.values`) of one chart. Beyond it: `TOO_LARGE`. */
  panelChartDataValues: 5000,
  /** Longest panel title, characters. */
  panelTitleChars: 200,
  /** Most molecules of one molecule-grid panel. Beyond it: `TOO_LARGE` (nothing is cut). */
  panelMolecules: 500,
  /** Longest SMILES of one grid molecule, characters. Beyond it: `TOO_LARGE`. */
  panelSmilesChars: 2000,
  /** Most properties of one grid molecule. Beyond it: `TOO_LARGE`. */
  panelMoleculeProperties: 20,
  /** Most molecules on one page of a molecule grid (`pageSize`'s maximum; default 24). */
  panelMoleculePageSize: 100,
  /**
   * Largest SVG depiction a kernel with RDKit sends beside a grid (a Panel's
   * `_depictions`), characters; a larger one is ignored and Indigo draws it.
   */
  panelDepictionChars: 64 * 1024,
  /** Most characters of a grid's kernel depictions together (the kernel stops adding there; beyond: all ignored). */
  panelDepictionsChars: 1024 * 1024,
  /** Most docked panels open in one page. Beyond it: `TOO_LARGE` (close one or update one by panelId). */
  dockedPanels: 8,
  /** Steps listed by `story_validate` / `story_create` results. */
  authoringStepsListed: 50,
  /** Issues listed by `story_validate` (all are counted in `issueCount`). */
  authoringIssuesListed: 100,
  /** Longest value of one template variable when its template declares none, characters. */
  templateValueChars: 2000,
  /** Largest structure a Viewer loads (file, bytes or text), bytes. 100 MiB. Beyond it: `TOO_LARGE`. */
  viewerSourceBytes: 100 * 1024 * 1024,
  /**
   * Largest structure (with its coordinates) a tool result carries to the MCP App in its `_meta`,
   * bytes before encoding (src/contract/app.ts). 4 MiB. Beyond it: `TOO_LARGE`.
   */
  appStructureBytes: 4 * 1024 * 1024,
  /**
   * Largest exported HTML file (`to_html`: the App's viewer inline, about 3.2 MB, with the data), bytes.
   * 64 MiB. Beyond it: `TOO_LARGE`.
   */
  exportHtmlBytes: 64 * 1024 * 1024,
  /**
   * Time between an App's reads of the widget it follows in a JupyterLab page (`viewer_observe` /
   * `story_observe` through the host, answered from the read mirror), ms; up to 10× that after failures.
   */
  appFollowMs: 1000,
  /** Largest `ui://` resource (the App's HTML and each script part), bytes of text. 256 KiB: under every host's cap. */
  appResourceBytes: 256 * 1024,
  /**
   * Largest inline structure text `open` takes, characters; the gateway's
   * `max_request_bytes` (1 MiB by default) bounds the whole request too.
   */
  viewerInlineTextChars: 1_000_000,
  /** Most models listed in a Viewer composition. */
  viewerModelsListed: 50,
  /** Most chains listed in a Viewer composition. */
  viewerChainsListed: 100,
  /** Most ligands listed in a Viewer composition. */
  viewerLigandsListed: 100,
  /** Most models a Viewer draws at once (beyond it: model 0 only). */
  viewerShownModels: 20,
  /** Most operations in one `act` batch. */
  actActions: 50,
  /** Largest PDB entry `open` downloads by ID, bytes (3 MiB). Beyond it: `TOO_LARGE`. */
  pdbDownloadBytes: 3 * 1024 * 1024,
  /** Most lines of a PDB entry `open` downloads by ID. Beyond it: `TOO_LARGE`. */
  pdbDownloadLines: 200_000,
  /** Undo steps a Viewer keeps. */
  viewerUndoSteps: 50,
  /** Largest screenshot side, pixels. */
  screenshotMaxPixels: 2048,
  /**
   * Width of an `act` screenshot when neither width nor height is given, pixels
   * (at most the view's own width): sized for an agent's context (~30 KB as JPEG).
   */
  screenshotDefaultWidth: 512,
  /** Largest structure a cell or an agent sends a Ketcher editor, bytes (UTF-8). Beyond it: `TOO_LARGE`. */
  ketcherInlineBytes: 64 * 1024,
  /** Largest export `get_structure` returns, bytes (UTF-8). Beyond it: `TOO_LARGE`. */
  ketcherExportBytes: 64 * 1024,
  /** Most atoms one `highlight_atoms` names. Beyond it: `TOO_LARGE`. */
  ketcherHighlightAtoms: 256,
  /** Longest structure text a `ketcher_control` call carries at all (a person's drawing included), characters. */
  ketcherStructureChars: 4_000_000,
  /**
   * Longest `waitMs` of a call that waits for the person (`request_persist`), ms:
   * well under the gateway's default `call_timeout` (30 s), so a wait ends pending
   * instead of TIMEOUT. The page also stops waiting 2 s before the call's deadline.
   */
  personWaitMs: 20_000,
  /** `retryAfterMs` of a pending answer (the person has not answered yet), ms. */
  personRetryAfterMs: 5000,
  /**
   * Most requests an editor frame holds while Ketcher starts (they run once it is ready).
   * Beyond it the newest is refused at once with `TOO_LARGE`, not queued.
   */
  ketcherFrameBacklog: 64,
  /** Depictions a page keeps for its molecule grids, by SMILES (the least recently used is dropped first). */
  depictCacheEntries: 2000,
  /** Longest SMILES carried in an editor's state and summary, characters. */
  ketcherSummarySmilesChars: 200,
  /** Longest `label` text of a Viewer, characters. */
  viewerLabelChars: 80,
  /** Largest MVS state `apply_mvs` takes, bytes of JSON. Beyond it: `TOO_LARGE`. */
  viewerMvsBytes: 4096,
  /** Most labels, distances and transparency entries a Viewer's view holds, each. Beyond it: `TOO_LARGE`. */
  viewerAnnotations: 20,
  /**
   * Largest view state of one Viewer, bytes of JSON (layers, colours, annotations, an
   * `apply_mvs` state): `act` beyond it is `TOO_LARGE`, so `viewer_observe` fits its read budget.
   */
  viewerViewBytes: 6144,
  /** Resources `story_validate` lists, and fetches at most (the rest: `not-checked`). */
  storyResourcesListed: 20,
  /** How long `story_validate` waits for one resource to answer, ms (within the call's deadline). */
  storyResourceCheckMs: 8000,
  /** Most assets `story_create` packs into one .mvsx archive. */
  storyAssets: 50,
  /**
   * Largest SDF, CSV or TSV text of one molecule-grid panel, bytes (UTF-8).
   * Beyond it: `TOO_LARGE`. The request bound (`max_request_bytes`, 1 MiB by default) applies too.
   */
  panelMoleculeFileBytes: 1024 * 1024,
  /** Widest static-fallback PNG of a saved notebook widget, pixels (docs/architecture.md, "Static fallback"). */
  staticFallbackWidth: 640,
  /** Largest static-fallback PNG, bytes; the page scales down until it fits, else sends text only. */
  staticFallbackPngBytes: 256 * 1024,
  /** Longest static-fallback summary, characters. */
  staticFallbackTextChars: 2000,
  /** Most Story steps listed in a static fallback. */
  staticFallbackSteps: 50,
  /** Largest panel content a static-fallback frame carries, bytes of JSON (beyond: text only). */
  staticFallbackContentBytes: 1024 * 1024,
  /** Bytes of static fallbacks the server keeps for the next save (least recently sent dropped first). */
  staticFallbackStoreBytes: 64 * 1024 * 1024
} as const;

/** The shared limits: see {@link LIMITS}. */
export type Limits = typeof LIMITS;
