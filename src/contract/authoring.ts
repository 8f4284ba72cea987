/**
 * The Story authoring tools (docs/architecture.md, "Story authoring"):
 * `story_schema` and `story_template_list` (answered by the gateway),
 * `story_validate` and `story_create` (run in the page, with the bundled
 * Mol*), `story_template_create` (filled in the gateway, then `story_create`
 * in the page). Shapes repeated across tools are defined once here.
 */
import { z } from 'zod';
import { LIMITS } from './limits';
import { ChangeEntry, StoryState } from './story';
import { actionId, expectedRevision, pageId, target } from './toolArgs';
import type { ToolArgs, ToolSpec } from './toolSpec';
import type { WidgetKind } from './workspace';

/** Declare one tool (a local copy of `toolSpec`: `./tools` imports this module). */
function toolSpec<I extends z.ZodType<ToolArgs>, O extends z.ZodType<Record<string, unknown>>, K extends WidgetKind | null>(
  spec: ToolSpec<I, O, K>
): ToolSpec<I, O, K> {
  return spec;
}

/** A gateway tool whose arguments share none of {@link ToolArgs} (the page never parses them). */
function gatewayToolSpec<I extends z.ZodType, O extends z.ZodType<Record<string, unknown>>>(
  spec: Omit<ToolSpec, 'input' | 'output'> & { input: I; output: O }
): ToolSpec<z.ZodType<ToolArgs>, O, null> {
  return spec as unknown as ToolSpec<z.ZodType<ToolArgs>, O, null>;
}

// ---------------------------------------------------------------- shared shapes
/** One param of an MVS node kind, or one metadata field (then without `default`). */
export const ParamDoc = z.object({
  name: z.string(),
  type: z.string().describe("Mol*'s type text."),
  required: z.boolean(),
  default: z.unknown().optional().describe('JSON default of an optional param.'),
  description: z.string()
});

/** The Story an authoring tool takes: checked by validation (located issues), not by the input schema. */
export const StoryDocument = z
  .record(z.string(), z.unknown())
  .describe('Storyboard {title, steps: [{key, title, description, root}]} or multi-state MVS; root: see story_schema.');

/** Where a Story file goes: a path under the Jupyter root. */
export const StoryPath = z
  .string()
  .min(1)
  .max(1024)
  .describe('Path of the .mvsj file relative to the Jupyter root, e.g. "stories/1hpv.mvsj".');

/** A file packed into an `.mvsx` archive: a path under the Jupyter root, stored as `assets/<name>`. */
export const StoryAsset = z.union([
  z.string().min(1).max(1024),
  z
    .object({
      path: z.string().min(1).max(1024),
      name: z.string().min(1).max(128).describe('Archive file name (default: the file name of path).')
    })
    .strict()
]);

const overwrite = z.boolean().default(false).describe('Replace an existing file; default: refuse.');

/** One located problem of a Story; all are listed at once. */
export const StoryIssueDoc = z.object({
  snapshotIndex: z.number().int().nullable().describe('0-based snapshot (step) index; null: the whole Story.'),
  key: z.string().nullable().describe('Snapshot key, or null.'),
  path: z.string().describe('Node path in the snapshot, e.g. "root/children/0/params/url", or "metadata/key".'),
  message: z.string().describe('What is wrong.'),
  fix: z.string().describe('What would fix it.')
});

/** One step of a checked Story. */
export const StepDoc = z.object({ index: z.number().int().min(0), key: z.string(), title: z.string() });

/** What a checked Story holds: bounded. */
const storyShape = {
  title: z.string(),
  snapshotCount: z.number().int().min(0),
  steps: z.array(StepDoc).describe(`The first ${LIMITS.authoringStepsListed} steps.`)
};

// ---------------------------------------------------------------- story_schema
export const StorySchemaInput = z
  .object({
    node: z.string().min(1).max(64).optional().describe('An MVS node kind, e.g. "representation"; omit for the overview.'),
    case: z.string().min(1).max(64).optional().describe('With a union node kind: the case whose params to list, e.g. "cartoon".')
  })
  .strict();

export const StorySchemaOutput = z.object({
  mvsSpec: z.string().describe('MVS major version the bundled Mol* reads.'),
  molstar: z.string(),
  kinds: z
    .array(z.object({ kind: z.string(), summary: z.string(), parents: z.array(z.string()).nullable() }))
    .nullable()
    .describe('Overview: every node kind, one line each; null with `node`.'),
  rules: z.array(z.string()).nullable(),
  snapshotMetadata: z.array(ParamDoc).nullable().describe("Fields of a snapshot's metadata (Mol*'s SnapshotMetadata)."),
  docs: z.array(z.object({ title: z.string(), url: z.string() })).nullable(),
  node: z
    .object({
      kind: z.string(),
      description: z.string(),
      parents: z.array(z.string()).nullable().describe('Allowed parent kinds; null: any.'),
      children: z.array(z.string()),
      params: z.array(ParamDoc).describe("Simple kinds: all params; union kinds: the chosen case's."),
      discriminator: z
        .object({
          name: z.string(),
          description: z.string(),
          cases: z.array(z.object({ value: z.string(), params: z.array(z.string()) }))
        })
        .nullable()
        .describe("Union kinds: the param that selects the rest, and each case's param names."),
      case: z.string().nullable()
    })
    .nullable()
});

// ---------------------------------------------------------------- story_validate
export const StoryValidateInput = z
  .object({
    pageId,
    document: StoryDocument.optional(),
    path: StoryPath.optional().describe('Or: a .mvsj/.mvsx file under the Jupyter root.'),
    checkResources: z.boolean().default(true).describe('Fetch each https resource (false: list them only).')
  })
  .strict()
  .superRefine((v, ctx) => {
    if ((v.document === undefined) === (v.path === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['document'], message: 'give exactly one of document or path' });
    }
  });

/** One resource (`url`/`uri` param) of a Story, and whether this page could fetch it. */
export const StoryResource = z.object({
  url: z.string(),
  snapshotIndex: z.number().int().min(0),
  path: z.string().describe('Node path in the snapshot, e.g. root/children/0/params/url.'),
  source: z.enum(['remote', 'archive', 'data', 'relative']),
  status: z.enum(['reachable', 'unreachable', 'forbidden', 'not-checked']),
  httpStatus: z.number().int().nullable(),
  reason: z.string().nullable()
});
export type StoryResource = z.infer<typeof StoryResource>;

export const StoryValidateOutput = z.object({
  valid: z.boolean(),
  format: z.enum(['mvsj', 'mvsx']),
  ...storyShape,
  issueCount: z.number().int().min(0),
  issues: z.array(StoryIssueDoc).describe(`Every issue, the first ${LIMITS.authoringIssuesListed}.`),
  resourceCount: z.number().int().min(0),
  resources: z.array(StoryResource).describe(`The first ${LIMITS.storyResourcesListed}; unreachable ones are issues.`)
});

// ---------------------------------------------------------------- story_create
/** The fields `story_create` and `story_template_create` share. */
const createFields = {
  pageId,
  path: StoryPath.describe('.mvsj or .mvsx path under the Jupyter root.'),
  overwrite,
  open: z.boolean().default(false).describe('Also show it docked (story_control drives it).')
};

export const StoryCreateInput = z
  .object({
    ...createFields,
    document: StoryDocument,
    assets: z
      .array(StoryAsset)
      .max(LIMITS.storyAssets)
      .default([])
      .describe(".mvsx: files under the root packed as assets/<name>; a url equal to one's path is rewritten.")
  })
  .strict();

export const StoryCreateOutput = z.object({
  path: z.string().describe('The file written, relative to the Jupyter root.'),
  format: z.enum(['mvsj', 'mvsx']),
  replaced: z.boolean().describe('True when an existing file was overwritten.'),
  bytes: z.number().int().min(0),
  ...storyShape,
  assets: z.array(z.object({ path: z.string(), entry: z.string(), bytes: z.number().int().min(0) })),
  story: StoryState.nullable().describe('With open: the shown Story (its target for story_control).')
});

// ---------------------------------------------------------------- templates
/** One declared variable of a template. */
export const TemplateVariable = z.object({
  name: z.string(),
  description: z.string(),
  type: z.enum(['string', 'integer', 'number']),
  required: z.boolean(),
  default: z.union([z.string(), z.number()]).optional(),
  maxLength: z.number().int().min(1),
  example: z.union([z.string(), z.number()])
});

/** A template's catalogue entry: what it needs and what each step is for. */
export const TemplateSummary = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  variables: z.array(TemplateVariable),
  storyboard: z
    .array(z.object({ key: z.string(), purpose: z.string(), evidence: z.string() }))
    .describe('Each step: its scientific purpose and the evidence it expects from the caller.'),
  caveats: z.array(z.string())
});

export const StoryTemplateListInput = z
  .object({
    template: z.string().min(1).max(64).optional().describe('A template id: also return its steps.'),
    offset: z.number().int().min(0).default(0).describe('First template listed: a previous nextOffset.')
  })
  .strict();

export const StoryTemplateListOutput = z.object({
  templates: z.array(TemplateSummary),
  nextOffset: z.number().int().nullable().describe('Call again with this offset for the rest; null: none left.'),
  steps: z
    .array(z.record(z.string(), z.unknown()))
    .nullable()
    .describe('With `template`: its steps, with {{variable}} placeholders in string values.')
});

export const StoryTemplateCreateInput = z
  .object({
    ...createFields,
    path: createFields.path.optional().describe('.mvsj/.mvsx file to write (not with dryRun).'),
    template: z.string().min(1).max(64).describe('Template id (story_template_list).'),
    variables: z
      .record(z.string(), z.union([z.string(), z.number()]))
      .default({})
      .describe('Values of the declared variables (strings).'),
    assets: z.array(StoryAsset).max(LIMITS.storyAssets).default([]).describe('.mvsx only: files under the root to pack, as story_create.'),
    dryRun: z.boolean().default(false).describe('Fill only: return the document, write nothing.'),
    offset: z.number().int().min(0).default(0).describe('dryRun: nextOffset of the previous page.')
  })
  .strict();

/** A written Story (as story_create answers), or with dryRun the filled document, paged. */
export const StoryTemplateCreateOutput = StoryCreateOutput.partial().extend({
  template: z.string(),
  dryRun: z.boolean().optional(),
  document: z.string().optional().describe('dryRun: the filled document, compact JSON, from offset.'),
  documentChars: z.number().int().min(0).optional(),
  nextOffset: z.number().int().nullable().optional().describe('dryRun: offset of the rest; null: none left.')
});

// ---------------------------------------------------------------- story_edit
export const StoryEditInput = z
  .object({
    pageId,
    target,
    edit: z.enum(['replace', 'insert']),
    key: z
      .string()
      .min(1)
      .optional()
      .describe('replace: the key of the step to replace; insert: the step to insert after (omit: at the end).'),
    step: z.record(z.string(), z.unknown()).describe('A storyboard step {key, title, description, root}.'),
    expectedRevision,
    actionId
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.edit === 'replace' && v.key === undefined) {
      ctx.addIssue({ code: 'custom', path: ['key'], message: 'replace needs the key of the step to replace' });
    }
  });

export const StoryEditOutput = z.object({
  story: StoryState,
  steps: z.array(StepDoc).describe(`The first ${LIMITS.authoringStepsListed} steps after the edit.`),
  previousRevision: z.number().int(),
  changes: z.array(ChangeEntry).describe('What this call changed.'),
  replayed: z.boolean().describe('True when an earlier call with this actionId was returned.')
});

// ---------------------------------------------------------------- tools
const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const writes = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false };

export const STORY_SCHEMA_TOOL = gatewayToolSpec({
  name: 'story_schema',
  description: 'MVS reference of the bundled Mol*: node kinds and rules; with node, its parents, children, params.',
  guide:
    'MolViewSpec reference from the bundled Mol*: without `node`, the node kinds, tree rules and ' +
    'snapshot metadata; with `node`, its parents, children and params (type, required, default).',
  runs: 'gateway',
  input: StorySchemaInput,
  output: StorySchemaOutput,
  annotations: { title: 'MVS authoring reference', ...readOnly },
  target: null,
  mutating: false,
  errors: ['NOT_FOUND']
});

export const STORY_VALIDATE_TOOL = toolSpec({
  name: 'story_validate',
  description: 'Check a Story (inline, or a file under the root): every issue located, with a fix.',
  guide:
    "Check a Story (inline document or a file under the Jupyter root) with Mol*'s MVS validation " +
    "and molspace's checks; lists every issue at once, each located, with a fix.",
  runs: 'page',
  input: StoryValidateInput,
  output: StoryValidateOutput,
  annotations: { title: 'Validate a Story', ...readOnly },
  target: null,
  mutating: false,
  errors: ['NOT_FOUND', 'UNSUPPORTED_FORMAT', 'TOO_LARGE', 'FORBIDDEN']
});

export const STORY_CREATE_TOOL = toolSpec({
  name: 'story_create',
  description: 'Validate and write a Story under the root (.mvsj, or .mvsx with assets); open shows it.',
  guide:
    'Validate a Story (as story_validate) and write it as .mvsj, or as .mvsx with `assets` packed in, ' +
    'under the Jupyter root; refuses to overwrite unless `overwrite`; `open` shows it.',
  examples: [
    {
      path: 'stories/1cbs.mvsj',
      open: true,
      document: {
        title: 'CRABP2 and retinoic acid',
        steps: [
          {
            key: 'overview',
            title: 'Overview',
            description: 'The whole protein.',
            root: {
              kind: 'root',
              children: [
                {
                  kind: 'download',
                  params: { url: 'https://www.ebi.ac.uk/pdbe/entry-files/download/1cbs_updated.cif' },
                  children: [
                    {
                      kind: 'parse',
                      params: { format: 'mmcif' },
                      children: [
                        {
                          kind: 'structure',
                          params: { type: 'model' },
                          children: [
                            {
                              kind: 'component',
                              params: { selector: 'polymer' },
                              children: [{ kind: 'representation', params: { type: 'cartoon' } }]
                            }
                          ]
                        }
                      ]
                    }
                  ]
                }
              ]
            }
          }
        ]
      }
    }
  ],
  runs: 'page',
  input: StoryCreateInput,
  output: StoryCreateOutput,
  annotations: { title: 'Create a Story file', ...writes },
  target: null,
  mutating: true,
  errors: ['VALIDATION_FAILED', 'UNSUPPORTED_FORMAT', 'TOO_LARGE', 'FORBIDDEN']
});

export const STORY_TEMPLATE_LIST_TOOL = gatewayToolSpec({
  name: 'story_template_list',
  description: 'Story templates: ids, variables, steps (purpose, evidence), caveats.',
  guide:
    "Story templates: id, variables, each step's purpose and expected evidence, caveats; with " +
    '`template`, its steps. Templates are starting points: contacts and claims come from your calculations.',
  runs: 'gateway',
  input: StoryTemplateListInput,
  output: StoryTemplateListOutput,
  annotations: { title: 'List Story templates', ...readOnly },
  target: null,
  mutating: false,
  errors: ['NOT_FOUND']
});

export const STORY_TEMPLATE_CREATE_TOOL = toolSpec({
  name: 'story_template_create',
  description: "Fill a template's variables and create the Story as story_create does (assets too); dryRun: fill only.",
  guide:
    "Fill a template's variables (string values only, bounded) and create the Story as story_create does. " +
    'A *_url may name a file under the root: list it in assets and write an .mvsx, and it is packed and the ' +
    "reference rewritten (story_create's rule). dryRun: true writes nothing and returns the filled document " +
    'as JSON text in `document`, paged by offset/nextOffset within the read budget; path is then not needed.',
  examples: [
    {
      template: 'structure-overview',
      path: 'stories/1cbs.mvsj',
      variables: { structure_url: 'https://www.ebi.ac.uk/pdbe/entry-files/download/1cbs_updated.cif' },
      open: true
    },
    {
      template: 'structure-overview',
      path: 'stories/1cbs.mvsx',
      variables: { structure_url: 'data/1cbs.cif' },
      assets: ['data/1cbs.cif'],
      open: true
    },
    { template: 'structure-overview', variables: { structure_url: 'data/1cbs.cif' }, dryRun: true }
  ],
  runs: 'gateway',
  input: StoryTemplateCreateInput,
  output: StoryTemplateCreateOutput,
  annotations: { title: 'Create a Story from a template', ...writes },
  target: null,
  mutating: true,
  errors: ['NO_PAGE', 'NOT_FOUND', 'TIMEOUT', 'VALIDATION_FAILED', 'UNSUPPORTED_FORMAT', 'TOO_LARGE', 'FORBIDDEN']
});

export const STORY_EDIT_TOOL = toolSpec({
  name: 'story_edit',
  description: 'Replace or insert one step of a shown .mvsj Story, by key.',
  guide:
    'Replace or insert one step of a shown Story (.mvsj source) by key; validated like story_create, ' +
    'then shown at that step. Pass expectedRevision to fail with REVISION_CONFLICT if it changed.',
  runs: 'page',
  input: StoryEditInput,
  output: StoryEditOutput,
  annotations: { title: 'Edit a Story', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  target: 'story',
  mutating: true,
  errors: ['NOT_FOUND', 'STALE_TARGET', 'REVISION_CONFLICT', 'VALIDATION_FAILED', 'UNSUPPORTED_FORMAT', 'TOO_LARGE']
});

/** The authoring tools, in listing order (appended to `TOOLS`). */
export const AUTHORING_TOOLS = [
  STORY_SCHEMA_TOOL,
  STORY_VALIDATE_TOOL,
  STORY_CREATE_TOOL,
  STORY_TEMPLATE_LIST_TOOL,
  STORY_TEMPLATE_CREATE_TOOL,
  STORY_EDIT_TOOL
] as const;

export type StorySchemaOutput = z.infer<typeof StorySchemaOutput>;
export type StoryValidateOutput = z.infer<typeof StoryValidateOutput>;
export type StoryCreateOutput = z.infer<typeof StoryCreateOutput>;
export type StoryIssueDoc = z.infer<typeof StoryIssueDoc>;
