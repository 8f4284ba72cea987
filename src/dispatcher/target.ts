/**
 * What the Dispatcher needs from a widget model. Widget models implement it;
 * tests implement it without Mol* or a kernel.
 */
import type { ChangeEntry, ChangeSource, SnapshotMeta, StoryState } from '../contract';

/** A requested change of a Story's position or playback. */
export interface StoryChangeRequest {
  /** New 0-based snapshot index. */
  index?: number;
  /** New playing flag. */
  playing?: boolean;
}

/** A Story widget as the Dispatcher sees it. */
export interface StoryTarget {
  /** Model id: what agents pass as `target`. */
  readonly targetId: string;
  readonly kind: 'story';
  /** Notebook path that owns the widget, if known. */
  readonly notebook: string | null;
  /** Resolves once the Story source has been parsed (or has failed to parse); never rejects. */
  whenLoaded(): Promise<void>;
  /** Current state (cheap, synchronous). */
  state(): StoryState;
  /** Bounded metadata of every snapshot, in Story order. */
  snapshots(): SnapshotMeta[];
  /** Change-log entries with a revision greater than `revision` (bounded). */
  changesSince(revision: number): ChangeEntry[];
  /**
   * Apply a change: advance the revision by one, render it, send the new
   * state to the kernel. Resolves once the step is rendered in the page.
   *
   * @throws MolspaceError when rendering fails (the state then carries the error).
   */
  applyChange(change: StoryChangeRequest, source: ChangeSource, summary: string): Promise<ChangeEntry>;
}
