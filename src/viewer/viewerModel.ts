/**
 * The structure Viewer widget model: the synced state of one Viewer, and the
 * Viewer as a Dispatcher target (docs/architecture.md, "Viewer").
 *
 * Synced attributes, kernel -> page: `_data` (the structure's bytes, an
 * ipywidgets binary buffer), `format`, `source_name`, `title`; or, for an MVS
 * source, `_mvs` (one MVS state, drawn first; its structure is fetched here). Page-owned
 * (mirrored read-only by the kernel's `molspace.Viewer`): `ready`, `error`,
 * `revision`, `composition`, `view`, `last_change`, `summary`, `undo_steps`, `redo_steps`.
 *
 * The model reads the structure with Mol*'s parsers (`./structureData.ts`),
 * so composition and selector checks need no live 3D view. Every change of
 * the view goes through the Dispatcher (`act`) and lands in
 * {@link ViewerModel.applyView}.
 */
import type { DOMWidgetModel, IBackboneModelOptions, ISerializers } from '@jupyter-widgets/base';
import type * as Backbone from 'backbone';
import {
  ChangeEntry,
  ChangeSource,
  CoordinatesFormat,
  LIMITS,
  LocatedError,
  MolspaceError,
  StructureFormat,
  ViewerComposition,
  ViewerAction,
  ViewerState,
  ViewerViewState,
  type ViewerTrajectory
} from '../contract';
import type { IMolspacePage } from '../tokens';
import { bytesSerializer, toBytes, type Bytes } from '../widget/bytes';
import { CHANGE_WAIT_MS, DrawWaiters } from '../widget/drawWaiters';
import { PageWidgetModel, boundModelClass, type KernelTools } from '../widget/pageWidgetModel';
import type { CoordinatesSource, StructureData } from './structureData';
import type { FrameCache } from './frameCache';
import { onDemandExportRefusal } from './frameSource';
import type { ShotOptions } from './screenshot';
import type { ViewerSourceFile, ViewerTarget } from './viewerTarget';
import type { HistoryStep, ViewerHistory } from './viewerActions';
import { viewerSummary } from './viewerText';
import { answerArchiveRequest, isArchiveRequest, type ArchiveRequest } from './archiveRequest';
import { toJSONValue } from '../kernel/json';
import { PAGE_INSTANCE_ID } from '../widget/pageInstance';
import { TrajectoryPlayback } from './trajectoryPlayback';
import { initialView } from './initialView';
import type { ResourcePolicy } from '../resources/resourcePolicy';

/** Who made an undo step, as its button says it. */
const SOURCE_LABELS: Record<ChangeSource, string> = { ui: 'button', kernel: 'cell', agent: 'agent', play: 'playback', load: 'load' };

/** What the model needs from a view that holds a live Mol* viewer. */
export interface LiveViewerView {
  camera(): ReturnType<ViewerTarget['camera']>;
  screenshot(size: ShotOptions): ReturnType<ViewerTarget['screenshot']>;
}

/**
 * A displayed view that can start its live viewer on request (parked by the
 * budget, out of view, in a hidden tab), as a Story's views do (`drawNow`).
 */
export interface ViewerDrawer {
  /** In the document, or in a main-area tab it can show. */
  canDraw(): boolean;
  /** Start (or restore) the live viewer, even out of view, and draw; resolves once drawn or failed. */
  drawNow(): Promise<void>;
}

function isViewerDrawer(view: unknown): view is ViewerDrawer {
  return typeof (view as Partial<ViewerDrawer>)?.drawNow === 'function' && typeof (view as Partial<ViewerDrawer>)?.canDraw === 'function';
}

export abstract class ViewerModel extends PageWidgetModel implements ViewerTarget {
  static serializers: ISerializers = { ...PageWidgetModel.serializers, _data: bytesSerializer, _coordinates: bytesSerializer };

  declare private _parsed: Promise<StructureData> | null;
  /** Structures of MVS states by download URL (`mvsStructureData`), and their bytes. */
  declare private _mvsData: Map<string, Promise<{ bytes: Uint8Array; data: StructureData }>>;
  /** For an MVS source: the bytes fetched for its structure. */
  declare private _fetched: Uint8Array | null;
  declare private _views: Map<LiveViewerView, number>;
  /** Calls waiting for the live views to draw a revision. */
  declare private _waiters: DrawWaiters<number>;
  /** Views before each applied batch (undo), and views undone (redo); newest last. */
  declare private _past: ViewerViewState[];
  declare private _future: ViewerViewState[];
  /** What each step in `_past` / `_future` did and who asked, for the undo and redo buttons; newest last. */
  declare private _pastLabels: string[];
  declare private _futureLabels: string[];
  declare private _drawn: { promise: Promise<void>; resolve: () => void };
  declare private _playback: TrajectoryPlayback;
  /** An on-demand trajectory's frames held in this page (made once), or null. */
  declare private _frameCache: Promise<FrameCache> | null;
  /** Frame blocks asked of the kernel and not answered yet, by request id. */
  declare private _frameRequests: Map<string, { resolve: (data: ArrayBuffer | ArrayBufferView) => void; reject: (e: unknown) => void }>;
  declare private _frameRequestCount: number;
  /** Where a page-owned Viewer's frames come from instead of a kernel (the server, `./serverFrames.ts`). */
  declare private _frameSource: ((start: number, count: number) => Promise<ArrayBuffer | ArrayBufferView>) | undefined;

  get kind(): 'viewer' {
    return 'viewer';
  }

  protected get label(): string {
    return 'Viewer';
  }

  protected get kernelTools(): KernelTools {
    return { tool: 'act' };
  }

  protected setUp(): void {
    this._parsed = null;
    this._mvsData = new Map();
    this._fetched = null;
    this._views = new Map();
    this._waiters = new DrawWaiters(
      revision =>
        new MolspaceError(
          'TIMEOUT',
          `Viewer ${this.model_id}: revision ${revision} was not drawn within ${CHANGE_WAIT_MS / 1000} s.`,
          '/target',
          'Check viewer_observe for an error, then retry.',
          { revision }
        )
    );
    this._frameCache = null;
    this._frameRequests = new Map();
    this._frameRequestCount = 0;
    this._past = [];
    this._future = [];
    this._pastLabels = [];
    this._futureLabels = [];
    let resolveDrawn = () => undefined as void;
    this._drawn = { promise: new Promise<void>(r => (resolveDrawn = r)), resolve: () => resolveDrawn() };
    this._playback = new TrajectoryPlayback({
      state: () => {
        const view = this.view();
        return {
          play: view.play,
          frame: view.frame,
          frames: this.composition()?.trajectory?.frames ?? 1,
          owner: this.get('_play_owner') === PAGE_INSTANCE_ID || !this.comm_live
        };
      },
      step: async action => {
        try {
          await this.services.dispatcher.execute('act', { target: this.model_id, actions: [action] }, { source: 'play' });
        } catch (e) {
          // a step that fails stops playback and shows why
          this.set({ error: MolspaceError.from(e, `Viewer ${this.model_id}`).toJSON() });
          this.set({ summary: this.describe() });
          this.sendState();
          await this.services.dispatcher
            .execute('act', { target: this.model_id, actions: [{ op: 'pause' }] }, { source: 'play' })
            .catch(() => undefined);
        }
      },
      claim: () => {
        this.set({ _play_owner: PAGE_INSTANCE_ID });
        this.sendState();
      }
    });
  }

  initialize(attributes: Backbone.ObjectHash, options: IBackboneModelOptions): void {
    super.initialize(attributes, options);
    this.on('change:view change:_play_owner change:composition', () => this._playback.update());
    this.on('msg:custom', (content: unknown, buffers?: (ArrayBuffer | ArrayBufferView)[]) => this._framesAnswer(content, buffers));
    this.on('msg:custom', (content: unknown) => {
      if (isArchiveRequest(content)) {
        void this._answerArchive(content);
      }
    });
    void this.structureData().catch(() => undefined);
  }

  /** A cell's `to_mvsx`: the archive `export` writes, sent to the kernel (`./archiveRequest.ts`). */
  private async _answerArchive(request: ArchiveRequest): Promise<void> {
    await answerArchiveRequest(
      request,
      async () => {
        // the state updates that came before the request first (as the kernel channel's requests)
        await (this.state_change ?? Promise.resolve()).catch(() => undefined);
        await this.whenLoaded();
        // Loaded on use: the archive needs Mol*'s zip writer and MVS code, which JupyterLab's start must not load.
        const { viewerArchive } = await import('./viewerArchive');
        return viewerArchive(this);
      },
      (content, buffers) => this.send(toJSONValue(content), {}, buffers)
    );
  }

  /** The kernel's answer to a frame block this page asked for (other pages' answers are skipped). */
  private _framesAnswer(content: unknown, buffers: (ArrayBuffer | ArrayBufferView)[] | undefined): void {
    const msg = content as { type?: unknown; id?: unknown; error?: unknown } | null;
    if (!msg || msg.type !== 'frames' || typeof msg.id !== 'string') {
      return;
    }
    const waiting = this._frameRequests.get(msg.id);
    if (!waiting) {
      return;
    }
    this._frameRequests.delete(msg.id);
    const error = LocatedError.safeParse(msg.error);
    if (msg.error !== undefined) {
      waiting.reject(
        error.success
          ? new MolspaceError(error.data.code, error.data.message, error.data.where, error.data.fix, error.data.details ?? {})
          : new MolspaceError('INTERNAL', 'The kernel refused a frame block without a located error.', '/frames', 'Restart the kernel.')
      );
      return;
    }
    const data = buffers?.[0];
    if (!data) {
      waiting.reject(
        new MolspaceError('VALIDATION_FAILED', 'The kernel answered a frame block with no data.', '/frames', 'Restart the kernel.')
      );
      return;
    }
    waiting.resolve(data);
  }

  /**
   * Serve this Viewer's on-demand frames with `fetch` instead of a kernel: a page-owned Viewer an
   * agent opened, whose frames the server reads (`./dockedViewer.ts`). Call before it loads.
   */
  serveFramesWith(fetch: (start: number, count: number) => Promise<ArrayBuffer | ArrayBufferView>): void {
    this._frameSource = fetch;
  }

  /** Ask the kernel (or the page-owned Viewer's source) for `count` frames from `start` (`molspace/viewer/frames.py`). */
  private _fetchFrames(start: number, count: number): Promise<ArrayBuffer | ArrayBufferView> {
    if (this._frameSource) {
      return this._frameSource(start, count);
    }
    if (!this.comm_live) {
      return Promise.reject(
        new MolspaceError(
          'STALE_TARGET',
          `The kernel holds this trajectory's frames and Viewer ${this.model_id} is not connected to it.`,
          `/frames/${start}`,
          'Run the cell that made the Viewer again (the kernel restarted or the notebook was reopened).',
          { start, count }
        )
      );
    }
    const id = `${PAGE_INSTANCE_ID}:${++this._frameRequestCount}`;
    return new Promise((resolve, reject) => {
      this._frameRequests.set(id, { resolve, reject });
      try {
        this.send({ type: 'frames', id, start, count }, {});
      } catch (e) {
        this._frameRequests.delete(id);
        reject(e);
      }
    });
  }

  /** The frames held in this page of an on-demand trajectory, or null (a whole file, or none). */
  frameCache(): Promise<FrameCache> | null {
    return this._frameCache;
  }

  /** The trajectory's coordinates as the kernel sent them (or serves them by frame), or null. */
  private async _coordinatesSource(where: string): Promise<CoordinatesSource | null> {
    const served = this.get('_frames_on_demand') as {
      frames?: unknown;
      atoms?: unknown;
      format?: unknown;
      timePs?: ViewerTrajectory['timePs'];
      notes?: unknown;
    } | null;
    if (served && typeof served === 'object') {
      const frames = Number(served.frames);
      const atoms = Number(served.atoms);
      const format = CoordinatesFormat.safeParse(served.format);
      if (!Number.isInteger(frames) || frames < 1 || !Number.isInteger(atoms) || atoms < 1 || !format.success) {
        throw new MolspaceError(
          'VALIDATION_FAILED',
          'The kernel described its on-demand frames without a frame count, atom count or format.',
          '/coordinates',
          'Restart the kernel and run the cell again (the kernel and the page may run different molspace versions).',
          { frames: String(served.frames), atoms: String(served.atoms) }
        );
      }
      const timePs = served.timePs ?? null;
      if (!this._frameCache) {
        const own = Number(this.get('frame_budget'));
        const budget = Number.isInteger(own) && own >= 2 ? own : this.services.viewerBudget.frameBudget;
        this._frameCache = import('./frameCache').then(
          ({ FrameCache }) =>
            new FrameCache({
              frames,
              atoms,
              budget,
              timeOf: i => (timePs ? timePs.start + i * timePs.step : i),
              source: this._frameSource ? 'server' : 'kernel',
              fetch: (start, count) => this._fetchFrames(start, count)
            })
        );
      }
      return {
        bytes: new Uint8Array(),
        format: format.data,
        where: String(this.get('coordinates_name') || '/coordinates'),
        onDemand: {
          cache: await this._frameCache,
          format: format.data,
          timePs,
          notes: Array.isArray(served.notes) ? served.notes.map(String) : []
        }
      };
    }
    const v: Bytes | null = this.get('_coordinates');
    if (!v || v.byteLength === 0) {
      return null;
    }
    const format = CoordinatesFormat.safeParse(this.get('coordinates_format'));
    const name = String(this.get('coordinates_name') || '/coordinates');
    if (!format.success) {
      throw new MolspaceError(
        'UNSUPPORTED_FORMAT',
        `"${this.get('coordinates_format')}" is not a coordinates format molspace reads.`,
        name,
        `Use one of: ${CoordinatesFormat.options.join(', ')}.`,
        { format: this.get('coordinates_format'), formats: CoordinatesFormat.options, topology: where }
      );
    }
    return { bytes: toBytes(v), format: format.data, where: name };
  }

  /** The structure's bytes as the kernel sent them (for an MVS source: as fetched for its state). */
  bytes(): Uint8Array {
    const v: Bytes | null = this.get('_data');
    return v && v.byteLength > 0 ? toBytes(v) : (this._fetched ?? new Uint8Array());
  }

  sourceFile(): ViewerSourceFile | null {
    if (this._mvsSource()) {
      return null;
    }
    const onDemand = this.get('_frames_on_demand') as { frames?: unknown } | null | undefined;
    if (onDemand) {
      // a kernel's Viewer is fixed in its cell; an agent's (frames from the Jupyter server) has none
      throw onDemandExportRefusal(
        this._frameSource ? 'server' : 'kernel',
        this.model_id,
        onDemand.frames,
        this.services.viewerBudget.frameBudget
      );
    }
    const format = String(this.get('format'));
    const v: Bytes | null = this.get('_coordinates');
    return {
      format,
      name: String(this.get('source_name') || `structure.${format}`),
      bytes: this.bytes(),
      coordinates:
        v && v.byteLength > 0
          ? {
              format: String(this.get('coordinates_format')),
              name: String(this.get('coordinates_name') || 'coordinates'),
              bytes: toBytes(v)
            }
          : null
    };
  }

  /** The MVS state of an MVS source (`molspace.Viewer(state)`), or null. */
  private _mvsSource(): Record<string, unknown> | null {
    const v = this.get('_mvs');
    const bytes: Bytes | null = this.get('_data');
    return v && typeof v === 'object' && !Array.isArray(v) && !(bytes && bytes.byteLength > 0) ? (v as Record<string, unknown>) : null;
  }

  mvsStructureData(state: Record<string, unknown>, where: string): Promise<StructureData> {
    return this._mvsStructure(state, where).then(r => r.data);
  }

  private async _mvsStructure(state: Record<string, unknown>, where: string): Promise<{ bytes: Uint8Array; data: StructureData }> {
    const { mvsStructureOf, fetchMvsStructure } = await import('./mvsStructure');
    const { url, format } = mvsStructureOf(state, where);
    let entry = this._mvsData.get(url);
    if (!entry) {
      entry = (async () => {
        const { readStructure } = await import('./structureData');
        const bytes = await fetchMvsStructure(url, where, this.resourcePolicy());
        return { bytes, data: await readStructure(bytes, format, where) };
      })();
      this._mvsData.set(url, entry);
      entry.catch(() => this._mvsData.delete(url));
    }
    // a failure is located where this call needs it, not where the first call did
    return entry.catch(e => {
      const err = MolspaceError.from(e, where);
      throw new MolspaceError(err.code, err.message, where, err.fix, { ...err.details, url });
    });
  }

  structureData(): Promise<StructureData> {
    if (this._parsed === null) {
      this._parsed = this._read();
    }
    return this._parsed;
  }

  private async _read(): Promise<StructureData> {
    const { readStructure, defaultLayers } = await import('./structureData');
    const format = StructureFormat.safeParse(this.get('format'));
    const where = String(this.get('source_name') || '/data');
    const mvs = this._mvsSource();
    try {
      if (mvs) {
        // an MVS source: checked as apply_mvs checks a state, then its structure is the Viewer's own
        const bytes = new TextEncoder().encode(JSON.stringify(mvs)).length;
        if (bytes > LIMITS.viewerMvsBytes) {
          throw new MolspaceError(
            'TOO_LARGE',
            `The MVS state is ${bytes} bytes of JSON; a Viewer takes at most ${LIMITS.viewerMvsBytes}.`,
            where,
            'Reference structures by URL, or show the state as a Story.',
            {
              bytes,
              limit: LIMITS.viewerMvsBytes
            }
          );
        }
        const { checkMvsState } = await import('./viewerMvsCheck');
        await checkMvsState(mvs, where, this.resourcePolicy());
        const fetched = await this._mvsStructure(mvs, where);
        const data = fetched.data;
        this._fetched = fetched.bytes;
        const attrs: Record<string, unknown> = { composition: data.composition, error: null };
        if (!ViewerViewState.safeParse(this.get('view')).success) {
          attrs.view = { ...initialView(defaultLayers(data)), mvs: structuredClone(mvs) };
        }
        this.set(attrs);
        this.set({ summary: this.describe() });
        this.sendState();
        return data;
      }
      if (!format.success) {
        throw new MolspaceError(
          'UNSUPPORTED_FORMAT',
          `"${this.get('format')}" is not a structure format molspace reads.`,
          where,
          `Use one of: ${StructureFormat.options.join(', ')}.`,
          { format: this.get('format') }
        );
      }
      const data = await readStructure(this.bytes(), format.data, where, await this._coordinatesSource(where));
      const attrs: Record<string, unknown> = { composition: data.composition, error: null };
      if (!ViewerViewState.safeParse(this.get('view')).success) {
        attrs.view = initialView(defaultLayers(data));
      }
      this.set(attrs);
      this.set({ summary: this.describe() });
      this.sendState();
      return data;
    } catch (e) {
      const err = MolspaceError.from(e, `Viewer ${this.model_id}`);
      this.set({ composition: null, ready: false, error: err.toJSON() });
      this.set({ summary: this.describe() });
      this.sendState();
      throw err;
    }
  }

  // ------------------------------------------------------------------ ViewerTarget
  whenLoaded(): Promise<void> {
    return this.structureData().then(
      () => undefined,
      () => undefined
    );
  }

  state(): ViewerState {
    return {
      target: this.model_id,
      kind: 'viewer',
      title: this.get('title') || this.get('source_name') || 'structure',
      ready: this.get('ready'),
      revision: this.get('revision'),
      error: this.error(),
      undo: this._past?.length ?? 0,
      redo: this._future?.length ?? 0
    };
  }

  composition(): ViewerComposition | null {
    const parsed = ViewerComposition.safeParse(this.get('composition'));
    return parsed.success ? parsed.data : null;
  }

  view(): ViewerViewState {
    const parsed = ViewerViewState.safeParse(this.get('view'));
    return parsed.success ? parsed.data : initialView([]);
  }

  describe(): string {
    return viewerSummary(this.state(), this.composition(), this.view());
  }

  camera(): ReturnType<ViewerTarget['camera']> {
    for (const v of this._views.keys()) {
      const c = v.camera();
      if (c) {
        return c;
      }
    }
    return null;
  }

  async screenshot(size: ShotOptions): ReturnType<ViewerTarget['screenshot']> {
    let view = this._views.keys().next().value;
    if (!view) {
      // Parked by the viewer budget, out of view or in a hidden tab: draw it first (as a Story step is).
      const drawer = [...this.shownViews].filter(isViewerDrawer).find(d => d.canDraw());
      if (drawer) {
        await drawer.drawNow();
        view = this._views.keys().next().value;
      }
    }
    if (!view) {
      throw new MolspaceError(
        'STALE_TARGET',
        `Viewer ${this.model_id} has no view that can draw a screenshot (its output is not in the page).`,
        '/actions',
        'Call observe: if the Viewer is listed, retry; viewer_observe needs no live view.',
        { target: this.model_id }
      );
    }
    return view.screenshot(size);
  }

  resourcePolicy(): ResourcePolicy {
    return this.services.resourcePolicy;
  }

  history(): ViewerHistory {
    return { undo: this._past[this._past.length - 1] ?? null, redo: this._future[this._future.length - 1] ?? null };
  }

  async applyView(view: ViewerViewState, source: ChangeSource, summary: string, step: HistoryStep = 'push'): Promise<ChangeEntry> {
    const entry: ChangeEntry = { revision: this.state().revision + 1, source, summary };
    const current = this.view();
    if (step === 'undo') {
      this._past.pop();
      this._future.push(current);
      this._futureLabels.push(this._pastLabels.pop() ?? '');
    } else if (step === 'none') {
      // frame navigation and playback: the undo steps stay as they are
    } else if (step === 'redo') {
      this._future.pop();
      this._past.push(current);
      this._pastLabels.push(this._futureLabels.pop() ?? '');
    } else {
      this._past.push(current);
      this._pastLabels.push(`${summary} (${SOURCE_LABELS[source]})`);
      this._future = [];
      this._futureLabels = [];
    }
    const over = Math.max(0, this._past.length - LIMITS.viewerUndoSteps);
    this._past.splice(0, over);
    this._pastLabels.splice(0, over);
    this.services.registry.touch(this.model_id);
    const drawn = this._whenDrawn(entry.revision);
    if (view.play && !current.play && source !== 'play') {
      // the page that started playback advances the frames (as a Story's `_play_owner`)
      this.set({ _play_owner: PAGE_INSTANCE_ID });
    }
    this.set({
      view,
      revision: entry.revision,
      last_change: entry,
      undo_steps: this._past.length,
      redo_steps: this._future.length,
      undo_label: this._pastLabels[this._pastLabels.length - 1] ?? '',
      redo_label: this._futureLabels[this._futureLabels.length - 1] ?? '',
      ready: this._views.size === 0 ? this.get('ready') : false
    });
    this.set({ summary: this.describe() });
    // Sent at once, not after the draw: ipywidgets applies the kernel's echo of this page's previous
    // update to attributes changed but not yet sent, which would put a quick second change back.
    this.sendState();
    try {
      await drawn;
    } finally {
      this.sendState();
    }
    return entry;
  }

  // ------------------------------------------------------------------ views
  /** Resolves once a view has drawn (or failed to draw) for the first time, or after `timeoutMs`. */
  firstDraw(timeoutMs: number): Promise<void> {
    return Promise.race([this._drawn.promise, new Promise<void>(r => setTimeout(r, timeoutMs))]);
  }

  /** A view drew revision `revision` in a live viewer (or failed to). */
  markDrawn(view: LiveViewerView, revision: number, error: MolspaceError | null): void {
    this._views.set(view, revision);
    this._drawn.resolve();
    if (revision !== this.state().revision) {
      return;
    }
    // A drawn revision clears an earlier draw or button error (load errors never reach a view).
    this.set({ ready: error === null, error: error ? error.toJSON() : null });
    this.set({ summary: this.describe() });
    if (!this._waiters.settle(revision, error)) {
      this.sendState();
    }
  }

  /** A view no longer holds a live viewer. */
  forgetView(view: unknown): void {
    this._views.delete(view as LiveViewerView);
    if (this._views.size === 0) {
      this._waiters.resolveAll();
    }
  }

  /** A button or the frame slider: run one operation through the Dispatcher as a `ui` operation; a failure becomes the widget's error. Never throws. */
  async control(action: 'undo' | 'redo' | ViewerAction): Promise<void> {
    try {
      await this.services.dispatcher.execute(
        'act',
        { target: this.model_id, actions: [typeof action === 'string' ? { op: action } : action] },
        { source: 'ui' }
      );
    } catch (e) {
      this.set({ error: MolspaceError.from(e, `Viewer ${this.model_id}`).toJSON() });
      this.set({ summary: this.describe() });
      this.sendState();
    }
  }

  private _whenDrawn(revision: number): Promise<void> {
    return this._views.size === 0 ? Promise.resolve() : this._waiters.wait(revision);
  }

  protected left(reason: string): void {
    this._playback.dispose();
    for (const [, waiting] of this._frameRequests) {
      waiting.reject(
        new MolspaceError(
          'STALE_TARGET',
          `Viewer ${this.model_id} was closed before its frames arrived: ${reason}.`,
          '/frames',
          'Run the cell again.',
          {
            target: this.model_id,
            reason
          }
        )
      );
    }
    this._frameRequests.clear();
    this._waiters.rejectAll(
      () =>
        new MolspaceError(
          'STALE_TARGET',
          `Viewer ${this.model_id} was closed before the change was drawn: ${reason}.`,
          '/target',
          'Call observe to list the widgets that exist now.',
          { target: this.model_id, reason }
        )
    );
  }
}

/** The Viewer model class the widget manager instantiates, bound to this page's services. */
export function viewerModelClass(services: IMolspacePage): typeof DOMWidgetModel {
  return boundModelClass(ViewerModel, services);
}
