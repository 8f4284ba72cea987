/**
 * The view of one Ketcher editor: a status line, the person's answer to a
 * save request, the located error, and the editor frame (its own document:
 * keys typed in it never reach JupyterLab's shortcuts, its CSS never reaches
 * JupyterLab). The frame area resizes vertically.
 */
import { DOMWidgetView } from '@jupyter-widgets/base';
import { hasSpareFrame, keepSpareFrame, releaseKetcherFrame, takeKetcherFrame, type KetcherFrame } from './ketcherFrameHost';
import type { KetcherModel } from './ketcherModel';

export class KetcherView extends DOMWidgetView {
  declare model: KetcherModel;
  private frame: KetcherFrame | null = null;
  private status: HTMLElement | null = null;
  private persist: HTMLElement | null = null;
  private errorNode: HTMLElement | null = null;
  private removed = false;

  render(): void {
    super.render();
    this.el.classList.add('molspace-ketcher');
    this.el.setAttribute('data-molspace-model', this.model.model_id);
    const bar = document.createElement('div');
    bar.className = 'molspace-ketcher-bar';
    this.status = document.createElement('span');
    this.status.className = 'molspace-ketcher-status';
    bar.append(this.status);
    this.persist = document.createElement('div');
    this.persist.className = 'molspace-ketcher-persist';
    this.errorNode = document.createElement('div');
    this.errorNode.className = 'molspace-ketcher-error';
    this.errorNode.setAttribute('role', 'alert');
    const body = document.createElement('div');
    body.className = 'molspace-ketcher-body';
    this.el.append(bar, this.persist, this.errorNode, body);
    const place = () => {
      if (this.removed || this.frame) {
        return;
      }
      const frame: KetcherFrame = takeKetcherFrame(body, snapshot => this.model.personDrew(frame, snapshot));
      this.frame = frame;
      this.model.attachFrame(frame);
      frame.node.addEventListener('focus', () => this.model.touch());
    };
    // The page's spare frame can only be moved here once this view is in the document.
    if (hasSpareFrame()) {
      void this.displayed.then(place);
    } else {
      place();
    }
    this.model.viewShown(this);
    this.el.addEventListener('pointerdown', () => this.model.touch(), true);
    this.listenTo(
      this.model,
      'change:summary change:error change:persist change:ready change:structure_revision change:interaction_revision',
      () => this.update()
    );
    this.listenTo(this.model, 'persist:waiting', () => this.showPersist());
    this.update();
  }

  update(): void {
    const state = this.model.state();
    this.el.dataset.molspaceReady = String(state.ready && state.error === null);
    const frame = this.frame;
    if (frame && state.ready) {
      // This editor has started (or failed): the next editor of this page takes a frame that is already loaded.
      void frame.ready.then(
        () => (state.error === null ? keepSpareFrame(frame) : releaseKetcherFrame(frame)),
        () => releaseKetcherFrame(frame)
      );
    }
    this.el.dataset.molspaceRevision = String(state.structureRevision);
    this.el.dataset.molspaceInteraction = String(state.interactionRevision);
    if (this.status) {
      this.status.textContent = `${state.title} · ${this.model.describe().replace(/^Ketcher editor: /, '')}`;
    }
    if (this.errorNode) {
      this.errorNode.textContent = state.error
        ? `${state.error.code} at ${state.error.where}: ${state.error.message} Fix: ${state.error.fix}`
        : '';
      this.errorNode.hidden = state.error === null;
    }
    this.showPersist();
  }

  remove(): void {
    this.removed = true;
    if (this.frame) {
      this.model.detachFrame(this.frame);
      releaseKetcherFrame(this.frame);
      this.frame.dispose();
      this.frame = null;
    }
    this.model.viewRemoved(this);
    super.remove();
  }

  /** The save question (text and two buttons), or the last answer. Agent strings are set as text. */
  private showPersist(): void {
    const node = this.persist;
    if (!node) {
      return;
    }
    const request = this.model.state().persist;
    node.replaceChildren();
    node.hidden = request === null;
    if (!request) {
      return;
    }
    node.dataset.status = request.status;
    // Test hook and a word to the person: an agent's call is waiting for this answer.
    const waiting = request.status === 'awaiting' && this.model.persistWaiters > 0;
    node.dataset.waiting = String(waiting);
    const text = document.createElement('span');
    text.textContent = waiting ? `${request.message} The agent is waiting for your answer.` : request.message;
    node.append(text);
    if (request.status === 'awaiting') {
      const save = document.createElement('button');
      save.className = 'jp-mod-styled jp-mod-accept molspace-ketcher-save';
      save.textContent = 'Save';
      save.addEventListener('click', () => void this.model.answerPersist(true));
      const refuse = document.createElement('button');
      refuse.className = 'jp-mod-styled jp-mod-reject molspace-ketcher-refuse';
      refuse.textContent = 'Refuse';
      refuse.addEventListener('click', () => void this.model.answerPersist(false));
      node.append(save, refuse);
    }
  }
}
