/**
 * The one Dispatcher of a page. Widget buttons, kernel messages and MCP calls
 * relayed by the gateway are the same typed operations: each is validated
 * against the zod contract, routed to one target, checked against
 * `expectedRevision`, deduplicated by `actionId`, serialised per target, and
 * answered with structured content or a located {@link MolspaceError}.
 */
import { z } from 'zod';
import {
  CallContext,
  ChangeSource,
  LastAction,
  MolspaceError,
  ObserveInput,
  ObserveOutput,
  SnapshotMeta,
  StoryControlInput,
  StoryControlOutput,
  StoryObserveInput,
  StoryObserveOutput,
  WidgetSummary,
  findTool
} from '../contract';
import type { StoryChangeRequest, StoryTarget } from './target';
import { WidgetRegistry } from './registry';

/** Who asked, and (for agents) which page and pages the gateway knows. */
export interface DispatchOptions {
  source: ChangeSource;
  context?: CallContext;
}

/** A successful operation: what MCP returns as `structuredContent` and text. */
export interface DispatchResult {
  structuredContent: Record<string, unknown>;
  text: string;
}

/** How many `actionId`s are remembered for replay. */
const ACTION_ID_MEMORY = 500;

/** Turn the first zod issue into a located INVALID_INPUT error (JSON pointer in `where`). */
export function invalidInput(tool: string, error: z.ZodError): MolspaceError {
  const issues = error.issues.map(i => {
    // An unknown field is located at the field itself, not at its parent object.
    const path = i.code === 'unrecognized_keys' ? [...i.path, i.keys[0]] : i.path;
    return {
      pointer: '/' + path.map(p => String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('/'),
      message: i.message
    };
  });
  const first = issues[0];
  return new MolspaceError(
    'INVALID_INPUT',
    `${tool}: ${first.pointer === '/' ? 'arguments' : first.pointer}: ${first.message}`,
    first.pointer,
    `Correct ${first.pointer === '/' ? 'the arguments' : first.pointer} to match the ${tool} input schema (see tools/list).`,
    { tool, issues }
  );
}

export class Dispatcher {
  readonly registry: WidgetRegistry;
  private readonly _replays = new Map<string, Promise<DispatchResult>>();
  private readonly _queues = new Map<string, Promise<unknown>>();
  private _lastAction: LastAction | null = null;

  constructor(registry: WidgetRegistry) {
    this.registry = registry;
  }

  /** The result of the last state-changing operation in this page. */
  get lastAction(): LastAction | null {
    return this._lastAction;
  }

  /**
   * Run one tool.
   *
   * @param tool - a tool name of the contract whose `runs` is `'page'`.
   * @param rawArgs - unvalidated arguments (JSON object).
   * @throws MolspaceError - INVALID_INPUT, NOT_FOUND, REVISION_CONFLICT, or the target's own error.
   */
  async execute(tool: string, rawArgs: unknown, options: DispatchOptions): Promise<DispatchResult> {
    const spec = findTool(tool);
    if (!spec || spec.runs !== 'page') {
      throw new MolspaceError(
        'NOT_FOUND',
        `No page operation named "${tool}".`,
        '/tool',
        'Use one of: observe, story_observe, story_control.',
        { tool }
      );
    }
    const parsed = spec.input.safeParse(rawArgs ?? {});
    if (!parsed.success) {
      throw invalidInput(tool, parsed.error);
    }
    switch (tool) {
      case 'observe':
        return this._observe(parsed.data as z.infer<typeof ObserveInput>, options);
      case 'story_observe':
        return this._storyObserve(parsed.data as z.infer<typeof StoryObserveInput>);
      case 'story_control':
        return this._storyControlOnce(parsed.data as z.infer<typeof StoryControlInput>, options);
      default:
        throw new MolspaceError(
          'INTERNAL',
          `Tool "${tool}" is in the contract but has no page operation.`,
          '/tool',
          'Upgrade molspace: the page and the gateway disagree on the contract.',
          { tool }
        );
    }
  }

  // ------------------------------------------------------------------ observe
  private _observe(args: z.infer<typeof ObserveInput>, options: DispatchOptions): DispatchResult {
    const all = this.registry.list();
    const offset = args.cursor === undefined ? 0 : Number.parseInt(args.cursor, 10);
    if (!Number.isInteger(offset) || offset < 0 || offset > all.length) {
      throw new MolspaceError(
        'INVALID_INPUT',
        `observe: cursor "${args.cursor}" is not a cursor this page returned.`,
        '/cursor',
        'Omit cursor to start over, or pass the nextCursor of the previous observe call.',
        { cursor: args.cursor }
      );
    }
    const page = all.slice(offset, offset + args.limit);
    const next = offset + page.length < all.length ? String(offset + page.length) : null;
    const widgets: WidgetSummary[] = page.map(t => summarize(t));
    const out = ObserveOutput.parse({
      pageId: options.context?.pageId ?? 'local',
      pages: options.context?.pages ?? [],
      widgets,
      activeWidget: this.registry.active?.targetId ?? null,
      lastAction: this._lastAction,
      total: all.length,
      nextCursor: next
    });
    const text =
      all.length === 0
        ? 'No molspace widgets in this page. Run a notebook cell that displays molspace.Story(...).'
        : `${all.length} widget(s): ` + widgets.map(w => `${w.id} (${w.kind}: ${w.summary})`).join('; ');
    return { structuredContent: out, text };
  }

  // ------------------------------------------------------------------ story_observe
  private async _storyObserve(args: z.infer<typeof StoryObserveInput>): Promise<DispatchResult> {
    const target = this._resolveStory(args.target);
    await target.whenLoaded();
    const state = target.state();
    const all = target.snapshots();
    const snapshots = all.slice(args.offset, args.offset + args.limit);
    const nextOffset = args.offset + snapshots.length < all.length ? args.offset + snapshots.length : null;
    const out = StoryObserveOutput.parse({
      story: state,
      current: all[state.index] ?? null,
      snapshots,
      nextOffset
    });
    return { structuredContent: out, text: describeStory(state, all[state.index]) };
  }

  // ------------------------------------------------------------------ story_control
  private _storyControlOnce(
    args: z.infer<typeof StoryControlInput>,
    options: DispatchOptions
  ): Promise<DispatchResult> {
    if (args.actionId === undefined) {
      return this._storyControlQueued(args, options);
    }
    const key = `story_control:${args.actionId}`;
    const earlier = this._replays.get(key);
    if (earlier) {
      return earlier.then(r => ({
        structuredContent: { ...r.structuredContent, replayed: true },
        text: `${r.text} (replayed actionId ${args.actionId}: not applied again)`
      }));
    }
    const run = this._storyControlQueued(args, options);
    this._replays.set(key, run);
    // A failed call may be retried with the same actionId: forget it.
    run.catch(() => this._replays.delete(key));
    if (this._replays.size > ACTION_ID_MEMORY) {
      const oldest = this._replays.keys().next().value;
      if (oldest !== undefined) {
        this._replays.delete(oldest);
      }
    }
    return run;
  }

  private _storyControlQueued(
    args: z.infer<typeof StoryControlInput>,
    options: DispatchOptions
  ): Promise<DispatchResult> {
    const target = this._resolveStory(args.target);
    // Serialise operations per target so that a revision check and the change it guards are atomic.
    const previous = this._queues.get(target.targetId) ?? Promise.resolve();
    const run = previous.catch(() => undefined).then(() => this._storyControl(target, args, options));
    this._queues.set(target.targetId, run);
    run.finally(() => {
      if (this._queues.get(target.targetId) === run) {
        this._queues.delete(target.targetId);
      }
    }).catch(() => undefined);
    return run;
  }

  private async _storyControl(
    target: StoryTarget,
    args: z.infer<typeof StoryControlInput>,
    options: DispatchOptions
  ): Promise<DispatchResult> {
    if (this.registry.get(target.targetId) !== target) {
      throw new MolspaceError(
        'STALE_TARGET',
        `Story ${target.targetId} was removed before the call ran.`,
        '/target',
        'Call observe to list the widgets that exist now.',
        { target: target.targetId }
      );
    }
    // A call that arrives while the Story is still loading waits for it.
    await target.whenLoaded();
    const before = target.state();
    if (args.expectedRevision !== undefined && args.expectedRevision !== before.revision) {
      throw new MolspaceError(
        'REVISION_CONFLICT',
        `Story ${target.targetId} is at revision ${before.revision}, not the expected ${args.expectedRevision}.`,
        '/expectedRevision',
        `Call story_observe, check the new state, and retry with expectedRevision ${before.revision}.`,
        {
          target: target.targetId,
          expectedRevision: args.expectedRevision,
          currentRevision: before.revision,
          changes: target.changesSince(args.expectedRevision)
        }
      );
    }
    const snapshots = target.snapshots();
    if (snapshots.length === 0) {
      const err = before.error;
      throw new MolspaceError(
        err?.code ?? 'NOT_FOUND',
        `Story ${target.targetId} has no snapshots to show${err ? `: ${err.message}` : ' (still loading)'}.`,
        err?.where ?? '/target',
        err?.fix ?? 'Wait until story_observe reports ready, then retry.',
        { target: target.targetId, error: err ?? null }
      );
    }
    const plan = planStoryChange(args, before.index, before.playing, snapshots);
    let changes: { revision: number; source: ChangeSource; summary: string }[] = [];
    if (plan.change !== null) {
      const entry = await target.applyChange(plan.change, options.source, plan.summary);
      changes = [entry];
    }
    const after = target.state();
    this._lastAction = {
      tool: 'story_control',
      target: target.targetId,
      source: options.source,
      ok: true,
      revision: after.revision,
      summary: plan.summary,
      at: new Date().toISOString()
    };
    const out = StoryControlOutput.parse({
      story: after,
      current: snapshots[after.index] ?? null,
      changed: plan.change !== null,
      previousRevision: before.revision,
      changes,
      replayed: false
    });
    return { structuredContent: out, text: `${plan.summary}. ${describeStory(after, snapshots[after.index])}` };
  }

  private _resolveStory(id: string | undefined): StoryTarget {
    if (id === undefined) {
      const active = this.registry.active;
      if (!active) {
        throw new MolspaceError(
          'NOT_FOUND',
          'No Story widget in this page.',
          '/target',
          'Display one from a notebook cell (molspace.Story(...)), or pass pageId of a page that has one (see observe).',
          {}
        );
      }
      return active;
    }
    const target = this.registry.get(id);
    if (!target) {
      throw new MolspaceError(
        'NOT_FOUND',
        `No widget with id "${id}" in this page.`,
        '/target',
        'Call observe and use a widget id it lists; a widget of a restarted kernel has a new id.',
        { target: id, known: this.registry.list().slice(0, 20).map(t => t.targetId) }
      );
    }
    return target;
  }
}

/** What a story_control call would change, computed without touching the target. */
export function planStoryChange(
  args: z.infer<typeof StoryControlInput>,
  index: number,
  playing: boolean,
  snapshots: SnapshotMeta[]
): { change: StoryChangeRequest | null; summary: string } {
  const n = snapshots.length;
  const label = (i: number) => `step ${i + 1} of ${n} ("${snapshots[i].key}")`;
  switch (args.action) {
    case 'next':
      return index + 1 < n
        ? { change: { index: index + 1 }, summary: `next: ${label(index + 1)}` }
        : { change: null, summary: `next: already at the last step, ${label(index)}` };
    case 'previous':
      return index > 0
        ? { change: { index: index - 1 }, summary: `previous: ${label(index - 1)}` }
        : { change: null, summary: `previous: already at the first step, ${label(index)}` };
    case 'play':
      if (playing) {
        return { change: null, summary: 'play: already playing' };
      }
      // Playing from the last step starts over, as a media player does.
      return index + 1 >= n && n > 1
        ? { change: { playing: true, index: 0 }, summary: `play from the start: ${label(0)}` }
        : { change: { playing: true }, summary: `play from ${label(index)}` };
    case 'pause':
      return playing
        ? { change: { playing: false }, summary: `pause at ${label(index)}` }
        : { change: null, summary: 'pause: not playing' };
    case 'goto': {
      let to: number;
      if (args.index !== undefined) {
        if (args.index >= n) {
          throw new MolspaceError(
            'INVALID_INPUT',
            `goto: index ${args.index} is out of range; the Story has ${n} snapshots.`,
            '/index',
            `Use an index from 0 to ${n - 1}, or a key.`,
            { index: args.index, count: n }
          );
        }
        to = args.index;
      } else {
        const key = (args.key ?? args.snapshotId) as string;
        const field = args.key !== undefined ? '/key' : '/snapshotId';
        to = snapshots.findIndex(s => s.key === key);
        if (to < 0) {
          throw new MolspaceError(
            'NOT_FOUND',
            `goto: no snapshot with key "${key}".`,
            field,
            'Use a key listed by story_observe.',
            { key, keys: snapshots.slice(0, 50).map(s => s.key) }
          );
        }
      }
      return to === index
        ? { change: null, summary: `goto: already at ${label(to)}` }
        : { change: { index: to }, summary: `goto ${label(to)}` };
    }
  }
}

function describeStory(state: { title: string; index: number; count: number; playing: boolean; revision: number }, current: SnapshotMeta | undefined): string {
  const step = current ? `step ${state.index + 1} of ${state.count}: ${current.title || current.key}` : 'no step shown';
  return `Story "${state.title}" at ${step}${state.playing ? ' (playing)' : ''}, revision ${state.revision}.`;
}

function summarize(t: StoryTarget): WidgetSummary {
  const s = t.state();
  const snaps = t.snapshots();
  const current = snaps[s.index];
  const summary = s.error
    ? `error ${s.error.code}: ${s.error.message}`
    : s.count === 0
      ? 'loading'
      : `step ${s.index + 1} of ${s.count}${current ? `: ${current.title || current.key}` : ''}${s.playing ? ' (playing)' : ''}`;
  return {
    id: t.targetId,
    kind: t.kind,
    title: s.title,
    ready: s.ready,
    revision: s.revision,
    summary,
    notebook: t.notebook,
    error: s.error
  };
}
