/**
 * Page-wide budget of live WebGL viewers (docs/architecture.md).
 *
 * Browsers keep about 16 live WebGL contexts per page and silently drop the
 * oldest beyond that, while a notebook may hold 20+ Story widgets. Views
 * register a {@link ViewerHandle}. A view out of view (IntersectionObserver;
 * JupyterLab's windowing mode `full` takes cells out of the DOM) keeps its
 * live viewer while the budget has room: parking only happens when a view
 * needs a viewer and `maxLive` are live, and then the least recently used
 * view is parked, preferring views that are out of view. A parked view comes
 * back when it comes into view. Parking (screenshot, show the image, dispose
 * the viewer) and restoring are the handle's job.
 */

/** What the budget needs from a view that owns a WebGL viewer. */
export interface ViewerHandle {
  /** The element observed for visibility (the view's root). */
  readonly element: HTMLElement;
  /** True while the view holds a live viewer (WebGL context). */
  readonly isLive: boolean;
  /** `performance.now()` of the last use (render or interaction), ms. */
  readonly lastUsed: number;
  /** Replace the live viewer by an image and dispose it. Must not throw. */
  park(): Promise<void>;
  /** Re-create the viewer and show the current step. Must not throw. */
  restore(): Promise<void>;
}

/** Default maximum of live viewers per page. */
export const DEFAULT_MAX_LIVE = 8;
/** Frames of an on-demand trajectory a page holds by default (`schema/plugin.json` `trajectoryFrameBudget`). */
export const DEFAULT_FRAME_BUDGET = 1000;

/** The page-wide viewer budget: one per page, held by the `IMolspace` services. */
export class ViewerBudget {
  private maxLive = DEFAULT_MAX_LIVE;
  private readonly handles = new Set<ViewerHandle>();
  private readonly visible = new Map<ViewerHandle, boolean>();
  private readonly byElement = new Map<Element, ViewerHandle>();
  private observer: IntersectionObserver | null = null;
  private readonly parking = new Set<ViewerHandle>();
  /** Views between {@link reserve} and its release (creating a viewer). */
  private readonly starting = new Set<ViewerHandle>();
  private startWaiters: (() => void)[] = [];

  /**
   * Most frames of an on-demand trajectory a Viewer's page holds (the setting
   * `trajectoryFrameBudget`; a cell's `frame_budget=` takes precedence), `src/viewer/frameCache.ts`.
   */
  frameBudget = DEFAULT_FRAME_BUDGET;

  /** Current maximum of live viewers. */
  get max(): number {
    return this.maxLive;
  }

  /** Set the maximum of live viewers (at least 1); parks extra viewers at once. */
  setMaxLive(n: number): void {
    const v = Math.floor(Number(n));
    this.maxLive = Number.isFinite(v) && v >= 1 ? v : DEFAULT_MAX_LIVE;
    void this.enforce();
  }

  /** Set the frames an on-demand trajectory may hold in the page (at least 2; Viewers opened after). */
  setFrameBudget(n: number): void {
    const v = Math.floor(Number(n));
    this.frameBudget = Number.isFinite(v) && v >= 2 ? v : DEFAULT_FRAME_BUDGET;
  }

  /** Register a view; returns a function that unregisters it. */
  register(handle: ViewerHandle): () => void {
    this.handles.add(handle);
    this.byElement.set(handle.element, handle);
    this.visible.set(handle, true);
    this.getObserver()?.observe(handle.element);
    return () => this.unregister(handle);
  }

  /** Stop tracking a view (it was removed). Does not dispose its viewer. */
  unregister(handle: ViewerHandle): void {
    if (!this.handles.delete(handle)) {
      return;
    }
    this.visible.delete(handle);
    this.byElement.delete(handle.element);
    this.observer?.unobserve(handle.element);
  }

  /** Whether the view is (at least partly) on screen, as last observed. */
  isVisible(handle: ViewerHandle): boolean {
    return this.visible.get(handle) ?? true;
  }

  /**
   * A view is about to create (or restore) a live viewer: park others first
   * so that it fits the budget, waiting while viewers still being created
   * fill it. Call the returned function once the viewer is live (or failed).
   */
  async reserve(handle: ViewerHandle): Promise<() => void> {
    for (;;) {
      await this.enforce(handle);
      const others = [...this.handles].filter(h => h !== handle && (h.isLive || this.starting.has(h)) && !this.parking.has(h)).length;
      if (others < this.maxLive || this.starting.size === 0) {
        break;
      }
      await new Promise<void>(resolve => this.startWaiters.push(resolve));
    }
    this.starting.add(handle);
    let released = false;
    return () => {
      if (!released) {
        released = true;
        this.starting.delete(handle);
        this.startWaiters.splice(0).forEach(resolve => resolve());
      }
    };
  }

  /**
   * Park live viewers beyond the budget (`keep`, if given, is not parked and
   * counts as live). Victims: out-of-view viewers first, then any; least
   * recently used first. Victims are chosen synchronously (no page-wide lock,
   * so views waiting on each other cannot deadlock); a view should only call
   * this while it holds no live viewer, or for no `keep` at all.
   */
  async enforce(keep?: ViewerHandle): Promise<void> {
    const limit = keep ? this.maxLive - 1 : this.maxLive;
    // Viewers still being created hold a WebGL context too, but cannot be parked yet.
    const starting = [...this.starting].filter(h => h !== keep && !h.isLive).length;
    const live = [...this.handles].filter(h => h.isLive && h !== keep && !this.parking.has(h));
    const excess = Math.min(live.length + starting - limit, live.length);
    if (excess <= 0) {
      return;
    }
    const rank = (h: ViewerHandle) => (this.isVisible(h) ? 1 : 0);
    live.sort((a, b) => rank(a) - rank(b) || a.lastUsed - b.lastUsed);
    const victims = live.slice(0, excess);
    await Promise.all(
      victims.map(async h => {
        this.parking.add(h);
        try {
          await h.park();
        } catch (e) {
          console.warn('molspace: parking a viewer failed', e);
        } finally {
          this.parking.delete(h);
        }
      })
    );
  }

  private getObserver(): IntersectionObserver | null {
    if (this.observer || typeof IntersectionObserver === 'undefined') {
      return this.observer;
    }
    this.observer = new IntersectionObserver(entries => {
      for (const e of entries) {
        const handle = this.byElement.get(e.target);
        if (handle) {
          this.onVisibility(handle, e.isIntersecting);
        }
      }
    });
    return this.observer;
  }

  /**
   * A view came into view (restore it if parked) or left it (it stays live:
   * {@link enforce} parks it first when room is needed).
   */
  private onVisibility(handle: ViewerHandle, isVisible: boolean): void {
    this.visible.set(handle, isVisible);
    // What the budget believes, for tests and styles: `data-molspace-in-view="true|false"`.
    handle.element.setAttribute('data-molspace-in-view', String(isVisible));
    if (isVisible && !handle.isLive) {
      void handle.restore();
    }
  }
}
