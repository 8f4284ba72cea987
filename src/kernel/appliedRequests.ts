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

/** How many request ids are kept (synced and remembered). */
export const APPLIED_REQUESTS_MEMORY = 64;

/** What {@link AppliedRequests} needs of a widget model (a Backbone model). */
export interface AppliedRequestsModel {
  get(name: string): unknown;
  set(name: string, value: unknown): unknown;
  on(event: string, callback: () => void): unknown;
}

export class AppliedRequests {
  private readonly _model: AppliedRequestsModel;
  /** Every id seen applied, by this page or another, oldest first (bounded). */
  private readonly _seen = new Set<string>();

  constructor(model: AppliedRequestsModel) {
    this._model = model;
    model.on(`change:${APPLIED_REQUESTS_ATTR}`, () => this._merge());
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
    this._model.set(APPLIED_REQUESTS_ATTR, [...this._seen]);
    return true;
  }

  /** Take in the ids another page recorded (an echoed state update). */
  private _merge(): void {
    const synced = this._model.get(APPLIED_REQUESTS_ATTR);
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
    while (this._seen.size > APPLIED_REQUESTS_MEMORY) {
      const oldest = this._seen.values().next().value;
      if (oldest === undefined) {
        break;
      }
      this._seen.delete(oldest);
    }
  }
}
