/**
 * One-at-a-time, bounded calls to Ketcher's standalone Indigo engine, shared
 * by the editor frame (`./main.ts`) and the depiction frame (`./depict.ts`)
 * (docs/architecture.md, "Ketcher").
 *
 * Ketcher's standalone struct service drops the answer to a call that
 * overlaps another of the same kind (its listener is a `once` keyed by event
 * type), so a frame runs its engine calls one at a time ({@link serial}) and
 * tries again one whose answer an overlapping call took ({@link engine}).
 */
import { cutText } from '../../contract/budget';

/** How long one engine call may take before it is tried again, ms. */
export const ENGINE_WAIT_MS = 8000;
/** Tries of one engine call. */
export const ENGINE_TRIES = 2;

let queue: Promise<unknown> = Promise.resolve();

/** Run `work` after every earlier piece of work of this frame: no two engine calls overlap. */
export function serial<T>(work: () => Promise<T>): Promise<T> {
  const run = queue.then(work, work);
  queue = run.catch(() => undefined);
  return run;
}

/** One engine call, bounded in time and tried again once (see {@link ENGINE_WAIT_MS}). */
export async function engine<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<'late'>(resolve => (timer = setTimeout(() => resolve('late'), ENGINE_WAIT_MS)));
    try {
      const result = await Promise.race([call(), late]);
      if (result !== 'late') {
        return result as T;
      }
    } finally {
      clearTimeout(timer);
    }
    if (attempt >= ENGINE_TRIES) {
      throw new Error(`the Indigo engine did not answer within ${ENGINE_WAIT_MS / 1000} s (${ENGINE_TRIES} tries)`);
    }
  }
}

/** Longest message {@link messageOf} returns, characters (longer: cut with a marker). */
export const MESSAGE_CHARS = 2000;

/** `read()`, or null when it throws or is not a string. */
function attempt(read: () => unknown): string | null {
  try {
    const text = read();
    return typeof text === 'string' ? text : null;
  } catch {
    return null;
  }
}

/**
 * The message of an engine error, whatever was thrown: never throws, and at
 * most {@link MESSAGE_CHARS} characters. A thrown value that JSON cannot
 * write (a cycle, a BigInt), whose `message` or `toString` throws, or a
 * revoked proxy would otherwise throw here, and the request it answers would
 * never be answered (the parent waits out its deadline).
 */
export function messageOf(e: unknown): string {
  const text =
    attempt(() => (e instanceof Error ? e.message : null)) ??
    (typeof e === 'string' ? e : null) ??
    attempt(() => JSON.stringify(e)) ??
    attempt(() => String(e)) ??
    attempt(() => Object.prototype.toString.call(e)) ??
    'unknown error';
  return cutText(text, MESSAGE_CHARS);
}
