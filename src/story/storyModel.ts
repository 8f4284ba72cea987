/**
 * The Story widget model: the synced state of one Story, and the Story as a
 * Dispatcher target.
 *
 * Synced attributes (mirrored by the kernel's `molspace.Story` traits):
 * `_mvsj` (MVSJ text) or `_mvsx` (MVSX bytes), `title`, `snapshots`
 * (bounded {@link SnapshotMeta}[]), `index`, `key`, `playing`, `revision`,
 * `ready`, `error` ({@link LocatedError} or null, the one error state of the
 * widget), `last_change` and `_play_owner` (the page that owns playback,
 * see `playback.ts`).
 *
 * Every change of position or playback goes through the page's Dispatcher
 * (buttons, the kernel's `control` messages through a {@link KernelChannel},
 * agents, {@link StoryPlayback}) and lands in {@link StoryModel.applyChange},
 * which advances the revision, waits for the views to draw the step, and
 * sends the new state to the kernel.
 */
import type { DOMWidgetModel, IBackboneModelOptions, ISerializers } from '@jupyter-widgets/base';
import type * as Backbone from 'backbone';
import type { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ChangeEntry, ChangeSource, MolspaceError, SnapshotMeta, StoryAction, StoryState } from '../contract';
import type { IMolspacePage } from '../tokens';
import { renderMimeOf } from '../widgetManager';
import { bytesSerializer, toBytes, type Bytes } from '../widget/bytes';
import { CHANGE_WAIT_MS, DrawWaiters } from '../widget/drawWaiters';
import { PageWidgetModel, boundModelClass, type KernelTools } from '../widget/pageWidgetModel';
import { PAGE_INSTANCE_ID, StoryPlayback, type PlaybackState } from './playback';
import type { ParsedStory } from '../molstar/storySource';
import type { StoryChangeRequest, StoryTarget } from './storyTarget';
import { storySummary } from './storyText';
import { NO_FRAME_REASON } from './noFrame';

/**
 * What the model asks of a displayed view of the Story: draw the current
 * step now, even when its viewer is parked or was never started (out of
 * view), and report it with {@link StoryModel.markRendered}.
 */
export interface StoryDrawer {
  /**
   * Whether the view can draw at all: it is in the document with a size
   * (JupyterLab's windowing `full` takes cells out of the document).
   */
  canDraw(): boolean;
  /** Start (or restore) its viewer if it holds none, and draw the current step. */
  drawNow(): void;
}

export abstract class StoryModel extends PageWidgetModel implements StoryTarget {
  static serializers: ISerializers = { ...PageWidgetModel.serializers, _mvsx: bytesSerializer };

  // Backbone calls initialize() from the base constructor, before class field
  // initialisers would run: fields are declared here and set in setUp().
  declare private _parsed: Promise<ParsedStory> | null;
  /** Calls waiting for a view to draw a snapshot, by index. */
  declare private _waiters: DrawWaiters<number>;
  /** Views that hold a live viewer, with the index each last drew. */
  declare private _views: Map<unknown, number>;
  declare private _playback: StoryPlayback;

  get kind(): 'story' {
    return 'story';
  }

  protected get label(): string {
    return 'Story';
  }

  protected get kernelTools(): KernelTools {
    return { tool: 'story_control', tools: ['story_edit'] };
  }

  protected setUp(): void {
    this._parsed = null;
    this._views = new Map();
    this._waiters = new DrawWaiters(
      index =>
        new MolspaceError(
          'TIMEOUT',
          `Story ${this.model_id}: step ${index + 1} was not drawn within ${CHANGE_WAIT_MS / 1000} s.`,
          `/snapshots/${index}`,
          'Check the Story resources load (story_observe shows the error), then retry.',
          { index }
        )
    );
    this._playback = new StoryPlayback({
      state: () => this._playbackState(),
      step: action => void this._run(action, {}, 'play'),
      claim: () => {
        this.set({ _play_owner: PAGE_INSTANCE_ID });
        this.sendState();
      }
    });
  }

  initialize(attributes: Backbone.ObjectHash, options: IBackboneModelOptions): void {
    super.initialize(attributes, options);
    this.on('change:_mvsj change:_mvsx', () => {
      this._parsed = null;
      void this.parsed().catch(() => undefined);
    });
    // A new revision is a step the owner took: a follower's watch for a silent owner starts again
    // (its own view may lag behind and report a step only after the owner moved on).
    this.on('change:playing change:_play_owner change:revision', () => this._playback.update());
    void this.parsed().catch(() => undefined);
  }

  /** JupyterLab's rendermime for descriptions: the widget manager's (a docked Story's is set by its opener). */
  get rendermime(): IRenderMimeRegistry | null {
    return renderMimeOf(this.widget_manager);
  }

  /**
   * The parsed, validated Story. On failure the model's `error` is set and
   * the promise rejects with the same {@link MolspaceError}.
   */
  parsed(): Promise<ParsedStory> {
    if (this._parsed === null) {
      this._parsed = this._parse();
    }
    return this._parsed;
  }

  private async _parse(): Promise<ParsedStory> {
    const { parseStory } = await import('../molstar/storySource');
    const mvsx: Bytes | null = this.get('_mvsx');
    const mvsj: string = this.get('_mvsj');
    try {
      const story = await parseStory(mvsx && mvsx.byteLength > 0 ? { mvsx: toBytes(mvsx) } : { mvsj }, this.services.resourcePolicy);
      const n = story.snapshots.length;
      const index = Math.min(this.state().index, Math.max(n - 1, 0));
      this.set({
        title: story.title,
        snapshots: story.snapshots,
        index,
        key: story.snapshots[index]?.key ?? '',
        error: null
      });
      this.sendState();
      return story;
    } catch (e) {
      const err = MolspaceError.from(e, `Story ${this.model_id}`);
      this.set({ snapshots: [], ready: false, error: err.toJSON() });
      this.sendState();
      throw err;
    }
  }

  // ------------------------------------------------------------------ StoryTarget
  sourceFile(): { mvsj: string } | { mvsx: Uint8Array } {
    const mvsx: Bytes | null = this.get('_mvsx');
    return mvsx && mvsx.byteLength > 0 ? { mvsx: toBytes(mvsx) } : { mvsj: String(this.get('_mvsj') ?? '') };
  }

  whenLoaded(): Promise<void> {
    return this.parsed().then(
      () => undefined,
      () => undefined
    );
  }

  state(): StoryState {
    const snapshots: SnapshotMeta[] = this.get('snapshots');
    return {
      target: this.model_id,
      kind: 'story',
      title: this.get('title'),
      ready: this.get('ready'),
      revision: this.get('revision'),
      index: this.get('index'),
      key: this.get('key'),
      count: snapshots.length,
      playing: this.get('playing'),
      error: this.error()
    };
  }

  snapshots(): SnapshotMeta[] {
    return this.get('snapshots');
  }

  describe(): string {
    return storySummary(this.state(), this.snapshots());
  }

  async applyChange(change: StoryChangeRequest, source: ChangeSource, summary: string): Promise<ChangeEntry> {
    const before = this.state();
    const entry: ChangeEntry = { revision: before.revision + 1, source, summary };
    const attrs: Record<string, unknown> = { revision: entry.revision, last_change: entry };
    const moves = change.index !== undefined && change.index !== before.index;
    if (change.index !== undefined) {
      attrs.index = change.index;
      attrs.key = this.snapshots()[change.index]?.key ?? '';
    }
    if (change.playing !== undefined) {
      attrs.playing = change.playing;
      // The page that applies play owns the one step timer (playback.ts); other pages follow.
      attrs._play_owner = change.playing ? PAGE_INSTANCE_ID : '';
    }
    if (moves) {
      attrs.ready = false;
    }
    this.services.registry.touch(this.model_id);
    const drawn = change.index !== undefined && moves ? this._whenDrawn(change.index) : Promise.resolve();
    this.set(attrs);
    // Sent at once (with `ready: false`), `ready` again once drawn: a change kept here until the
    // draw would be undone by the kernel's echo of this page's previous update, which ipywidgets
    // applies when it arrives (seen with two pages during Play: the owner fell back a step and stalled).
    this.sendState();
    try {
      await drawn;
    } finally {
      this.sendState();
    }
    return entry;
  }

  storyData(): Promise<ParsedStory> {
    return this.parsed();
  }

  async replaceStory(mvsj: string, index: number, source: ChangeSource, summary: string): Promise<ChangeEntry> {
    const before = this.state();
    const entry: ChangeEntry = { revision: before.revision + 1, source, summary };
    this.services.registry.touch(this.model_id);
    // The views reload on the new source and report the drawn step (markRendered).
    const drawn = this._whenDrawn(index);
    this.set({ _mvsj: mvsj, _mvsx: null, index, revision: entry.revision, last_change: entry, ready: false });
    try {
      await this.parsed();
      await drawn;
    } finally {
      this.sendState();
    }
    return entry;
  }

  // ------------------------------------------------------------------ views
  /**
   * Called by a view after it drew (or failed to draw) snapshot `index` in a
   * live viewer. Completes pending step changes and sets `ready` / `error`.
   */
  markRendered(view: unknown, index: number, error: MolspaceError | null): void {
    this._views.set(view, index);
    if (index !== this.state().index) {
      return;
    }
    if (error?.details?.reason === NO_FRAME_REASON && this.state().ready && !this._waiters.has(index)) {
      // This page is hidden, but another page showing the notebook drew the step (its
      // `ready` came with the index) and nobody here waits: leave that page's state alone.
      return;
    }
    this.set({ ready: error === null, error: error ? error.toJSON() : null });
    if (!this._waiters.settle(index, error)) {
      this.sendState();
    }
    this._playback.update();
  }

  /** Forget a view: it was removed or parked and holds no live viewer. */
  forgetView(view: unknown): void {
    this._views.delete(view);
    if (this._views.size > 0 || this._waiters.size === 0) {
      return;
    }
    // The last live viewer went (parked or removed) while a step waits to be drawn.
    const drawer = [...this.shownViews].filter(isDrawer).find(d => d.canDraw());
    if (drawer) {
      drawer.drawNow();
      return;
    }
    this._waiters.rejectAll(index => this._notDrawable(index));
  }

  /** No view of this Story can draw: none is displayed, or none is in the document. */
  private _notDrawable(index: number): MolspaceError {
    if (this.shownViews.size === 0) {
      return new MolspaceError(
        'STALE_TARGET',
        `Story ${this.model_id}: no view shows it any more, so step ${index + 1} cannot be drawn.`,
        '/target',
        'Display the Story again (or call observe to list the widgets that are shown), then retry.',
        { target: this.model_id, index }
      );
    }
    return new MolspaceError(
      'STALE_TARGET',
      `Story ${this.model_id} is not in the document (its cell is scrolled out under JupyterLab's windowing), so step ${index + 1} cannot be drawn now; it is drawn when the cell comes back.`,
      '/target',
      "Scroll the notebook to the Story's cell, or set Settings > Notebook > Windowing mode to 'contentVisibility' or 'none', then retry.",
      { target: this.model_id, index }
    );
  }

  /** A button press or link: run it through the Dispatcher as a `ui` operation. Never throws. */
  control(action: StoryAction, extra: { index?: number } = {}): Promise<void> {
    return this._run(action, extra, 'ui');
  }

  /** Run one `story_control` operation; a failure becomes the widget's error. Never throws. */
  private async _run(action: StoryAction, extra: { index?: number }, source: ChangeSource): Promise<void> {
    try {
      await this.services.dispatcher.execute('story_control', { target: this.model_id, action, ...extra }, { source });
    } catch (e) {
      const err = MolspaceError.from(e, `Story ${this.model_id}`);
      this.set({ error: err.toJSON() });
      this.sendState();
    }
  }

  /**
   * Resolves once a view has drawn step `index` (at once when no view shows
   * the Story). When no view holds a live viewer (parked by the budget, never
   * started because out of view), one displayed view is asked to draw it
   * ({@link StoryDrawer.drawNow}); when none can (all out of the document),
   * throws at once, before the caller applies the change: a call never
   * returns "ready" for a step nobody drew.
   *
   * @throws MolspaceError `STALE_TARGET` when no displayed view can draw.
   */
  private _whenDrawn(index: number): Promise<void> {
    const drawers = [...this.shownViews].filter(isDrawer);
    if (this._views.size === 0 && drawers.length === 0) {
      return Promise.resolve();
    }
    const promise = this._waiters.wait(index);
    if (this._views.size === 0) {
      const drawer = drawers.find(d => d.canDraw());
      if (drawer) {
        // After the index is set (applyChange sets it next): the view draws the current step.
        queueMicrotask(() => drawer.drawNow());
      } else {
        // Refused before the change is applied: the Story stays as it was.
        this._waiters.drop(index);
        throw this._notDrawable(index);
      }
    }
    return promise;
  }

  private _playbackState(): PlaybackState {
    const s = this.state();
    return {
      playing: s.playing,
      ready: s.ready,
      index: s.index,
      count: s.count,
      lingerMs: this.snapshots()[s.index]?.linger_duration_ms,
      // A Story without a kernel (docked) lives in this page only.
      owner: this.get('_play_owner') === PAGE_INSTANCE_ID || !this.comm_live
    };
  }

  /** Left the page for good (WidgetPresence): stop playing, fail what waits. */
  protected left(reason: string): void {
    this._playback.dispose();
    this._waiters.rejectAll(
      () =>
        new MolspaceError(
          'STALE_TARGET',
          `Story ${this.model_id} was closed before the step was drawn: ${reason}.`,
          '/target',
          'Call observe to list the widgets that exist now.',
          { target: this.model_id, reason }
        )
    );
  }
}

/**
 * The Story model class the widget manager instantiates (as `StoryModel`),
 * bound to this page's services.
 */
export function storyModelClass(services: IMolspacePage): typeof DOMWidgetModel {
  return boundModelClass(StoryModel, services);
}

function isDrawer(view: unknown): view is StoryDrawer {
  return typeof (view as Partial<StoryDrawer>)?.drawNow === 'function' && typeof (view as Partial<StoryDrawer>)?.canDraw === 'function';
}
