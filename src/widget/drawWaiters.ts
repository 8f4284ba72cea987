/**
 * Calls waiting for a widget's views to draw (or render) a change: the
 * promise each change awaits, settled when a view reports the key drawn,
 * rejected with a located `TIMEOUT` when none does in time, and failed or
 * released together when the widget leaves or its last view goes
 * (docs/architecture.md, "Page widget models").
 */
import type { MolspaceError } from '../contract';

/** How long a change waits for a view to draw it, ms. */
export const CHANGE_WAIT_MS = 25_000;

interface Waiter<K> {
  key: K;
  resolve: () => void;
  reject: (e: MolspaceError) => void;
  /** The deadline's timer: cleared once the waiter is settled, dropped or released. */
  timer: ReturnType<typeof setTimeout>;
}

/**
 * Waiters keyed by what a view reports drawn: a revision (Viewer, Panel) or
 * a snapshot index (Story).
 */
export class DrawWaiters<K> {
  private _waiters: Waiter<K>[] = [];

  /**
   * @param timeout - the located error a waiter for `key` fails with after `ms`.
   * @param ms - how long a waiter waits, ms.
   */
  constructor(
    private readonly _timeout: (key: K) => MolspaceError,
    private readonly _ms: number = CHANGE_WAIT_MS
  ) {}

  /** How many calls wait. */
  get size(): number {
    return this._waiters.length;
  }

  /** Whether a call waits for `key`. */
  has(key: K): boolean {
    return this._waiters.some(w => w.key === key);
  }

  /** A promise that settles when `key` is settled, or rejects with the timeout error after `ms`. */
  wait(key: K): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (this._take(w => w === waiter).length > 0) {
          reject(this._timeout(key));
        }
      }, this._ms);
      const waiter: Waiter<K> = { key, resolve, reject, timer };
      this._waiters.push(waiter);
    });
  }

  /**
   * A view drew `key` (or failed to, with `error`): settle every call that waits for it.
   *
   * @returns how many calls were settled.
   */
  settle(key: K, error: MolspaceError | null): number {
    const done = this._take(w => w.key === key);
    for (const w of done) {
      if (error) {
        w.reject(error);
      } else {
        w.resolve();
      }
    }
    return done.length;
  }

  /** Stop waiting for `key` without settling (the change was refused before it was applied). */
  drop(key: K): void {
    this._take(w => w.key === key);
  }

  /** Release every waiting call: nothing is left to draw it (no live view). */
  resolveAll(): void {
    for (const w of this._take(() => true)) {
      w.resolve();
    }
  }

  /** Fail every waiting call with `error(key)`. */
  rejectAll(error: (key: K) => MolspaceError): void {
    for (const w of this._take(() => true)) {
      w.reject(error(w.key));
    }
  }

  /** Remove the waiters `which` picks, their deadline timers cleared, and return them. */
  private _take(which: (w: Waiter<K>) => boolean): Waiter<K>[] {
    const taken = this._waiters.filter(which);
    this._waiters = this._waiters.filter(w => !which(w));
    for (const w of taken) {
      clearTimeout(w.timer);
    }
    return taken;
  }
}
