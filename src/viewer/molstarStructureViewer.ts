/**
 * One live Mol* viewer showing one structure (no Mol* UI, no React).
 *
 * The structure's bytes go into the plugin's asset manager under an `arcp:`
 * URL (as Mol*'s MVSX loader does); the view state becomes one MVS state
 * (`./viewerMvs.ts`) loaded with `loadMVS`; focus, highlight and selection
 * use loci made with Mol*'s MVS selector code; transparency goes through
 * Mol*'s structure-transparency helper and distances through its measurement
 * manager (`plugin.managers.structure.measurement`). What Mol* holds after a
 * draw is counted on the host (`data-molspace-measurements`,
 * `data-molspace-transparent`, `data-molspace-labels`). Loaded lazily by the Viewer
 * view: JupyterLab start pulls no Mol*.
 */
import { substructureFromSelector } from 'molstar/lib/extensions/mvs/components/selector';
import { componentPropsFromSelector } from 'molstar/lib/extensions/mvs/load-helpers';
import { loadMVS } from 'molstar/lib/extensions/mvs/load';
import type { MVSData } from 'molstar/lib/extensions/mvs/mvs-data';
import { Structure, StructureElement } from 'molstar/lib/mol-model/structure';
import { clearStructureTransparency, setStructureTransparency } from 'molstar/lib/mol-plugin-state/helpers/structure-transparency';
import { StateTransforms } from 'molstar/lib/mol-plugin-state/transforms';
import { StateSelection } from 'molstar/lib/mol-state';
import { PluginCommands } from 'molstar/lib/mol-plugin/commands';
import { PluginContext } from 'molstar/lib/mol-plugin/context';
import { Asset } from 'molstar/lib/mol-util/assets';

import { MolspaceError } from '../contract/errors';
import { DARK_BACKGROUND, LIGHT_BACKGROUND, isSoftwareRenderer } from '../molstar/molstarPlugin';
import { withoutOcclusion } from '../molstar/softwareCanvas';
import { DRAW_WAIT_MS, waitForFrame } from '../molstar/frameWait';
import { MolstarViewer, type MolstarViewerOptions } from '../molstar/molstarViewer';
import type { ComponentSelector, CoordinatesFormat, StructureFormat, ViewerViewState } from '../contract';
import { viewToMvs } from './viewerMvs';
import type { OnDemandSource } from './onDemandTrajectory';
import { OnDemandFrames, hasOnDemandFrames, insertOnDemandFrames } from './onDemandFrames';
import type { Shot, ShotOptions } from './screenshot';
import { refusedMessage } from '../resources/resourceFetch';
import { RESOURCE_HOSTS_SETTING } from '../resources/resourcePolicy';

let archiveCounter = 0;

/** Equal as JSON (view-state arrays: selectors, values). */
const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * Run `work` and record its duration as the user-timing measure `molspace.viewer.<name>`
 * (shown in DevTools' performance panel; read by bench/act_latency.mjs). Only the latest
 * measure of each name is kept, so a long session holds a bounded number of entries.
 */
async function timed<T>(name: string, work: () => Promise<T>): Promise<T> {
  const start = performance.now();
  try {
    return await work();
  } finally {
    const entry = `molspace.viewer.${name}`;
    performance.clearMeasures(entry);
    performance.measure(entry, { start, end: performance.now() });
  }
}

/** The structure a viewer shows. */
export interface ViewerSource {
  bytes: Uint8Array;
  format: StructureFormat;
  /** Model indices to draw (a trajectory: the frame of the view instead). */
  models: readonly number[];
  /** A trajectory's coordinates file, or null (on demand: frame 0 as a DCD, and the frames' source). */
  coordinates: { bytes: Uint8Array; format: CoordinatesFormat; onDemand?: OnDemandSource } | null;
  /** The file's models are a trajectory's frames. */
  frames: boolean;
}

export class MolstarStructureViewer extends MolstarViewer {
  private url: string | null = null;
  private coordinatesUrl: string | null = null;
  private source: ViewerSource | null = null;
  private shown: ViewerViewState | null = null;
  /** The MVS state last loaded (JSON), or null when none is or the last load failed. */
  private shownMvs: string | null = null;
  /** Whether a frame of {@link shown} was drawn (the last `show` resolved true). */
  private shownDrawn = false;
  private framesWaited = 0;

  private constructor(plugin: PluginContext, host: HTMLElement, opts: MolstarViewerOptions) {
    super(plugin, host, opts);
  }

  /**
   * Create a plugin and mount its canvas in `host`. Its downloads (the URLs
   * of an `apply_mvs` state) follow redirects only to URLs `policy` allows.
   *
   * @throws MolspaceError `INTERNAL` when WebGL is unavailable.
   */
  static async create(host: HTMLElement, opts: MolstarViewerOptions): Promise<MolstarStructureViewer> {
    return new MolstarStructureViewer(await MolstarViewer.mount(host, opts.dark), host, opts);
  }

  get loaded(): boolean {
    return this.source !== null && this.shown !== null;
  }

  /**
   * Show `view` of `source` (a first call loads the structure). Resolves once
   * Mol* has drawn a frame of it (true), or false when the page is hidden.
   * The view already drawn, asked again, resolves true at once: no frame is
   * drawn for it (on software WebGL a frame of a 1 MB mmCIF takes seconds, and
   * a Viewer's first load is asked twice: by its start and by the initial view
   * it sets on its model meanwhile).
   *
   * @throws MolspaceError `VALIDATION_FAILED` when Mol* cannot build it.
   */
  async show(source: ViewerSource, view: ViewerViewState): Promise<boolean> {
    this.assertLive('Scroll the Viewer into view (or click it) to restart it.');
    const first = this.source !== source;
    if (!first && this.shownDrawn && this.shown && sameJson(view, this.shown)) {
      return true;
    }
    this.shownDrawn = false;
    const onDemand = source.coordinates?.onDemand ?? null;
    if (onDemand) {
      // the frame is fetched (or found held) before Mol* is asked for it: a failure is the fetch's located error
      await timed('fetchFrame', () => onDemand.cache.frame(view.frame));
    }
    if (first) {
      const id = `molspace-viewer-${++archiveCounter}`;
      this.url = `arcp://${id}/structure.${source.format}`;
      const asset = Asset.getUrlAsset(this.plugin.managers.asset, this.url);
      this.plugin.managers.asset.set(asset, new File([source.bytes.slice()], `structure.${source.format}`), {
        isStatic: true,
        tag: 'molspace-structure'
      });
      this.coordinatesUrl = null;
      if (source.coordinates) {
        this.coordinatesUrl = `arcp://${id}/coordinates.${source.coordinates.format}`;
        const coords = Asset.getUrlAsset(this.plugin.managers.asset, this.coordinatesUrl);
        this.plugin.managers.asset.set(coords, new File([source.coordinates.bytes.slice()], `coordinates.${source.coordinates.format}`), {
          isStatic: true,
          tag: 'molspace-structure'
        });
      }
    }
    const before = this.shown;
    if (!first && before && (await timed('frame', () => this.showFrame(source, before, view)))) {
      return this.drawnNow();
    }
    const mvs = viewToMvs(view, {
      url: this.url!,
      format: source.format,
      models: source.models,
      background: this.dark ? DARK_BACKGROUND : LIGHT_BACKGROUND,
      coordinates: this.coordinatesUrl && source.coordinates ? { url: this.coordinatesUrl, format: source.coordinates.format } : null,
      frames: source.frames
    });
    const mvsText = JSON.stringify(mvs);
    // The MVS state is what loadMVS builds from; when it is unchanged (highlight, selection,
    // focus, camera reset, transparency, distances) Mol*'s tree is kept and only those layers
    // are redone: loading the same state again still walks, validates and reconciles the whole
    // tree and redraws it (issue 26 item 3's trace).
    const reload = first || !before || mvsText !== this.shownMvs;
    if (reload) {
      if (onDemand && hasOnDemandFrames(this.plugin)) {
        // the MVS state knows the one-frame trajectory only: it rebuilds what the on-demand frames held
        const clear = this.plugin.build();
        for (const cell of this.plugin.state.data.select(StateSelection.Generators.ofTransformer(OnDemandFrames))) {
          clear.delete(cell.transform.ref);
        }
        await clear.commit();
      }
      await timed('loadMVS', () => this.loadState(mvs, !first));
      if (onDemand) {
        try {
          await insertOnDemandFrames(this.plugin, onDemand.cache, view.frame);
        } catch (e) {
          this.shownMvs = null;
          throw this.failure(this.cellErrors(), e);
        }
      }
      this.shownMvs = mvsText;
    }
    this.source = source;
    this.shown = structuredClone(view);
    if (reload || !sameJson(view.transparency, before?.transparency)) {
      await timed('transparency', () => this.applyTransparency(view));
    }
    if (reload || !sameJson(view.measurements, before?.measurements)) {
      await timed('measurements', () => this.applyMeasurements(view));
    }
    this.countExtras();
    this.applyInteractive(view, before, first);
    return this.drawnNow();
  }

  /**
   * Wait for a frame of what is shown; remember whether one was drawn. The host's
   * `data-molspace-frames` counts the frames waited for (a test hook: a first load is one).
   */
  private async drawnNow(): Promise<boolean> {
    this.host.setAttribute('data-molspace-frames', String(++this.framesWaited));
    const drawn = await timed('draw', () => this.waitForDraw());
    this.shownDrawn = drawn;
    return drawn;
  }

  /** Load one MVS state, keeping the camera after the first; Mol*'s errors become one located failure. */
  private async loadState(mvs: ReturnType<typeof viewToMvs>, keepCamera: boolean): Promise<void> {
    const errors: string[] = [];
    this.refusals = [];
    const sub = this.plugin.events.log.subscribe(e => {
      if (e.type === 'error') {
        errors.push(String(e.message));
      }
    });
    // An update draws nothing until Mol* holds the whole new state: loadMVS first resets the
    // canvas to Mol*'s defaults (SSAO on), and a frame drawn then is a second-long frame on
    // software WebGL and shows a half-built state. A first load keeps drawing: its camera is
    // fitted to what the scene has committed.
    const canvas = keepCamera ? this.plugin.canvas3d : undefined;
    canvas?.pause(true);
    try {
      const data = isSoftwareRenderer(this.plugin) ? withoutOcclusion(mvs) : mvs;
      await loadMVS(this.plugin, data as unknown as MVSData, { keepCamera, doNotReportErrors: true });
    } catch (e) {
      this.shownMvs = null;
      throw this.failure(errors, e);
    } finally {
      sub.unsubscribe();
      if (!this.disposed) {
        canvas?.animate(); // a viewer closed meanwhile stays stopped: its canvas is disposed
      }
    }
    const failed = this.cellErrors();
    if (failed.length) {
      this.shownMvs = null;
      throw this.failure(failed, null);
    }
  }

  /**
   * A change of trajectory frame (and playback) alone: update the frame's `ModelFromTrajectory`
   * cell in place (as Mol*'s model-index animation does) instead of loading the whole MVS state
   * again, which drew the old frame once more before the new one (issue 22's benchmark: 2.6 draws
   * a frame on software WebGL). Resolves false when anything else changed (the caller loads MVS).
   */
  private async showFrame(source: ViewerSource, before: ViewerViewState, view: ViewerViewState): Promise<boolean> {
    if (!source.coordinates && !source.frames) {
      return false;
    }
    const rest = (v: ViewerViewState) => JSON.stringify({ ...v, frame: 0, play: null });
    if (view.frame === before.frame || view.mvs || rest(view) !== rest(before)) {
      return false;
    }
    // the cell drawing the frame: a ModelFromTrajectory at the shown frame over a trajectory of several frames
    const cells = this.plugin.state.data
      .select(StateSelection.Generators.ofTransformer(StateTransforms.Model.ModelFromTrajectory))
      .filter(c => {
        const parent = this.plugin.state.data.cells.get(c.transform.parent)?.obj?.data as { frameCount?: number } | undefined;
        return (c.transform.params as { modelIndex?: number })?.modelIndex === before.frame && (parent?.frameCount ?? 0) > 1;
      });
    if (cells.length !== 1) {
      return false;
    }
    const update = this.plugin.build();
    update.to(cells[0].transform.ref).update({ ...(cells[0].transform.params as object), modelIndex: view.frame });
    try {
      await update.commit();
    } catch (e) {
      throw this.failure(this.cellErrors(), e);
    }
    const failed = this.cellErrors();
    if (failed.length) {
      throw this.failure(failed, null);
    }
    this.shown = structuredClone(view);
    this.countExtras();
    return true;
  }

  /** The camera, or null before anything is drawn. */
  camera(): { position: number[]; target: number[]; up: number[]; fov: number } | null {
    const cam = this.plugin.canvas3d?.camera;
    if (!cam) {
      return null;
    }
    const s = cam.getSnapshot();
    const r = (v: ArrayLike<number>) => Array.from(v, x => Math.round(x * 1000) / 1000);
    return { position: r(s.position), target: r(s.target), up: r(s.up), fov: Math.round(((s.fov * 180) / Math.PI) * 100) / 100 };
  }

  /**
   * An image of the view, base64 (no data-URL prefix): scaled to
   * `width`×`height` when given (one side: the other keeps the aspect), else at
   * most `defaultWidth` wide (else the canvas size); PNG unless `format` says.
   */
  async screenshot(size: ShotOptions = {}): Promise<Shot> {
    this.assertLive('Scroll the Viewer into view (or click it) to restart it.');
    this.plugin.canvas3d?.commit(true);
    const canvas = this.host.querySelector('canvas');
    if (!canvas) {
      throw new MolspaceError('STALE_TARGET', 'The 3D view has no canvas.', 'viewer', 'Scroll the Viewer into view and retry.');
    }
    let out: HTMLCanvasElement = canvas;
    const width =
      size.width ??
      (size.height === undefined && size.defaultWidth !== undefined && canvas.width > size.defaultWidth ? size.defaultWidth : undefined);
    const format = size.format ?? 'png';
    if (width || size.height || format !== 'png') {
      const w = width ?? Math.round(((size.height ?? canvas.height) * canvas.width) / Math.max(canvas.height, 1));
      const h = size.height ?? Math.round((w * canvas.height) / Math.max(canvas.width, 1));
      out = document.createElement('canvas');
      out.width = Math.max(1, w);
      out.height = Math.max(1, h);
      const ctx = out.getContext('2d');
      if (ctx && format !== 'png') {
        ctx.fillStyle = this.dark ? DARK_BACKGROUND : LIGHT_BACKGROUND; // JPEG has no alpha: what shows behind a transparent canvas
        ctx.fillRect(0, 0, out.width, out.height);
      }
      ctx?.drawImage(canvas, 0, 0, out.width, out.height);
    }
    const asked = `image/${format}` as Shot['mimeType'];
    const url = out.toDataURL(asked, size.quality);
    // A browser without the encoder answers PNG: say what it is.
    const mimeType = (url.slice(5, url.indexOf(';')) || 'image/png') as Shot['mimeType'];
    return { data: url.slice(url.indexOf(',') + 1), mimeType, width: out.width, height: out.height };
  }

  setDark(dark: boolean): void {
    this.dark = dark;
  }

  // ---------------------------------------------------------------- helpers

  private structures(): Structure[] {
    return this.plugin.managers.structure.hierarchy.current.structures.map(s => s.cell.obj?.data).filter((s): s is Structure => !!s);
  }

  /** Loci of `selector` over every drawn structure (Mol*'s MVS selector code). */
  private loci(selector: ComponentSelector): StructureElement.Loci[] {
    const props = componentPropsFromSelector(selector as never);
    return this.structures()
      .map(s => Structure.toSubStructureElementLoci(s, substructureFromSelector(s, props)))
      .filter(l => !StructureElement.Loci.isEmpty(l));
  }

  /** Every drawn representation's transparency layers, from `view.transparency` in order (later ones win). */
  private async applyTransparency(view: ViewerViewState): Promise<void> {
    const held = this.plugin.state.data.select(
      StateSelection.Generators.ofTransformer(StateTransforms.Representation.TransparencyStructureRepresentation3DFromBundle)
    ).length;
    if (view.transparency.length === 0 && held === 0) {
      return;
    }
    const components = this.plugin.managers.structure.hierarchy.current.structures.flatMap(s => s.components);
    await clearStructureTransparency(this.plugin, components);
    for (const t of view.transparency) {
      const props = componentPropsFromSelector(t.selector as never);
      await setStructureTransparency(this.plugin, components, t.value, async s =>
        Structure.toSubStructureElementLoci(s, substructureFromSelector(s, props))
      );
    }
  }

  /** The measurement manager's distances, rebuilt from `view.measurements` (the MVS load replaces the state tree). */
  private async applyMeasurements(view: ViewerViewState): Promise<void> {
    const manager = this.plugin.managers.structure.measurement;
    const old = manager.state.distances;
    if (old.length) {
      const update = this.plugin.build();
      for (const cell of old) {
        update.delete(cell.transform.parent);
      }
      await update.commit();
    }
    for (const m of view.measurements) {
      const [a] = this.loci(m.start);
      const [b] = this.loci(m.end);
      if (!a || !b) {
        throw new MolspaceError(
          'VALIDATION_FAILED',
          `Mol* could not draw the distance ${JSON.stringify(m.start)} – ${JSON.stringify(m.end)}: a side matches no drawn atom.`,
          'viewer',
          'Undo the last step; measure atoms of the drawn structure (viewer_observe).',
          { start: m.start, end: m.end }
        );
      }
      await manager.addDistance(a, b);
    }
  }

  private countExtras(): void {
    const state = this.plugin.state.data;
    const transparent = state.select(
      StateSelection.Generators.ofTransformer(StateTransforms.Representation.TransparencyStructureRepresentation3DFromBundle)
    ).length;
    // MVS label nodes become one Mol* representation of type mvs-custom-label per structure, one item per label
    let labels = 0;
    for (const cell of state.select(StateSelection.Generators.ofTransformer(StateTransforms.Representation.StructureRepresentation3D))) {
      const type = (cell.transform.params as { type?: { name?: string; params?: { items?: unknown[] } } } | undefined)?.type;
      if (type?.name === 'mvs-custom-label' && cell.status === 'ok') {
        labels += type.params?.items?.length ?? 0;
      }
    }
    this.host.setAttribute('data-molspace-measurements', String(this.plugin.managers.structure.measurement.state.distances.length));
    this.host.setAttribute('data-molspace-transparent', String(transparent));
    this.host.setAttribute('data-molspace-labels', String(labels));
    // Mol*'s ambient occlusion as drawn (off on software WebGL: ../molstar/softwareCanvas.ts)
    this.host.setAttribute('data-molspace-occlusion', this.plugin.canvas3d?.props.postprocessing.occlusion.name ?? 'off');
    if (this.source?.coordinates || this.source?.frames) {
      // a trajectory: atom 0 of the frame Mol* holds (Å, 3 decimals), and the frames an on-demand one holds
      const model = state.select(StateSelection.Generators.ofTransformer(StateTransforms.Model.ModelFromTrajectory))[0]?.obj?.data as
        { atomicConformation?: { x: ArrayLike<number>; y: ArrayLike<number>; z: ArrayLike<number> } } | undefined;
      const c = model?.atomicConformation;
      this.host.setAttribute('data-molspace-atom0', c ? [c.x[0], c.y[0], c.z[0]].map(v => v.toFixed(3)).join(',') : '');
      const cache = this.source.coordinates?.onDemand?.cache;
      if (cache) {
        this.host.setAttribute('data-molspace-frames-held', String(cache.size));
        this.host.setAttribute('data-molspace-frame-requests', String(cache.requests));
      }
    }
  }

  private applyInteractive(view: ViewerViewState, before: ViewerViewState | null, first: boolean): void {
    const { lociHighlights, lociSelects } = this.plugin.managers.interactivity;
    lociHighlights.clearHighlights();
    if (view.highlight) {
      for (const loci of this.loci(view.highlight)) {
        lociHighlights.highlight({ loci }, false);
      }
    }
    lociSelects.deselectAll();
    if (view.selection) {
      for (const loci of this.loci(view.selection)) {
        lociSelects.select({ loci }, false);
      }
    }
    const focusChanged = JSON.stringify(view.focus) !== JSON.stringify(before?.focus ?? null);
    const reset = !first && view.cameraResets !== (before?.cameraResets ?? 0);
    if (view.focus && (focusChanged || first)) {
      this.plugin.managers.camera.focusLoci(this.loci(view.focus), { durationMs: 0 });
    } else if (reset) {
      PluginCommands.Camera.Reset(this.plugin, { durationMs: 0 });
    }
  }

  private cellErrors(): string[] {
    const out: string[] = [];
    this.plugin.state.data.cells.forEach(cell => {
      if (cell.status === 'error' && cell.errorText && cell.errorText !== 'Parent is null') {
        out.push(cell.errorText.replace(/^Error:\s*/, ''));
      }
    });
    for (const text of this.plugin.errorContext.get('mvs')) {
      out.push(text);
    }
    this.plugin.errorContext.clear('mvs');
    return out;
  }

  private failure(errors: string[], e: unknown): MolspaceError {
    const reason = errors.length ? errors.join(' ') : e instanceof Error ? e.message : String(e);
    const refusal = this.refusals.find(r => reason.includes(refusedMessage(r)));
    if (refusal) {
      return new MolspaceError(
        'FORBIDDEN',
        `The MVS state's download ${refusal.url} redirected to ${refusal.redirectedTo}, which may not load: ${refusal.reason}.`,
        'viewer',
        `Use a URL that serves the file itself, or allow the final host on ${RESOURCE_HOSTS_SETTING}.`,
        { url: refusal.url, redirectedTo: refusal.redirectedTo, setting: 'resourceHosts' }
      );
    }
    return new MolspaceError(
      'VALIDATION_FAILED',
      `Mol* could not draw the structure: ${reason}`,
      'viewer',
      'Check the file is complete and in the declared format.',
      { reason }
    );
  }

  /** Whether Mol* drew a frame of the whole committed scene (see `waitForFrame`: a page hidden before or while waiting draws none). */
  private async waitForDraw(): Promise<boolean> {
    return (await waitForFrame(this.plugin.canvas3d, DRAW_WAIT_MS)) === 'drawn';
  }
}
