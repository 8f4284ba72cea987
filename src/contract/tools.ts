/**
 * The MCP tool contract: names, input and output schemas, annotations and
 * where each tool runs. The build emits this as `molspace/contract/manifest.json`
 * (see `scripts/emit-manifest.ts`); the gateway lists tools from that file and
 * implements none of the page tools.
 *
 * Later tools of DESIGN.md §3 (`act`, `open`, `story_schema`, `render_panel`,
 * `ketcher_*`, ...) are added here as entries of {@link TOOLS}; nothing else in
 * the gateway changes.
 */
import { z } from 'zod';
import { PageInfo, WidgetSummary, LastAction } from './workspace';
import { SnapshotMeta, StoryAction, StoryState, STORY_LIMITS, ChangeEntry } from './story';

const pageId = z
  .string()
  .min(1)
  .optional()
  .describe('Page to run in; default: the most recently focused JupyterLab page.');

const target = z
  .string()
  .min(1)
  .optional()
  .describe('Model id of the widget (from `observe`); default: the most recently active Story.');

const actionId = z
  .string()
  .min(1)
  .max(128)
  .optional()
  .describe('Idempotency key: a retried actionId returns the first result without applying again.');

const expectedRevision = z
  .number()
  .int()
  .min(0)
  .optional()
  .describe('Fail with REVISION_CONFLICT unless the widget is at this revision.');

// ---------------------------------------------------------------- status
export const StatusInput = z.object({}).strict();
export const StatusOutput = z.object({
  versions: z.object({
    molspace: z.string(),
    molstar: z.string(),
    mvsSpec: z.string(),
    ketcher: z.string().nullable()
  }),
  pageConnected: z.boolean(),
  pages: z.array(PageInfo),
  widgets: z.number().int().min(0).describe('molspace widgets across connected pages.'),
  howToConnect: z.string(),
  endpoint: z.string().describe('This MCP endpoint path, including base_url.')
});

// ---------------------------------------------------------------- observe
export const ObserveInput = z
  .object({
    pageId,
    limit: z.number().int().min(1).max(200).default(50).describe('Widgets per call.'),
    cursor: z.string().optional().describe('`nextCursor` of a previous call.')
  })
  .strict();
export const ObserveOutput = z.object({
  pageId: z.string().describe('The page that answered.'),
  pages: z.array(PageInfo),
  widgets: z.array(WidgetSummary),
  activeWidget: z.string().nullable(),
  lastAction: LastAction.nullable(),
  total: z.number().int().min(0),
  nextCursor: z.string().nullable()
});

// ---------------------------------------------------------------- story_observe
export const StoryObserveInput = z
  .object({
    pageId,
    target,
    offset: z.number().int().min(0).default(0).describe('First snapshot index listed.'),
    limit: z
      .number()
      .int()
      .min(1)
      .max(STORY_LIMITS.maxSnapshotsPerPage)
      .default(STORY_LIMITS.defaultSnapshotsPerPage)
      .describe('Snapshots listed.')
  })
  .strict();
export const StoryObserveOutput = z.object({
  story: StoryState,
  current: SnapshotMeta.nullable(),
  snapshots: z.array(SnapshotMeta),
  nextOffset: z.number().int().nullable()
});

// ---------------------------------------------------------------- story_control
export const StoryControlInput = z
  .object({
    pageId,
    target,
    action: StoryAction,
    index: z.number().int().min(0).optional().describe('goto: 0-based snapshot index.'),
    key: z.string().min(1).optional().describe('goto: snapshot key (MVS snapshot metadata `key`).'),
    snapshotId: z
      .string()
      .min(1)
      .optional()
      .describe('goto: snapshot id (Mol* snapshot id; same as key for molspace Stories).'),
    expectedRevision,
    actionId
  })
  .strict()
  .superRefine((v, ctx) => {
    const given = [v.index, v.key, v.snapshotId].filter(x => x !== undefined).length;
    if (v.action === 'goto' && given !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: ['index'],
        message: 'goto takes exactly one of index, key or snapshotId'
      });
    }
    if (v.action !== 'goto' && given > 0) {
      ctx.addIssue({
        code: 'custom',
        path: v.index !== undefined ? ['index'] : v.key !== undefined ? ['key'] : ['snapshotId'],
        message: `${v.action} takes no index, key or snapshotId (only goto does)`
      });
    }
  });
export const StoryControlOutput = z.object({
  story: StoryState,
  current: SnapshotMeta.nullable(),
  changed: z.boolean().describe('False when the action left the Story as it was.'),
  previousRevision: z.number().int(),
  changes: z.array(ChangeEntry).describe('What this call changed.'),
  replayed: z.boolean().describe('True when an earlier call with this actionId was returned.')
});

/** MCP tool annotations (hints for clients). */
export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** One tool of the contract. `runs` says who answers it: the page or the gateway itself. */
export interface ToolSpec {
  name: string;
  description: string;
  runs: 'page' | 'gateway';
  input: z.ZodType;
  output: z.ZodType;
  annotations: ToolAnnotations;
}

/** Every tool of this version, in listing order. */
export const TOOLS: ToolSpec[] = [
  {
    name: 'status',
    description:
      'Cheap first call: molspace, Mol*, MVS and Ketcher versions, whether a JupyterLab page is ' +
      'connected, how to connect one, and counts. Never touches a page.',
    runs: 'gateway',
    input: StatusInput,
    output: StatusOutput,
    annotations: {
      title: 'Workspace status',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false
    }
  },
  {
    name: 'observe',
    description:
      'Typed workspace state of one page: connected pages, molspace widgets (id, kind, title, ' +
      'ready, revision, summary), the active widget and the last action. Prefer this over ' +
      'screenshots. Bounded by `limit`; continue with `cursor`.',
    runs: 'page',
    input: ObserveInput,
    output: ObserveOutput,
    annotations: {
      title: 'Observe workspace',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false
    }
  },
  {
    name: 'story_observe',
    description:
      'State of one MolViewSpec Story widget: current step, revision, playing, error, and ' +
      'ordered bounded snapshot metadata (key, title, description, durations).',
    runs: 'page',
    input: StoryObserveInput,
    output: StoryObserveOutput,
    annotations: {
      title: 'Observe a Story',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false
    }
  },
  {
    name: 'story_control',
    description:
      'Step a Story widget: next, previous, goto (exactly one of index, key or snapshotId), ' +
      'play, pause. Returns once the step is rendered in the page and sent to the kernel. ' +
      'Pass expectedRevision to fail with REVISION_CONFLICT if someone else moved it; pass ' +
      'actionId to make retries safe.',
    runs: 'page',
    input: StoryControlInput,
    output: StoryControlOutput,
    annotations: {
      title: 'Control a Story',
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false
    }
  }
];

/** Look a tool up by name. */
export function findTool(name: string): ToolSpec | undefined {
  return TOOLS.find(t => t.name === name);
}

export type StatusOutput = z.infer<typeof StatusOutput>;
export type ObserveInput = z.infer<typeof ObserveInput>;
export type ObserveOutput = z.infer<typeof ObserveOutput>;
export type StoryObserveInput = z.infer<typeof StoryObserveInput>;
export type StoryObserveOutput = z.infer<typeof StoryObserveOutput>;
export type StoryControlInput = z.infer<typeof StoryControlInput>;
export type StoryControlOutput = z.infer<typeof StoryControlOutput>;
