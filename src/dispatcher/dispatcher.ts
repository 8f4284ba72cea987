/**
 * The one Dispatcher of a page. Widget buttons, kernel messages and MCP calls
 * relayed by the gateway are the same typed operations: each is validated
 * against the zod contract, routed to one target, checked against
 * `expectedRevision`, deduplicated by `actionId`, serialised per target, and
 * answered with structured content or a located {@link MolspaceError}.
 *
 * What a tool does is its handler's job (`src/tools/`); how every tool is run
 * is decided here from its contract entry: `target` (the widget kind it acts
 * on) and `mutating`.
 */
import {
  CallContext,
  ChangeSource,
  LastAction,
  MolspaceError,
  ResultImage,
  TOOLS,
  WIDGET_KIND_INFO,
  type ServedRead,
  type ToolSpec,
  type WidgetKind
} from '../contract';
import { ISignal, Signal } from '@lumino/signaling';
import { defaultResourcePolicy, type ResourcePolicy } from '../resources/resourcePolicy';
import { WorkspaceFiles } from '../resources/workspaceFiles';
import type { OpenerSlots } from './pageOpeners';
import type { BoundCall, PageTool, ParsedCall, ToolResult } from './pageTool';
import { ChangeLog } from './changeLog';
import { WidgetRegistry } from './registry';
import type { WidgetTarget } from './widgetTarget';

export { invalidInput } from './invalidInput';

/** Who asked, and (for agents) which page and pages the gateway knows. */
export interface DispatchOptions {
  source: ChangeSource;
  context?: CallContext;
  /**
   * When the caller stops waiting (ms since the epoch; the bridge's
   * `deadlineMs` from the gateway). A mutating call whose turn comes after it
   * fails with TIMEOUT and is not applied, so the agent's retry does not find
   * it applied behind its back.
   */
  deadline?: number;
  /**
   * Called once, right before a mutating call changes its target (after its
   * turn came, the target loaded and the revision check), in the same
   * synchronous step as the change: false means another page already applied
   * this request (`kernel/appliedRequests.ts`), and the call rejects with
   * {@link ClaimedElsewhere} without applying anything.
   */
  claim?: () => boolean;
}

/**
 * Thrown (never to an agent) when {@link DispatchOptions.claim} said another
 * page already applied the request: nothing was applied and there is nothing
 * to answer.
 */
export class ClaimedElsewhere extends Error {
  constructor(tool: string) {
    super(`${tool}: another page already applied this request; not applied again.`);
    this.name = 'ClaimedElsewhere';
  }
}

/** A successful operation: what MCP returns as `structuredContent` and text. */
export interface DispatchResult {
  structuredContent: Record<string, unknown>;
  text: string;
  /** Images after the text (MCP image content); absent when none. */
  images?: ResultImage[];
}

/** The tools a Dispatcher knows. */
export interface DispatcherTools {
  /** The contract's tools (default: `TOOLS`); those with `runs: 'page'` are answered here. */
  contract?: readonly ToolSpec[];
  /** Their handlers: `PAGE_TOOLS` (`src/tools/index.ts`) for a page; tools sit above the Dispatcher. */
  handlers: readonly PageTool[];
  /** Files under the Jupyter root (default: through a default contents manager). */
  files?: WorkspaceFiles;
  /** Where Stories may fetch from (default: `defaultResourcePolicy()`). */
  resourcePolicy?: ResourcePolicy;
}

/**
 * One call the Dispatcher ran, as the activity panel and observers read it.
 * Agent-written strings (arguments, messages) are data, shown as text only.
 */
export interface DispatchRecord {
  /** The tool called. */
  tool: string;
  /** Who asked. */
  source: ChangeSource;
  /** For agents: the MCP client's name (its `clientInfo`), or null. */
  client: string | null;
  /** The widget it addressed (the `target` argument), or null. */
  target: string | null;
  /** The arguments as received (unvalidated). */
  args: unknown;
  /** Whether it succeeded. */
  ok: boolean;
  /** The target's revision after the call, when it has one. */
  revision: number | null;
  /** The located error's code when it failed, else null. */
  errorCode: string | null;
  /** The result's one-line text, or the error message. */
  summary: string;
  /** When it started (ms since the epoch) and how long it took (ms). */
  startedAt: number;
  durationMs: number;
  /**
   * Who answered: the page's Dispatcher, or the gateway from this page's read
   * mirror (a read that never reached the page; `docs/architecture.md`, "Read mirror").
   */
  answeredBy: 'page' | 'mirror';
}

/** How many `actionId`s are remembered for replay. */
const ACTION_ID_MEMORY = 500;

export class Dispatcher {
  readonly registry: WidgetRegistry;
  /** What docks widgets in the main area, set by the plugins (`pageOpeners.ts`). */
  readonly openers: OpenerSlots = {};
  /** Files under the Jupyter root that tools read and write. */
  readonly files: WorkspaceFiles;
  /** Where Stories may fetch from: the page's (the `resourceHosts` setting). */
  readonly resourcePolicy: ResourcePolicy;
  private readonly _contract: readonly ToolSpec[];
  private readonly _handlers = new Map<string, PageTool>();
  /**
   * Results by `tool:actionId`, as compact JSON text: an `act` result carries the Viewer's whole
   * view, and 500 of them kept as objects were the page heap's growth in the soak
   * (docs/benchmarks.md, "the soak, 10,000 calls").
   */
  private readonly _replays = new Map<string, Promise<string>>();
  private readonly _queues = new Map<string, Promise<unknown>>();
  private readonly _changeLog = new ChangeLog();
  private readonly _executed = new Signal<this, DispatchRecord>(this);
  private readonly _served = new Signal<this, DispatchRecord>(this);
  private _lastAction: LastAction | null = null;

  constructor(registry: WidgetRegistry, tools: DispatcherTools) {
    this.registry = registry;
    this.files = tools.files ?? new WorkspaceFiles();
    this.resourcePolicy = tools.resourcePolicy ?? defaultResourcePolicy();
    this._contract = tools.contract ?? TOOLS;
    for (const handler of tools.handlers) {
      this._handlers.set(handler.spec.name, handler);
    }
    registry.removed.connect((_, target) => this._changeLog.forget(target.targetId));
  }

  /** The result of the last state-changing operation in this page. */
  get lastAction(): LastAction | null {
    return this._lastAction;
  }

  /** Emits one record after every call, successful or not. */
  get executed(): ISignal<this, DispatchRecord> {
    return this._executed;
  }

  /**
   * Emits one record per read the gateway answered from this page's read
   * mirror ({@link noteServed}): agent reads that never reached the
   * Dispatcher, for the activity panel. Apart from {@link executed}, so
   * nothing that follows the page's own calls (the read mirror, static
   * fallbacks) runs again for them.
   */
  get served(): ISignal<this, DispatchRecord> {
    return this._served;
  }

  /**
   * Record reads the gateway answered from this page's read mirror (the
   * bridge's `served` frame): each becomes one {@link served} record of source
   * `agent` with its client, target (the named one, else the widget of the
   * tool's kind the mirror answered for), the target's revision now, ok.
   */
  noteServed(reads: readonly ServedRead[]): void {
    for (const read of reads) {
      const spec = this._contract.find(t => t.name === read.tool);
      const named = targetOf(read.args);
      const widget = named === null ? this._defaultTarget(spec?.target ?? null) : (this.registry.find(named) ?? null);
      this._served.emit({
        tool: read.tool,
        source: 'agent',
        client: read.client?.name ?? null,
        target: named ?? widget?.targetId ?? null,
        args: read.args,
        ok: true,
        revision: widget ? widget.state().revision : null,
        errorCode: null,
        summary: 'answered by the gateway from the read mirror',
        startedAt: read.startedAt,
        durationMs: read.durationMs,
        answeredBy: 'mirror'
      });
    }
  }

  /**
   * Run one tool.
   *
   * @param tool - a tool name of the contract whose `runs` is `'page'`.
   * @param rawArgs - unvalidated arguments (JSON object).
   * @throws MolspaceError - `NOT_FOUND` (no such page tool, no such target),
   *   `INVALID_INPUT`, `STALE_TARGET`, `REVISION_CONFLICT`, or the tool's own error.
   */
  async execute(tool: string, rawArgs: unknown, options: DispatchOptions): Promise<DispatchResult> {
    const startedAt = Date.now();
    const began = performance.now();
    // The widget the call was bound to (the named one, or the default of its kind).
    const bound: CallBinding = { target: null };
    const record = (ok: boolean, summary: string, errorCode: string | null, change: string | null): void => {
      const named = targetOf(rawArgs);
      const widget = bound.target ?? (named === null ? null : (this.registry.find(named) ?? null));
      const entry: DispatchRecord = {
        tool,
        source: options.source,
        client: options.context?.client?.name ?? null,
        target: named ?? widget?.targetId ?? null,
        args: rawArgs,
        ok,
        revision: bound.revision ?? (widget ? widget.state().revision : null),
        errorCode,
        summary,
        startedAt,
        durationMs: performance.now() - began,
        answeredBy: 'page'
      };
      if (change !== null) {
        // `observe`'s lastAction is this very record (the activity panel's newest change).
        this._lastAction = {
          tool,
          target: entry.target ?? '',
          source: entry.source,
          ok: true,
          revision: entry.revision,
          summary: change,
          at: new Date(startedAt + entry.durationMs).toISOString()
        };
      }
      this._executed.emit(entry);
    };
    try {
      const result = await this._execute(tool, rawArgs, options, bound);
      record(true, result.text, null, bound.change ?? null);
      // Recorded as applied (lastAction, the activity panel) at once, but answered only once the
      // change has left for the kernel: a reload right after the answer must not lose a change
      // the caller was told is applied (the gateway would replay it).
      if (bound.change !== undefined) {
        await bound.target?.whenSent?.();
      }
      return result;
    } catch (e) {
      if (e instanceof ClaimedElsewhere) {
        throw e; // nothing ran here: not an operation of this page
      }
      const error = MolspaceError.from(e, tool);
      record(false, error.message, error.code, null);
      throw e;
    }
  }

  /** The widget a call without `target` acts on, for a tool of this kind (none: null). */
  private _defaultTarget(kind: WidgetKind | null): WidgetTarget | null {
    return kind === null ? null : this.registry.activeOf(kind);
  }

  private async _execute(tool: string, rawArgs: unknown, options: DispatchOptions, binding: CallBinding): Promise<DispatchResult> {
    const handler = this._handler(tool);
    const call = handler.parse(rawArgs ?? {}, options.source);
    if (!handler.spec.mutating) {
      const bound = call.bind(this.registry);
      binding.target = bound.target;
      await bound.target?.whenLoaded();
      const result = await bound.run(this._env(options));
      return withImages({ structuredContent: result.structuredContent, text: result.text }, result.images);
    }
    const actionId = call.args.actionId;
    if (actionId === undefined) {
      return this._queued(handler.spec, call, options, binding);
    }
    const key = `${tool}:${actionId}`;
    const earlier = this._replays.get(key);
    if (earlier) {
      return earlier.then(json => {
        const r = JSON.parse(json) as DispatchResult;
        return {
          ...r,
          structuredContent: { ...r.structuredContent, replayed: true },
          text: `${r.text} (replayed actionId ${actionId}: not applied again)`
        };
      });
    }
    const run = this._queued(handler.spec, call, options, binding);
    const kept = run.then(r => JSON.stringify(r));
    kept.catch(() => undefined);
    this._replays.set(key, kept);
    // A failed call, or one still waiting for the person (`status: "pending"`),
    // may be retried with the same actionId: forget it.
    const forget = () => {
      if (this._replays.get(key) === kept) {
        this._replays.delete(key);
      }
    };
    run.then(r => (r.structuredContent.status === 'pending' ? forget() : undefined), forget);
    if (this._replays.size > ACTION_ID_MEMORY) {
      const oldest = this._replays.keys().next().value;
      if (oldest !== undefined) {
        this._replays.delete(oldest);
      }
    }
    return run;
  }

  private _handler(tool: string): PageTool {
    const handler = this._handlers.get(tool);
    if (handler && handler.spec.runs === 'page') {
      return handler;
    }
    const pageTools = this._contract.filter(t => t.runs === 'page').map(t => t.name);
    if (pageTools.includes(tool)) {
      throw new MolspaceError(
        'INTERNAL',
        `Tool "${tool}" is in the contract but has no page operation.`,
        '/tool',
        'Upgrade molspace: the page and the gateway disagree on the contract.',
        { tool }
      );
    }
    throw new MolspaceError('NOT_FOUND', `No page operation named "${tool}".`, '/tool', `Use one of: ${pageTools.join(', ')}.`, {
      tool,
      tools: pageTools
    });
  }

  private _env(options: DispatchOptions) {
    return {
      source: options.source,
      context: options.context,
      registry: this.registry,
      openers: this.openers,
      files: this.files,
      resourcePolicy: this.resourcePolicy,
      lastAction: this._lastAction,
      deadline: options.deadline
    };
  }

  /** Run a mutating call after earlier calls on the same target, so a revision check and its change are atomic. */
  private _queued(spec: ToolSpec, call: ParsedCall, options: DispatchOptions, binding: CallBinding): Promise<DispatchResult> {
    const bound = call.bind(this.registry);
    binding.target = bound.target;
    const queue = bound.target ? `target:${bound.target.targetId}` : `tool:${spec.name}`;
    const previous = this._queues.get(queue) ?? Promise.resolve();
    const run = previous.catch(() => undefined).then(() => this._mutate(spec, call, bound, options, binding));
    this._queues.set(queue, run);
    run
      .finally(() => {
        if (this._queues.get(queue) === run) {
          this._queues.delete(queue);
        }
      })
      .catch(() => undefined);
    // A handler that waits for the person settles after the queue is released.
    const target = bound.target;
    return run.then(r =>
      r.settle
        ? r.settle().then(final => {
            binding.revision = target?.state().revision;
            return resultOf(final);
          })
        : r.result
    );
  }

  private async _mutate(
    spec: ToolSpec,
    call: ParsedCall,
    bound: BoundCall,
    options: DispatchOptions,
    binding: CallBinding
  ): Promise<{ result: DispatchResult; settle?: () => Promise<ToolResult> }> {
    const target = bound.target;
    if (target) {
      this._assertLive(target);
      // A call that arrives while the widget is still loading waits for it.
      await target.whenLoaded();
      this._assertLive(target);
      this._checkRevision(target, call.args.expectedRevision);
    }
    this._checkDeadline(spec, options.deadline);
    if (options.claim && !options.claim()) {
      throw new ClaimedElsewhere(spec.name);
    }
    // An agent's call is recorded in the widget's synced state with the change it makes: a retry
    // that finds it there was applied by a page that went away before answering (a reload).
    const actionId = call.args.actionId;
    const applied = actionId !== undefined && bound.replay ? target?.appliedActions : undefined;
    const claim = `${spec.name}:${actionId}`;
    if (applied && bound.replay && !applied.claim(claim)) {
      const replayed = bound.replay();
      return { result: resultOf({ ...replayed, text: `${replayed.text} (replayed actionId ${actionId}: not applied again)` }) };
    }
    let result: ToolResult;
    try {
      result = await bound.run(this._env(options));
    } catch (e) {
      applied?.forget(claim); // nothing applied: a retry may apply it
      throw e;
    }
    if (target) {
      this._changeLog.record(target.targetId, result.changes);
      binding.revision = target.state().revision;
    }
    binding.change = result.summary; // the record of this call becomes `lastAction`
    return { result: resultOf(result), settle: result.settle };
  }

  /** @throws MolspaceError `STALE_TARGET` when the widget was removed after the call was routed to it. */
  private _assertLive(target: WidgetTarget): void {
    if (this.registry.find(target.targetId) !== target) {
      const { label } = WIDGET_KIND_INFO[target.kind];
      // a widget retired (its kernel restarted, its cell re-run) says why, as a call naming it later does
      const reason = this.registry.retiredReason(target.targetId);
      throw new MolspaceError(
        'STALE_TARGET',
        `${label} ${target.targetId} was removed before the call ran${reason === undefined ? '' : `: ${reason}`}.`,
        '/target',
        'Call observe to list the widgets that exist now.',
        reason === undefined ? { target: target.targetId } : { target: target.targetId, reason }
      );
    }
  }

  /** @throws MolspaceError `TIMEOUT` when the caller's deadline has passed before the change is applied. */
  private _checkDeadline(spec: ToolSpec, deadline: number | undefined): void {
    if (deadline === undefined || Date.now() <= deadline) {
      return;
    }
    throw new MolspaceError(
      'TIMEOUT',
      `${spec.name} was not applied: its turn came ${Date.now() - deadline} ms after the caller's deadline.`,
      '/',
      'Call observe to see the current state, then call again (with the same actionId if you pass one).',
      { tool: spec.name, lateByMs: Date.now() - deadline }
    );
  }

  /** @throws MolspaceError `REVISION_CONFLICT` at `/expectedRevision`, with what changed since. */
  private _checkRevision(target: WidgetTarget, expected: number | undefined): void {
    const current = target.state().revision;
    if (expected === undefined || expected === current) {
      return;
    }
    const { label, observeTool } = WIDGET_KIND_INFO[target.kind];
    throw new MolspaceError(
      'REVISION_CONFLICT',
      `${label} ${target.targetId} is at revision ${current}, not the expected ${expected}.`,
      '/expectedRevision',
      `Call ${observeTool}, check the new state, and retry with expectedRevision ${current}.`,
      {
        target: target.targetId,
        expectedRevision: expected,
        currentRevision: current,
        changes: this._changeLog.since(target.targetId, expected)
      }
    );
  }
}

/** What {@link Dispatcher.execute} learns while a call runs: its bound widget, and the change it applied. */
interface CallBinding {
  target: WidgetTarget | null;
  /** The applied change's summary (a mutating call that succeeded), else undefined. */
  change?: string;
  /**
   * The target's revision right after the change (a mutating call that succeeded): its record
   * names it, though later calls on the target may run while the answer waits to be sent.
   */
  revision?: number;
}

/** The `target` argument of a call, if it names one. */
function targetOf(rawArgs: unknown): string | null {
  if (typeof rawArgs === 'object' && rawArgs !== null && 'target' in rawArgs) {
    return typeof rawArgs.target === 'string' ? rawArgs.target : null;
  }
  return null;
}

/** Add `images` to a result only when there are some (results without images keep their shape). */
function withImages(result: DispatchResult, images: ResultImage[]): DispatchResult {
  return images.length ? { ...result, images } : result;
}

function resultOf(result: ToolResult): DispatchResult {
  return withImages({ structuredContent: result.structuredContent, text: result.text }, result.images);
}
