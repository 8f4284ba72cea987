/**
 * The structure Viewer widget view (ipywidgets `DOMWidgetView`): a one-line
 * summary, an error panel, and the Mol* canvas (docs/architecture.md, "Viewer").
 * The view never changes state: it draws the model's `view` and reports each
 * revision drawn with `model.markDrawn`. The live viewer is parked (image +
 * disposed WebGL context) by the page-wide {@link ViewerBudget}; a bad
 * structure shows its located error, never a blank canvas.
 *
 * Test hooks on the root (`.molspace-viewer`): `data-molspace-model`,
 * `data-molspace-ready="true"` once the current revision is drawn,
 * `data-molspace-revision` the revision last drawn, `data-molspace-parked`.
 */
import { DOMWidgetView } from '@jupyter-widgets/base';
import { hiddenTabOf, showHiddenTab } from '../dockedTab';

import { MolspaceError } from '../contract/errors';
import type { MolstarStructureViewer, ViewerSource } from './molstarStructureViewer';
import type { ViewerBudget, ViewerHandle } from '../molstar/viewerBudget';
import type { LiveViewerView, ViewerDrawer, ViewerModel } from './viewerModel';
import type { ShotOptions } from './screenshot';

function isDarkTheme(): boolean {
  return document.body.dataset.jpThemeLight === 'false';
}

export class ViewerView extends DOMWidgetView implements LiveViewerView, ViewerDrawer {
  declare model: ViewerModel;
  private viewer: MolstarStructureViewer | null = null;
  private source: ViewerSource | null = null;
  private ops: Promise<void> = Promise.resolve();
  private removed = false;
  private parked = false;
  private lastUsedAt = performance.now();
  private unregister: (() => void) | null = null;
  private resizeObserver: ResizeObserver | null = null;
  private handle: ViewerHandle | null = null;
  private els!: { summary: HTMLElement; error: HTMLElement; canvas: HTMLElement; undo: HTMLButtonElement; redo: HTMLButtonElement };

  private get budget(): ViewerBudget {
    return this.model.services.viewerBudget;
  }

  render(): void {
    super.render();
    const root = this.el;
    root.classList.add('molspace-viewer');
    root.setAttribute('data-molspace-model', this.model.model_id);
    root.setAttribute('data-molspace-ready', 'false');
    root.setAttribute('data-lm-suppress-shortcuts', 'true');
    root.setAttribute('role', 'group');
    root.setAttribute('aria-label', 'Molecular structure viewer');
    const toolbar = el('div', 'molspace-story-toolbar molspace-viewer-toolbar');
    toolbar.setAttribute('role', 'toolbar');
    const button = (op: 'undo' | 'redo', label: string, text: string) => {
      const b = document.createElement('button');
      b.className = 'molspace-story-button jp-Button';
      b.type = 'button';
      b.dataset.action = op;
      b.title = label;
      b.setAttribute('aria-label', label);
      b.textContent = text;
      b.disabled = true;
      b.addEventListener('click', () => {
        this.touched();
        void this.model.control(op);
      });
      return b;
    };
    const undo = button('undo', 'Undo the last change', '↶ Undo');
    const redo = button('redo', 'Redo', '↷ Redo');
    const summary = el('div', 'molspace-viewer-summary');
    toolbar.append(undo, redo, summary);
    const error = el('div', 'molspace-story-error molspace-viewer-error');
    error.setAttribute('role', 'alert');
    error.hidden = true;
    const canvas = el('div', 'molspace-story-canvas molspace-viewer-canvas');
    root.append(toolbar, error, canvas);
    this.els = { summary, error, canvas, undo, redo };
    root.addEventListener('pointerdown', () => this.touched(), true);
    root.addEventListener('keydown', e => {
      if (e.key !== 'Escape') {
        e.stopPropagation();
      }
    });

    this.listenTo(this.model, 'change:summary change:undo_steps change:redo_steps change:undo_label change:redo_label', () =>
      this.updateText()
    );
    this.listenTo(this.model, 'change:error', () => this.updateError());
    this.listenTo(this.model, 'change:view', () => this.enqueue(() => this.draw()));
    this.resizeObserver = new ResizeObserver(() => this.viewer?.resize());
    this.resizeObserver.observe(canvas);

    const handle: ViewerHandle = {
      element: this.el,
      isLive: false,
      lastUsed: 0,
      park: () => this.park(),
      restore: () => this.restore()
    };
    Object.defineProperties(handle, {
      isLive: { get: () => this.viewer !== null },
      lastUsed: { get: () => this.lastUsedAt }
    });
    this.handle = handle;
    this.unregister = this.budget.register(handle);
    this.model.viewShown(this);
    this.updateText();
    this.updateError();
    this.enqueue(() => this.start());
  }

  remove(): void {
    this.removed = true;
    this.unregister?.();
    this.resizeObserver?.disconnect();
    this.viewer?.dispose();
    this.viewer = null;
    this.model.viewRemoved(this);
    super.remove();
  }

  // -------------------------------------------------------------- LiveViewerView
  camera(): ReturnType<LiveViewerView['camera']> {
    return this.viewer?.camera() ?? null;
  }

  screenshot(size: ShotOptions): ReturnType<LiveViewerView['screenshot']> {
    if (!this.viewer) {
      return Promise.reject(
        new MolspaceError('STALE_TARGET', 'This Viewer view holds no live 3D viewer.', '/actions', 'Scroll the Viewer into view and retry.')
      );
    }
    return this.viewer.screenshot(size);
  }

  // ----------------------------------------------------------------- DOM
  private updateText(): void {
    this.els.summary.textContent = this.model.describe();
    const { undo, redo } = this.model.state();
    this.els.undo.disabled = undo === 0;
    this.els.redo.disabled = redo === 0;
    // Each undo step says what it takes back and who made it (a button, a cell, an agent).
    const undoLabel: string = this.model.get('undo_label') || '';
    const redoLabel: string = this.model.get('redo_label') || '';
    this.els.undo.title = undo === 0 ? 'Nothing to undo' : `Undo: ${undoLabel}`;
    this.els.redo.title = redo === 0 ? 'Nothing to redo' : `Redo: ${redoLabel}`;
  }

  private updateError(): void {
    const err = this.model.error();
    const panel = this.els.error;
    panel.replaceChildren();
    panel.hidden = err === null;
    this.el.classList.toggle('molspace-viewer-has-error', err !== null);
    if (!err) {
      return;
    }
    const message = el('div', 'molspace-story-error-message');
    const code = el('strong', 'molspace-story-error-code');
    code.textContent = err.code;
    message.append(code, document.createTextNode(` ${err.message}`));
    const where = el('div', 'molspace-story-error-where');
    where.textContent = `Where: ${err.where}`;
    const fix = el('div', 'molspace-story-error-fix');
    fix.textContent = `Fix: ${err.fix}`;
    panel.append(message, where, fix);
    this.setPlaceholder('The structure could not be shown; see the error above.');
  }

  private setPlaceholder(text: string | null): void {
    let ph = this.els.canvas.querySelector<HTMLElement>(':scope > .molspace-story-placeholder');
    if (text === null) {
      ph?.remove();
      return;
    }
    if (!ph) {
      ph = el('div', 'molspace-story-placeholder');
      this.els.canvas.append(ph);
    }
    ph.textContent = text;
  }

  private touched(): void {
    this.lastUsedAt = performance.now();
    try {
      this.model.touch();
    } catch {
      // closing
    }
  }

  // ---------------------------------------------------------------- viewer
  private enqueue(op: () => Promise<void>): Promise<void> {
    const run = async () => {
      if (!this.removed) {
        await op();
      }
    };
    this.ops = this.ops.then(run, run);
    return this.ops;
  }

  // ------------------------------------------------------------ ViewerDrawer

  /** In the document (a hidden main-area tab counts: {@link drawNow} shows it). */
  canDraw(): boolean {
    return !this.removed && this.el.isConnected && (this.el.getClientRects().length > 0 || hiddenTabOf(this.luminoWidget) !== null);
  }

  /** The model needs a live viewer (a screenshot): show a hidden tab holding it, start out of view, draw. */
  drawNow(): Promise<void> {
    return this.enqueue(async () => {
      if (this.viewer) {
        return;
      }
      showHiddenTab(this.luminoWidget);
      await this.start(true);
    });
  }

  /** Read the structure, then start a live viewer within the budget (`force`: even out of view). */
  private async start(force = false): Promise<void> {
    this.setPlaceholder('Loading structure…');
    let data;
    try {
      data = await this.model.structureData();
    } catch {
      this.updateError();
      return; // the model holds the located error; the panel shows it
    }
    this.source = { bytes: this.model.bytes(), format: data.format, models: data.composition.shownModels };
    const release = await this.budget.reserve(this.handle!);
    try {
      if (this.removed || this.viewer) {
        return;
      }
      if (!force && !this.budget.isVisible(this.handle!)) {
        this.setPlaceholder(this.parked ? null : 'Scroll here to start the 3D viewer');
        return;
      }
      this.setPlaceholder(this.parked ? null : 'Starting 3D viewer…');
      const { MolstarStructureViewer } = await import('./molstarStructureViewer');
      const host = el('div', 'molspace-story-viewer');
      this.els.canvas.append(host);
      try {
        this.viewer = await MolstarStructureViewer.create(host, { dark: isDarkTheme(), policy: this.model.resourcePolicy() });
      } catch (e) {
        host.remove();
        const err = MolspaceError.from(e, 'Viewer');
        this.model.markDrawn(this, this.model.state().revision, err);
        this.setPlaceholder('The 3D viewer could not start; see the error above.');
        return;
      }
    } finally {
      release();
    }
    if (this.removed) {
      this.viewer?.dispose();
      return;
    }
    this.clearParked();
    this.setPlaceholder(null);
    await this.draw();
  }

  /** Draw the model's current view in the live viewer and report it. */
  private async draw(): Promise<void> {
    const viewer = this.viewer;
    const source = this.source;
    if (!viewer || !source) {
      return;
    }
    const revision = this.model.state().revision;
    this.el.setAttribute('data-molspace-ready', 'false');
    try {
      await viewer.show(source, this.model.view());
      this.lastUsedAt = performance.now();
      this.el.setAttribute('data-molspace-revision', String(revision));
      this.el.setAttribute('data-molspace-ready', String(revision === this.model.state().revision));
      this.model.markDrawn(this, revision, null);
    } catch (e) {
      this.model.markDrawn(this, revision, MolspaceError.from(e, `Viewer ${this.model.model_id}`));
    }
  }

  private park(): Promise<void> {
    if (!this.viewer) {
      return Promise.resolve();
    }
    return this.enqueue(async () => {
      const viewer = this.viewer;
      if (!viewer) {
        return;
      }
      let image = '';
      try {
        image = (await viewer.screenshot()).data;
      } catch {
        image = '';
      }
      viewer.dispose(true); // its WebGL context goes to the next viewer that starts
      this.viewer = null;
      this.els.canvas.querySelectorAll('.molspace-story-viewer').forEach(n => n.remove());
      this.model.forgetView(this);
      this.showParked(image);
    });
  }

  private restore(): Promise<void> {
    return this.enqueue(async () => {
      if (!this.viewer) {
        await this.start();
      }
    });
  }

  private showParked(image: string): void {
    this.clearParked();
    this.parked = true;
    this.el.setAttribute('data-molspace-parked', 'true');
    this.el.setAttribute('data-molspace-ready', 'false');
    const parked = document.createElement('button');
    parked.className = 'molspace-story-parked';
    parked.type = 'button';
    parked.title = 'Paused to save graphics memory — click to resume the 3D view';
    if (image) {
      const img = document.createElement('img');
      img.src = `data:image/png;base64,${image}`;
      img.alt = 'Snapshot of the paused 3D view';
      parked.append(img);
    }
    const hint = el('span', 'molspace-story-parked-hint');
    hint.textContent = 'Click to resume the 3D view';
    parked.append(hint);
    parked.addEventListener('click', () => {
      this.touched();
      void this.restore();
    });
    this.els.canvas.append(parked);
  }

  private clearParked(): void {
    this.parked = false;
    this.el.removeAttribute('data-molspace-parked');
    this.els.canvas.querySelectorAll(':scope > .molspace-story-parked').forEach(n => n.remove());
  }
}

function el(tag: string, className: string): HTMLElement {
  const e = document.createElement(tag);
  e.className = className;
  return e;
}
