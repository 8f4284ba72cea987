/**
 * The synced attributes of one page's widget model in jest: Backbone's `get`, `set` and
 * `on('change:<name>')`, enough for `AppliedRequests` (src/kernel/appliedRequests.ts).
 */
export class SyncedAttributes {
  private readonly _values = new Map<string, unknown>();
  private readonly _listeners = new Map<string, (() => void)[]>();
  get(name: string): unknown {
    return this._values.get(name);
  }
  set(name: string, value: unknown): void {
    this._values.set(name, value);
    for (const listener of this._listeners.get(`change:${name}`) ?? []) {
      listener();
    }
  }
  on(event: string, callback: () => void): void {
    this._listeners.set(event, [...(this._listeners.get(event) ?? []), callback]);
  }
}
