/**
 * Which kernel requests some page already applied, so that one `control`
 * message is applied once however many pages show the notebook.
 *
 * Every page connected to the kernel receives every `control` message of a
 * widget's comm. The page that applies one records its `requestId` in the
 * synced `_applied_requests` attribute, in the same state update as the change
 * it made (ipywidgets 8 echoes each update to every other page). A page that
 * sees the id already recorded (in the synced attribute, or in what it saw
 * before) does not apply it again and does not answer. Two pages that apply
 * one request before either saw the other's update applied it from the same
 * base state (each page receives the kernel's messages and the echoes in
 * order), so they reach the same state; the kernel keeps the first answer
 * (`molspace/page_widget.py`).
 */

/** The synced attribute: the most recent kernel request ids some page applied, oldest first. */
export const APPLIED_REQUESTS_ATTR = '_applied_requests';

/**
 * The synced attribute of agents' calls (`tool:actionId`) some page applied, oldest first: sent
 * with the change each made, so a page that was reloaded before its answer reached the gateway
 * leaves the record behind, and the reloaded page answers the agent's retry as replayed rather
 * than applying it again (the Dispatcher's `_mutate`).
 */
export const APPLIED_ACTIONS_ATTR = '_applied_actions';

/** How many request ids are kept (synced and remembered). */
export const APPLIED_REQUESTS_MEMORY = 64;

/**
 * How many agent calls are kept: the record matters only for calls applied but not yet answered
 * when a page goes, a few per widget; each state update carries it whole (a key is at most 150
 * characters).
 */
export const APPLIED_ACTIONS_MEMORY = 16;

/** What {@link AppliedRequests} needs of a widget model (a Backbone model). */
export interface AppliedRequestsModel {
  get(name: string): unknown;
  set(name: string, value: unknown): unknown;
  on(event: string, callback: () => void): unknown;
}

/** Ids some page applied, kept in one synced attribute of a widget model. */
export class AppliedRequests {
  private readonly _model: AppliedRequestsModel;
  private readonly _attr: string;
  private readonly _memory: number;
  /** Every id seen applied, by this page or another, oldest first (bounded). */
  private readonly _seen = new Set<string>();

  /**
   * @param attr - the synced attribute: {@link APPLIED_REQUESTS_ATTR} or {@link APPLIED_ACTIONS_ATTR}.
   * @param memory - how many ids are kept, newest last.
   */
  constructor(model: AppliedRequestsModel, attr: string = APPLIED_REQUESTS_ATTR, memory: number = APPLIED_REQUESTS_MEMORY) {
    this._model = model;
    this._attr = attr;
    this._memory = memory;
    model.on(`change:${attr}`, () => this._merge());
    this._merge();
  }

  /** True when this page or another already applied request `id`. */
  has(id: string): boolean {
    this._merge();
    return this._seen.has(id);
  }

  /**
   * Claim request `id` for this page, right before applying it: false when
   * some page already applied it; else records it in the synced attribute
   * (sent with the change it makes) and returns true.
   */
  claim(id: string): boolean {
    if (this.has(id)) {
      return false;
    }
    this._add(id);
    this._model.set(this._attr, [...this._seen]);
    return true;
  }

  /** Take back this page's claim of `id`: what it claimed for was not applied (the call failed). */
  forget(id: string): void {
    if (this._seen.delete(id)) {
      this._model.set(this._attr, [...this._seen]);
    }
  }

  /** Take in the ids another page recorded (an echoed state update). */
  private _merge(): void {
    const synced = this._model.get(this._attr);
    if (Array.isArray(synced)) {
      for (const id of synced) {
        if (typeof id === 'string') {
          this._add(id);
        }
      }
    }
  }

  private _add(id: string): void {
    if (this._seen.has(id)) {
      return;
    }
    this._seen.add(id);
    while (this._seen.size > this._memory) {
      const oldest = this._seen.values().next().value;
      if (oldest === undefined) {
        break;
      }
      this._seen.delete(oldest);
    }
  }
}
