/**
 * A page tool: the contract's {@link ToolSpec} and the handler that answers
 * it, typed from the spec's zod schemas. The Dispatcher runs every page tool
 * the same way (validate, resolve the target, queue, check the revision,
 * replay an `actionId`, record the change); a handler only does its tool's
 * own work.
 */
import type { z } from 'zod';
import type { CallContext, ChangeEntry, ChangeSource, LastAction, ResultImage, ToolArgs, ToolSpec, WidgetKind } from '../contract';
import { invalidInput } from './invalidInput';
import type { ResourcePolicy } from '../resources/resourcePolicy';
import type { WorkspaceFiles } from '../resources/workspaceFiles';
import type { OpenerSlots } from './pageOpeners';
import type { WidgetRegistry } from './registry';
import type { WidgetTarget, WidgetTargets } from './widgetTarget';

/** The page a tool runs in, and who asked. */
export interface ToolEnv {
  /** Who asked: a button (`ui`), a cell (`kernel`), an agent, playback. */
  source: ChangeSource;
  /** For agents: which page and pages the gateway knows. */
  context: CallContext | undefined;
  registry: WidgetRegistry;
  /** What docks widgets in the main area (`pageOpeners.ts`). */
  openers: OpenerSlots;
  /** Files under the Jupyter root, through the page's contents manager. */
  files: WorkspaceFiles;
  /** Where Stories may fetch from (the `resourceHosts` setting). */
  resourcePolicy: ResourcePolicy;
  /** The last state-changing operation of this page, before this call. */
  lastAction: LastAction | null;
  /** When the caller stops waiting (ms since the epoch; agents: the gateway's deadline), if known. */
  deadline?: number;
}

/**
 * One call of a tool, as its handler receives it.
 *
 * @typeParam I - the tool's input schema; `args` are its validated output.
 * @typeParam T - the target: the resolved, loaded widget, or null for tools without one.
 */
export interface ToolCall<I extends z.ZodType, T> extends ToolEnv {
  args: z.output<I>;
  target: T;
}

/** What a handler answers. */
export interface ToolAnswer<O extends z.ZodType> {
  /** The structured content; the Dispatcher validates it against the output schema. */
  output: z.input<O>;
  /** The same answer in one or two sentences (MCP text content). */
  text: string;
  /** Mutating tools: the changes made, oldest first (recorded in the change log). */
  changes?: ChangeEntry[];
  /** Mutating tools: one line for the page's `lastAction`; default: `text`. */
  summary?: string;
  /** Images returned after the text (MCP image content), e.g. a screenshot. */
  images?: ResultImage[];
  /**
   * Mutating tools that wait for the person (`request_persist` with `waitMs`):
   * run after the target's queue is released (so the person's own edits are
   * not held up), and its answer replaces this one. Bounded by the handler.
   */
  settle?: () => Promise<ToolAnswer<O>>;
}

/**
 * The handler of one tool.
 *
 * @throws MolspaceError - a located error, returned to the caller as is.
 */
export type ToolHandler<I extends z.ZodType, O extends z.ZodType, T = null> = (
  call: ToolCall<I, T>
) => ToolAnswer<O> | Promise<ToolAnswer<O>>;

/** A tool's answer once its output is validated. */
export interface ToolResult {
  structuredContent: Record<string, unknown>;
  text: string;
  changes: ChangeEntry[];
  summary: string;
  images: ResultImage[];
  /** See {@link ToolAnswer.settle}: the final answer, validated, once the queue is free. */
  settle?: () => Promise<ToolResult>;
}

/** A call whose target is resolved: the Dispatcher queues and runs it. */
export interface BoundCall {
  /** The widget it acts on, or null. */
  readonly target: WidgetTarget | null;
  /** Run the handler once the target has loaded. */
  run(env: ToolEnv): Promise<ToolResult>;
  /**
   * The answer to a retried `actionId` that some page applied but this page has no result for
   * (see `WidgetTarget.appliedActions`), made from the target's state; absent for tools that
   * keep no such record.
   */
  replay?(): ToolResult;
}

/** A call whose arguments are valid. */
export interface ParsedCall {
  /** The arguments the Dispatcher reads: `target`, `expectedRevision`, `actionId`. */
  readonly args: ToolArgs;
  /**
   * Resolve the target widget.
   *
   * @throws MolspaceError `NOT_FOUND` at `/target`.
   */
  bind(registry: WidgetRegistry): BoundCall;
}

/** A page tool, its types erased for the Dispatcher's tool map. */
export interface PageTool {
  readonly spec: ToolSpec;
  /**
   * Validate raw arguments (`source`: who asked; a tool may take more from a person's button).
   *
   * @throws MolspaceError `INVALID_INPUT` located at the first bad field.
   */
  parse(rawArgs: unknown, source?: ChangeSource): ParsedCall;
}

function answerOf<O extends z.ZodType<Record<string, unknown>>>(output: O, answer: ToolAnswer<O>): ToolResult {
  const settle = answer.settle;
  return {
    structuredContent: output.parse(answer.output),
    text: answer.text,
    changes: answer.changes ?? [],
    summary: answer.summary ?? answer.text,
    images: answer.images ?? [],
    ...(settle ? { settle: async () => answerOf(output, await settle()) } : {})
  };
}

/** A page tool that acts on no single widget (`target: null` in its spec). */
export function defineTool<I extends z.ZodType<ToolArgs>, O extends z.ZodType<Record<string, unknown>>>(
  spec: ToolSpec<I, O, null>,
  handler: ToolHandler<I, O>
): PageTool {
  return {
    spec,
    parse(rawArgs) {
      const parsed = spec.input.safeParse(rawArgs);
      if (!parsed.success) {
        throw invalidInput(spec.name, parsed.error);
      }
      const args = parsed.data;
      return {
        args,
        bind: () => ({
          target: null,
          run: async env => answerOf(spec.output, await handler({ ...env, args, target: null }))
        })
      };
    }
  };
}

/**
 * A page tool that acts on one widget of its spec's `target` kind.
 *
 * @param options.uiInput - the input schema of calls from the widget's own UI (source `ui`), when a
 *   person may send more than the contract's input (emitted for agents and cells) allows, e.g. a
 *   drawing larger than an agent's inline limit; same output type as `spec.input`.
 * @param options.replayed - the answer, from the target's state, to a retried `actionId` that a
 *   page applied (its record in the widget's synced state) but whose result this page never had
 *   (e.g. the page that applied it was reloaded before answering); with it, the Dispatcher records
 *   each agent call with an `actionId` in the widget's state and answers such a retry with this,
 *   `replayed: true`, applying nothing.
 * @param options.replays - which calls keep that record (default: all): a tool whose reads must be
 *   answered again on a retry (they change nothing, and a replayed answer would lack their value)
 *   names its changes here.
 */
export function defineWidgetTool<I extends z.ZodType<ToolArgs>, O extends z.ZodType<Record<string, unknown>>, K extends WidgetKind>(
  spec: ToolSpec<I, O, K>,
  handler: ToolHandler<I, O, WidgetTargets[K]>,
  options: {
    uiInput?: I;
    replayed?: (target: WidgetTargets[K], args: z.infer<I>) => ToolAnswer<O>;
    replays?: (args: z.infer<I>) => boolean;
  } = {}
): PageTool {
  return {
    spec,
    parse(rawArgs, source) {
      const parsed = (source === 'ui' && options.uiInput ? options.uiInput : spec.input).safeParse(rawArgs);
      if (!parsed.success) {
        throw invalidInput(spec.name, parsed.error);
      }
      const args = parsed.data;
      return {
        args,
        bind: registry => {
          const target = registry.get(args.target, spec.target);
          const replayed = options.replayed && (options.replays?.(args) ?? true) ? options.replayed : undefined;
          return {
            target,
            run: async env => answerOf(spec.output, await handler({ ...env, args, target })),
            ...(replayed ? { replay: () => answerOf(spec.output, replayed(target, args)) } : {})
          };
        }
      };
    }
  };
}
