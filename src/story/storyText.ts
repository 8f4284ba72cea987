/** How a Story's state reads in one line, for tool answers and `observe`. */
import type { SnapshotMeta, StoryState } from '../contract';

/** E.g. `Story "1CBS" at step 2 of 3: Binding site (playing), revision 4.` */
export function describeStory(state: StoryState, current: SnapshotMeta | undefined): string {
  const step = current ? `step ${state.index + 1} of ${state.count}: ${current.title || current.key}` : 'no step shown';
  return `Story "${state.title}" at ${step}${state.playing ? ' (playing)' : ''}, revision ${state.revision}.`;
}

/** E.g. `step 2 of 3: Binding site`, `loading`, or `error NOT_FOUND: ...` (the `summary` of `observe`). */
export function storySummary(state: StoryState, snapshots: readonly SnapshotMeta[]): string {
  if (state.error) {
    return `error ${state.error.code}: ${state.error.message}`;
  }
  if (state.count === 0) {
    return 'loading';
  }
  const current = snapshots[state.index];
  return `step ${state.index + 1} of ${state.count}${current ? `: ${current.title || current.key}` : ''}${state.playing ? ' (playing)' : ''}`;
}
