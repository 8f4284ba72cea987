/**
 * What every page widget model shares (docs/architecture.md, "Page widget
 * models"): its synced state's defaults from the contract (`WIDGETS`), its
 * kernel channel (the kernel's `control` messages run through the page's
 * Dispatcher), its presence in the page's registry, the located `error`
 * attribute, and the one way its state is sent to the kernel.
 *
 * A widget kind subclasses {@link PageWidgetModel}: it names its `kind`,
 * `label` and kernel tools, sets its own fields in {@link PageWidgetModel.setUp}
 * (Backbone runs `initialize` from its constructor, before class fields), and
 * fails what waits in {@link PageWidgetModel.left}. {@link boundModelClass}
 * binds a subclass to one page's services for the widget manager.
 */
import { DOMWidgetModel, type IBackboneModelOptions, type ISerializers, unpack_models } from '@jupyter-widgets/base';
import type * as Backbone from 'backbone';
import { LocatedError, WIDGETS, syncedDefaults, type WidgetKind } from '../contract';
import { WidgetPresence } from '../dispatcher/widgetPresence';
import type { WidgetState, WidgetTarget } from '../dispatcher/widgetTarget';
import { APPLIED_ACTIONS_ATTR, APPLIED_ACTIONS_MEMORY, AppliedRequests } from '../kernel/appliedRequests';
import { saveCurrentState, unsavedKeys } from '../kernel/currentState';
import { KernelChannel, listenToKernel } from '../kernel/kernelChannel';
import { toJSONValue } from '../kernel/json';
import type { IMolspacePage } from '../tokens';
import { MODULE_NAME, MODULE_VERSION } from '../version';
import { notebookPathOf } from '../widgetManager';

/**
 * The most a call's answer waits for its change to leave for the kernel (ms): a kernel
 * that holds page messages behind a running cell (one without subshells) must not hold
 * every agent's answer until the cell ends.
 */
export const SENT_WAIT_MS = 2_000;

/**
 * Attributes that only say whether this page has drawn the state (a reloaded page draws again and
 * sets them itself): a save of these alone holds no answer ({@link PageWidgetModel.whenSent}).
 */
export const DRAW_STATUS_ATTRS: ReadonlySet<string> = new Set(['ready']);

/** The tools a widget's kernel channel runs: `tool` by default, the others when a message names them. */
export interface KernelTools {
  tool: string;
  tools?: readonly string[];
}

export abstract class PageWidgetModel extends DOMWidgetModel implements WidgetTarget {
  static serializers: ISerializers = { ...DOMWidgetModel.serializers, layout: { deserialize: unpack_models } };

  declare private _kernel: KernelChannel;
  /** Whether the widget is in the page (its displayed views, its comm); see `WidgetPresence`. */
  declare private _presence: WidgetPresence;
  declare private _disposed: boolean;
  /** Agents' calls applied to this widget by any page (see `WidgetTarget.appliedActions`). */
  declare readonly appliedActions: AppliedRequests;
  /** How many times the state was saved, and how many of those saves have left for the kernel. */
  declare private _saves: number;
  /** The last save that carried a change (more than {@link DRAW_STATUS_ATTRS}). */
  declare private _changeSaves: number;
  declare private _sentSaves: number;
  /** Who waits for saves up to `upTo` to leave (see {@link whenSent}). */
  declare private _sentWaiters: Set<{ upTo: number; release: () => void }>;
  /** Every displayed view, live or not (parked, out of view, not started). */
  declare protected shownViews: Set<unknown>;

  /** The page services (registry, Dispatcher, resource policy); bound by {@link boundModelClass}. */
  abstract get services(): IMolspacePage;

  abstract get kind(): WidgetKind;

  /** The widget as messages name it, e.g. `Story`. */
  protected abstract get label(): string;

  /** What the kernel's `control` messages may run. */
  protected abstract get kernelTools(): KernelTools;

  defaults(): Backbone.ObjectHash {
    const spec = WIDGETS[this.kind];
    return {
      ...super.defaults(),
      _model_name: spec.model,
      _model_module: MODULE_NAME,
      _model_module_version: MODULE_VERSION,
      _view_name: spec.view,
      _view_module: MODULE_NAME,
      _view_module_version: MODULE_VERSION,
      ...syncedDefaults(this.kind)
    };
  }

  initialize(attributes: Backbone.ObjectHash, options: IBackboneModelOptions): void {
    super.initialize(attributes, options);
    this._disposed = false;
    this._saves = 0;
    this._changeSaves = 0;
    this._sentSaves = 0;
    this._sentWaiters = new Set();
    // Backbone runs initialize inside the base constructor, before class fields would be set: a
    // `declare`d field assigned here.
    (this as { appliedActions: AppliedRequests }).appliedActions = new AppliedRequests(this, APPLIED_ACTIONS_ATTR, APPLIED_ACTIONS_MEMORY);
    this.shownViews = new Set();
    this.setUp();
    this._kernel = new KernelChannel({
      targetId: this.model_id,
      ...this.kernelTools,
      dispatcher: this.services.dispatcher,
      send: message => this.send(toJSONValue(message), {}),
      applied: new AppliedRequests(this),
      sync: () => this.sendState()
    });
    this._presence = new WidgetPresence(this.services.registry, this, this, reason => this._leave(reason));
    listenToKernel(this, this._kernel);
  }

  /** Set the subclass's own fields; runs before the widget joins the registry. */
  protected setUp(): void {
    // nothing by default
  }

  /**
   * The widget left the page for good (closed, kernel gone): fail or release what waits. Runs once.
   *
   * @param _reason - why, as WidgetPresence words it (e.g. "its kernel restarted or shut down; run
   *   its cell again"): what the located error of a call still waiting tells its caller.
   */
  protected left(_reason: string): void {
    // nothing by default
  }

  /** Resolves once the widget's source has loaded (or failed to); never rejects. */
  abstract whenLoaded(): Promise<void>;

  /** Current state (cheap, synchronous). */
  abstract state(): WidgetState;

  /** One line: what the widget shows now. */
  abstract describe(): string;

  /** Model id: what agents pass as `target`. */
  get targetId(): string {
    return this.model_id;
  }

  /** Path of the notebook that owns the widget, when the widget manager knows it. */
  get notebook(): string | null {
    return notebookPathOf(this.widget_manager);
  }

  /** True once the widget was closed or its model destroyed. */
  protected get disposed(): boolean {
    return this._disposed;
  }

  /** The widget's one error state: the `error` attribute when it is a located error, else null. */
  error(): LocatedError | null {
    const parsed = LocatedError.safeParse(this.get('error'));
    return parsed.success ? parsed.data : null;
  }

  /** A person used this widget: make it the active one. */
  touch(): void {
    this.services.registry.touch(this.model_id);
  }

  /** A view was displayed (see `WidgetPresence.shown`). */
  viewShown(view: unknown): void {
    this.shownViews.add(view);
    this._presence.shown(view);
  }

  /** A view was removed (see `WidgetPresence.removed`). */
  viewRemoved(view: unknown): void {
    this.shownViews.delete(view);
    this.forgetView(view);
    this._presence.removed(view);
  }

  /** A view no longer holds a live viewer or rendering (removed, parked). */
  forgetView(_view: unknown): void {
    // nothing by default
  }

  /**
   * Resolves once every change saved so far has left for the kernel, or after
   * {@link SENT_WAIT_MS}; at once when nothing is held or there is no kernel.
   * ipywidgets holds a save while an earlier one is unacknowledged and sends
   * what it held when the kernel reports idle; a page reloaded meanwhile loses it.
   * A later save of {@link DRAW_STATUS_ATTRS} alone (`ready` once the change is drawn) is not
   * waited for: on software WebGL the frame after a change can hold the main thread for a second,
   * and the kernel's idle for the change, arriving meanwhile, would be read only after it
   * (docs/benchmarks.md, "`act` and the send wait").
   */
  whenSent(): Promise<void> {
    const upTo = this._changeSaves;
    if (this._sentSaves >= upTo || this._disposed || !this.comm_live) {
      return Promise.resolve();
    }
    return new Promise(resolve => {
      const waiter = {
        upTo,
        release: () => {
          clearTimeout(timer);
          this._sentWaiters.delete(waiter);
          resolve();
        }
      };
      const timer = setTimeout(waiter.release, SENT_WAIT_MS);
      this._sentWaiters.add(waiter);
    });
  }

  /** ipywidgets sends a state update (everything saved so far, held or not): release who waited for it. */
  send_sync_message(state: Record<string, unknown>, callbacks?: unknown): string {
    const msgId = super.send_sync_message(state as never, callbacks);
    this._sentSaves = this._saves ?? 0;
    for (const waiter of [...(this._sentWaiters ?? [])]) {
      if (waiter.upTo <= this._sentSaves) {
        waiter.release();
      }
    }
    return msgId;
  }

  /**
   * Send the state to the kernel when there is one (a restored or docked
   * widget has none; a closed one has none any more). Never throws.
   */
  protected sendState(): void {
    if (this._disposed || !this.comm_live) {
      return;
    }
    try {
      this._saves++;
      if (unsavedKeys(this).some(key => !DRAW_STATUS_ATTRS.has(key))) {
        this._changeSaves = this._saves;
      }
      saveCurrentState(this);
    } catch (e) {
      console.warn(`molspace: ${this.label} ${this.model_id}: the kernel could not be sent the new state`, e);
    }
  }

  private _leave(reason: string): void {
    if (this._disposed) {
      return;
    }
    this._disposed = true;
    for (const waiter of [...this._sentWaiters]) {
      waiter.release(); // nothing more will be sent
    }
    this.left(reason);
  }
}

/**
 * The model class the widget manager instantiates for a widget kind, bound to
 * this page's services.
 */
export function boundModelClass(Model: abstract new (...args: never[]) => PageWidgetModel, services: IMolspacePage): typeof DOMWidgetModel {
  // Bound as a plain model class: the widget manager instantiates it, so it is not abstract.
  const Base = Model as unknown as new (...args: unknown[]) => DOMWidgetModel;
  class Bound extends Base {
    get services(): IMolspacePage {
      return services;
    }
  }
  return Bound as unknown as typeof DOMWidgetModel;
}
