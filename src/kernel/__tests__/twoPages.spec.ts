/**
 * Two pages showing one notebook: both receive every `control` message of a
 * widget's comm. With the synced `_applied_requests` (appliedRequests.ts) one
 * request is applied once, and the pages reach the same state. Each page here
 * is a real Dispatcher and KernelChannel on an in-memory Story; the kernel in
 * between relays one page's state update to the other (ipywidgets 8's echo),
 * in the order the test chooses.
 */
import type { KernelResult } from '../../contract';
import { WidgetRegistry } from '../../dispatcher/registry';
import { MemoryStory, metas } from '../../__tests__/memoryStory';
import { APPLIED_REQUESTS_ATTR, APPLIED_REQUESTS_MEMORY, AppliedRequests } from '../appliedRequests';
import { saveCurrentState } from '../currentState';
import { KernelChannel, listenToKernel } from '../kernelChannel';
import { pageDispatcher } from '../../tools';
import { SyncedAttributes } from '../../__tests__/syncedAttributes';

/** The state one page sends the kernel (and the kernel echoes to the other page). */
interface Update {
  index: number;
  revision: number;
  applied: unknown;
}

function page(name: string, answers: { page: string; result: KernelResult }[], dedupe = true) {
  const registry = new WidgetRegistry();
  const story = new MemoryStory('m1', metas(['a', 'b', 'c', 'd', 'e']));
  registry.register(story);
  const attrs = new SyncedAttributes();
  const updates: Update[] = [];
  const channel = new KernelChannel({
    targetId: 'm1',
    tool: 'story_control',
    dispatcher: pageDispatcher(registry),
    send: result => answers.push({ page: name, result }),
    ...(dedupe ? { applied: new AppliedRequests(attrs) } : {}),
    sync: () => updates.push({ index: story.index, revision: story.revision, applied: attrs.get(APPLIED_REQUESTS_ATTR) })
  });
  return {
    story,
    channel,
    updates,
    /** The kernel relays another page's update to this one. */
    echo(update: Update): void {
      story.index = update.index;
      story.revision = update.revision;
      attrs.set(APPLIED_REQUESTS_ATTR, update.applied);
    }
  };
}

const next = (requestId: string) => ({ type: 'control', requestId, action: 'next' });

it('a page that sees the request applied by the other page does not apply it again (no 1 → 3 for one next)', async () => {
  const answers: { page: string; result: KernelResult }[] = [];
  const a = page('A', answers);
  const b = page('B', answers);
  // Page B is still drawing step 2 of the cell's first next() when the other page's updates arrive.
  let drawn = () => undefined as void;
  b.story.drawing = new Promise<void>(resolve => (drawn = resolve));
  const bFirst = b.channel.receive(next('r1'));
  await a.channel.receive(next('r1'));
  await a.channel.receive(next('r2'));
  expect(a.story.index).toBe(2);
  b.echo(a.updates.at(-1)!);
  const bSecond = b.channel.receive(next('r2'));
  b.story.drawing = null;
  drawn();
  await Promise.all([bFirst, bSecond]);

  expect(b.story.index).toBe(2);
  expect(b.story.applied).toEqual([{ index: 1 }]); // r1 from the same base as A; r2 not again
  expect(answers.map(x => `${x.page}:${x.result.requestId}`)).toEqual(['A:r1', 'A:r2', 'B:r1']);
});

it('two pages that apply one relative request from the same base before either saw the other reach the same state', async () => {
  const answers: { page: string; result: KernelResult }[] = [];
  const a = page('A', answers);
  const b = page('B', answers);
  await Promise.all([a.channel.receive(next('r1')), b.channel.receive(next('r1'))]);
  // Both applied it from step 1: both at step 2; the kernel keeps the first answer (page_widget.py).
  expect([a.story.index, b.story.index]).toEqual([1, 1]);
  // The echoes cross; each page ends where the kernel's last update left it.
  a.echo(b.updates.at(-1)!);
  b.echo(a.updates.at(-1)!);
  expect([a.story.index, b.story.index]).toEqual([1, 1]);
  // The next request: the pages agree on its base, and it is applied once more, not twice.
  await a.channel.receive(next('r2'));
  b.echo(a.updates.at(-1)!);
  await b.channel.receive(next('r2'));
  expect([a.story.index, b.story.index]).toEqual([2, 2]);
  expect(answers.filter(x => x.result.requestId === 'r2').map(x => x.page)).toEqual(['A']);
});

it('without the applied record, the same order double-steps (what the record prevents)', async () => {
  const answers: { page: string; result: KernelResult }[] = [];
  const a = page('A', answers, false);
  const b = page('B', answers, false);
  await a.channel.receive(next('r1'));
  b.echo(a.updates.at(-1)!);
  await b.channel.receive(next('r1'));
  expect(b.story.index).toBe(2);
});

it('remembers a bounded number of request ids, oldest forgotten first', () => {
  const attrs = new SyncedAttributes();
  const applied = new AppliedRequests(attrs);
  for (let i = 0; i < APPLIED_REQUESTS_MEMORY + 3; i++) {
    expect(applied.claim(`r${i}`)).toBe(true);
  }
  const synced = attrs.get(APPLIED_REQUESTS_ATTR) as string[];
  expect(synced).toHaveLength(APPLIED_REQUESTS_MEMORY);
  expect(synced[0]).toBe('r3');
  expect(applied.claim('r10')).toBe(false);
  // Ids another page recorded are taken in, and kept when a later update no longer lists them.
  attrs.set(APPLIED_REQUESTS_ATTR, ['other']);
  attrs.set(APPLIED_REQUESTS_ATTR, []);
  expect(applied.has('other')).toBe(true);
});

it('hands a custom message to the channel after the state updates that arrived before it', async () => {
  const order: string[] = [];
  let updated = () => undefined as void;
  const handlers: ((msg: unknown) => void)[] = [];
  const model = {
    state_change: new Promise<void>(resolve => (updated = resolve)).then(() => void order.push('update applied')),
    on: (_event: 'msg:custom', callback: (msg: unknown) => void) => handlers.push(callback)
  };
  const channel = { receive: async () => void order.push('request read') } as unknown as KernelChannel;
  listenToKernel(model, channel);
  handlers[0](next('r1'));
  await Promise.resolve();
  expect(order).toEqual([]);
  updated();
  await model.state_change;
  await new Promise(resolve => setTimeout(resolve, 0));
  expect(order).toEqual(['update applied', 'request read']);
});

it("sends what this page changed with today's values, not a value another page's update has replaced since", () => {
  // ipywidgets' running diff still holds `ready: false` from the step change; the other page's
  // echoed update set `ready: true` meanwhile, and this page drew the step (no change left to record).
  const attrs: Record<string, unknown> = { index: 1, ready: true };
  const sent: Record<string, unknown>[] = [];
  const model = {
    _buffered_state_diff: { index: 1, ready: false } as Record<string, unknown>,
    get: (name: string) => attrs[name],
    save_changes() {
      sent.push({ ...model._buffered_state_diff });
    }
  };
  saveCurrentState(model);
  expect(sent).toEqual([{ index: 1, ready: true }]);
});
