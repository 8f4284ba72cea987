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
 * viewer is parked (image + disposed WebGL context) by the page-wide
 * {@link ViewerBudget}.
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
import type { IRenderMime } from '@jupyterlab/rendermime';

import { MolspaceError } from '../contract/errors';
import type { MolstarStoryViewer } from './molstarStoryViewer';
import type { ViewerBudget, ViewerHandle } from '../molstar/viewerBudget';
import { policyRenderMime } from '../resources/resourceSanitizer';
import { guardWheel } from '../molstar/wheelGuard';
import type { DrawOutcome } from '../molstar/frameWait';
import { noFrameError } from './noFrame';
import { hiddenTabOf, showHiddenTab } from '../dockedTab';
import type { StoryDrawer, StoryModel } from './storyModel';
import type { ParsedStory } from '../molstar/storySource';

type ButtonAction = 'previous' | 'play' | 'next';

/** True when JupyterLab shows a dark theme (`data-jp-theme-light="false"` on body). */
function isDarkTheme(): boolean {
  return document.body.dataset.jpThemeLight === 'false';
}

export class StoryView extends DOMWidgetView implements StoryDrawer {
  declare model: StoryModel;
  private viewer: MolstarStoryViewer | null = null;
  private story: ParsedStory | null = null;
  /** Why this view's viewer could not start: reported for every step it is asked to show. */
  private startFailure: MolspaceError | null = null;
  private ops: Promise<void> = Promise.resolve();
  private removed = false;
  private parkedImage: string | null = null;
  private lastUsedAt = performance.now();
  private unregister: (() => void) | null = null;
  private resizeObserver: ResizeObserver | null = null;
  private themeObserver: MutationObserver | null = null;
  private unguardWheel: (() => void) | null = null;
  private markdown: IRenderMime.IRenderer | null = null;
  private descriptionSeq = 0;
  private handle: ViewerHandle | null = null;
  /** True while the browser holds back the live viewer's WebGL context. */
  private lostContext = false;
  /** True while the current step is applied but Mol* drew no frame of it (hidden page, wait expired). */
  private awaitingFrame = false;
  private readonly visibilityListener = () => this.onVisibility();
  private unfollowContext: (() => void) | null = null;

  private els!: {
    step: HTMLElement;
    title: HTMLElement;
    description: HTMLElement;
    canvas: HTMLElement;
    error: HTMLElement;
    buttons: Record<ButtonAction, HTMLButtonElement>;
  };

  private get budget(): ViewerBudget {
    return this.model.services.viewerBudget;
  }

  render(): void {
    super.render();
    this.buildDom();
    this.listenTo(this.model, 'change:index', () => this.onIndexChange());
    this.listenTo(this.model, 'change:playing', () => this.updateToolbar());
    this.listenTo(this.model, 'change:snapshots change:title', () => this.updateText());
    this.listenTo(this.model, 'change:error', () => this.updateError());
    this.listenTo(this.model, 'change:_mvsj change:_mvsx', () => this.enqueue(() => this.reload()));

    // JupyterLab's `full` windowing takes cells out of the DOM (size 0): keep the canvas as it
    // is then (resizing it clears the drawn frame), so that it shows the step again at once.
    let size = '';
    this.resizeObserver = new ResizeObserver(entries => {
      const box = entries[entries.length - 1]?.contentRect;
      const next = box && box.width > 0 && box.height > 0 ? `${box.width}x${box.height}` : '';
      if (next !== '' && next !== size) {
        size = next;
        this.viewer?.resize();
      }
    });
    this.resizeObserver.observe(this.els.canvas);
    this.themeObserver = new MutationObserver(() => this.viewer?.setDark(isDarkTheme()));
    this.themeObserver.observe(document.body, { attributes: true, attributeFilter: ['data-jp-theme-light'] });

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
    document.addEventListener('visibilitychange', this.visibilityListener);
    this.model.viewShown(this);

    this.updateText();
    this.updateError();
    this.enqueue(() => this.reload());
  }

  remove(): void {
    this.removed = true;
    document.removeEventListener('visibilitychange', this.visibilityListener);
    this.unregister?.();
    this.unregister = null;
    this.resizeObserver?.disconnect();
    this.themeObserver?.disconnect();
    this.unguardWheel?.();
    this.unguardWheel = null;
    this.markdown?.dispose();
    this.markdown = null;
    this.disposeViewer();
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
      const b = button_('molspace-story-button jp-Button');
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
    const canvas = el('div', 'molspace-story-canvas');
    const wheelHint = el('div', 'molspace-wheel-hint');
    wheelHint.textContent = 'Click the view, then use the wheel to zoom';
    wheelHint.setAttribute('aria-hidden', 'true');
    canvas.append(wheelHint);
    this.unguardWheel = guardWheel(canvas, wheelHint);
    const description = el('div', 'molspace-story-description');

    root.append(toolbar, title, error, canvas, description);
    this.els = { step, title, description, canvas, error, buttons };

    // Story descriptions link to other steps by key, e.g. "[Go to start](#intro)" (MVS Stories convention).
    description.addEventListener('click', e => this.onDescriptionLink(e));
    root.addEventListener('keydown', e => this.onKeyDown(e));
    root.addEventListener('pointerdown', () => this.touched(), true);
    root.addEventListener('focusin', () => this.touched());
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
    void this.renderDescription(meta?.description ?? '', index);
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

  /** Render markdown with JupyterLab's sanitizing renderer; plain text otherwise. */
  private async renderDescription(text: string, index: number): Promise<void> {
    const seq = ++this.descriptionSeq;
    const target = this.els.description;
    const format = this.story?.data.snapshots[index]?.metadata?.description_format;
    const page = this.model.rendermime;
    const rendermime = page && policyRenderMime(page, this.model.services.resourcePolicy);
    this.markdown?.dispose();
    this.markdown = null;
    target.hidden = text === '';
    if (!text || !rendermime || format === 'plaintext') {
      target.textContent = text;
      return;
    }
    try {
      const renderer = rendermime.createRenderer('text/markdown');
      await renderer.renderModel(rendermime.createModel({ data: { 'text/markdown': text }, trusted: false }));
      if (seq !== this.descriptionSeq || this.removed) {
        renderer.dispose();
        return;
      }
      this.markdown = renderer;
      target.replaceChildren(renderer.node);
    } catch {
      if (seq === this.descriptionSeq) {
        target.textContent = text;
      }
    }
  }

  private updateError(): void {
    const err = this.model.state().error;
    const panel = this.els.error;
    panel.replaceChildren();
    panel.hidden = err === null;
    this.el.classList.toggle('molspace-story-has-error', err !== null);
    if (!err) {
      return;
    }
    const message = el('div', 'molspace-story-error-message');
    const code = el('strong', 'molspace-story-error-code');
    code.textContent = err.code;
    message.append(code, document.createTextNode(` ${err.message}`));
    panel.append(message);
    if (err.where) {
      const where = el('div', 'molspace-story-error-where');
      where.textContent = `Where: ${err.where}`;
      panel.append(where);
    }
    if (err.fix) {
      const fix = el('div', 'molspace-story-error-fix');
      fix.textContent = `Fix: ${err.fix}`;
      panel.append(fix);
    }
    const issues = storyIssuesOf(err.details);
    if (issues.length > 1) {
      const list = el('ul', 'molspace-story-error-issues');
      for (const issue of issues.slice(0, 20)) {
        const li = el('li', '');
        const at = issue.snapshotIndex === null ? '' : `snapshot ${issue.snapshotIndex}${issue.key ? ` ("${issue.key}")` : ''} `;
        li.textContent = `${at}${issue.path ? issue.path + ': ' : ''}${issue.message}`;
        list.append(li);
      }
      if (issues.length > 20) {
        const li = el('li', '');
        li.textContent = `… and ${issues.length - 20} more`;
        list.append(li);
      }
      panel.append(list);
    }
  }

  private setReady(ready: boolean, index: number): void {
    this.el.setAttribute('data-molspace-ready', String(ready));
    this.el.setAttribute('data-molspace-index', String(index));
  }

  /** Show a placeholder in the canvas area (never a blank canvas). */
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

  // ------------------------------------------------------------- interaction

  private touched(): void {
    this.lastUsedAt = performance.now();
    try {
      this.model.touch();
    } catch {
      // the model may be closing
    }
  }

  private onButton(action: 'previous' | 'play' | 'pause' | 'next'): void {
    this.touched();
    void this.model.control(action);
  }

  /** A click on a `#key` link in a description goes to that step through the Dispatcher. */
  private onDescriptionLink(e: MouseEvent): void {
    const link = e.target instanceof Element ? e.target.closest('a') : null;
    const href = link?.getAttribute('href') ?? '';
    if (!href.startsWith('#')) {
      return;
    }
    const key = decodeURIComponent(href.slice(1));
    const index = this.model.snapshots().findIndex(s => s.key === key);
    if (index >= 0) {
      e.preventDefault();
      e.stopPropagation();
      this.touched();
      void this.model.control('goto', { index });
    }
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

  /** Run viewer operations one at a time, in order. */
  private enqueue(op: () => Promise<void>): Promise<void> {
    const run = async () => {
      if (!this.removed) {
        await op();
      }
    };
    this.ops = this.ops.then(run, run);
    return this.ops;
  }

  private onIndexChange(): void {
    this.updateText();
    const index = this.model.state().index;
    this.setReady(false, index);
    this.enqueue(() => this.showStep(index));
  }

  /** Parse the Story (again) and (re)load it into a live viewer. */
  private async reload(): Promise<void> {
    this.story = null;
    this.setReady(false, this.model.state().index);
    this.setPlaceholder('Loading Story…');
    try {
      this.story = await this.model.parsed();
    } catch {
      // The model has set its `error`; the panel shows it.
      this.setPlaceholder('The Story could not be loaded; see the error above.');
      this.updateError();
      return;
    }
    this.updateText();
    this.disposeViewer(true); // a new Story in this view: its viewer starts on the same context
    if (this.parkedImage !== null && !this.budget.isVisible(this.handle!)) {
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
    const story = this.story;
    if (!story || this.removed) {
      return;
    }
    const index = this.model.state().index;
    if (!force && !this.budget.isVisible(this.handle!)) {
      // Out of view: take no room in the budget (that would park a view someone sees).
      this.setPlaceholder(this.parkedImage === null ? 'Scroll here to start the 3D viewer' : null);
      return;
    }
    const release = await this.budget.reserve(this.handle!);
    try {
      await this.createViewer(story, index, release, force);
    } finally {
      release();
    }
  }

  private async createViewer(story: ParsedStory, index: number, release: () => void, force: boolean): Promise<void> {
    if (this.removed || this.viewer) {
      return;
    }
    if (!force && !this.budget.isVisible(this.handle!)) {
      // Out of view while waiting for room: start when it comes into view (restore).
      this.setPlaceholder(this.parkedImage === null ? 'Scroll here to start the 3D viewer' : null);
      return;
    }
    this.setPlaceholder(this.parkedImage === null ? 'Starting 3D viewer…' : null);
    let viewer: MolstarStoryViewer;
    try {
      const { MolstarStoryViewer } = await import('./molstarStoryViewer');
      const host = el('div', 'molspace-story-viewer');
      this.els.canvas.append(host);
      try {
        viewer = await MolstarStoryViewer.create(host, { dark: isDarkTheme(), policy: this.model.services.resourcePolicy });
      } catch (e) {
        host.remove();
        throw e;
      }
    } catch (e) {
      this.fail(index, MolspaceError.from(e, 'Story viewer'));
      this.setPlaceholder('The 3D viewer could not start; see the error above.');
      return;
    }
    if (this.removed) {
      viewer.dispose();
      return;
    }
    this.viewer = viewer;
    this.unfollowContext = viewer.onContext({
      lost: () => this.onContextLost(viewer),
      restored: () => this.onContextRestored(viewer)
    });
    release(); // live now: counted by the budget as such
    // The parked image stays over the starting viewer until it has drawn the step.
    const image = this.els.canvas.querySelector(':scope > .molspace-story-parked');
    this.clearParked(false);
    this.setPlaceholder(null);
    try {
      this.rendered(index, null, await viewer.load(story, index));
    } catch (e) {
      this.rendered(index, MolspaceError.from(e, `Story step ${index}`), 'failed');
    } finally {
      image?.remove();
    }
    // The model may have moved on while loading.
    const now = this.model.state().index;
    if (now !== index && viewer.loaded) {
      await this.showStep(now);
    }
  }

  /** Apply step `index` in the live viewer (or note it for a parked one). */
  private async showStep(index: number): Promise<void> {
    const viewer = this.viewer;
    if (!viewer || !viewer.loaded) {
      if (!viewer && this.startFailure && this.parkedImage === null) {
        // The viewer could not start: report that instead of leaving the step pending.
        this.model.markRendered(this, index, this.startFailure);
      }
      return; // parked or not started: a restore shows the current step
    }
    if (this.lostContext) {
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
    try {
      this.rendered(index, null, await viewer.applySnapshot(index));
    } catch (e) {
      this.rendered(index, MolspaceError.from(e, `Story step ${index}`), 'failed');
    }
  }

  /**
   * The live viewer applied step `index` (or failed to).
   *
   * @param drawn - true when Mol* reported a frame drawn for it, false when
   *   not, null when the step was already shown.
   */
  private rendered(index: number, error: MolspaceError | null, drawn: DrawOutcome | 'failed' | null): void {
    if (this.removed) {
      return;
    }
    this.lastUsedAt = performance.now();
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
    void this.enqueue(async () => {
      const viewer = this.viewer;
      if (!this.awaitingFrame || !viewer || !viewer.loaded || this.lostContext) {
        return;
      }
      const index = this.model.state().index;
      try {
        this.rendered(index, null, await viewer.redraw(index));
      } catch (e) {
        this.rendered(index, MolspaceError.from(e, `Story step ${index}`), 'failed');
      }
    });
  }

  private fail(index: number, error: MolspaceError): void {
    this.startFailure = error;
    this.setReady(false, index);
    this.model.markRendered(this, index, error);
    this.updateError();
  }

  /** Record the key of the step Mol* last drew a frame for (null: none). */
  private setDrawn(key: string | null): void {
    if (key === null) {
      this.el.removeAttribute('data-molspace-drawn');
    } else {
      this.el.setAttribute('data-molspace-drawn', key);
    }
  }

  /** Budget: replace the live viewer by its image and free the WebGL context. */
  private park(): Promise<void> {
    if (!this.viewer) {
      // Nothing live (starting, failed or parked): never wait on the op queue here.
      return Promise.resolve();
    }
    return this.enqueue(async () => {
      const viewer = this.viewer;
      if (!viewer) {
        return;
      }
      let image = '';
      try {
        // A lost context has nothing to read back: the image would be blank.
        image = this.lostContext ? '' : await viewer.screenshot();
      } catch {
        image = '';
      }
      this.disposeViewer(true); // its WebGL context (shaders linked) goes to the next viewer that starts
      this.els.canvas.querySelectorAll('.molspace-story-viewer').forEach(n => n.remove());
      this.setDrawn(null);
      this.showParked(image);
      this.model.forgetView(this);
    });
  }

  /** Budget: re-create the viewer and show the current step. */
  private restore(): Promise<void> {
    return this.enqueue(async () => {
      if (this.viewer || !this.story) {
        return;
      }
      await this.startViewer();
    });
  }

  // ------------------------------------------------------------ StoryDrawer

  /** In the document with a box (JupyterLab's `full` windowing detaches cells out of the window). */
  canDraw(): boolean {
    // A Story in a hidden main-area tab can draw: drawNow shows its tab.
    return !this.removed && this.el.isConnected && (this.el.getClientRects().length > 0 || hiddenTabOf(this.luminoWidget) !== null);
  }

  /** The model waits for a step and no view is live: start (or restore) the viewer, in view or not. */
  drawNow(): void {
    this.enqueue(async () => {
      showHiddenTab(this.luminoWidget);
      const index = this.model.state().index;
      if (this.viewer) {
        await this.showStep(index);
      } else if (this.story) {
        await this.startViewer(true);
      }
    });
  }

  // ------------------------------------------------------------ WebGL context

  /** The browser took the context: say so where the view was, and `ready` is false. */
  private onContextLost(viewer: MolstarStoryViewer): void {
    if (viewer !== this.viewer || this.removed) {
      return;
    }
    const index = this.model.state().index;
    this.lostContext = true;
    this.el.setAttribute('data-molspace-context-lost', 'true');
    this.setDrawn(null);
    this.setReady(false, index);
    this.showRestart();
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
    if (viewer !== this.viewer || this.removed) {
      return;
    }
    this.clearLost();
    void this.enqueue(async () => {
      if (viewer !== this.viewer) {
        return;
      }
      const index = this.model.state().index;
      try {
        this.rendered(index, null, await viewer.redraw(index));
      } catch (e) {
        this.rendered(index, MolspaceError.from(e, `Story step ${index}`), 'failed');
      }
    });
  }

  /** A button over the lost view: a new viewer (a new context) at the current step. */
  private showRestart(): void {
    this.els.canvas.querySelectorAll(':scope > .molspace-story-restart').forEach(n => n.remove());
    const restart = button_('molspace-story-restart jp-Button');
    restart.type = 'button';
    restart.textContent = 'Restart the 3D view';
    restart.addEventListener('click', () => {
      this.touched();
      void this.enqueue(async () => {
        if (!this.lostContext) {
          return;
        }
        this.disposeViewer();
        this.els.canvas.querySelectorAll('.molspace-story-viewer').forEach(n => n.remove());
        await this.startViewer(true);
      });
    });
    this.els.canvas.append(restart);
  }

  private clearLost(): void {
    this.lostContext = false;
    this.el.removeAttribute('data-molspace-context-lost');
    this.els.canvas.querySelectorAll(':scope > .molspace-story-restart').forEach(n => n.remove());
  }

  /**
   * Dispose the live viewer (if any) and stop following its context; with
   * `keepContext` (parked) the WebGL context is kept for the next viewer.
   */
  private disposeViewer(keepContext = false): void {
    this.unfollowContext?.();
    this.unfollowContext = null;
    this.viewer?.dispose(keepContext && !this.lostContext);
    this.viewer = null;
    this.clearLost();
  }

  private showParked(image: string): void {
    this.clearParked();
    this.parkedImage = image;
    // No live render while parked: tests and agents wait for a restore.
    this.setReady(false, this.model.state().index);
    this.el.setAttribute('data-molspace-parked', 'true');
    const parked = button_('molspace-story-parked');
    parked.type = 'button';
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
      void this.restore();
    });
    this.els.canvas.append(parked);
  }

  /** No longer parked; `removeImage` false leaves the image shown (the caller removes it). */
  private clearParked(removeImage = true): void {
    this.parkedImage = null;
    this.el.removeAttribute('data-molspace-parked');
    if (removeImage) {
      this.els.canvas.querySelectorAll(':scope > .molspace-story-parked').forEach(n => n.remove());
    }
  }
}

/** One issue of a `VALIDATION_FAILED` error's `details.issues`, as the panel lists it. */
interface StoryIssueLine {
  snapshotIndex: number | null;
  key: string | null;
  path: string;
  message: string;
}

/** The validation issues in an error's details (see `StoryIssue` in storySource.ts), or []. */
function storyIssuesOf(details: Record<string, unknown>): StoryIssueLine[] {
  const issues = details?.issues;
  if (!Array.isArray(issues)) {
    return [];
  }
  const lines: StoryIssueLine[] = [];
  for (const i of issues) {
    if (typeof i === 'object' && i !== null) {
      const field = (name: string): unknown => (name in i ? Reflect.get(i, name) : undefined);
      const index = field('snapshotIndex');
      const key = field('key');
      const path = field('path');
      const message = field('message');
      lines.push({
        snapshotIndex: typeof index === 'number' ? index : null,
        key: typeof key === 'string' ? key : null,
        path: typeof path === 'string' ? path : '',
        message: typeof message === 'string' ? message : String(message)
      });
    }
  }
  return lines;
}

function button_(className: string): HTMLButtonElement {
  const b = document.createElement('button');
  b.className = className;
  return b;
}

function el(tag: string, className: string): HTMLElement {
  const e = document.createElement(tag);
  if (className) {
    e.className = className;
  }
  return e;
}
