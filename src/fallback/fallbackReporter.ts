/**
 * Sends the gateway each notebook widget's static fallback once its view has
 * settled (docs/architecture.md, "Static fallback in saved notebooks").
 *
 * Triggers: a view finished drawing (its `data-molspace-ready` turned
 * `true`), a Dispatcher call on the widget, a widget joined the page, the
 * bridge (re)connected. Each schedules that widget after
 * {@link FALLBACK_SETTLE_MS} without another trigger; then, if it is settled
 * (drawn, a Story not playing) and its state differs from what was last
 * sent, one PNG is copied from its canvas and one `fallback` frame is sent.
 * Nothing runs while a Story plays or a view draws; nothing runs on
 * JupyterLab's start path (the bridge module starts this).
 *
 * Test hook: the widget's views get `data-molspace-fallback-revision`, the
 * revision of the last fallback sent.
 */
import type { ISignal } from '@lumino/signaling';
import type { PageFallback } from '../contract';
import type { WidgetTarget } from '../dispatcher/widgetTarget';
import { isTargetOfKind } from '../dispatcher/widgetTarget';
import { captureViewerPng, capturePng, svgPng, viewsOf, type FallbackPngImage } from './fallbackImage';
import { fallbackSnapshot, reportsFallback } from './fallbackState';

/** Quiet time after the last trigger before a widget's fallback is taken, ms. */
export const FALLBACK_SETTLE_MS = 1000;

/** Most widgets whose last-sent state is remembered (older ones are simply sent again). */
const REMEMBERED = 500;

export interface FallbackReporterOptions {
  registry: {
    find(id: string): WidgetTarget | undefined;
    list(): WidgetTarget[];
    readonly changed: ISignal<unknown, number>;
  };
  executed: ISignal<unknown, { target: string | null }>;
  /** Sends one frame; false when the bridge is not connected (the frame is then sent after the next connect). */
  send(frame: PageFallback): boolean;
  /** Emits when the gateway welcomed the page (a new server has no fallbacks yet). */
  welcomed?: ISignal<unknown, void>;
  /**
   * Default: a Viewer's own screenshot ({@link captureViewerPng}); a Ketcher editor's molecule
   * depicted by `depict`; else the view's canvas ({@link capturePng}).
   */
  capture?: (target: WidgetTarget) => Promise<FallbackPngImage | null>;
  /** An SVG (base64) of `smiles`, or null (the page's depiction service; none: an editor is saved as text). */
  depict?: (smiles: string) => Promise<string | null>;
  settleMs?: number;
  /** Default: `document.body`; null: no DOM trigger (tests). */
  observe?: Node | null;
}

async function defaultCapture(target: WidgetTarget, depict: FallbackReporterOptions['depict']): Promise<FallbackPngImage | null> {
  if (isTargetOfKind(target, 'viewer')) {
    const shot = await captureViewerPng(target);
    if (shot) {
      return shot;
    }
  }
  if (isTargetOfKind(target, 'ketcher')) {
    // The editor draws in its own frame: the molecule is depicted from its SMILES instead.
    const smiles = target.state().smiles;
    const svg = smiles && depict ? await depict(smiles).catch(() => null) : null;
    return svg ? svgPng(svg) : null;
  }
  return capturePng(target.targetId);
}

export class FallbackReporter {
  private readonly _o: FallbackReporterOptions;
  private readonly _timers = new Map<string, ReturnType<typeof setTimeout>>();
  /** Per widget: the state last sent and whether it carried an image. */
  private readonly _sent = new Map<string, { signature: string; image: boolean }>();
  private readonly _observer: MutationObserver | null = null;
  private _disposed = false;
  /** Widgets whose fallback is being taken, and those triggered meanwhile (taken again after). */
  private readonly _busy = new Set<string>();
  private readonly _again = new Set<string>();

  constructor(options: FallbackReporterOptions) {
    this._o = options;
    options.registry.changed.connect(this._scheduleAll);
    options.executed.connect(this._onExecuted);
    options.welcomed?.connect(this._onWelcome);
    const root = options.observe === undefined ? document.body : options.observe;
    if (root) {
      this._observer = new MutationObserver(records => {
        for (const r of records) {
          const el = r.target as HTMLElement;
          // Drawn, or a new revision (a person's edit in an editor is no Dispatcher call).
          if (el.getAttribute?.('data-molspace-ready') === 'true') {
            const id = el.closest?.('[data-molspace-model]')?.getAttribute('data-molspace-model');
            if (id) {
              this.schedule(id);
            }
          }
        }
      });
      this._observer.observe(root, { subtree: true, attributes: true, attributeFilter: ['data-molspace-ready', 'data-molspace-revision'] });
    }
    this._scheduleAll();
  }

  /** Take `id`'s fallback after the settle time, unless another trigger comes first. */
  schedule(id: string): void {
    if (this._disposed) {
      return;
    }
    const pending = this._timers.get(id);
    if (pending !== undefined) {
      clearTimeout(pending);
    }
    this._timers.set(
      id,
      setTimeout(() => {
        this._timers.delete(id);
        void this.flush(id);
      }, this._o.settleMs ?? FALLBACK_SETTLE_MS)
    );
  }

  /** Send `id`'s fallback now if it is settled and changed since the last one sent; resolves whether one was sent. */
  async flush(id: string): Promise<boolean> {
    if (this._busy.has(id)) {
      this._again.add(id);
      return false;
    }
    this._busy.add(id);
    try {
      return await this._flush(id);
    } finally {
      this._busy.delete(id);
      if (this._again.delete(id)) {
        this.schedule(id);
      }
    }
  }

  private async _flush(id: string): Promise<boolean> {
    const target = this._o.registry.find(id);
    if (this._disposed || !target || !reportsFallback(target)) {
      return false;
    }
    const snap = fallbackSnapshot(target);
    if (!snap) {
      return false;
    }
    const signature = JSON.stringify(snap);
    const last = this._sent.get(id);
    const wantsImage = snap.state.kind !== 'panel' || snap.content?.type === 'chart';
    if (last?.signature === signature && (last.image || !wantsImage)) {
      return false;
    }
    const image = wantsImage ? await (this._o.capture ?? (t => defaultCapture(t, this._o.depict)))(target) : null;
    if (this._disposed || JSON.stringify(fallbackSnapshot(target)) !== signature) {
      this._again.add(id); // it changed while the picture was taken
      return false;
    }
    if (last?.signature === signature && !image) {
      return false; // still no image to add to what was sent
    }
    const frame: PageFallback = {
      type: 'fallback',
      modelId: id,
      state: snap.state,
      ...(image ? { png: image.png, width: image.width, height: image.height } : {}),
      ...(snap.content ? { content: snap.content } : {})
    };
    if (!this._o.send(frame)) {
      return false;
    }
    this._sent.delete(id);
    this._sent.set(id, { signature, image: image !== null });
    if (this._sent.size > REMEMBERED) {
      const oldest = this._sent.keys().next().value;
      if (oldest !== undefined) {
        this._sent.delete(oldest);
      }
    }
    for (const view of viewsOf(id)) {
      view.setAttribute('data-molspace-fallback-revision', String(snap.state.revision));
    }
    return true;
  }

  dispose(): void {
    this._disposed = true;
    this._observer?.disconnect();
    this._timers.forEach(t => clearTimeout(t));
    this._timers.clear();
    this._o.registry.changed.disconnect(this._scheduleAll);
    this._o.executed.disconnect(this._onExecuted);
    this._o.welcomed?.disconnect(this._onWelcome);
  }

  private readonly _scheduleAll = (): void => {
    for (const t of this._o.registry.list()) {
      if (reportsFallback(t)) {
        this.schedule(t.targetId);
      }
    }
  };

  private readonly _onExecuted = (_: unknown, record: { target: string | null }): void => {
    if (record.target) {
      this.schedule(record.target);
    } else {
      this._scheduleAll();
    }
  };

  private readonly _onWelcome = (): void => {
    this._sent.clear();
    this._scheduleAll();
  };
}
