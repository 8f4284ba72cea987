/** Test double: a Story target in memory (no Mol*, no kernel), for Dispatcher and tool tests. */
import type { ChangeEntry, ChangeSource, MolspaceError, SnapshotMeta, StoryState } from '../contract';
import type { ParsedStory } from '../molstar/storySource';
import type { StoryChangeRequest, StoryTarget } from '../story/storyTarget';
import { storySummary } from '../story/storyText';

export class MemoryStory implements StoryTarget {
  readonly kind = 'story' as const;
  readonly notebook = 'demo.ipynb';
  index = 0;
  playing = false;
  revision = 0;
  log: ChangeEntry[] = [];
  applied: StoryChangeRequest[] = [];
  /** While set, applyChange waits for it before it returns (a step being drawn). */
  drawing: Promise<void> | null = null;
  failNext: MolspaceError | null = null;
  loaded: Promise<void> = Promise.resolve();
  constructor(
    readonly targetId: string,
    public metas: SnapshotMeta[]
  ) {}
  whenLoaded(): Promise<void> {
    return this.loaded;
  }
  state(): StoryState {
    return {
      target: this.targetId,
      kind: 'story',
      title: 'T',
      ready: true,
      revision: this.revision,
      index: this.index,
      key: this.metas[this.index]?.key ?? '',
      count: this.metas.length,
      playing: this.playing,
      error: null
    };
  }
  snapshots(): SnapshotMeta[] {
    return this.metas;
  }
  describe(): string {
    return storySummary(this.state(), this.metas);
  }
  /** The Story as parsed: set by tests that edit it (story_edit). */
  parsedStory: ParsedStory | null = null;
  /** Sources given to replaceStory, oldest first. */
  replaced: { mvsj: string; index: number }[] = [];
  /** The Story's file (`export` to `.html`). */
  source: { mvsj: string } | { mvsx: Uint8Array } = { mvsj: '{"kind":"multiple"}' };
  sourceFile(): { mvsj: string } | { mvsx: Uint8Array } {
    return this.source;
  }
  async storyData(): Promise<ParsedStory> {
    if (this.parsedStory === null) {
      throw new Error('MemoryStory: no parsedStory set');
    }
    return this.parsedStory;
  }
  async replaceStory(mvsj: string, index: number, source: ChangeSource, summary: string): Promise<ChangeEntry> {
    this.revision += 1;
    const entry = { revision: this.revision, source, summary };
    this.log.push(entry);
    this.replaced.push({ mvsj, index });
    const { parseStory } = await import('../molstar/storySource');
    this.parsedStory = await parseStory({ mvsj });
    this.metas = this.parsedStory.snapshots;
    this.index = index;
    return entry;
  }
  async applyChange(change: StoryChangeRequest, source: ChangeSource, summary: string): Promise<ChangeEntry> {
    this.revision += 1;
    const entry = { revision: this.revision, source, summary };
    this.log.push(entry);
    if (change.index !== undefined) this.index = change.index;
    if (change.playing !== undefined) this.playing = change.playing;
    this.applied.push(change);
    if (this.drawing) await this.drawing;
    if (this.failNext) {
      const e = this.failNext;
      this.failNext = null;
      throw e;
    }
    return entry;
  }
}

/** Snapshot metadata for these keys (titles are the keys in capitals). */
export const metas = (keys: string[]): SnapshotMeta[] =>
  keys.map((key, index) => ({
    index,
    key,
    title: key.toUpperCase(),
    description: '',
    linger_duration_ms: 1000,
    transition_duration_ms: null
  }));

/** A promise and the function that resolves it. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const promise = new Promise<void>(resolve => (open = resolve));
  return { promise, open };
}
