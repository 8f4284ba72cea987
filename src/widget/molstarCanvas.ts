/**
 * The Mol* canvas of a widget view: the one place the Story and Viewer views
 * keep a live Mol* viewer (docs/architecture.md, "Page widget models").
 *
 * It owns the canvas area and the viewer's lifecycle around what the view
 * draws: one operation at a time (a queue), the page-wide
 * {@link ViewerBudget} (a handle, reserve before creating, park to an image
 * and restore), the placeholder shown instead of a blank canvas, the wheel
 * guard, size and theme changes, and the WebGL context (lost: a located
 * state and a "Restart the 3D view" button; restored: the view redraws).
 * What is drawn (a Story step, a Viewer revision) stays with the view.
 *
 * DOM hooks on the view's root: `data-molspace-parked="true"` while parked
 * (image shown, no WebGL; `data-molspace-ready` is then "false"),
 * `data-molspace-context-lost="true"` while the browser holds back the
 * context. In the canvas area: `.molspace-story-viewer` (the live viewer's
 * host), `.molspace-story-placeholder`, `.molspace-story-parked` (a button
 * holding the parked image), `.molspace-story-restart`, `.molspace-wheel-hint`.
 */
import type { Widget } from '@lumino/widgets';

import { hiddenTabOf } from '../dockedTab';
import type { MolstarViewer } from '../molstar/molstarViewer';
import type { ViewerBudget, ViewerHandle } from '../molstar/viewerBudget';
import { guardWheel } from '../molstar/wheelGuard';

/** What the canvas asks of its view. */
export interface MolstarCanvasOptions<V extends MolstarViewer> {
  /** The view's root: observed by the budget, carries the data attributes above. */
  root: HTMLElement;
  /** The page-wide budget of live viewers (the page's services). */
  budget: ViewerBudget;
  /** Class names of the canvas area besides `molspace-story-canvas`, e.g. `molspace-viewer-canvas`. */
  className?: string;
  /** The image shown while parked: a `data:` URL, or '' for none. May throw (then no image). */
  snapshot(viewer: V): Promise<string>;
  /**
   * Start a viewer again and draw what the view shows; runs in the queue.
   * `force` (the restart button): even out of view.
   */
  restore(force: boolean): Promise<void>;
  /** The viewer was parked (disposed, its image shown). */
  parked?(): void;
  /** The browser took the live viewer's WebGL context: Mol* draws nothing. */
  contextLost?(viewer: V): void;
  /** The browser gave the context back and Mol* rebuilt its GPU resources. */
  contextRestored?(viewer: V): void;
  /** A person used the view (a click on it, the parked image or the restart button). */
  touched?(): void;
}

/** True when JupyterLab shows a dark theme (`data-jp-theme-light="false"` on body). */
export function isDarkTheme(): boolean {
  return document.body.dataset.jpThemeLight === 'false';
}

export class MolstarCanvas<V extends MolstarViewer> {
  /** The canvas area: the view places it in its DOM. */
  readonly element: HTMLElement;
  private readonly opts: MolstarCanvasOptions<V>;
  private readonly handle: ViewerHandle;
  private live: V | null = null;
  private ops: Promise<void> = Promise.resolve();
  private disposed = false;
  private parkedImage: string | null = null;
  private lost = false;
  private lastUsedAt = performance.now();
  private unfollowContext: (() => void) | null = null;
  private readonly cleanups: (() => void)[] = [];

  constructor(opts: MolstarCanvasOptions<V>) {
    this.opts = opts;
    this.element = el('div', ['molspace-story-canvas', opts.className ?? ''].join(' ').trim());
    const hint = el('div', 'molspace-wheel-hint');
    hint.textContent = 'Click the view, then use the wheel to zoom';
    hint.setAttribute('aria-hidden', 'true');
    this.element.append(hint);
    this.cleanups.push(guardWheel(this.element, hint));

    // JupyterLab's `full` windowing takes cells out of the DOM (size 0): keep the canvas as it
    // is then (resizing it clears the drawn frame), so that it shows its frame again at once.
    let size = '';
    const resize = new ResizeObserver(entries => {
      const box = entries[entries.length - 1]?.contentRect;
      const next = box && box.width > 0 && box.height > 0 ? `${box.width}x${box.height}` : '';
      if (next !== '' && next !== size) {
        size = next;
        this.live?.resize();
      }
    });
    resize.observe(this.element);
    const theme = new MutationObserver(() => this.live?.setDark(isDarkTheme()));
    theme.observe(document.body, { attributes: true, attributeFilter: ['data-jp-theme-light'] });
    this.cleanups.push(
      () => resize.disconnect(),
      () => theme.disconnect()
    );

    const handle: ViewerHandle = {
      element: opts.root,
      isLive: false,
      lastUsed: 0,
      park: () => this.park(),
      restore: () => this.enqueue(() => (this.live ? Promise.resolve() : this.opts.restore(false)))
    };
    Object.defineProperties(handle, {
      isLive: { get: () => this.live !== null },
      lastUsed: { get: () => this.lastUsedAt }
    });
    this.handle = handle;
    this.cleanups.push(opts.budget.register(handle));
  }

  /** The live viewer, or null (not started, starting, parked, failed or disposed). */
  get viewer(): V | null {
    return this.live;
  }

  /** True once the view was removed: queued operations no longer run. */
  get removed(): boolean {
    return this.disposed;
  }

  /** True while parked: the image is shown in place of a live viewer. */
  get isParked(): boolean {
    return this.parkedImage !== null;
  }

  /** True while the browser holds back the live viewer's WebGL context. */
  get contextLost(): boolean {
    return this.lost;
  }

  /** Whether the view is (at least partly) on screen, as the budget last observed. */
  get visible(): boolean {
    return this.opts.budget.isVisible(this.handle);
  }

  /** Wait for room in the budget (parking another view if need be); call the result once created or given up. */
  reserve(): Promise<() => void> {
    return this.opts.budget.reserve(this.handle);
  }

  /** Record a use (a drawn frame, an interaction): the budget parks the least recently used view first. */
  used(): void {
    this.lastUsedAt = performance.now();
  }

  /** A person used the view. */
  touched(): void {
    this.used();
    this.opts.touched?.();
  }

  /** In the document with a box; a hidden main-area tab counts (the view can show it). */
  canDraw(widget: Widget | undefined): boolean {
    const root = this.opts.root;
    return !this.disposed && root.isConnected && (root.getClientRects().length > 0 || hiddenTabOf(widget) !== null);
  }

  /** Run viewer operations one at a time, in order; none runs once removed. */
  enqueue(op: () => Promise<void>): Promise<void> {
    const run = async () => {
      if (!this.disposed) {
        await op();
      }
    };
    this.ops = this.ops.then(run, run);
    return this.ops;
  }

  /** Show `text` in the canvas area (never a blank canvas); null removes it. */
  setPlaceholder(text: string | null): void {
    let ph = this.element.querySelector<HTMLElement>(':scope > .molspace-story-placeholder');
    if (text === null) {
      ph?.remove();
      return;
    }
    if (!ph) {
      ph = el('div', 'molspace-story-placeholder');
      this.element.append(ph);
    }
    ph.textContent = text;
  }

  /**
   * Create the live viewer in a new host element of the canvas area and follow
   * its WebGL context. The parked image, if any, stays shown until
   * {@link dropParkedImage}, so that it covers the viewer until it has drawn.
   *
   * @returns the viewer, or null when the view was removed meanwhile (the viewer is disposed).
   * @throws what `create` throws (its host element is removed).
   */
  async start(create: (host: HTMLElement, dark: boolean) => Promise<V>): Promise<V | null> {
    const host = el('div', 'molspace-story-viewer');
    this.element.append(host);
    let viewer: V;
    try {
      viewer = await create(host, isDarkTheme());
    } catch (e) {
      host.remove();
      throw e;
    }
    if (this.disposed) {
      viewer.dispose();
      host.remove();
      return null;
    }
    this.live = viewer;
    this.unfollowContext = viewer.onContext({
      lost: () => this.onContextLost(viewer),
      restored: () => this.onContextRestored(viewer)
    });
    this.parkedImage = null;
    this.opts.root.removeAttribute('data-molspace-parked');
    return viewer;
  }

  /** Remove the parked image (the new viewer has drawn, or could not). */
  dropParkedImage(): void {
    this.element.querySelectorAll(':scope > .molspace-story-parked').forEach(n => n.remove());
  }

  /**
   * Dispose the live viewer (if any) and remove its host element; with
   * `keepContext` (parked, or a new document in the same view) its WebGL
   * context goes to the next viewer that starts, unless the browser took it.
   */
  disposeViewer(keepContext = false): void {
    this.unfollowContext?.();
    this.unfollowContext = null;
    this.live?.dispose(keepContext && !this.lost);
    this.live = null;
    this.element.querySelectorAll(':scope > .molspace-story-viewer').forEach(n => n.remove());
    this.clearLost();
  }

  /** The view is removed: stop observing, leave the budget, dispose the viewer. */
  dispose(): void {
    if (this.disposed) {
      return;
    }
    this.disposed = true;
    this.cleanups.splice(0).forEach(f => f());
    this.disposeViewer();
  }

  /** Budget: replace the live viewer by its image and free the WebGL context for another view. */
  private park(): Promise<void> {
    if (!this.live) {
      // Nothing live (starting, failed or parked): never wait on the op queue here.
      return Promise.resolve();
    }
    return this.enqueue(async () => {
      const viewer = this.live;
      if (!viewer) {
        return;
      }
      let image = '';
      try {
        // A lost context has nothing to read back: the image would be blank.
        image = this.lost ? '' : await this.opts.snapshot(viewer);
      } catch {
        image = '';
      }
      this.disposeViewer(true);
      this.showParked(image);
      this.opts.parked?.();
    });
  }

  private showParked(image: string): void {
    this.dropParkedImage();
    this.parkedImage = image;
    // No live frame while parked: tests and agents wait for a restore.
    this.opts.root.setAttribute('data-molspace-parked', 'true');
    this.opts.root.setAttribute('data-molspace-ready', 'false');
    const parked = button('molspace-story-parked');
    parked.title = 'Paused to save graphics memory — click to resume the 3D view';
    parked.setAttribute('aria-label', 'Resume the 3D view');
    if (image) {
      const img = document.createElement('img');
      img.src = image;
      img.alt = 'Snapshot of the paused 3D view';
      parked.append(img);
    }
    const hint = el('span', 'molspace-story-parked-hint');
    hint.textContent = 'Click to resume the 3D view';
    parked.append(hint);
    parked.addEventListener('click', () => {
      this.touched();
      void this.handle.restore();
    });
    this.element.append(parked);
  }

  private onContextLost(viewer: V): void {
    if (viewer !== this.live || this.disposed) {
      return;
    }
    this.lost = true;
    this.opts.root.setAttribute('data-molspace-context-lost', 'true');
    this.element.querySelectorAll(':scope > .molspace-story-restart').forEach(n => n.remove());
    const restart = button('molspace-story-restart jp-Button');
    restart.textContent = 'Restart the 3D view';
    // A new viewer (a new context) showing the same thing.
    restart.addEventListener('click', () => {
      this.touched();
      void this.enqueue(async () => {
        if (this.lost) {
          this.disposeViewer();
          await this.opts.restore(true);
        }
      });
    });
    this.element.append(restart);
    this.opts.contextLost?.(viewer);
  }

  private onContextRestored(viewer: V): void {
    if (viewer !== this.live || this.disposed) {
      return;
    }
    this.clearLost();
    this.opts.contextRestored?.(viewer);
  }

  private clearLost(): void {
    this.lost = false;
    this.opts.root.removeAttribute('data-molspace-context-lost');
    this.element.querySelectorAll(':scope > .molspace-story-restart').forEach(n => n.remove());
  }
}

function button(className: string): HTMLButtonElement {
  const b = document.createElement('button');
  b.className = className;
  b.type = 'button';
  return b;
}

function el(tag: string, className: string): HTMLElement {
  const e = document.createElement(tag);
  e.className = className;
  return e;
}
