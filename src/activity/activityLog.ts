/**
 * The page's activity: every call that reached the Dispatcher, from a button,
 * a cell, playback or an agent, and every agent read the gateway answered from
 * this page's read mirror, newest first and bounded. The activity panel
 * shows it; entries are plain text built from the typed call, so an agent's
 * strings are shown as text, never as HTML.
 */
import { ISignal, Signal } from '@lumino/signaling';
import { LIMITS } from '../contract/limits';
import type { DispatchRecord } from '../dispatcher/dispatcher';

/** Entries kept (oldest dropped first). */
export const ACTIVITY_LIMIT = LIMITS.activityEntries;
/** Characters of an argument summary. */
export const ARGS_SUMMARY_CHARS = 120;

/** One line of the activity panel. */
export interface ActivityEntry {
  /** Increasing number of the entry in this page. */
  seq: number;
  /** ISO 8601 time the call started. */
  at: string;
  /** `agent (<client name>)`, `kernel`, `ui` or `play`. */
  who: string;
  /** The source alone, for filtering. */
  source: DispatchRecord['source'];
  tool: string;
  /** The widget addressed, or null. */
  target: string | null;
  /** `key=value` pairs of the arguments, without `target`, cut to {@link ARGS_SUMMARY_CHARS}. */
  args: string;
  /** `ok (revision 4)` or the error code. */
  outcome: string;
  ok: boolean;
  /** The result's text or the error's message. */
  summary: string;
  /** Whole milliseconds. */
  durationMs: number;
  /** `page` (the Dispatcher ran it) or `mirror` (the gateway answered from the read mirror). */
  answeredBy: DispatchRecord['answeredBy'];
}

/** What to show: a source and/or a widget (null: all). */
export interface ActivityFilter {
  source: DispatchRecord['source'] | null;
  target: string | null;
}

/** The bounded, newest-first list of {@link ActivityEntry}. */
export class ActivityLog {
  private readonly _entries: ActivityEntry[] = [];
  private readonly _changed = new Signal<this, ActivityEntry>(this);
  private _seq = 0;

  constructor(readonly limit: number = ACTIVITY_LIMIT) {}

  /** Emits each entry as it is added. */
  get changed(): ISignal<this, ActivityEntry> {
    return this._changed;
  }

  /** How many entries are kept now. */
  get size(): number {
    return this._entries.length;
  }

  /**
   * Add the entry of one record, in order of start time (a read the gateway
   * answered from the mirror is reported up to `servedReadsBatchMs` later,
   * and a long call ends after shorter ones that started later); returns it.
   */
  add(record: DispatchRecord): ActivityEntry {
    const entry = this._entry(record);
    const at = this._entries.findIndex(e => e.at <= entry.at); // ISO 8601 strings of one form sort as times
    this._entries.splice(at === -1 ? this._entries.length : at, 0, entry);
    if (this._entries.length > this.limit) {
      this._entries.length = this.limit;
    }
    this._changed.emit(entry);
    return entry;
  }

  private _entry(record: DispatchRecord): ActivityEntry {
    return {
      seq: ++this._seq,
      at: new Date(record.startedAt).toISOString(),
      who: record.source === 'agent' && record.client ? `agent (${record.client})` : record.source,
      source: record.source,
      tool: record.tool,
      target: record.target,
      args: summarizeArgs(record.args),
      outcome: record.ok ? (record.revision === null ? 'ok' : `ok (revision ${record.revision})`) : (record.errorCode ?? 'error'),
      ok: record.ok,
      summary: record.summary,
      durationMs: Math.round(record.durationMs),
      answeredBy: record.answeredBy
    };
  }

  /** Entries newest first, those matching `filter` only. */
  entries(filter: ActivityFilter = { source: null, target: null }): ActivityEntry[] {
    return this._entries.filter(
      e => (filter.source === null || e.source === filter.source) && (filter.target === null || e.target === filter.target)
    );
  }
}

/** `key=value` pairs (JSON values), `target` left out, cut with "…". */
export function summarizeArgs(args: unknown): string {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return '';
  }
  const text = Object.entries(args)
    .filter(([key]) => key !== 'target')
    .map(([key, value]) => `${key}=${JSON.stringify(value) ?? 'undefined'}`)
    .join(' ');
  return text.length > ARGS_SUMMARY_CHARS ? text.slice(0, ARGS_SUMMARY_CHARS - 1) + '…' : text;
}
