/**
 * Result budgets of the read tools (docs/architecture.md, "Invariants":
 * bounds). Every agent reads every result: a read tool answers at most
 * `LIMITS.observeOutputBytes` (8 KiB) of JSON per call and pages the rest,
 * and long text is cut with a marker that says how much was cut.
 */
import { LIMITS } from './limits';

let encoder: TextEncoder | null = null;

/** UTF-8 bytes of `value` as JSON. */
export function jsonBytes(value: unknown): number {
  // Made on first use: importing the module (e.g. for cutText) needs no TextEncoder.
  encoder ??= new TextEncoder();
  return encoder.encode(JSON.stringify(value)).length;
}

/**
 * The longest prefix of `items` whose result, built by `render`, fits in
 * `budget` bytes of JSON; at least one item when there is any, so paging
 * always advances.
 *
 * @param items - candidates in order (already cut to the caller's `limit`).
 * @param render - the whole result for a page of items.
 * @param budget - bytes (default `LIMITS.observeOutputBytes`).
 */
export function withinBudget<T>(
  items: readonly T[],
  render: (page: readonly T[]) => unknown,
  budget: number = LIMITS.observeOutputBytes
): T[] {
  let n = 0;
  while (n < items.length && jsonBytes(render(items.slice(0, n + 1))) <= budget) {
    n += 1;
  }
  return items.slice(0, Math.max(n, Math.min(1, items.length)));
}

/**
 * `text` cut to at most `max` characters (UTF-16 code units), ending in a
 * marker that says how many were cut (`… [cut 1234 characters]`); unchanged
 * when it fits. Never cuts between the two halves of a character outside the
 * BMP (an emoji): a lone surrogate is not valid UTF-8 on the wire.
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) {
    return text;
  }
  const probe = ` … [cut ${text.length} characters]`;
  let keep = Math.max(0, max - probe.length);
  if (keep > 0 && isHighSurrogate(text.charCodeAt(keep - 1))) {
    keep -= 1;
  }
  return `${text.slice(0, keep)} … [cut ${text.length - keep} characters]`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
