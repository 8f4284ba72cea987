/**
 * The structure Viewer widget view (ipywidgets `DOMWidgetView`): a one-line
 * summary, an error panel, and the Mol* canvas (docs/architecture.md, "Viewer").
 * The view never changes state: it draws the model's `view` and reports each
 * revision drawn with `model.markDrawn`. The live viewer lives in a
 * {@link MolstarCanvas} (queue, budget, parking, WebGL context), shared with
 * the Story view; a bad structure shows its located error, never a blank
 * canvas.
 *
 * Test hooks on the root (`.molspace-viewer`): `data-molspace-model`,
 * `data-molspace-ready="true"` once the current revision is drawn,
 * `data-molspace-revision` the revision last drawn, `data-molspace-parked`.
 */
import { DOMWidgetView } from '@jupyter-widgets/base';

import { MolspaceError } from '../contract/errors';
import { showHiddenTab } from '../dockedTab';
import { showLocatedError } from '../widget/errorPanel';
import { MolstarCanvas } from '../widget/molstarCanvas';
import type { MolstarStructureViewer, ViewerSource } from './molstarStructureViewer';
import type { ShotOptions } from './screenshot';
import type { LiveViewerView, ViewerDrawer, ViewerModel } from './viewerModel';
import { FramePlayer } from './framePlayer';

export class ViewerView extends DOMWidgetView implements LiveViewerView, ViewerDrawer {
  declare model: ViewerModel;
  private canvas!: MolstarCanvas<MolstarStructureViewer>;
  private source: ViewerSource | null = null;
  private els!: { summary: HTMLElement; error: HTMLElement; undo: HTMLButtonElement; redo: HTMLButtonElement };
  private player!: FramePlayer;

  render(): void {
    super.render();
    const root = this.el;
    root.classList.add('molspace-viewer');
    root.setAttribute('data-molspace-model', this.model.model_id);
    root.setAttribute('data-molspace-ready', 'false');
    root.setAttribute('data-lm-suppress-shortcuts', 'true');
    root.setAttribute('role', 'group');
    root.setAttribute('aria-label', 'Molecular structure viewer');
    this.canvas = new MolstarCanvas<MolstarStructureViewer>({
      root,
      budget: this.model.services.viewerBudget,
      className: 'molspace-viewer-canvas',
      snapshot: async viewer => {
        const shot = await viewer.screenshot();
        return `data:${shot.mimeType};base64,${shot.data}`;
      },
      restore: force => this.start(force),
      parked: () => this.model.forgetView(this),
      touched: () => {
        try {
          this.model.touch();
        } catch {
          // closing
        }
      }
    });
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
        this.canvas.touched();
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
    this.player = new FramePlayer(action => {
      this.canvas.touched();
      return this.model.control(action);
    });
    root.append(toolbar, this.player.element, error, this.canvas.element);
    this.els = { summary, error, undo, redo };
    root.addEventListener('pointerdown', () => this.canvas.touched(), true);
    root.addEventListener('keydown', e => {
      if (e.key !== 'Escape') {
        e.stopPropagation();
      }
    });

    this.listenTo(this.model, 'change:summary change:undo_steps change:redo_steps change:undo_label change:redo_label', () =>
      this.updateText()
    );
    this.listenTo(this.model, 'change:error', () => this.updateError());
    this.listenTo(this.model, 'change:view change:composition', () =>
      this.player.update(this.model.composition()?.trajectory ?? null, this.model.view())
    );
    this.player.update(this.model.composition()?.trajectory ?? null, this.model.view());
    this.listenTo(this.model, 'change:view', () => this.canvas.enqueue(() => this.draw()));
    this.model.viewShown(this);
    this.updateText();
    this.updateError();
    this.canvas.enqueue(() => this.start());
  }

  remove(): void {
    this.canvas.dispose();
    this.model.viewRemoved(this);
    super.remove();
  }

  // -------------------------------------------------------------- LiveViewerView
  camera(): ReturnType<LiveViewerView['camera']> {
    return this.canvas.viewer?.camera() ?? null;
  }

  screenshot(size: ShotOptions): ReturnType<LiveViewerView['screenshot']> {
    const viewer = this.canvas.viewer;
    if (!viewer) {
      return Promise.reject(
        new MolspaceError('STALE_TARGET', 'This Viewer view holds no live 3D viewer.', '/actions', 'Scroll the Viewer into view and retry.')
      );
    }
    return viewer.screenshot(size);
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
    this.el.classList.toggle('molspace-viewer-has-error', err !== null);
    showLocatedError(this.els.error, err);
    if (err) {
      this.canvas.setPlaceholder('The structure could not be shown; see the error above.');
    }
  }

  // ------------------------------------------------------------ ViewerDrawer

  /** In the document (a hidden main-area tab counts: {@link drawNow} shows it). */
  canDraw(): boolean {
    return this.canvas.canDraw(this.luminoWidget);
  }

  /** The model needs a live viewer (a screenshot): show a hidden tab holding it, start out of view, draw. */
  drawNow(): Promise<void> {
    return this.canvas.enqueue(async () => {
      if (this.canvas.viewer) {
        return;
      }
      showHiddenTab(this.luminoWidget);
      await this.start(true);
    });
  }

  // ---------------------------------------------------------------- viewer

  /** Read the structure, then start a live viewer within the budget (`force`: even out of view). */
  private async start(force = false): Promise<void> {
    if (this.canvas.viewer) {
      return;
    }
    this.canvas.setPlaceholder('Loading structure…');
    let data;
    try {
      data = await this.model.structureData();
    } catch {
      this.updateError();
      return; // the model holds the located error; the panel shows it
    }
    this.source = {
      bytes: this.model.bytes(),
      format: data.format,
      models: data.composition.shownModels,
      coordinates: data.coordinates,
      frames: data.composition.trajectory !== null && data.coordinates === null
    };
    const release = await this.canvas.reserve();
    try {
      if (this.canvas.removed || this.canvas.viewer) {
        return;
      }
      if (!force && !this.canvas.visible) {
        this.canvas.setPlaceholder(this.canvas.isParked ? null : 'Scroll here to start the 3D viewer');
        return;
      }
      this.canvas.setPlaceholder(this.canvas.isParked ? null : 'Starting 3D viewer…');
      const { MolstarStructureViewer } = await import('./molstarStructureViewer');
      try {
        if (
          !(await this.canvas.start((host, dark) => MolstarStructureViewer.create(host, { dark, policy: this.model.resourcePolicy() })))
        ) {
          return; // removed meanwhile
        }
      } catch (e) {
        this.model.markDrawn(this, this.model.state().revision, MolspaceError.from(e, 'Viewer'));
        this.canvas.setPlaceholder('The 3D viewer could not start; see the error above.');
        return;
      }
    } finally {
      release();
    }
    this.canvas.dropParkedImage();
    this.canvas.setPlaceholder(null);
    await this.draw();
  }

  /** Draw the model's current view in the live viewer and report it. */
  private async draw(): Promise<void> {
    const viewer = this.canvas.viewer;
    const source = this.source;
    if (!viewer || !source) {
      return;
    }
    const revision = this.model.state().revision;
    this.el.setAttribute('data-molspace-ready', 'false');
    try {
      await viewer.show(source, this.model.view());
      this.canvas.used();
      this.el.setAttribute('data-molspace-revision', String(revision));
      this.el.setAttribute('data-molspace-ready', String(revision === this.model.state().revision));
      this.model.markDrawn(this, revision, null);
    } catch (e) {
      this.model.markDrawn(this, revision, MolspaceError.from(e, `Viewer ${this.model.model_id}`));
    }
  }
}

function el(tag: string, className: string): HTMLElement {
  const e = document.createElement(tag);
  e.className = className;
  return e;
}
