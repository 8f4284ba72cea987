/**
 * The MolViewSpec authoring reference behind `story_schema`, built from the
 * bundled Mol*'s own MVS tree schema (`MVSTreeSchema`) so it cannot drift from
 * the runtime that validates and plays Stories (docs/architecture.md, "Story
 * authoring"). `scripts/emit-mvs-schema.ts` writes it to
 * `molspace/contract/mvs-schema.json` at build time; the gateway answers
 * `story_schema` from that file.
 */
import { MVSData } from 'molstar/lib/extensions/mvs/mvs-data';
import { MVSTreeSchema } from 'molstar/lib/extensions/mvs/tree/mvs/mvs-tree';

/** One param of a node kind (Mol*'s `RequiredField` / `OptionalField`). */
export interface MvsParam {
  name: string;
  /** Mol*'s type text, e.g. `"ColorName | HexColor"`. */
  type: string;
  required: boolean;
  /** JSON default of an optional param; absent when required. */
  default?: unknown;
  description: string;
}

/** Params of one node kind: a flat list, or a union chosen by one discriminator param. */
export type MvsParams =
  | { type: 'simple'; fields: MvsParam[] }
  | {
      type: 'union';
      discriminator: string;
      description: string;
      /** Params of each discriminator value (the discriminator itself not repeated). */
      cases: Record<string, MvsParam[]>;
    };

/** One node kind. */
export interface MvsNodeKind {
  description: string;
  /** Allowed parent kinds; `null` means any parent, `[]` only the tree root. */
  parents: string[] | null;
  /** Kinds allowed as children (the inverse of `parents`). */
  children: string[];
  params: MvsParams;
}

/** A metadata field read from Mol*'s TypeScript declaration. */
export interface MetadataField {
  name: string;
  type: string;
  required: boolean;
  description: string;
}

/** The whole reference (the content of `mvs-schema.json`). */
export interface MvsSchema {
  mvsSpec: string;
  molstar: string;
  rootKind: string;
  rules: string[];
  snapshotMetadata: MetadataField[];
  globalMetadata: MetadataField[];
  docs: { title: string; url: string }[];
  nodes: Record<string, MvsNodeKind>;
}

/** How Stories are shaped and checked here; the node rules themselves come from Mol*. */
export const AUTHORING_RULES: readonly string[] = [
  'A node is {kind, params?, children?, custom?, ref?}; every snapshot tree starts at a node of kind "root".',
  'A kind may appear only under its allowed parents (`parents`; null = any); call story_schema with `node` for its params and children.',
  'Params are checked strictly: unknown params are errors, required params must be given, optional ones take their defaults.',
  'A Story is multi-state MVS: {kind: "multiple", metadata: {version, timestamp, title?}, snapshots: [{root, metadata}]}; molspace also takes the storyboard {title, steps: [{key, title, description, root}]}.',
  'Snapshot keys are unique non-empty strings; linger_duration_ms and transition_duration_ms are finite milliseconds >= 0.',
  'Resources (`url`/`uri` params): https: or data: URLs in .mvsj; relative paths only inside .mvsx; file: URLs, absolute paths and ".." are refused.',
  'Descriptions are markdown by default (description_format "markdown" | "plaintext"); they are shown through JupyterLab\'s sanitizer.'
];

/** Documentation of the format. */
export const MVS_DOCS: readonly { title: string; url: string }[] = [
  { title: 'MolViewSpec documentation', url: 'https://molstar.org/mol-view-spec-docs' },
  { title: 'Mol* MolViewSpec extension', url: 'https://molstar.org/viewer-docs/extensions/mvs' },
  { title: 'MolViewSpec repository (schema, Python builder)', url: 'https://github.com/molstar/mol-view-spec' }
];

interface MolstarField {
  type: { name: string };
  required: boolean;
  default?: unknown;
  description: string;
}
interface MolstarParams {
  type: 'simple' | 'union';
  fields?: Record<string, MolstarField>;
  discriminator?: string;
  discriminatorDescription?: string;
  cases?: Record<string, { fields: Record<string, MolstarField> }>;
}
interface MolstarNode {
  description?: string;
  parent?: string[];
  params: MolstarParams;
}

/** Mol* writes union and compound type names in parentheses: `(A | B)` → `A | B`. */
function typeText(name: string): string {
  return name.startsWith('(') && name.endsWith(')') ? name.slice(1, -1) : name;
}

function fieldsOf(fields: Record<string, MolstarField>): MvsParam[] {
  return Object.entries(fields).map(([name, f]) => {
    const p: MvsParam = { name, type: typeText(f.type.name), required: f.required, description: f.description };
    if (!f.required) {
      p.default = f.default;
    }
    return p;
  });
}

/** The node kinds of Mol*'s `MVSTreeSchema`, with parents, children and params. */
export function mvsNodeKinds(): Record<string, MvsNodeKind> {
  const nodes = MVSTreeSchema.nodes as unknown as Record<string, MolstarNode>;
  const kinds = Object.keys(nodes);
  const out: Record<string, MvsNodeKind> = {};
  for (const kind of kinds) {
    const n = nodes[kind];
    const params: MvsParams =
      n.params.type === 'simple'
        ? { type: 'simple', fields: fieldsOf(n.params.fields ?? {}) }
        : {
            type: 'union',
            discriminator: n.params.discriminator ?? '',
            description: n.params.discriminatorDescription ?? '',
            cases: Object.fromEntries(Object.entries(n.params.cases ?? {}).map(([c, s]) => [c, fieldsOf(s.fields)]))
          };
    out[kind] = {
      description: n.description ?? '',
      parents: n.parent === undefined ? null : [...n.parent],
      children: kinds.filter(k => {
        const p = nodes[k].parent;
        return p === undefined ? k !== MVSTreeSchema.rootKind : p.includes(kind);
      }),
      params
    };
  }
  return out;
}

/** Build the whole reference; metadata fields come from Mol*'s declarations (read by the emit script). */
export function buildMvsSchema(opts: { molstar: string; snapshotMetadata: MetadataField[]; globalMetadata: MetadataField[] }): MvsSchema {
  return {
    mvsSpec: String(MVSData.SupportedVersion),
    molstar: opts.molstar,
    rootKind: MVSTreeSchema.rootKind,
    rules: [...AUTHORING_RULES],
    snapshotMetadata: opts.snapshotMetadata,
    globalMetadata: opts.globalMetadata,
    docs: [...MVS_DOCS],
    nodes: mvsNodeKinds()
  };
}
