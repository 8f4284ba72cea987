/**
 * The short change log of each widget: what changed since a revision, for
 * the details of a `REVISION_CONFLICT`. Every change goes through the
 * Dispatcher, so it records them all.
 */
import type { ChangeEntry } from '../contract';

/** Entries kept per widget. */
export const CHANGE_LOG_PER_TARGET = 50;
/** Entries returned by {@link ChangeLog.since}. */
export const CHANGES_RETURNED = 20;

export class ChangeLog {
  private readonly _entries = new Map<string, ChangeEntry[]>();

  /** Record changes of one widget, oldest first. */
  record(targetId: string, entries: readonly ChangeEntry[]): void {
    if (entries.length === 0) {
      return;
    }
    const log = this._entries.get(targetId) ?? [];
    log.push(...entries);
    log.splice(0, Math.max(0, log.length - CHANGE_LOG_PER_TARGET));
    this._entries.set(targetId, log);
  }

  /** The latest entries (at most {@link CHANGES_RETURNED}) with a revision greater than `revision`. */
  since(targetId: string, revision: number): ChangeEntry[] {
    return (this._entries.get(targetId) ?? []).filter(c => c.revision > revision).slice(-CHANGES_RETURNED);
  }

  /** Forget a widget (it was removed). */
  forget(targetId: string): void {
    this._entries.delete(targetId);
  }
}
