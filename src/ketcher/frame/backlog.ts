/**
 * The editor frame's requests that arrive before Ketcher is ready
 * (`./main.ts`): held, oldest first, and run once it is. Bounded
 * (`LIMITS.ketcherFrameBacklog`): a request beyond the bound is refused at
 * once with a located `TOO_LARGE` rather than held, so a page that keeps
 * asking an editor that never starts does not grow the frame without end.
 */
import { MolspaceError } from '../../contract/errors';
import { FRAME_TAG, type FrameReply } from '../frameMessages';
import { locatedText } from './inbox';

/** At most `bound` items, oldest first. */
export class Backlog<T> {
  private readonly _items: T[] = [];

  constructor(readonly bound: number) {}

  get size(): number {
    return this._items.length;
  }

  /** Hold `item`; false (it is not held) when the backlog is full. */
  offer(item: T): boolean {
    if (this._items.length >= this.bound) {
      return false;
    }
    this._items.push(item);
    return true;
  }

  /** Every held item, oldest first; the backlog is then empty. */
  drain(): T[] {
    return this._items.splice(0);
  }
}

/** The reply refusing request `id`, which arrived while `bound` requests waited for the editor to start. */
export function backlogRefusal(id: number, bound: number): FrameReply {
  const e = new MolspaceError(
    'TOO_LARGE',
    `The editor frame already holds ${bound} requests waiting for Ketcher to start; request ${id} was not taken.`,
    'editor frame (Ketcher not started yet)',
    'Wait until the editor is ready (it answers the requests it holds then), and send this request again.',
    { id, backlog: bound }
  );
  return { tag: FRAME_TAG, id, ok: false, error: locatedText(e), located: e.toJSON() };
}
