/**
 * Located errors shared by the Dispatcher, the bridge and the MCP gateway.
 *
 * Every failure an agent, a notebook cell or a person can meet carries
 * `{code, message, where, fix, details}` (docs/architecture.md). `where` says what
 * failed (a tool, a field as a JSON pointer, a widget, a snapshot, a URL);
 * `fix` says what would make the call succeed.
 */
import { z } from 'zod';
import { cutText } from './budget';

/** Every error code, in one place. */
export const ERROR_CODES = [
  'NO_PAGE',
  'TIMEOUT',
  'NOT_FOUND',
  'STALE_TARGET',
  'REVISION_CONFLICT',
  'INVALID_INPUT',
  'VALIDATION_FAILED',
  'UNSUPPORTED_FORMAT',
  'TOO_LARGE',
  'FORBIDDEN',
  'AWAITING_USER',
  'INTERNAL'
] as const;

export const ErrorCode = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof ErrorCode>;

/**
 * A located error: the structured content of every failed tool call
 * (`isError: true`), the `error` of a failed bridge or kernel result, and a
 * widget's `error` state.
 */
export const LocatedError = z
  .object({
    code: ErrorCode,
    message: z.string().min(1).describe('What failed, in one sentence.'),
    where: z.string().describe('Where it failed: a JSON pointer into the arguments, a widget id, a snapshot key or a URL.'),
    fix: z.string().min(1).describe('What would make the call succeed.'),
    details: z.record(z.string(), z.unknown()).default({})
  })
  .describe('A located error: what failed, where, and how to fix it.');
export type LocatedError = z.infer<typeof LocatedError>;

/** Longest `message` and `fix` of a located error, characters (longer: cut with a marker). */
const ERROR_TEXT_CHARS = 2000;
/** Longest `where` and string in `details`, characters. */
const ERROR_QUOTE_CHARS = 1000;
/** Most items of an array, and keys of an object, in `details` (more: the first ones). */
const ERROR_DETAIL_ITEMS = 100;

/**
 * `value` with long strings cut and long arrays and objects shortened
 * (plain JSON data only; anything else as it is). Values that fit are returned
 * as they are, not copied.
 */
function boundedDetails(value: unknown, depth: number): unknown {
  if (typeof value === 'string') {
    return cutText(value, ERROR_QUOTE_CHARS);
  }
  if (depth > 8) {
    return Array.isArray(value) || (typeof value === 'object' && value !== null) ? '…' : value;
  }
  if (Array.isArray(value)) {
    const items = value.slice(0, ERROR_DETAIL_ITEMS).map(v => boundedDetails(v, depth + 1));
    return items.length === value.length && items.every((v, i) => v === value[i]) ? value : items;
  }
  if (typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype) {
    const entries = Object.entries(value);
    const kept = entries
      .slice(0, ERROR_DETAIL_ITEMS)
      .map(([k, v]) => [cutText(k, ERROR_QUOTE_CHARS), boundedDetails(v, depth + 1)] as const);
    const same = kept.length === entries.length && kept.every(([k, v], i) => k === entries[i][0] && v === entries[i][1]);
    return same ? value : Object.fromEntries(kept);
  }
  return value;
}

/**
 * An error thrown by a Dispatcher operation; serialised as {@link LocatedError}.
 */
export class MolspaceError extends Error {
  readonly code: ErrorCode;
  readonly where: string;
  readonly fix: string;
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, where: string, fix: string, details: Record<string, unknown> = {}) {
    // Bounded whatever it quotes (a 100,000-character id or cursor, every issue of a long list):
    // a refusal's size does not grow with its input (issue 23).
    super(cutText(message, ERROR_TEXT_CHARS));
    this.name = 'MolspaceError';
    this.code = code;
    this.where = cutText(where, ERROR_QUOTE_CHARS);
    this.fix = cutText(fix, ERROR_TEXT_CHARS);
    this.details = boundedDetails(details, 0) as Record<string, unknown>;
  }

  /** The wire shape of this error. */
  toJSON(): LocatedError {
    return {
      code: this.code,
      message: this.message,
      where: this.where,
      fix: this.fix,
      details: this.details
    };
  }

  /** Wrap anything thrown into a located error; `where` names the operation. */
  static from(err: unknown, where: string): MolspaceError {
    if (err instanceof MolspaceError) {
      return err;
    }
    const message = err instanceof Error ? err.message : String(err);
    return new MolspaceError(
      'INTERNAL',
      `Unexpected failure in ${where}: ${message}`,
      where,
      'Retry once; if it fails again, report it with this message.',
      {}
    );
  }
}

/**
 * The text content of an MCP error result (docs/architecture.md, "Errors on the
 * wire"): a one-line summary `CODE at where: message. Fix: fix`, a newline, and
 * the located error as JSON. The gateway writes the same text
 * (`molspace/gateway/server.py` `error_text`); `tests/fixtures/contract/error-text.json`
 * holds both to one example.
 */
export function errorResultText(error: LocatedError): string {
  const oneLine = (s: string) => s.split(/\s+/).filter(Boolean).join(' ');
  const where = error.where ? ` at ${error.where}` : '';
  const summary = `${error.code}${where}: ${oneLine(error.message).replace(/\.+$/, '')}. Fix: ${oneLine(error.fix)}`;
  return `${summary}\n${JSON.stringify(error)}`;
}
