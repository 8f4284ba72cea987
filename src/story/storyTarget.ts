/**
 * A Story widget as the Story tools see it. `StoryModel` implements it; the
 * Dispatcher tests implement it in memory.
 */
import type { ChangeEntry, ChangeSource, SnapshotMeta, StoryState } from '../contract';
import type { ParsedStory } from '../molstar/storySource';
import type { WidgetTarget } from '../dispatcher/widgetTarget';

/** A requested change of a Story's position or playback. */
export interface StoryChangeRequest {
  /** New 0-based snapshot index. */
  index?: number;
  /** New playing flag. */
  playing?: boolean;
}

/** A Story widget: a {@link WidgetTarget} of kind `story`. */
export interface StoryTarget extends WidgetTarget {
  readonly kind: 'story';
  state(): StoryState;
  /** Bounded metadata of every snapshot, in Story order. */
  snapshots(): SnapshotMeta[];
  /**
   * Apply a change: advance the revision by one, render it, send the new
   * state to the kernel. Resolves once the step is drawn in the page (or no
   * view shows the Story).
   *
   * @returns the change-log entry of this change (its new revision, source and summary).
   * @throws MolspaceError when rendering fails (the state then carries the error),
   *   `STALE_TARGET` when the widget is closed before the step is drawn.
   */
  applyChange(change: StoryChangeRequest, source: ChangeSource, summary: string): Promise<ChangeEntry>;
  /**
   * The Story as parsed and validated (its MVS data and format).
   *
   * @throws MolspaceError the Story's own error when it does not load.
   */
  storyData(): Promise<ParsedStory>;
  /** The Story's file as it was given: MVSJ text or MVSX bytes (`export` to `.html`). */
  sourceFile(): { mvsj: string } | { mvsx: Uint8Array };
  /**
   * Replace the Story's source (validated MVSJ text) and show step `index`:
   * advance the revision by one, render, send the new source and state to
   * the kernel. Resolves once the step is drawn (or no view shows the Story).
   */
  replaceStory(mvsj: string, index: number, source: ChangeSource, summary: string): Promise<ChangeEntry>;
}

declare module '../dispatcher/widgetTarget' {
  /** `story` widgets are {@link StoryTarget}s. */
  interface WidgetTargets {
    story: StoryTarget;
  }
}
