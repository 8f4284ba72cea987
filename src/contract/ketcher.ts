/**
 * The Ketcher editor widget (kind `ketcher`) and its two tools:
 * `ketcher_control` (revision-checked edits, exports, persistence) and
 * `ketcher_open` (an editor docked in the main area). See
 * docs/architecture.md, "Ketcher".
 *
 * Revisions: `structureRevision` advances on every structural edit (a
 * person's drawing, a cell, an agent); `interactionRevision` on highlights
 * only. `revision` (what `expectedRevision` is checked against) is the
 * structure revision, so an atom index is always read against the structure
 * it indexes.
 */
import { z } from 'zod';
import { LIMITS } from './limits';
import { LocatedError } from './errors';
import { actionId, dock, expectedRevision, pageId, waitMs } from './toolArgs';
import { PendingFields } from './result';
import type { ToolArgs, ToolSpec } from './toolSpec';
import { VIEWER_APP_URI } from './app';

/** Chemical formats the editor reads and writes (Indigo's readers and writers). */
export const KetcherFormat = z.enum(['smiles', 'molfile', 'molfile-v3000', 'ket', 'sdf', 'smarts', 'inchi', 'cml']);
export type KetcherFormat = z.infer<typeof KetcherFormat>;

/** Molecule file extensions `ketcher_open {path}` reads, and the format each names (as `molspace.Ketcher` reads paths). */
export const KETCHER_EXTENSIONS: Readonly<Record<string, KetcherFormat>> = {
  '.smi': 'smiles',
  '.smiles': 'smiles',
  '.mol': 'molfile',
  '.ket': 'ket',
  '.sdf': 'sdf',
  '.sd': 'sdf',
  '.cml': 'cml'
};

/** A pending or answered request to save the structure to a file. */
export const PersistRequest = z.object({
  path: z.string(),
  format: KetcherFormat,
  status: z.enum(['awaiting', 'saved', 'refused', 'failed']),
  /** The structure revision it saves (the one shown when the person was asked). */
  revision: z.number().int().min(0),
  message: z.string().describe('What happened, for a person.')
});
export type PersistRequest = z.infer<typeof PersistRequest>;

/** One editor, as `ketcher_control` returns it and the kernel mirrors it. */
export const KetcherState = z.object({
  target: z.string(),
  kind: z.literal('ketcher'),
  title: z.string(),
  ready: z.boolean().describe('True once Ketcher and its Indigo engine have loaded.'),
  revision: z.number().int().min(0).describe('= structureRevision; what expectedRevision is checked against.'),
  structureRevision: z.number().int().min(0),
  interactionRevision: z.number().int().min(0),
  dirty: z.boolean().describe('Changed since loaded or last saved.'),
  atoms: z.number().int().min(0),
  bonds: z.number().int().min(0),
  formula: z.string().nullable(),
  smiles: z.string().nullable().describe(`SMILES (as Indigo writes it) when at most ${LIMITS.ketcherSummarySmilesChars} characters.`),
  highlighted: z.array(z.number().int().min(0)),
  persist: PersistRequest.nullable(),
  error: LocatedError.nullable()
});
export type KetcherState = z.infer<typeof KetcherState>;

export const KetcherAction = z.enum(['set_structure', 'clear_structure', 'highlight_atoms', 'get_structure', 'request_persist']);
export type KetcherAction = z.infer<typeof KetcherAction>;

export const KetcherControlInput = z
  .object({
    pageId,
    target: z.string().min(1).optional().describe('Editor id (from observe); default: the most recently active editor.'),
    action: KetcherAction,
    actionId,
    expectedRevision,
    value: z
      .string()
      .max(LIMITS.ketcherInlineBytes) // a longer string is over the byte limit too; bytes are checked by the tool
      .optional()
      .describe(`set_structure: SMILES, Molfile V2000/V3000, KET or SDF text, at most ${LIMITS.ketcherInlineBytes} bytes.`),
    format: KetcherFormat.optional().describe('set_structure: of value (default detected); get_structure, request_persist: written.'),
    atoms: z
      .array(z.number().int().min(0))
      .max(LIMITS.ketcherHighlightAtoms)
      .optional()
      .describe(`highlight_atoms: 0-based atom indices (Molfile atom order), at most ${LIMITS.ketcherHighlightAtoms}; [] clears.`),
    color: z
      .string()
      .regex(/^#[0-9a-fA-F]{6}$/, 'a colour as #rrggbb')
      .default('#ffb000')
      .describe('highlight_atoms: colour.'),
    path: z.string().min(1).max(1024).optional().describe('request_persist: file path under the Jupyter root.'),
    overwrite: z.boolean().default(false).describe('request_persist: replace an existing file.'),
    waitMs
  })
  .strict();
/**
 * `ketcher_control` as the editor's own UI calls it (source `ui`): a person's drawing may be larger
 * than the inline limit of agents and cells (`ketcherStructureChars` bounds what one call carries).
 */
export const KetcherControlUiInput = KetcherControlInput.extend({
  value: z.string().max(LIMITS.ketcherStructureChars).optional()
}) as unknown as typeof KetcherControlInput;
export type KetcherControlInput = z.infer<typeof KetcherControlInput>;

export const KetcherControlOutput = z.object({
  editor: KetcherState,
  action: KetcherAction,
  changed: z.boolean(),
  previousRevision: z.number().int().min(0),
  /** get_structure: the exported text. */
  value: z.string().optional(),
  format: KetcherFormat.optional(),
  bytes: z.number().int().min(0).optional(),
  ...PendingFields,
  replayed: z.boolean()
});
export type KetcherControlOutput = z.infer<typeof KetcherControlOutput>;

export const KetcherOpenInput = z
  .object({
    pageId,
    value: z.string().max(LIMITS.ketcherInlineBytes).optional().describe('Structure to start with (as set_structure).'),
    path: z.string().min(1).max(1024).optional().describe('Or: a .mol/.sdf/.smi/.ket/.cml file under the Jupyter root.'),
    format: KetcherFormat.optional(),
    title: z.string().max(200).optional(),
    dock
  })
  .strict();
export const KetcherOpenOutput = z.object({
  editor: KetcherState.optional().describe('The docked editor (a JupyterLab page is open).'),
  app: z
    .object({
      resourceUri: z.string(),
      title: z.string(),
      smiles: z.string().describe('Canonical SMILES (RDKit), at most 200 characters.'),
      formula: z.string(),
      atoms: z.number().int().nonnegative()
    })
    .optional()
    .describe('No JupyterLab page is open: a depiction shown in the MCP App only (src/contract/app.ts).')
});
export type KetcherOpenInput = z.infer<typeof KetcherOpenInput>;

function ketcherTool<I extends z.ZodType<ToolArgs>, O extends z.ZodType<Record<string, unknown>>, K extends 'ketcher' | null>(
  spec: ToolSpec<I, O, K>
): ToolSpec<I, O, K> {
  return spec;
}

export const KETCHER_CONTROL_TOOL = ketcherTool({
  name: 'ketcher_control',
  description: 'Drive a Ketcher editor: set, clear, highlight, get; request_persist saves once the person confirms.',
  guide:
    'Drive a Ketcher chemical editor: set_structure, clear_structure, highlight_atoms, get_structure, ' +
    'request_persist (saves only after the person confirms: status pending until then; waitMs waits). ' +
    'expectedRevision is checked against structureRevision.',
  examples: [
    { action: 'set_structure', value: 'c1ccccc1O', expectedRevision: 0 },
    { action: 'get_structure', format: 'molfile' },
    { action: 'highlight_atoms', atoms: [0, 1, 2] },
    { action: 'request_persist', path: 'molecules/phenol.mol', format: 'molfile' }
  ],
  runs: 'page',
  input: KetcherControlInput,
  output: KetcherControlOutput,
  annotations: {
    title: 'Control a Ketcher editor',
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false
  },
  target: 'ketcher',
  mutating: true,
  errors: ['NOT_FOUND', 'STALE_TARGET', 'REVISION_CONFLICT', 'VALIDATION_FAILED', 'UNSUPPORTED_FORMAT', 'TOO_LARGE', 'FORBIDDEN']
});

export const KETCHER_OPEN_TOOL = ketcherTool({
  name: 'ketcher_open',
  description: 'Open a Ketcher editor docked in the main area, optionally with a structure (value or path).',
  guide:
    'Open a Ketcher chemical editor docked in the JupyterLab main area, optionally with a structure: value, ' +
    'or path of a .mol/.sdf/.smi/.ket/.cml file under the Jupyter root (at most ketcherInlineBytes); returns once ready.',
  examples: [{ value: 'CC(=O)Oc1ccccc1C(=O)O', title: 'aspirin' }, { path: 'mol/aspirin.mol' }],
  runs: 'page',
  app: VIEWER_APP_URI,
  input: KetcherOpenInput,
  output: KetcherOpenOutput,
  annotations: { title: 'Open a Ketcher editor', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  target: null,
  mutating: true,
  errors: ['NOT_FOUND', 'VALIDATION_FAILED', 'UNSUPPORTED_FORMAT', 'TOO_LARGE', 'FORBIDDEN']
});
