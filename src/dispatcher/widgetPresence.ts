/**
 * Whether a kernel-backed widget is in the page (docs/architecture.md,
 * "Invariants": targets). One per widget model, shared by every kind.
 *
 * A widget is in the page while one of its views is displayed. It leaves when
 * its last view is removed (its output cleared, its cell re-run, its notebook
 * closed) and comes back when displayed again; it leaves for good when its
 * comm closes or its kernel goes away (JupyterLab's widget manager does not
 * close the models of a restarted kernel, it only marks them disconnected:
 * `comm_live` false). A widget that left is retired in the registry: it
 * leaves `observe`, and calls naming it get STALE_TARGET saying why.
 */
import type { WidgetRegistry } from './registry';
import type { WidgetTarget } from './widgetTarget';

/** The part of an ipywidgets model the presence watches. */
export interface PresenceModel {
  readonly comm_live: boolean;
  on(event: string, callback: () => void): unknown;
  once(event: string, callback: () => void): unknown;
}

export const LEFT_NOT_DISPLAYED = 'it is displayed nowhere now (its output was cleared, its cell re-run or its notebook closed)';
export const LEFT_CLOSED = 'it was closed (its kernel restarted or shut down, or the widget was closed from its cell)';
export const LEFT_KERNEL = 'its kernel restarted or shut down; run its cell again';

export class WidgetPresence {
  private readonly _shown = new Set<unknown>();
  private _gone = false;

  /**
   * Register `target` and watch `model` until it leaves for good.
   *
   * @param onGone - called once when it leaves for good, with why (reject what waits on it).
   */
  constructor(
    private readonly _registry: WidgetRegistry,
    private readonly _target: WidgetTarget,
    model: PresenceModel,
    private readonly _onGone: (reason: string) => void
  ) {
    _registry.register(_target);
    let live = model.comm_live;
    model.on('comm_live_update', () => {
      if (live && !model.comm_live) {
        this.leave(LEFT_KERNEL);
      }
      live = model.comm_live;
    });
    model.once('destroy', () => this.leave(LEFT_CLOSED));
    model.on('comm:close', () => this.leave(LEFT_CLOSED));
  }

  /** True once the widget left for good. */
  get gone(): boolean {
    return this._gone;
  }

  /** A view was displayed: the widget is (again) in the page and the most recently displayed one. */
  shown(view: unknown): void {
    this._shown.add(view);
    if (this._gone) {
      return;
    }
    if (this._registry.find(this._target.targetId) === undefined) {
      this._registry.register(this._target);
    }
    this._registry.touch(this._target.targetId);
  }

  /** A view was removed; with none left the widget leaves the page until displayed again. */
  removed(view: unknown): void {
    this._shown.delete(view);
    if (this._shown.size === 0 && !this._gone) {
      this._registry.retire(this._target.targetId, LEFT_NOT_DISPLAYED);
    }
  }

  /** The widget leaves for good (idempotent). */
  leave(reason: string = LEFT_CLOSED): void {
    if (this._gone) {
      return;
    }
    this._gone = true;
    this._onGone(reason);
    this._registry.retire(this._target.targetId, reason);
  }
}
