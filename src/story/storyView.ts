/**
 * The Story widget view (ipywidgets `DOMWidgetView`): toolbar (Previous,
 * Play/Pause, Next), "step k of n", the step title and description, the Mol*
 * canvas and an error panel (docs/architecture.md).
 *
 * Buttons and keys never change state themselves: they call
 * `model.control(...)`, which routes through the Dispatcher; the view renders
 * whatever `index` the model holds and reports back with `model.markRendered`.
 * The error panel shows the model's `error`, the widget's one error state.
 * Mol* is imported lazily, so JupyterLab start loads no Mol* chunk. The live
 * viewer lives in a {@link MolstarCanvas} (queue, budget, parking, WebGL
 * context), shared with the Viewer view.
 *
 * Test hooks on the root (`.molspace-story`): `data-molspace-ready="true"`
 * once the current step rendered in a live viewer, `data-molspace-index` its
 * index, `data-molspace-drawn` the key of the step Mol* last reported a drawn
 * frame for (absent when a step was applied without a frame, e.g. in a hidden
 * page), `data-molspace-parked="true"` while parked (image shown, no WebGL),
 * `data-molspace-context-lost="true"` while the browser holds back its WebGL
 * context; buttons carry `data-action="previous|play|pause|next"`.
 *
 * A call that moves the Story while no view holds a live viewer (parked, or
 * never started because out of view) has one view draw it first
 * ({@link StoryDrawer}); a lost WebGL context is the widget's located error
 * (`ready` false) until the browser restores it, then the same step is drawn
 * again.
 */
import { DOMWidgetView } from '@jupyter-widgets/base';

import { MolspaceError } from '../contract/errors';
import type { DrawOutcome } from '../molstar/frameWait';
import type { ParsedStory } from '../molstar/storySource';
import { issueLines } from '../molstar/storyIssues';
import { showHiddenTab } from '../dockedTab';
import { showLocatedError } from '../widget/errorPanel';
import { MolstarCanvas } from '../widget/molstarCanvas';
import type { MolstarStoryViewer } from './molstarStoryViewer';
import { noFrameError } from './noFrame';
import { followDescriptionLinks } from './descriptionLinks';
import { descriptionImages } from './descriptionImages';
import { StoryDescription } from './storyDescription';
import type { StoryDrawer, StoryModel } from './storyModel';

type ButtonAction = 'previous' | 'play' | 'next';

export class StoryView extends DOMWidgetView implements StoryDrawer {
  declare model: StoryModel;
  private canvas!: MolstarCanvas<MolstarStoryViewer>;
  private story: ParsedStory | null = null;
  /** Why this view's viewer could not start: reported for every step it is asked to show. */
  private startFailure: MolspaceError | null = null;
  /** True while the current step is applied but Mol* drew no frame of it (hidden page, wait expired). */
  private awaitingFrame = false;
  private readonly description = new StoryDescription();
  private readonly visibilityListener = () => this.onVisibility();
  private unfollowLinks: (() => void) | null = null;

  private els!: {
    step: HTMLElement;
    title: HTMLElement;
    error: HTMLElement;
    buttons: Record<ButtonAction, HTMLButtonElement>;
  };

  render(): void {
    super.render();
    this.canvas = new MolstarCanvas<MolstarStoryViewer>({
      root: this.el,
      budget: this.model.services.viewerBudget,
      snapshot: viewer => viewer.screenshot(),
      restore: force => (this.story ? this.startViewer(force) : Promise.resolve()),
      parked: () => {
        this.setDrawn(null);
        this.setReady(false, this.model.state().index);
        this.model.forgetView(this);
      },
      contextLost: () => this.onContextLost(),
      contextRestored: viewer => this.onContextRestored(viewer),
      touched: () => this.touchModel()
    });
    this.buildDom();
    this.listenTo(this.model, 'change:index', () => this.onIndexChange());
    this.listenTo(this.model, 'change:playing', () => this.updateToolbar());
    this.listenTo(this.model, 'change:snapshots change:title', () => this.updateText());
    this.listenTo(this.model, 'change:error', () => this.updateError());
    this.listenTo(this.model, 'change:_mvsj change:_mvsx', () => this.canvas.enqueue(() => this.reload()));
    document.addEventListener('visibilitychange', this.visibilityListener);
    this.model.viewShown(this);

    this.updateText();
    this.updateError();
    this.canvas.enqueue(() => this.reload());
  }

  remove(): void {
    document.removeEventListener('visibilitychange', this.visibilityListener);
    this.canvas.dispose();
    this.unfollowLinks?.();
    this.description.dispose();
    this.model.viewRemoved(this);
    super.remove();
  }

  // ------------------------------------------------------------------- DOM

  private buildDom(): void {
    const root = this.el;
    root.classList.add('molspace-story');
    root.setAttribute('data-molspace-model', this.model.model_id);
    root.setAttribute('data-lm-suppress-shortcuts', 'true');
    root.setAttribute('data-molspace-ready', 'false');
    root.setAttribute('role', 'group');
    root.setAttribute('aria-label', 'MolViewSpec Story');

    const toolbar = el('div', 'molspace-story-toolbar');
    toolbar.setAttribute('role', 'toolbar');
    const button = (action: ButtonAction, label: string, text: string) => {
      const b = document.createElement('button');
      b.className = 'molspace-story-button jp-Button';
      b.type = 'button';
      b.dataset.action = action;
      b.title = label;
      b.setAttribute('aria-label', label);
      b.textContent = text;
      b.addEventListener('click', () => this.onButton(b.dataset.action === 'pause' ? 'pause' : action));
      return b;
    };
    const buttons = {
      previous: button('previous', 'Previous step (Left arrow)', '◀ Previous'),
      play: button('play', 'Play (Space)', '▶ Play'),
      next: button('next', 'Next step (Right arrow)', 'Next ▶')
    };
    const step = el('span', 'molspace-story-step');
    step.setAttribute('aria-live', 'polite');
    toolbar.append(buttons.previous, buttons.play, buttons.next, step);

    const title = el('div', 'molspace-story-title');
    const error = el('div', 'molspace-story-error');
    error.setAttribute('role', 'alert');
    error.hidden = true;
    const description = this.description.element;

    root.append(toolbar, title, error, this.canvas.element, description);
    this.els = { step, title, error, buttons };

    // `#key` links go to a step; MVS markdown commands (`!focus-refs=…`) act on the view, never navigate.
    this.unfollowLinks = followDescriptionLinks(description, {
      goto: key => {
        const index = this.model.snapshots().findIndex(s => s.key === key);
        if (index >= 0) {
          void this.model.control('goto', { index });
        }
        return index >= 0;
      },
      step: direction => void this.model.control(direction < 0 ? 'previous' : 'next'),
      commandArgs: href => this.canvas.viewer?.markdownArgs(href),
      runViewCommand: (event, args) => void this.canvas.viewer?.runViewCommand(event, args),
      touched: () => this.canvas.touched()
    });
    root.addEventListener('keydown', e => this.onKeyDown(e));
    root.addEventListener('pointerdown', () => this.canvas.touched(), true);
    root.addEventListener('focusin', () => this.canvas.touched());
  }

  private updateText(): void {
    const snapshots = this.model.snapshots();
    const n = snapshots.length;
    const index = this.model.state().index;
    const meta = snapshots[index];
    this.els.step.textContent = n > 0 ? `step ${index + 1} of ${n}` : 'no steps';
    this.els.title.textContent = meta?.title ?? '';
    this.els.title.hidden = !meta?.title;
    this.updateToolbar();
    const format = this.story?.data.snapshots[index]?.metadata?.description_format;
    const images = descriptionImages(this.story?.images);
    void this.description.render(meta?.description ?? '', format, this.model.rendermime, this.model.services.resourcePolicy, images);
  }

  private updateToolbar(): void {
    const { count: n, index, playing } = this.model.state();
    const { previous, play, next } = this.els.buttons;
    previous.disabled = n === 0 || index <= 0;
    next.disabled = n === 0 || index >= n - 1;
    play.disabled = n <= 1;
    play.dataset.action = playing ? 'pause' : 'play';
    play.textContent = playing ? '❚❚ Pause' : '▶ Play';
    play.title = playing ? 'Pause (Space)' : 'Play (Space)';
    play.setAttribute('aria-label', playing ? 'Pause' : 'Play');
    play.setAttribute('aria-pressed', String(playing));
  }

  private updateError(): void {
    const err = this.model.state().error;
    this.el.classList.toggle('molspace-story-has-error', err !== null);
    showLocatedError(this.els.error, err, err ? issueLines(err.details) : []);
  }

  private setReady(ready: boolean, index: number): void {
    this.el.setAttribute('data-molspace-ready', String(ready));
    this.el.setAttribute('data-molspace-index', String(index));
  }

  /** Record the key of the step Mol* last drew a frame for (null: none). */
  private setDrawn(key: string | null): void {
    if (key === null) {
      this.el.removeAttribute('data-molspace-drawn');
    } else {
      this.el.setAttribute('data-molspace-drawn', key);
    }
  }

  // ------------------------------------------------------------- interaction

  private touchModel(): void {
    try {
      this.model.touch();
    } catch {
      // the model may be closing
    }
  }

  private onButton(action: 'previous' | 'play' | 'pause' | 'next'): void {
    this.canvas.touched();
    void this.model.control(action);
  }

  private onKeyDown(e: KeyboardEvent): void {
    // Keep notebook shortcuts (a, b, dd, arrows...) from firing while the user works here.
    if (e.key !== 'Escape') {
      e.stopPropagation();
    }
    const target = e.target instanceof HTMLElement ? e.target : null;
    const onButton = target?.tagName === 'BUTTON';
    const editable = !!target?.closest('input, textarea, select, [contenteditable="true"]');
    if (editable || e.altKey || e.ctrlKey || e.metaKey) {
      return;
    }
    if (e.key === 'ArrowLeft') {
      e.preventDefault();
      this.onButton('previous');
    } else if (e.key === 'ArrowRight') {
      e.preventDefault();
      this.onButton('next');
    } else if ((e.key === ' ' || e.key === 'Spacebar') && !onButton) {
      e.preventDefault();
      this.onButton(this.model.state().playing ? 'pause' : 'play');
    }
  }

  // ---------------------------------------------------------------- viewer

  private onIndexChange(): void {
    this.updateText();
    const index = this.model.state().index;
    this.setReady(false, index);
    this.canvas.enqueue(() => this.showStep(index));
  }

  /** Parse the Story (again) and (re)load it into a live viewer. */
  private async reload(): Promise<void> {
    this.story = null;
    this.setReady(false, this.model.state().index);
    this.canvas.setPlaceholder('Loading Story…');
    try {
      this.story = await this.model.parsed();
    } catch {
      // The model has set its `error`; the panel shows it.
      this.canvas.setPlaceholder('The Story could not be loaded; see the error above.');
      this.updateError();
      return;
    }
    this.updateText();
    this.canvas.disposeViewer(true); // a new Story in this view: its viewer starts on the same context
    if (this.canvas.isParked && !this.canvas.visible) {
      return; // stays parked; restored when it comes into view
    }
    await this.startViewer();
  }

  /**
   * Create a viewer (within the budget), load the Story and show the current
   * step. Out of view it waits to come into view, unless `force` (a call
   * waits for the step to be drawn).
   */
  private async startViewer(force = false): Promise<void> {
    if (!this.story || this.canvas.removed) {
      return;
    }
    if (!force && !this.canvas.visible) {
      // Out of view: take no room in the budget (that would park a view someone sees).
      this.canvas.setPlaceholder(this.canvas.isParked ? null : 'Scroll here to start the 3D viewer');
      return;
    }
    const release = await this.canvas.reserve();
    try {
      await this.createViewer(release, force);
    } finally {
      release();
    }
  }

  private async createViewer(release: () => void, force: boolean): Promise<void> {
    const story = this.story;
    if (!story || this.canvas.removed || this.canvas.viewer) {
      return;
    }
    if (!force && !this.canvas.visible) {
      // Out of view while waiting for room: start when it comes into view (restore).
      this.canvas.setPlaceholder(this.canvas.isParked ? null : 'Scroll here to start the 3D viewer');
      return;
    }
    const index = this.model.state().index;
    this.canvas.setPlaceholder(this.canvas.isParked ? null : 'Starting 3D viewer…');
    let viewer: MolstarStoryViewer | null;
    try {
      const { MolstarStoryViewer } = await import('./molstarStoryViewer');
      viewer = await this.canvas.start((host, dark) =>
        MolstarStoryViewer.create(host, { dark, policy: this.model.services.resourcePolicy })
      );
    } catch (e) {
      this.fail(index, MolspaceError.from(e, 'Story viewer'));
      this.canvas.setPlaceholder('The 3D viewer could not start; see the error above.');
      return;
    }
    if (!viewer) {
      return; // removed meanwhile
    }
    release(); // live now: counted by the budget as such
    // The parked image stays over the starting viewer until it has drawn the step.
    this.canvas.setPlaceholder(null);
    try {
      this.rendered(index, null, await viewer.load(story, index));
    } catch (e) {
      this.rendered(index, MolspaceError.from(e, `Story step ${index}`), 'failed');
    } finally {
      this.canvas.dropParkedImage();
    }
    // The model may have moved on while loading.
    const now = this.model.state().index;
    if (now !== index && viewer.loaded) {
      await this.showStep(now);
    }
  }

  /** Apply step `index` in the live viewer (or note it for a parked one). */
  private async showStep(index: number): Promise<void> {
    const viewer = this.canvas.viewer;
    if (!viewer || !viewer.loaded) {
      if (!viewer && this.startFailure && !this.canvas.isParked) {
        // The viewer could not start: report that instead of leaving the step pending.
        this.model.markRendered(this, index, this.startFailure);
      }
      return; // parked or not started: a restore shows the current step
    }
    if (this.canvas.contextLost) {
      // Mol* draws nothing without its context: report that, never a step as drawn.
      this.setReady(false, index);
      this.model.markRendered(this, index, this.contextLostError(index));
      this.updateError();
      return;
    }
    if (viewer.currentIndex === index && this.el.getAttribute('data-molspace-ready') === 'true') {
      this.rendered(index, null, null);
      return;
    }
    await this.draw(index, () => viewer.applySnapshot(index));
  }

  /** Draw step `index` with `apply` and report it, drawn or failed. */
  private async draw(index: number, apply: () => Promise<DrawOutcome>): Promise<void> {
    try {
      this.rendered(index, null, await apply());
    } catch (e) {
      this.rendered(index, MolspaceError.from(e, `Story step ${index}`), 'failed');
    }
  }

  /**
   * The live viewer applied step `index` (or failed to).
   *
   * @param drawn - what Mol* reported of a frame for it; null when the step was already shown.
   */
  private rendered(index: number, error: MolspaceError | null, drawn: DrawOutcome | 'failed' | null): void {
    if (this.canvas.removed) {
      return;
    }
    this.canvas.used();
    this.startFailure = null;
    const key = this.model.snapshots()[index]?.key ?? '';
    if (drawn !== null) {
      this.setDrawn(drawn === 'drawn' ? key : null);
    }
    // Applied without a frame (hidden page, the wait expired): not ready, and said so.
    const failure = error ?? (drawn === null || drawn === 'failed' ? null : noFrameError(this.model.model_id, index, key, drawn));
    this.awaitingFrame = error === null && failure !== null;
    this.setReady(failure === null && index === this.model.state().index, index);
    this.model.markRendered(this, index, failure);
    this.updateError();
  }

  /** The page is shown again: draw the step that was applied without a frame. */
  private onVisibility(): void {
    if (document.visibilityState !== 'visible' || !this.awaitingFrame) {
      return;
    }
    void this.canvas.enqueue(async () => {
      const viewer = this.canvas.viewer;
      if (!this.awaitingFrame || !viewer || !viewer.loaded || this.canvas.contextLost) {
        return;
      }
      const index = this.model.state().index;
      await this.draw(index, () => viewer.redraw(index));
    });
  }

  private fail(index: number, error: MolspaceError): void {
    this.startFailure = error;
    this.setReady(false, index);
    this.model.markRendered(this, index, error);
    this.updateError();
  }

  // ------------------------------------------------------------ StoryDrawer

  /** In the document with a box (JupyterLab's `full` windowing detaches cells out of the window). */
  canDraw(): boolean {
    // A Story in a hidden main-area tab can draw: drawNow shows its tab.
    return this.canvas.canDraw(this.luminoWidget);
  }

  /** The model waits for a step and no view is live: start (or restore) the viewer, in view or not. */
  drawNow(): void {
    this.canvas.enqueue(async () => {
      showHiddenTab(this.luminoWidget);
      if (this.canvas.viewer) {
        await this.showStep(this.model.state().index);
      } else if (this.story) {
        await this.startViewer(true);
      }
    });
  }

  // ------------------------------------------------------------ WebGL context

  /** The browser took the context: say so where the view was, and `ready` is false. */
  private onContextLost(): void {
    const index = this.model.state().index;
    this.setDrawn(null);
    this.setReady(false, index);
    this.model.markRendered(this, index, this.contextLostError(index));
    this.updateError();
  }

  /** The located error of a lost context, for step `index`. */
  private contextLostError(index: number): MolspaceError {
    const key = this.model.snapshots()[index]?.key ?? '';
    return new MolspaceError(
      'INTERNAL',
      `Story ${this.model.model_id}: the 3D view lost its WebGL context (graphics driver reset, or too many 3D views in this browser); step ${index + 1} ("${key}") is not shown.`,
      this.model.model_id,
      'It redraws by itself when the browser restores the context; otherwise click "Restart the 3D view", or close other 3D views or browser tabs.',
      { target: this.model.model_id, index, key, reason: 'webgl-context-lost' }
    );
  }

  /** The browser gave the context back and Mol* rebuilt its resources: draw the current step again. */
  private onContextRestored(viewer: MolstarStoryViewer): void {
    void this.canvas.enqueue(async () => {
      if (viewer !== this.canvas.viewer) {
        return;
      }
      const index = this.model.state().index;
      await this.draw(index, () => viewer.redraw(index));
    });
  }
}

function el(tag: string, className: string): HTMLElement {
  const e = document.createElement(tag);
  e.className = className;
  return e;
}
