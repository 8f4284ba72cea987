/**
 * `ready: true` means drawn: the wait for Mol*'s frame after a step is
 * applied says whether one came, and a step applied without a frame is a
 * located error (`noFrameError`), never "ready". Mol*'s canvas is stood in
 * for by its `didDraw` subject, which (a BehaviorSubject) calls a new
 * subscriber at once with its current value.
 */
import { DRAW_WAIT_MS, waitForFrame, type FrameSource, type VisibilitySource } from '../frameWait';
import { NO_FRAME_REASON, noFrameError } from '../../story/noFrame';

/** Enough of rxjs's BehaviorSubject: the current value on subscribe, then every next value. */
class CurrentValueSubject {
  private readonly _subscribers = new Set<(value: number) => void>();
  constructor(public value: number) {}
  subscribe(next: (value: number) => void): { unsubscribe(): void } {
    this._subscribers.add(next);
    next(this.value);
    return { unsubscribe: () => this._subscribers.delete(next) };
  }
  next(value: number): void {
    this.value = value;
    for (const s of [...this._subscribers]) {
      s(value);
    }
  }
}

function canvas(): FrameSource & { draw(committing?: number): void; requested: number } {
  const didDraw = new CurrentValueSubject(0);
  const commitQueueSize = { value: 0 };
  const c = {
    didDraw,
    commitQueueSize,
    requested: 0,
    requestDraw() {
      c.requested += 1;
    },
    draw(committing = 0) {
      commitQueueSize.value = committing;
      didDraw.next(didDraw.value + 1);
    }
  };
  return c;
}

function page(state: DocumentVisibilityState): VisibilitySource & { hide(): void } {
  const target = new EventTarget();
  const doc = {
    visibilityState: state,
    addEventListener: target.addEventListener.bind(target),
    removeEventListener: target.removeEventListener.bind(target),
    hide() {
      doc.visibilityState = 'hidden';
      target.dispatchEvent(new Event('visibilitychange'));
    }
  };
  return doc as unknown as VisibilitySource & { hide(): void };
}

afterEach(() => jest.useRealTimers());

it('is drawn only on a frame Mol* draws after the request, with the whole scene committed', async () => {
  const c = canvas();
  let outcome: string | null = null;
  const wait = waitForFrame(c, DRAW_WAIT_MS, page('visible')).then(o => (outcome = o));
  expect(c.requested).toBe(1);
  await Promise.resolve();
  expect(outcome).toBeNull(); // the subject's current value is not a new frame
  c.draw(2); // a frame, but part of the scene is still being committed
  await Promise.resolve();
  expect(outcome).toBeNull();
  c.draw(0);
  await wait;
  expect(outcome).toBe('drawn');
});

it('a hidden page draws nothing: not drawn, at once', async () => {
  const c = canvas();
  await expect(waitForFrame(c, DRAW_WAIT_MS, page('hidden'))).resolves.toBe('page-hidden');
  expect(c.requested).toBe(0);
});

it('a page hidden while waiting is not drawn', async () => {
  const doc = page('visible');
  const wait = waitForFrame(canvas(), DRAW_WAIT_MS, doc);
  doc.hide();
  await expect(wait).resolves.toBe('page-hidden');
});

it('a visible page without a frame within the wait: timed out, never a guess of drawn', async () => {
  jest.useFakeTimers();
  const wait = waitForFrame(canvas(), DRAW_WAIT_MS, page('visible'));
  jest.advanceTimersByTime(DRAW_WAIT_MS);
  await expect(wait).resolves.toBe('timed-out');
});

it('no canvas: not drawn', async () => {
  await expect(waitForFrame(undefined, DRAW_WAIT_MS, page('visible'))).resolves.toBe('no-canvas');
});

it('a step applied without a frame is a located TIMEOUT naming the Story, the step, the reason and a fix', () => {
  expect(noFrameError('m1', 1, 'site', 'drawn')).toBeNull();
  const hidden = noFrameError('m1', 1, 'site', 'page-hidden')!.toJSON();
  expect(hidden).toMatchObject({
    code: 'TIMEOUT',
    where: 'm1',
    details: { target: 'm1', index: 1, key: 'site', reason: NO_FRAME_REASON, outcome: 'page-hidden' }
  });
  expect(hidden.message).toMatch(/step 2 \("site"\) was applied but not drawn: the page is hidden/);
  expect(hidden.fix).toMatch(/Show the page/);
  const late = noFrameError('m1', 0, 'overview', 'timed-out')!.toJSON();
  expect(late.message).toMatch(new RegExp(`no frame of it within ${DRAW_WAIT_MS / 1000} s`));
  expect(late.details).toMatchObject({ reason: NO_FRAME_REASON, outcome: 'timed-out' });
});
