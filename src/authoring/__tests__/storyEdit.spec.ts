/**
 * story_edit through the Dispatcher on an in-memory Story (the real
 * StoryModel, Mol* and kernel are in ui-tests/tests/authoring.spec.ts).
 */
import { MolspaceError } from '../../contract';
import { WidgetRegistry } from '../../dispatcher/registry';
import { expectFailure as failure } from '../../__tests__/expectFailure';
import { MemoryStory } from '../../__tests__/memoryStory';
import { parseStory } from '../../molstar/storySource';
import { pageDispatcher } from '../../tools';
import { APPLIED_ACTIONS_ATTR, APPLIED_ACTIONS_MEMORY, AppliedRequests } from '../../kernel/appliedRequests';
import { SyncedAttributes } from '../../__tests__/syncedAttributes';

const root = { kind: 'root', children: [{ kind: 'canvas', params: { background_color: 'white' } }] };
const snap = (key: string) => ({ root, metadata: { key, title: key.toUpperCase(), linger_duration_ms: 1000 } });
const MVSJ = JSON.stringify({
  kind: 'multiple',
  metadata: { version: '1', timestamp: 't', title: 'T' },
  snapshots: ['a', 'b', 'c'].map(snap)
});

async function setup() {
  const registry = new WidgetRegistry();
  const parsed = await parseStory({ mvsj: MVSJ });
  const story = new MemoryStory('m1', parsed.snapshots);
  story.parsedStory = parsed;
  registry.register(story);
  return { story, dispatcher: pageDispatcher(registry) };
}

describe('story_edit', () => {
  it("a retry of an edit that reached the kernel unanswered (the page reloaded) is replayed from the Story's synced record, not applied again", async () => {
    const { story, dispatcher } = await setup();
    const attrs = new SyncedAttributes();
    Object.assign(story, { appliedActions: new AppliedRequests(attrs, APPLIED_ACTIONS_ATTR, APPLIED_ACTIONS_MEMORY) });
    const args = { edit: 'insert', key: 'c', step: { key: 'd', title: 'D', root }, actionId: 'e1' };
    const first = await dispatcher.execute('story_edit', args, { source: 'agent' });
    expect(first.structuredContent).toMatchObject({ replayed: false, story: { revision: 1 } });
    expect(attrs.get(APPLIED_ACTIONS_ATTR)).toEqual(['story_edit:e1']);
    // The reloaded page: a new Dispatcher (no replay memory of its own) on the Story as the kernel has it.
    const registry = new WidgetRegistry();
    registry.register(story);
    const retry = await pageDispatcher(registry).execute('story_edit', args, { source: 'agent' });
    expect(retry.structuredContent).toMatchObject({
      replayed: true,
      changes: [],
      previousRevision: 1,
      story: { revision: 1 },
      steps: ['a', 'b', 'c', 'd'].map((key, index) => ({ index, key }))
    });
    expect(retry.text).toMatch(/replayed actionId e1: not applied again/);
    expect(story.replaced).toHaveLength(1);
  });

  it('replaces a step by key and shows it, advancing the revision once', async () => {
    const { story, dispatcher } = await setup();
    const r = await dispatcher.execute(
      'story_edit',
      { edit: 'replace', key: 'b', step: { key: 'b', title: 'New B', description: 'changed', root }, expectedRevision: 0 },
      { source: 'agent' }
    );
    expect(r.structuredContent).toMatchObject({ previousRevision: 0, story: { revision: 1, index: 1, key: 'b' }, replayed: false });
    expect(story.metas.map(m => m.title)).toEqual(['A', 'New B', 'C']);
    expect(story.replaced).toHaveLength(1);
    expect(dispatcher.lastAction).toMatchObject({ tool: 'story_edit', target: 'm1', summary: 'replace step 2 ("b")' });
  });

  it('inserts after a key, or at the end without one', async () => {
    const { story, dispatcher } = await setup();
    await dispatcher.execute(
      'story_edit',
      { edit: 'insert', key: 'a', step: { key: 'a2', title: 'A2', description: '', root } },
      { source: 'agent' }
    );
    await dispatcher.execute('story_edit', { edit: 'insert', step: { key: 'z', title: 'Z', description: '', root } }, { source: 'kernel' });
    expect(story.metas.map(m => m.key)).toEqual(['a', 'a2', 'b', 'c', 'z']);
    expect(story.index).toBe(4);
    expect(story.revision).toBe(2);
  });

  it('refuses an invalid step with every issue, located in /step, and changes nothing', async () => {
    const { story, dispatcher } = await setup();
    const e = await failure(
      dispatcher.execute(
        'story_edit',
        { edit: 'insert', step: { key: 'a', root: { kind: 'root', children: [{ kind: 'teleport' }] } } },
        { source: 'agent' }
      )
    );
    expect(e).toBeInstanceOf(MolspaceError);
    expect(e.code).toBe('VALIDATION_FAILED');
    expect(e.where).toBe('/step/key');
    const issues = (e.details as { issues: { snapshotIndex: number; path: string; message: string }[] }).issues;
    expect(issues.map(i => [i.snapshotIndex, i.path])).toEqual([
      [3, 'metadata/key'],
      [3, 'root/children/0']
    ]);
    expect(issues[0].message).toMatch(/Duplicate snapshot key "a"/);
    expect(story.revision).toBe(0);
    expect(story.replaced).toEqual([]);
  });

  it('fails on an unknown key and on a stale revision', async () => {
    const { dispatcher } = await setup();
    const unknown = await failure(
      dispatcher.execute('story_edit', { edit: 'replace', key: 'nope', step: { key: 'x', root } }, { source: 'agent' })
    );
    expect(unknown).toMatchObject({ code: 'NOT_FOUND', where: '/key' });
    expect(unknown.fix).toMatch(/a, b, c/);
    const stale = await failure(
      dispatcher.execute('story_edit', { edit: 'replace', key: 'a', step: { key: 'a', root }, expectedRevision: 7 }, { source: 'agent' })
    );
    expect(stale).toMatchObject({ code: 'REVISION_CONFLICT', where: '/expectedRevision' });
    const noKey = await failure(dispatcher.execute('story_edit', { edit: 'replace', step: { key: 'a', root } }, { source: 'agent' }));
    expect(noKey).toMatchObject({ code: 'INVALID_INPUT', where: '/key' });
  });
});
