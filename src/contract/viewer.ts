/**
 * The structure Viewer: formats, MolViewSpec component selectors, the bounded
 * composition of a loaded structure, the view state (what is shown, focused,
 * selected), and the `viewer_observe`, `act` and `open` tools
 * (docs/architecture.md, "Where a new tool goes").
 *
 * Selectors are MolViewSpec component selectors: a static selector
 * (`polymer`, `ligand`, ...), one component expression
 * (`{auth_asym_id: "A", auth_seq_id: 42}`) or a list of them (a union). The
 * page turns them into Mol* selections with Mol*'s MVS extension.
 *
 * This file imports only types from `./tools` (which lists these tools in
 * `TOOLS`), so the two modules load in either order.
 */
import { z } from 'zod';
import type { ToolSpec, ToolArgs } from './toolSpec';
import type { WidgetKind } from './workspace';
import { LocatedError } from './errors';
import { ImageMimeType } from './result';
import { ChangeEntry, StoryState } from './story';
import { LIMITS } from './limits';
import { dock } from './toolArgs';
import { VIEWER_APP_URI } from './app';

// ---------------------------------------------------------------- formats

/**
 * Structure formats the Viewer reads, by their MVS `parse` format names. `psf` and `prmtop` are
 * topologies (no coordinates): they open only with a coordinates file. A LAMMPS dump
 * (`lammpstrj`) is a trajectory on its own.
 */
export const StructureFormat = z.enum(['pdb', 'pdbqt', 'mmcif', 'bcif', 'sdf', 'mol', 'mol2', 'xyz', 'gro', 'psf', 'prmtop', 'lammpstrj']);
export type StructureFormat = z.infer<typeof StructureFormat>;

/** Topology formats: atoms and bonds without coordinates (MVS `parse` formats Mol* reads as topologies). */
export const TOPOLOGY_FORMATS: readonly StructureFormat[] = ['psf', 'prmtop'];

/** Trajectory coordinate formats (MVS `parse` formats of a `coordinates` node), frames for a topology. */
export const CoordinatesFormat = z.enum(['xtc', 'dcd', 'trr', 'nctraj', 'lammpstrj']);
export type CoordinatesFormat = z.infer<typeof CoordinatesFormat>;

/** Coordinates file extension (lower case, no dot) -> format. */
export const COORDINATES_EXTENSIONS: Readonly<Record<string, CoordinatesFormat>> = {
  xtc: 'xtc',
  dcd: 'dcd',
  trr: 'trr',
  nc: 'nctraj',
  ncdf: 'nctraj',
  nctraj: 'nctraj',
  lammpstrj: 'lammpstrj',
  dump: 'lammpstrj'
};

/** File extension (lower case, no dot) -> format. The kernel reads the same table from the manifest. */
export const STRUCTURE_EXTENSIONS: Readonly<Record<string, StructureFormat>> = {
  pdb: 'pdb',
  ent: 'pdb',
  pdbqt: 'pdbqt',
  cif: 'mmcif',
  mmcif: 'mmcif',
  bcif: 'bcif',
  sdf: 'sdf',
  sd: 'sdf',
  mol: 'mol',
  mol2: 'mol2',
  xyz: 'xyz',
  gro: 'gro',
  extxyz: 'xyz',
  psf: 'psf',
  prmtop: 'prmtop',
  parm7: 'prmtop',
  lammpstrj: 'lammpstrj'
};

/** Story file extensions `open` shows as a docked Story (not a Viewer). */
export const STORY_EXTENSIONS = ['mvsj', 'mvsx'] as const;

/** Formats whose files are binary; every other format is text (UTF-8). Coordinates are binary but `lammpstrj`. */
export const BINARY_STRUCTURE_FORMATS: readonly StructureFormat[] = ['bcif'];

// ---------------------------------------------------------------- selectors

/** MVS static component selectors. */
export const StaticSelector = z.enum(['all', 'polymer', 'protein', 'nucleic', 'branched', 'ligand', 'ion', 'water']);
export type StaticSelector = z.infer<typeof StaticSelector>;

const seqId = z.number().int();
/** One MVS component expression: every field given must match (an intersection). */
export const ComponentExpression = z
  .object({
    label_entity_id: z.string(),
    label_asym_id: z.string(),
    auth_asym_id: z.string(),
    label_seq_id: seqId,
    auth_seq_id: seqId,
    pdbx_PDB_ins_code: z.string(),
    beg_label_seq_id: seqId,
    end_label_seq_id: seqId,
    beg_auth_seq_id: seqId,
    end_auth_seq_id: seqId,
    label_comp_id: z.string(),
    auth_comp_id: z.string(),
    residue_index: z.number().int().min(0),
    label_atom_id: z.string(),
    auth_atom_id: z.string(),
    type_symbol: z.string(),
    atom_id: z.number().int(),
    atom_index: z.number().int().min(0)
  })
  .partial()
  .strict();
export type ComponentExpression = z.infer<typeof ComponentExpression>;

/** A MolViewSpec component selector: static, one expression, or a union of expressions. */
export const ComponentSelector = z
  .union([StaticSelector, ComponentExpression, z.array(ComponentExpression).min(1).max(50)])
  .describe('MVS component selector: "ligand", {auth_asym_id, auth_seq_id, ...} or a list.');
export type ComponentSelector = z.infer<typeof ComponentSelector>;

// ---------------------------------------------------------------- composition

/** One chain of model 0. */
export const ChainInfo = z.object({
  label_asym_id: z.string(),
  auth_asym_id: z.string(),
  entityType: z.string().describe('mmCIF entity type: polymer, non-polymer, water, branched.'),
  polymerType: z.string().nullable().describe('mmCIF entity_poly type, e.g. polypeptide(L); null if not a polymer.'),
  residues: z.number().int().min(0),
  atoms: z.number().int().min(0)
});
export type ChainInfo = z.infer<typeof ChainInfo>;

/** One non-polymer, non-water residue of model 0. */
export const LigandInfo = z.object({
  comp_id: z.string().describe('label_comp_id'),
  label_asym_id: z.string(),
  auth_asym_id: z.string(),
  auth_seq_id: z.number().int(),
  atoms: z.number().int().min(0)
});
export type LigandInfo = z.infer<typeof LigandInfo>;

/**
 * A chain id as an agent types it in a selector: plain when it is a plain word, else as JSON
 * (a PDB HETATM without a chain has the id `" "`, one space; `""` matches nothing).
 */
export function chainIdText(id: string): string {
  return /^[A-Za-z0-9]+$/.test(id) ? id : JSON.stringify(id);
}

/** A ligand as `comp_id chain seq`, e.g. `REA A 200`, `478 " " 200` (the one form summaries and errors use). */
export function ligandText(l: Pick<LigandInfo, 'comp_id' | 'auth_asym_id' | 'auth_seq_id'>): string {
  return `${l.comp_id} ${chainIdText(l.auth_asym_id)} ${l.auth_seq_id}`;
}

/** One model (frame) of the file. */
export const ModelInfo = z.object({
  index: z.number().int().min(0),
  label: z.string(),
  atoms: z.number().int().min(0),
  residues: z.number().int().min(0),
  chains: z.number().int().min(0)
});
export type ModelInfo = z.infer<typeof ModelInfo>;

/** The frames of a trajectory: a topology with a coordinates file, or a file of many models. */
export const ViewerTrajectory = z.object({
  frames: z.number().int().min(1),
  coordinates: CoordinatesFormat.nullable().describe('null: the frames are the models of the structure file.'),
  timePs: z
    .object({ start: z.number(), step: z.number() })
    .nullable()
    .describe('Time of frame 0 and between frames, ps; null when the file carries none.')
});
export type ViewerTrajectory = z.infer<typeof ViewerTrajectory>;

/**
 * The bounded composition of a loaded structure, computed in the page from
 * the Mol* models. Lists are cut at their limits; the `*Total` counts are not.
 */
export const ViewerComposition = z.object({
  format: StructureFormat,
  modelCount: z.number().int().min(0),
  models: z.array(ModelInfo).describe(`At most ${LIMITS.viewerModelsListed} models.`),
  atoms: z.number().int().min(0).describe('Atoms of model 0.'),
  residues: z.number().int().min(0).describe('Residues of model 0.'),
  chainCount: z.number().int().min(0),
  chains: z.array(ChainInfo).describe(`Chains of model 0, at most ${LIMITS.viewerChainsListed}.`),
  polymerTypes: z.array(z.string()),
  ligandCount: z.number().int().min(0),
  ligands: z.array(LigandInfo).describe(`At most ${LIMITS.viewerLigandsListed}.`),
  waters: z.number().int().min(0).describe('Water residues of model 0.'),
  shownModels: z.array(z.number().int().min(0)).describe('Model indices drawn.'),
  trajectory: ViewerTrajectory.nullable().describe('Frames to step through (view.frame); null: one frame.'),
  dropped: z
    .array(z.string())
    .describe('What the file carries that the Viewer does not draw (PDBQT charges and atom types, extended XYZ properties).')
});
export type ViewerComposition = z.infer<typeof ViewerComposition>;

// ---------------------------------------------------------------- view state

export const RepresentationType = z.enum(['cartoon', 'backbone', 'ball_and_stick', 'line', 'spacefill', 'surface', 'putty']);
export type RepresentationType = z.infer<typeof RepresentationType>;

export const HexColor = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'a colour as #rrggbb');

/** One drawn layer: an MVS component with one representation. */
export const ViewerLayer = z.object({ selector: ComponentSelector, representation: RepresentationType });
export type ViewerLayer = z.infer<typeof ViewerLayer>;

/** A colour applied to a selector, over every layer (an MVS `color` node). */
export const ViewerColor = z.object({ selector: ComponentSelector, color: HexColor });
export type ViewerColor = z.infer<typeof ViewerColor>;

/** Transparency of a selector over every layer, 0 opaque .. 1 invisible (Mol*'s structure transparency). */
export const ViewerTransparency = z.object({ selector: ComponentSelector, value: z.number().min(0).max(1) });
export type ViewerTransparency = z.infer<typeof ViewerTransparency>;

/** A text label on a selector (an MVS `label` node, drawn by Mol* as text). */
export const ViewerLabel = z.object({ selector: ComponentSelector, text: z.string().min(1).max(LIMITS.viewerLabelChars) });
export type ViewerLabel = z.infer<typeof ViewerLabel>;

/** A distance between two single atoms, drawn by Mol*'s measurement manager; `distance` in Å. */
export const ViewerMeasurement = z.object({ start: ComponentSelector, end: ComponentSelector, distance: z.number() });
export type ViewerMeasurement = z.infer<typeof ViewerMeasurement>;

/** An MVS state (`{kind?: "single", root, metadata}`), validated as a Story's snapshot is. */
export const MvsState = z.record(z.string(), z.unknown()).describe('One MolViewSpec state: {kind: "single", root, metadata}.');

/** Trajectory playback: frames per second and whether it starts again after the last frame. */
export const Playback = z.object({
  fps: z.number().min(0.5).max(60).default(10),
  loop: z.boolean().default(true)
});
export type Playback = z.infer<typeof Playback>;

/** What the viewer shows: synced page state, mirrored by the kernel. */
export const ViewerViewState = z.object({
  layers: z.array(ViewerLayer),
  colors: z.array(ViewerColor),
  transparency: z.array(ViewerTransparency),
  labels: z.array(ViewerLabel),
  measurements: z.array(ViewerMeasurement),
  mvs: MvsState.nullable().describe('An MVS state drawn in place of the layers (apply_mvs), or null.'),
  focus: ComponentSelector.nullable(),
  selection: ComponentSelector.nullable(),
  highlight: ComponentSelector.nullable(),
  background: HexColor.nullable().describe('null: follows the JupyterLab theme.'),
  cameraResets: z.number().int().min(0).describe('Advanced by reset_camera.'),
  frame: z.number().int().min(0).default(0).describe('Trajectory frame drawn, 0-based.'),
  play: Playback.nullable().default(null).describe('Playing the frames, or null: paused.')
});
export type ViewerViewState = z.infer<typeof ViewerViewState>;

/** The Viewer widget state, as the page holds it and the kernel mirrors it. */
export const ViewerState = z.object({
  target: z.string(),
  kind: z.literal('viewer'),
  title: z.string(),
  ready: z.boolean().describe('True once the current view is drawn.'),
  revision: z.number().int().min(0),
  error: LocatedError.nullable(),
  undo: z.number().int().min(0).describe('Steps `undo` can take back.'),
  redo: z.number().int().min(0).describe('Steps `redo` can apply again.')
});
export type ViewerState = z.infer<typeof ViewerState>;

/** The camera as Mol* holds it (Å, scene coordinates). */
export const ViewerCamera = z.object({
  position: z.array(z.number()).length(3),
  target: z.array(z.number()).length(3),
  up: z.array(z.number()).length(3),
  fov: z.number()
});

// ---------------------------------------------------------------- act operations

const sel = { selector: ComponentSelector };
/** Image formats of `act`'s screenshot (JPEG by default: a fraction of PNG's bytes). */
export const ScreenshotFormat = z.enum(['jpeg', 'webp', 'png']);
export type ScreenshotFormat = z.infer<typeof ScreenshotFormat>;

export const ViewerAction = z.discriminatedUnion('op', [
  z.object({ op: z.literal('focus'), ...sel }).strict(),
  z.object({ op: z.literal('highlight'), ...sel }).strict(),
  z.object({ op: z.literal('clear_highlight') }).strict(),
  z.object({ op: z.literal('select'), ...sel }).strict(),
  z.object({ op: z.literal('clear_selection') }).strict(),
  z.object({ op: z.literal('set_representation'), ...sel, representation: RepresentationType }).strict(),
  z.object({ op: z.literal('set_color'), ...sel, color: HexColor }).strict(),
  z.object({ op: z.literal('set_transparency'), ...sel, value: z.number().min(0).max(1).describe('0 opaque .. 1 invisible.') }).strict(),
  z
    .object({ op: z.literal('measure_distance'), start: ComponentSelector, end: ComponentSelector })
    .strict()
    .describe('Each side one atom; distance (Å) in the result.'),
  z.object({ op: z.literal('label'), ...sel, text: z.string().min(1).max(LIMITS.viewerLabelChars) }).strict(),
  z.object({ op: z.literal('clear_labels') }).strict(),
  z.object({ op: z.literal('clear_measurements') }).strict(),
  z
    .object({ op: z.literal('apply_mvs'), state: MvsState.nullable() })
    .strict()
    .describe('Draw an MVS state (checked as a Story) instead of the layers; later selectors match its structure. null: back.'),
  z.object({ op: z.literal('reset_camera') }).strict(),
  z
    .object({ op: z.literal('goto_frame'), frame: z.number().int().min(0) })
    .strict()
    .describe('Trajectory frame, 0-based (composition.trajectory.frames).'),
  z.object({ op: z.literal('play'), ...Playback.shape }).strict(),
  z.object({ op: z.literal('pause') }).strict(),
  z.object({ op: z.literal('set_background'), color: HexColor }).strict(),
  z
    .object({ op: z.literal('undo') })
    .strict()
    .describe('Alone in its batch.'),
  z
    .object({ op: z.literal('redo') })
    .strict()
    .describe('Alone in its batch.'),
  z
    .object({
      op: z.literal('screenshot'),
      width: z.number().int().min(16).max(LIMITS.screenshotMaxPixels).optional().describe(`px; default ${LIMITS.screenshotDefaultWidth}`),
      height: z.number().int().min(16).max(LIMITS.screenshotMaxPixels).optional().describe('px; default: keeps the aspect'),
      format: ScreenshotFormat.default('jpeg'),
      quality: z.number().min(0.1).max(1).default(0.8).describe('jpeg/webp quality')
    })
    .strict()
]);
export type ViewerAction = z.infer<typeof ViewerAction>;

/** The fields of one `act` call without `pageId` and `target`: what the kernel's `control` carries. */
export const ACT_FIELDS = {
  actions: z.array(ViewerAction).min(1).max(LIMITS.actActions).describe('Applied in order, atomically: all or none.'),
  dryRun: z.boolean().default(false).describe('Validate and report only.'),
  expectedRevision: z.number().int().min(0).optional().describe('REVISION_CONFLICT unless at this revision.'),
  actionId: z.string().min(1).max(128).optional().describe('Idempotency key: a retry returns the first result.')
};

/** The kernel's `control` message of a Viewer (`molspace.Viewer.act`, `focus`, ...): `act` without `pageId` and `target`. */
export const ViewerKernelControl = z.object({ type: z.literal('control'), requestId: z.string().min(1).max(128), ...ACT_FIELDS }).strict();

// ---------------------------------------------------------------- tools

const pageId = z.string().min(1).optional().describe('Page to run in; default: the most recently focused page.');
const target = z.string().min(1).optional().describe('Model id of the Viewer (from `observe`); default: the most recently active Viewer.');

export const ViewerObserveInput = z
  .object({
    pageId,
    target,
    offset: z.number().int().min(0).default(0).describe('Skip this many models, chains, ligands: a previous `nextOffset`.')
  })
  .strict();
export const ViewerObserveOutput = z.object({
  viewer: ViewerState,
  composition: ViewerComposition.nullable().describe('null until the structure has loaded; lists from `offset`, cut to the budget.'),
  view: ViewerViewState,
  camera: ViewerCamera.nullable().describe('null when no live 3D view.'),
  nextOffset: z.number().int().nullable().describe('Call again with this offset for the rest of the lists; null: nothing left.')
});

export const ActInput = z.object({ pageId, target, ...ACT_FIELDS }).strict();
export const ActOutput = z.object({
  viewer: ViewerState,
  view: ViewerViewState,
  changed: z.boolean(),
  dryRun: z.boolean(),
  previousRevision: z.number().int(),
  applied: z.array(z.object({ op: z.string(), summary: z.string(), distance: z.number().optional() })),
  changes: z.array(ChangeEntry),
  screenshot: z
    .object({ mimeType: ImageMimeType, width: z.number().int(), height: z.number().int(), bytes: z.number().int() })
    .nullable()
    .describe('The image itself is the image content of the result.'),
  replayed: z.boolean()
});

/** Allow-listed public mirrors for PDB ID downloads. */
export const PdbMirror = z.enum(['rcsb', 'pdbe', 'pdbj']);
export type PdbMirror = z.infer<typeof PdbMirror>;

export const OpenInput = z
  .object({
    pageId,
    pdbId: z
      .string()
      .regex(/^[0-9][A-Za-z0-9]{3}$/, 'a four-character PDB ID, e.g. 1cbs')
      .optional()
      .describe(`PDB ID, downloaded (mmCIF) from an allow-listed mirror.`),
    mirror: PdbMirror.default('rcsb').describe('With pdbId: the mirror.'),
    path: z.string().min(1).optional().describe('File under the Jupyter root: a structure, or a .mvsj/.mvsx Story.'),
    coordinates: z.string().min(1).optional().describe('With path (the topology): a trajectory file under the root (.xtc .dcd .trr .nc).'),
    text: z.string().min(1).max(LIMITS.viewerInlineTextChars).optional().describe('Inline structure text; needs format.'),
    ketcher: z.string().min(1).optional().describe('Ketcher editor id: its molecule in 3D.'),
    format: StructureFormat.optional().describe('Default: from the path extension.'),
    mvs: MvsState.optional().describe('One MVS state, as act apply_mvs.'),
    title: z.string().max(200).optional(),
    dock
  })
  .strict();
export const OpenOutput = z.object({
  viewer: ViewerState.optional().describe('A structure: the docked Viewer.'),
  composition: ViewerComposition.nullable().optional(),
  story: StoryState.optional().describe('A .mvsj/.mvsx path: the docked Story (story_control drives it).'),
  steps: z.array(z.object({ index: z.number().int(), key: z.string(), title: z.string() })).optional(),
  app: z
    .object({
      resourceUri: z.string(),
      title: z.string(),
      format: z.union([StructureFormat, z.enum(['mvsj', 'mvsx'])]).describe('A structure format, or a Story file.'),
      bytes: z.number().int().nonnegative().describe('Structure and coordinates, or the Story file, bytes.')
    })
    .optional()
    .describe('No JupyterLab page is open: shown only in the MCP App (src/contract/app.ts), from this result.')
});

function viewerTool<I extends z.ZodType<ToolArgs>, O extends z.ZodType<Record<string, unknown>>, K extends WidgetKind | null>(
  spec: ToolSpec<I, O, K>
): ToolSpec<I, O, K> {
  return spec;
}

export const VIEWER_OBSERVE_TOOL = viewerTool({
  name: 'viewer_observe',
  description: "A Viewer's composition (models, chains, ligands, counts), what is shown, the camera; bounded.",
  guide:
    'One structure Viewer: state, bounded composition (models, chains with auth/label ids, residue and atom ' +
    'counts, polymer types, ligands, waters), what is shown, focused, selected, and the camera. No raw structure text.',
  runs: 'page',
  input: ViewerObserveInput,
  output: ViewerObserveOutput,
  annotations: { title: 'Observe a Viewer', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  target: 'viewer',
  mutating: false,
  errors: ['NOT_FOUND'],
  mirrored: true
});

export const ACT_TOOL = viewerTool({
  name: 'act',
  description: 'Typed operations on a Viewer as one revision (all or none), returning once drawn.',
  guide:
    'Typed operations on a Viewer, applied in order as one revision (all or none), returning once drawn; ' +
    'undo/redo take back or redo one batch; screenshot adds image content (512 px JPEG default). A selector matching nothing: NOT_FOUND.',
  examples: [
    {
      actions: [
        { op: 'focus', selector: 'ligand' },
        { op: 'set_representation', selector: 'ligand', representation: 'ball_and_stick' },
        { op: 'set_color', selector: { auth_asym_id: 'A', beg_auth_seq_id: 25, end_auth_seq_id: 30 }, color: '#ff0000' }
      ]
    },
    {
      actions: [
        {
          op: 'highlight',
          selector: [
            { auth_asym_id: 'A', auth_seq_id: 25 },
            { auth_asym_id: 'B', auth_seq_id: 25 }
          ]
        }
      ]
    },
    { actions: [{ op: 'set_transparency', selector: 'polymer', value: 0.6 }] },
    {
      actions: [
        {
          op: 'measure_distance',
          start: { auth_asym_id: 'A', auth_seq_id: 25, auth_atom_id: 'OD1' },
          end: { auth_asym_id: 'B', auth_seq_id: 25, auth_atom_id: 'OD1' }
        }
      ]
    },
    { actions: [{ op: 'label', selector: 'ligand', text: 'inhibitor' }] },
    { actions: [{ op: 'select', selector: { label_comp_id: 'HOH' } }] },
    { actions: [{ op: 'set_background', color: '#000000' }, { op: 'reset_camera' }] },
    { actions: [{ op: 'undo' }] },
    { actions: [{ op: 'screenshot', width: 512 }] }
  ],
  runs: 'page',
  input: ActInput,
  output: ActOutput,
  annotations: { title: 'Act on a Viewer', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  target: 'viewer',
  mutating: true,
  errors: ['NOT_FOUND', 'STALE_TARGET', 'REVISION_CONFLICT', 'VALIDATION_FAILED', 'UNSUPPORTED_FORMAT', 'TOO_LARGE', 'FORBIDDEN']
});

export const OPEN_TOOL = viewerTool({
  name: 'open',
  description:
    "Show a structure in a docked Viewer (file under the root, text, PDB ID, MVS state, editor's molecule) or a .mvsj/.mvsx Story.",
  guide:
    'Open a structure in a Viewer docked in the JupyterLab main area: a file path under the Jupyter root ' +
    '(read through the contents API), inline text with a format, a PDB ID (allow-listed mirrors, capped), ' +
    "one MVS state, or a Ketcher editor's molecule in 3D; a .mvsj/.mvsx path docks that Story. " +
    'Returns once loaded, with its composition.',
  examples: [
    { path: 'data/1hpv.pdb', title: 'HIV-1 protease' },
    { path: 'stories/1cbs.mvsx' },
    { pdbId: '1cbs' },
    { text: 'HETATM    1  O   HOH A   1       0.000   0.000   0.000  1.00  0.00           O', format: 'pdb' }
  ],
  runs: 'page',
  app: VIEWER_APP_URI,
  input: OpenInput,
  output: OpenOutput,
  annotations: {
    title: 'Open a structure or Story',
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false
  },
  target: null,
  mutating: true,
  errors: ['NOT_FOUND', 'STALE_TARGET', 'FORBIDDEN', 'VALIDATION_FAILED', 'UNSUPPORTED_FORMAT', 'TOO_LARGE', 'TIMEOUT']
});

export type ViewerObserveOutput = z.infer<typeof ViewerObserveOutput>;
export type ActInput = z.infer<typeof ActInput>;
export type ActOutput = z.infer<typeof ActOutput>;
export type OpenInput = z.infer<typeof OpenInput>;
export type OpenOutput = z.infer<typeof OpenOutput>;
