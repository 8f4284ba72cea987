/**
 * An agent's call recorded in the widget's synced state (`_applied_actions`) with the change it
 * made: a page reloaded after its change reached the kernel but before its answer reached the
 * gateway leaves the record behind, and the reloaded page answers the agent's retry as replayed
 * instead of applying it a second time. Each page is a real Dispatcher on an in-memory Story with
 * the real `AppliedRequests`; "the kernel" is the state the first page sent, which the reloaded
 * page starts from.
 */
import { MolspaceError } from '../../contract';
import { MemoryStory, metas } from '../../__tests__/memoryStory';
import { APPLIED_ACTIONS_ATTR, APPLIED_ACTIONS_MEMORY, AppliedRequests } from '../../kernel/appliedRequests';
import { WidgetRegistry } from '../registry';
import { pageDispatcher } from '../../tools';
import { SyncedAttributes } from '../../__tests__/syncedAttributes';

/** What the kernel holds of the Story once a page's update reached it. */
interface KernelState {
  index: number;
  revision: number;
  applied: unknown;
}

/** A page showing the Story, started from the kernel's state (a first load or a reload). */
function page(kernel: KernelState) {
  const registry = new WidgetRegistry();
  const story = new MemoryStory('m1', metas(['a', 'b', 'c', 'd']));
  story.index = kernel.index;
  story.revision = kernel.revision;
  const attrs = new SyncedAttributes();
  attrs.set(APPLIED_ACTIONS_ATTR, kernel.applied);
  Object.assign(story, { appliedActions: new AppliedRequests(attrs, APPLIED_ACTIONS_ATTR, APPLIED_ACTIONS_MEMORY) });
  registry.register(story);
  const dispatcher = pageDispatcher(registry);
  return {
    story,
    call: (args: Record<string, unknown>) => dispatcher.execute('story_control', { target: 'm1', ...args }, { source: 'agent' }),
    /** The state update this page sends now (the change and the record together). */
    sent: (): KernelState => ({ index: story.index, revision: story.revision, applied: attrs.get(APPLIED_ACTIONS_ATTR) })
  };
}

const START: KernelState = { index: 0, revision: 0, applied: [] };

it('a retry of a change that reached the kernel unanswered is replayed by the reloaded page, not applied again', async () => {
  const first = page(START);
  await first.call({ action: 'next', actionId: 'n1' }); // applied and sent; the answer is lost with the page
  const kernel = first.sent();
  expect(kernel).toMatchObject({ index: 1, revision: 1, applied: ['story_control:n1'] });

  const reloaded = page(kernel);
  const retry = await reloaded.call({ action: 'next', actionId: 'n1' });
  expect(retry.structuredContent).toMatchObject({ replayed: true, changed: false, previousRevision: 1, story: { index: 1, revision: 1 } });
  expect(retry.text).toMatch(/replayed actionId n1: not applied again/);
  expect(reloaded.story.revision).toBe(1);

  // A new actionId applies, and its record joins the first.
  const later = await reloaded.call({ action: 'next', actionId: 'n2' });
  expect(later.structuredContent).toMatchObject({ replayed: false, changed: true, story: { index: 2, revision: 2 } });
  expect(reloaded.sent().applied).toEqual(['story_control:n1', 'story_control:n2']);
});

it('a change lost with the page (the kernel never had it) is applied by the retry', async () => {
  const first = page(START);
  await first.call({ action: 'next', actionId: 'n1' });
  const reloaded = page(START); // the update never left the page
  const retry = await reloaded.call({ action: 'next', actionId: 'n1' });
  expect(retry.structuredContent).toMatchObject({ replayed: false, changed: true, story: { index: 1, revision: 1 } });
});

it('a refused call leaves no record: its retry, once valid, applies', async () => {
  const first = page(START);
  const refused = await first.call({ action: 'goto', key: 'nope', actionId: 'g1' }).then(
    () => null,
    (e: unknown) => e
  );
  expect(refused).toBeInstanceOf(MolspaceError);
  expect((refused as MolspaceError).code).toBe('NOT_FOUND');
  expect(first.sent().applied).toEqual([]);
  const reloaded = page(first.sent());
  const retry = await reloaded.call({ action: 'goto', key: 'c', actionId: 'g1' });
  expect(retry.structuredContent).toMatchObject({ replayed: false, changed: true, story: { index: 2 } });
});

it('calls without an actionId keep no record', async () => {
  const first = page(START);
  await first.call({ action: 'next' });
  expect(first.sent().applied).toEqual([]);
});

it('keeps the newest APPLIED_ACTIONS_MEMORY calls', async () => {
  const first = page(START);
  for (let i = 0; i < APPLIED_ACTIONS_MEMORY + 2; i++) {
    await first.call({ action: i % 2 ? 'previous' : 'next', actionId: `c${i}` });
  }
  const kept = first.sent().applied as string[];
  expect(kept).toHaveLength(APPLIED_ACTIONS_MEMORY);
  expect(kept[0]).toBe('story_control:c2');
  expect(kept.at(-1)).toBe(`story_control:c${APPLIED_ACTIONS_MEMORY + 1}`);
});
