/**
 * The Story widget model: the page-side owner of one Story's state.
 *
 * Synced attributes (mirrored by the kernel's `molspace.Story` traits):
 * `_mvsj` (MVSJ text) or `_mvsx` (MVSX bytes), `title`, `snapshots`
 * (bounded {@link SnapshotMeta}[]), `index`, `key`, `playing`, `revision`,
 * `ready`, `error` ({@link LocatedError} or null) and `last_change`.
 *
 * Every change of position or playback goes through the page's Dispatcher
 * (buttons, kernel `control` messages, agents) and lands here in
 * {@link StoryModel.applyChange}, which advances the revision, waits for the
 * views to render the step, and sends the new state to the kernel.
 */
import { DOMWidgetModel, ISerializers, unpack_models } from '@jupyter-widgets/base';
import {
  ChangeEntry,
  ChangeSource,
  MolspaceError,
  SnapshotMeta,
  StoryAction,
  StoryState,
  LocatedError
} from '../contract';
import type { StoryChangeRequest, StoryTarget } from '../dispatcher/target';
import { dispatcher, registry } from '../page';
import { MODULE_NAME, MODULE_VERSION } from '../version';
import type { ParsedStory } from './storySource';

/** Entries kept in the change log for REVISION_CONFLICT details. */
const CHANGE_LOG_LIMIT = 50;
/** How long a step change waits for a view to report it rendered, ms. */
const RENDER_WAIT_MS = 25_000;

/** A message from the kernel: one `story_control` operation. */
interface KernelControl {
  type: 'control';
  requestId: string;
  action: StoryAction;
  index?: number;
  key?: string;
  expectedRevision?: number;
  actionId?: string;
}

interface RenderWaiter {
  index: number;
  resolve: () => void;
  reject: (e: MolspaceError) => void;
}

export class StoryModel extends DOMWidgetModel implements StoryTarget {
  static serializers: ISerializers = {
    ...DOMWidgetModel.serializers,
    layout: { deserialize: unpack_models },
    // Keep the MVSX bytes binary when ipywidgets serializes the state (e.g. to save
    // it in the notebook): its default serializer JSON-copies, turning bytes into `{}`.
    _mvsx: {
      serialize: (value: DataView | ArrayBuffer | Uint8Array | null) =>
        value && (value as ArrayBufferLike).byteLength > 0 ? toBytes(value).slice() : null
    }
  };

  // Backbone calls initialize() from the base constructor, before class field
  // initialisers would run: fields are declared here and set in initialize().
  declare private _parsed: Promise<ParsedStory> | null;
  declare private _changeLog: ChangeEntry[];
  declare private _waiters: RenderWaiter[];
  declare private _renderedIndex: Map<unknown, number>;
  declare private _playTimer: ReturnType<typeof setTimeout> | null;

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
    this._changeLog = [];
    this._waiters = [];
    this._renderedIndex = new Map();
    this._playTimer = null;
    registry.register(this);
    this.on('msg:custom', (msg: unknown) => void this._onKernelMessage(msg));
    this.on('change:_mvsj change:_mvsx', () => {
      this._parsed = null;
      void this.parsed().catch(() => undefined);
    });
    this.on('change:playing', () => this._schedulePlay());
    this.once('destroy', () => this._dispose());
    this.on('comm:close', () => this._dispose());
    void this.parsed().catch(() => undefined);
  }

  get targetId(): string {
    return this.model_id;
  }

  /** Path of the notebook that owns the widget, when the widget manager knows it. */
  get notebook(): string | null {
    const manager = this.widget_manager as unknown as { context?: { path?: string } };
    return manager.context?.path ?? null;
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
    const mvsx = this.get('_mvsx') as DataView | ArrayBuffer | Uint8Array | null;
    const mvsj = this.get('_mvsj') as string;
    try {
      const input =
        mvsx && (mvsx as ArrayBufferLike).byteLength > 0
          ? { mvsx: toBytes(mvsx) }
          : { mvsj };
      const story = await parseStory(input);
      const n = story.snapshots.length;
      const index = Math.min(this.get('index') as number, Math.max(n - 1, 0));
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
    const snapshots = this.get('snapshots') as SnapshotMeta[];
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
      error: this.get('error') as LocatedError | null
    };
  }

  snapshots(): SnapshotMeta[] {
    return this.get('snapshots') as SnapshotMeta[];
  }

  changesSince(revision: number): ChangeEntry[] {
    return this._changeLog.filter(c => c.revision > revision).slice(-20);
  }

  async applyChange(change: StoryChangeRequest, source: ChangeSource, summary: string): Promise<ChangeEntry> {
    const revision = (this.get('revision') as number) + 1;
    const entry: ChangeEntry = { revision, source, summary };
    this._changeLog.push(entry);
    if (this._changeLog.length > CHANGE_LOG_LIMIT) {
      this._changeLog.shift();
    }
    const attrs: Record<string, unknown> = { revision, last_change: entry };
    const moves = change.index !== undefined && change.index !== this.get('index');
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
    registry.touch(this.model_id);
    const rendered = moves ? this._whenRendered(change.index as number) : Promise.resolve();
    this.set(attrs);
    try {
      await rendered;
    } finally {
      this._sync();
    }
    return entry;
  }

  // ------------------------------------------------------------------ views
  /**
   * Called by a view after it applied (or failed to apply) snapshot `index`.
   * Completes pending step changes and sets `ready` / `error`.
   */
  markRendered(view: unknown, index: number, error: MolspaceError | null): void {
    this._renderedIndex.set(view, index);
    if (index !== this.get('index')) {
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
    this._schedulePlay();
  }

  /** Forget a view (it was removed or parked). */
  forgetView(view: unknown): void {
    this._renderedIndex.delete(view);
    if (this._liveViewCount() === 0) {
      // Nothing left to render: complete waiters with the state as it is.
      for (const w of this._waiters.splice(0)) {
        w.resolve();
      }
    }
  }

  /** A person used this widget: make it the active one. */
  touch(): void {
    registry.touch(this.model_id);
  }

  /** A button press: run it through the Dispatcher as a `ui` operation. Never throws. */
  async control(action: StoryAction, extra: { index?: number } = {}): Promise<void> {
    try {
      await dispatcher.execute('story_control', { target: this.model_id, action, ...extra }, { source: 'ui' });
    } catch (e) {
      const err = MolspaceError.from(e, `Story ${this.model_id}`);
      this.set({ error: err.toJSON() });
      this._sync();
    }
  }

  private _liveViewCount(): number {
    return this._renderedIndex.size;
  }

  private _whenRendered(index: number): Promise<void> {
    if (this._liveViewCount() === 0) {
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
              `Story ${this.model_id}: step ${index + 1} was not rendered within ${RENDER_WAIT_MS / 1000} s.`,
              `/snapshots/${index}`,
              'Check the Story resources load (story_observe shows the error), then retry.',
              { index }
            )
          );
        }
      }, RENDER_WAIT_MS);
    });
  }

  // ------------------------------------------------------------------ kernel
  private async _onKernelMessage(msg: unknown): Promise<void> {
    const m = msg as Partial<KernelControl>;
    if (!m || m.type !== 'control' || typeof m.requestId !== 'string') {
      return;
    }
    const { requestId, type: _type, ...args } = m;
    void _type;
    try {
      const result = await dispatcher.execute(
        'story_control',
        { target: this.model_id, ...args },
        { source: 'kernel' }
      );
      this.send({ type: 'result', requestId, ok: true, structuredContent: result.structuredContent, text: result.text } as any, {});
    } catch (e) {
      const err = MolspaceError.from(e, `Story ${this.model_id}`);
      this.send({ type: 'result', requestId, ok: false, error: err.toJSON() } as any, {});
    }
  }

  /** Send the state to the kernel when there is one (a restored widget may have none). */
  private _sync(): void {
    if (this.comm_live) {
      this.save_changes();
    }
  }

  // ------------------------------------------------------------------ playback
  private _schedulePlay(): void {
    if (this._playTimer !== null) {
      clearTimeout(this._playTimer);
      this._playTimer = null;
    }
    if (!this.get('playing') || !this.get('ready')) {
      return;
    }
    const snaps = this.snapshots();
    const index = this.get('index') as number;
    const linger = snaps[index]?.linger_duration_ms ?? 4000;
    this._playTimer = setTimeout(() => {
      this._playTimer = null;
      const last = index + 1 >= snaps.length;
      const args = last ? { action: 'pause' } : { action: 'next' };
      dispatcher
        .execute('story_control', { target: this.model_id, ...args }, { source: 'play' })
        .catch(e => {
          const err = MolspaceError.from(e, `Story ${this.model_id}`);
          this.set({ error: err.toJSON() });
          this._sync();
        });
    }, Math.max(linger, 250));
  }

  private _dispose(): void {
    if (this._playTimer !== null) {
      clearTimeout(this._playTimer);
      this._playTimer = null;
    }
    for (const w of this._waiters.splice(0)) {
      w.reject(
        new MolspaceError('STALE_TARGET', `Story ${this.model_id} was closed.`, '/target', 'Call observe to list the widgets that exist now.', {})
      );
    }
    registry.unregister(this.model_id);
  }
}

function toBytes(v: DataView | ArrayBuffer | Uint8Array): Uint8Array {
  if (v instanceof Uint8Array) {
    return v;
  }
  if (v instanceof DataView) {
    return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  }
  return new Uint8Array(v);
}
