/**
 * `story_control`: step or play a Story. The Dispatcher has already queued
 * the call behind earlier ones on this Story, waited for it to load and
 * checked `expectedRevision`; this plans the change and applies it.
 */
import { MolspaceError, STORY_CONTROL_TOOL, type SnapshotMeta, type StoryControlInput } from '../contract';
import type { StoryChangeRequest, StoryTarget } from '../story/storyTarget';
import { describeStory } from '../story/storyText';
import { defineWidgetTool, type ToolAnswer } from '../dispatcher/pageTool';

/** What a `story_control` call would change: null when the Story stays as it is. */
export interface StoryChangePlan {
  change: StoryChangeRequest | null;
  /** One line, e.g. `next: step 2 of 3 ("site")`. */
  summary: string;
}

/**
 * Plan a `story_control` call without touching the Story.
 *
 * @throws MolspaceError `INVALID_INPUT` at `/index` (out of range), `NOT_FOUND`
 *   at `/key` or `/snapshotId` (no such snapshot).
 */
export function planStoryChange(
  args: StoryControlInput,
  index: number,
  playing: boolean,
  snapshots: readonly SnapshotMeta[]
): StoryChangePlan {
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
      const to = gotoIndex(args, snapshots);
      return to === index
        ? { change: null, summary: `goto: already at ${label(to)}` }
        : { change: { index: to }, summary: `goto ${label(to)}` };
    }
  }
}

/** The snapshot index a `goto` names by index, key or snapshotId. */
function gotoIndex(args: StoryControlInput, snapshots: readonly SnapshotMeta[]): number {
  const n = snapshots.length;
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
    return args.index;
  }
  const [field, key] = args.key !== undefined ? ['/key', args.key] : ['/snapshotId', args.snapshotId ?? ''];
  const to = snapshots.findIndex(s => s.key === key);
  if (to < 0) {
    throw new MolspaceError('NOT_FOUND', `goto: no snapshot with key "${key}".`, field, 'Use a key listed by story_observe.', {
      key,
      keys: snapshots.slice(0, 50).map(s => s.key)
    });
  }
  return to;
}

/** A retry of a change a page applied without answering (reloaded meanwhile): the Story as it is now. */
function replayed(target: StoryTarget): ToolAnswer<typeof STORY_CONTROL_TOOL.output> {
  const now = target.state();
  const current = target.snapshots()[now.index] ?? null;
  return {
    output: { story: now, current, changed: false, previousRevision: now.revision, changes: [], replayed: true },
    text: `Applied by a page that was reloaded before it answered. ${describeStory(now, current ?? undefined)}`
  };
}

export const storyControl = defineWidgetTool(
  STORY_CONTROL_TOOL,
  async ({ args, target, source }) => {
    const before = target.state();
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
    const changes = plan.change === null ? [] : [await target.applyChange(plan.change, source, plan.summary)];
    const after = target.state();
    return {
      output: {
        story: after,
        current: snapshots[after.index] ?? null,
        changed: plan.change !== null,
        previousRevision: before.revision,
        changes,
        replayed: false
      },
      text: `${plan.summary}. ${describeStory(after, snapshots[after.index])}`,
      changes,
      summary: plan.summary
    };
  },
  { replayed }
);
