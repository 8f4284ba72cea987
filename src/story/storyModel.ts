/**
 * The Story widget model: the synced state of one Story, and the Story as a
 * Dispatcher target.
 *
 * Synced attributes (mirrored by the kernel's `molspace.Story` traits):
 * `_mvsj` (MVSJ text) or `_mvsx` (MVSX bytes), `title`, `snapshots`
 * (bounded {@link SnapshotMeta}[]), `index`, `key`, `playing`, `revision`,
 * `ready`, `error` ({@link LocatedError} or null, the one error state of the
 * widget) and `last_change`.
 *
 * Every change of position or playback goes through the page's Dispatcher
 * (buttons, the kernel's `control` messages through a {@link KernelChannel},
 * agents, {@link StoryPlayback}) and lands in {@link StoryModel.applyChange},
 * which advances the revision, waits for the views to draw the step, and
 * sends the new state to the kernel.
 */
import { DOMWidgetModel, ISerializers, unpack_models } from '@jupyter-widgets/base';
import type { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import {
  ChangeEntry,
  ChangeSource,
  LocatedError,
  MolspaceError,
  SnapshotMeta,
  StoryAction,
  StoryState
} from '../contract';
import { KernelChannel } from '../kernel/kernelChannel';
import { toJSONValue } from '../kernel/json';
import type { IMolspacePage } from '../tokens';
import { MODULE_NAME, MODULE_VERSION } from '../version';
import { notebookPathOf, renderMimeOf } from '../widgetManager';
import { StoryPlayback, type PlaybackState } from './playback';
import type { ParsedStory } from './storySource';
import type { StoryChangeRequest, StoryTarget } from './storyTarget';
import { storySummary } from './storyText';
import { WidgetPresence } from '../dispatcher/widgetPresence';

/** How long a step change waits for a view to report it drawn, ms. */
const RENDER_WAIT_MS = 25_000;

/** MVSX bytes as ipywidgets hands them over. */
type Bytes = DataView | ArrayBuffer | Uint8Array;

interface RenderWaiter {
  index: number;
  resolve: () => void;
  reject: (e: MolspaceError) => void;
}

export abstract class StoryModel extends DOMWidgetModel implements StoryTarget {
  static serializers: ISerializers = {
    ...DOMWidgetModel.serializers,
    layout: { deserialize: unpack_models },
    // Keep the MVSX bytes binary when ipywidgets serializes the state (e.g. to save
    // it in the notebook): its default serializer JSON-copies, turning bytes into `{}`.
    _mvsx: {
      serialize: (value: Bytes | null) => (value && value.byteLength > 0 ? toBytes(value).slice() : null)
    }
  };

  // Backbone calls initialize() from the base constructor, before class field
  // initialisers would run: fields are declared here and set in initialize().
  declare private _parsed: Promise<ParsedStory> | null;
  declare private _waiters: RenderWaiter[];
  /** Views that hold a live viewer, with the index each last drew. */
  declare private _views: Map<unknown, number>;
  /** Whether the Story is in the page (its displayed views, its comm); see `WidgetPresence`. */
  declare private _presence: WidgetPresence;
  declare private _kernel: KernelChannel;
  declare private _playback: StoryPlayback;
  /** True once the widget was closed or its model destroyed. */
  declare private _disposed: boolean;

  /** The page services (registry, Dispatcher, viewer budget); bound by {@link storyModelClass}. */
  abstract get services(): IMolspacePage;

  get kind(): 'story' {
    return 'story';
  }

  defaults(): any {
    return {
      ...super.defaults(),
      _model_name: 'StoryModel',
      _model_module: MODULE_NAME,
      _model_module_version: MODULE_VERSION,
      _view_name: 'StoryView',
      _view_module: MODULE_NAME,
      _view_module_version: MODULE_VERSION,
      _mvsj: '',
      _mvsx: null,
      title: '',
      snapshots: [],
      index: 0,
      key: '',
      playing: false,
      revision: 0,
      ready: false,
      error: null,
      last_change: null
    };
  }

  initialize(attributes: any, options: any): void {
    super.initialize(attributes, options);
    this._parsed = null;
    this._disposed = false;
    this._waiters = [];
    this._views = new Map();
    this._kernel = new KernelChannel({
      targetId: this.model_id,
      tool: 'story_control',
      tools: ['story_edit'],
      dispatcher: this.services.dispatcher,
      send: message => this.send(toJSONValue(message), {})
    });
    this._playback = new StoryPlayback({
      state: () => this._playbackState(),
      step: action => void this._run(action, {}, 'play')
    });
    this._presence = new WidgetPresence(this.services.registry, this, this, () => this._dispose());
    this.on('msg:custom', (msg: unknown) => void this._kernel.receive(msg));
    this.on('change:_mvsj change:_mvsx', () => {
      this._parsed = null;
      void this.parsed().catch(() => undefined);
    });
    this.on('change:playing', () => this._playback.update());
    void this.parsed().catch(() => undefined);
  }

  get targetId(): string {
    return this.model_id;
  }

  /** JupyterLab's rendermime for descriptions: the widget manager's (a docked Story's is set by its opener). */
  get rendermime(): IRenderMimeRegistry | null {
    return renderMimeOf(this.widget_manager);
  }

  /** Path of the notebook that owns the widget, when the widget manager knows it. */
  get notebook(): string | null {
    return notebookPathOf(this.widget_manager);
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
    const { parseStory } = await import('./storySource');
    const mvsx: Bytes | null = this.get('_mvsx');
    const mvsj: string = this.get('_mvsj');
    try {
      const story = await parseStory(
        mvsx && mvsx.byteLength > 0 ? { mvsx: toBytes(mvsx) } : { mvsj },
        this.services.resourcePolicy
      );
      const n = story.snapshots.length;
      const index = Math.min(this.state().index, Math.max(n - 1, 0));
      this.set({
        title: story.title,
        snapshots: story.snapshots,
        index,
        key: story.snapshots[index]?.key ?? '',
        error: null
      });
      this._sync();
      return story;
    } catch (e) {
      const err = MolspaceError.from(e, `Story ${this.model_id}`);
      this.set({ snapshots: [], ready: false, error: err.toJSON() });
      this._sync();
      throw err;
    }
  }

  // ------------------------------------------------------------------ StoryTarget
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

  /** The widget's one error state: the `error` attribute when it is a located error, else null. */
  error(): LocatedError | null {
    const parsed = LocatedError.safeParse(this.get('error'));
    return parsed.success ? parsed.data : null;
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
    }
    if (moves) {
      attrs.ready = false;
    }
    this.services.registry.touch(this.model_id);
    const drawn = change.index !== undefined && moves ? this._whenDrawn(change.index) : Promise.resolve();
    this.set(attrs);
    try {
      await drawn;
    } finally {
      this._sync();
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
      this._sync();
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
    this.set({ ready: error === null, error: error ? error.toJSON() : null });
    const waiting = this._waiters.filter(w => w.index === index);
    this._waiters = this._waiters.filter(w => w.index !== index);
    for (const w of waiting) {
      if (error) {
        w.reject(error);
      } else {
        w.resolve();
      }
    }
    if (!waiting.length) {
      this._sync();
    }
    this._playback.update();
  }

  /** Forget a view: it was removed or parked and holds no live viewer. */
  forgetView(view: unknown): void {
    this._views.delete(view);
    if (this._views.size === 0) {
      // Nothing left to draw: complete waiters with the state as it is.
      for (const w of this._waiters.splice(0)) {
        w.resolve();
      }
    }
  }

  /** A view of this Story was displayed (see `WidgetPresence.shown`). */
  viewShown(view: unknown): void {
    this._presence.shown(view);
  }

  /** A view was removed (see `WidgetPresence.removed`). */
  viewRemoved(view: unknown): void {
    this.forgetView(view);
    this._presence.removed(view);
  }

  /** A person used this widget: make it the active one. */
  touch(): void {
    this.services.registry.touch(this.model_id);
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
      this._sync();
    }
  }

  /** Resolves once a live view has drawn step `index` (at once when no view holds a live viewer). */
  private _whenDrawn(index: number): Promise<void> {
    if (this._views.size === 0) {
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: RenderWaiter = { index, resolve, reject };
      this._waiters.push(waiter);
      setTimeout(() => {
        if (this._waiters.includes(waiter)) {
          this._waiters = this._waiters.filter(w => w !== waiter);
          reject(
            new MolspaceError(
              'TIMEOUT',
              `Story ${this.model_id}: step ${index + 1} was not drawn within ${RENDER_WAIT_MS / 1000} s.`,
              `/snapshots/${index}`,
              'Check the Story resources load (story_observe shows the error), then retry.',
              { index }
            )
          );
        }
      }, RENDER_WAIT_MS);
    });
  }

  private _playbackState(): PlaybackState {
    const s = this.state();
    return {
      playing: s.playing,
      ready: s.ready,
      index: s.index,
      count: s.count,
      lingerMs: this.snapshots()[s.index]?.linger_duration_ms
    };
  }

  /**
   * Send the state to the kernel when there is one (a restored widget may
   * have none; a closed one has none any more). Never throws.
   */
  private _sync(): void {
    if (this._disposed || !this.comm_live) {
      return;
    }
    try {
      this.save_changes();
    } catch (e) {
      console.warn(`molspace: Story ${this.model_id}: the kernel could not be sent the new state`, e);
    }
  }

  /** Left the page for good (WidgetPresence): stop playing, fail what waits. */
  private _dispose(): void {
    this._disposed = true;
    this._playback.dispose();
    for (const w of this._waiters.splice(0)) {
      w.reject(
        new MolspaceError(
          'STALE_TARGET',
          `Story ${this.model_id} was closed before the step was drawn.`,
          '/target',
          'Call observe to list the widgets that exist now.',
          { target: this.model_id }
        )
      );
    }
  }
}

/**
 * The Story model class the widget manager instantiates (as `StoryModel`),
 * bound to this page's services.
 */
export function storyModelClass(services: IMolspacePage): typeof DOMWidgetModel {
  return class BoundStoryModel extends StoryModel {
    get services(): IMolspacePage {
      return services;
    }
  };
}

function toBytes(v: Bytes): Uint8Array {
  if (v instanceof Uint8Array) {
    return v;
  }
  if (v instanceof DataView) {
    return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  }
  return new Uint8Array(v);
}
