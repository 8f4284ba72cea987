/** DrawWaiters: what a change awaits until a view draws it. */
import { MolspaceError } from '../../contract';
import { CHANGE_WAIT_MS, DrawWaiters } from '../drawWaiters';

const timeout = (key: number) => new MolspaceError('TIMEOUT', `key ${key} not drawn`, '/target', 'retry', { key });
const stale = (key: number) => new MolspaceError('STALE_TARGET', `key ${key} closed`, '/target', 'observe', { key });

/** The settled outcome of a promise: 'ok' or the error code. */
function outcome(p: Promise<void>): Promise<string> {
  return p.then(
    () => 'ok',
    (e: MolspaceError) => e.code
  );
}

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

test('settle resolves only the waiters of that key and counts them', async () => {
  const w = new DrawWaiters<number>(timeout);
  const a = outcome(w.wait(1));
  const b = outcome(w.wait(1));
  const c = outcome(w.wait(2));
  expect(w.settle(1, null)).toBe(2);
  expect(w.settle(3, null)).toBe(0);
  expect(w.has(2)).toBe(true);
  expect(w.size).toBe(1);
  await expect(a).resolves.toBe('ok');
  await expect(b).resolves.toBe('ok');
  w.settle(2, new MolspaceError('INTERNAL', 'bad', '/x', 'fix', {}));
  await expect(c).resolves.toBe('INTERNAL');
});

test('a waiter nobody settles fails with the located timeout error, once', async () => {
  const w = new DrawWaiters<number>(timeout);
  const p = w.wait(4);
  jest.advanceTimersByTime(CHANGE_WAIT_MS - 1);
  expect(w.size).toBe(1);
  jest.advanceTimersByTime(1);
  await expect(p).rejects.toMatchObject({ code: 'TIMEOUT', details: { key: 4 } });
  expect(w.size).toBe(0);
  expect(w.settle(4, null)).toBe(0);
});

test('a settled waiter does not time out later', async () => {
  const w = new DrawWaiters<number>(timeout, 100);
  const p = outcome(w.wait(1));
  w.settle(1, null);
  jest.advanceTimersByTime(200);
  await expect(p).resolves.toBe('ok');
});

test('drop forgets a key without settling it; resolveAll and rejectAll empty the set', async () => {
  const w = new DrawWaiters<number>(timeout, 100);
  void w.wait(1);
  w.drop(1);
  expect(w.has(1)).toBe(false);
  const released = outcome(w.wait(2));
  w.resolveAll();
  await expect(released).resolves.toBe('ok');
  const failed = w.wait(3);
  w.rejectAll(stale);
  await expect(failed).rejects.toMatchObject({ code: 'STALE_TARGET', details: { key: 3 } });
  expect(w.size).toBe(0);
});

test('no deadline timer is left once every waiter is settled, dropped, released or failed', async () => {
  const w = new DrawWaiters<number>(timeout);
  const waiting = [w.wait(1), w.wait(2), w.wait(3), w.wait(4)].map(outcome);
  expect(jest.getTimerCount()).toBe(4);
  w.settle(1, null);
  w.drop(2);
  w.rejectAll(key => (key === 3 ? stale(key) : timeout(key)));
  expect(jest.getTimerCount()).toBe(0);
  const later = outcome(w.wait(5));
  w.resolveAll();
  expect(jest.getTimerCount()).toBe(0);
  expect(await Promise.all([waiting[0], waiting[2], waiting[3], later])).toEqual(['ok', 'STALE_TARGET', 'TIMEOUT', 'ok']);
});
