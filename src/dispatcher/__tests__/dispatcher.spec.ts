/**
 * Dispatcher semantics with an in-memory Story target (the real StoryModel
 * and Mol* are exercised by the Galata tests on the same path).
 */
import { MolspaceError, SnapshotMeta, TOOLS } from '../../contract';
import { WidgetRegistry } from '../registry';
import { expectFailure as failure } from '../../__tests__/expectFailure';
import { MemoryStory, gate, metas } from '../../__tests__/memoryStory';
import { pageDispatcher } from '../../tools';

/** The contract's page tools, in listing order. */
const PAGE_TOOL_NAMES = TOOLS.filter(t => t.runs === 'page').map(t => t.name);

/** Let every pending promise callback run. */
const flush = () => new Promise<void>(resolve => setImmediate(resolve));

function setup(keys = ['overview', 'site', 'ligand']) {
  const registry = new WidgetRegistry();
  const story = new MemoryStory('m1', metas(keys));
  registry.register(story);
  return { registry, story, dispatcher: pageDispatcher(registry) };
}

describe('records', () => {
  it('names the widget a call without target acted on, and its revision', async () => {
    const { dispatcher } = setup();
    const records: { target: string | null; revision: number | null; answeredBy: string }[] = [];
    dispatcher.executed.connect((_, r) => records.push(r));
    await dispatcher.execute('story_control', { action: 'next' }, { source: 'agent' });
    await dispatcher.execute('story_observe', {}, { source: 'agent' });
    expect(records).toMatchObject([
      { target: 'm1', revision: 1, answeredBy: 'page' },
      { target: 'm1', revision: 1, answeredBy: 'page' }
    ]);
  });

  it('makes lastAction from the record of the last applied change (what the activity panel shows)', async () => {
    const { dispatcher } = setup();
    const records: {
      tool: string;
      target: string | null;
      source: string;
      revision: number | null;
      startedAt: number;
      durationMs: number;
    }[] = [];
    dispatcher.executed.connect((_, r) => records.push(r));
    await dispatcher.execute('story_control', { action: 'next' }, { source: 'kernel' });
    await dispatcher.execute('story_observe', {}, { source: 'agent' }); // a read changes nothing
    await failure(dispatcher.execute('story_control', { action: 'goto', key: 'nope' }, { source: 'agent' })); // nor a refusal
    const [change] = records;
    expect(dispatcher.lastAction).toEqual({
      tool: change.tool,
      target: change.target,
      source: change.source,
      ok: true,
      revision: change.revision,
      summary: expect.any(String),
      at: new Date(change.startedAt + change.durationMs).toISOString()
    });
  });

  it('reports reads the gateway answered from the mirror apart from the calls it ran', () => {
    const { dispatcher, story } = setup();
    const executed: unknown[] = [];
    const served: {
      tool: string;
      source: string;
      client: string | null;
      target: string | null;
      revision: number | null;
      answeredBy: string;
    }[] = [];
    dispatcher.executed.connect((_, r) => executed.push(r));
    dispatcher.served.connect((_, r) => served.push(r));
    story.revision = 7;
    const client = { name: 'claude-code', version: '2' };
    dispatcher.noteServed([
      { tool: 'story_observe', args: {}, client, startedAt: 5, durationMs: 0.3 },
      { tool: 'observe', args: { pageId: 'p' }, client: null, startedAt: 6, durationMs: 0.1 }
    ]);
    expect(executed).toEqual([]);
    expect(served).toMatchObject([
      {
        tool: 'story_observe',
        source: 'agent',
        client: 'claude-code',
        target: 'm1',
        revision: 7,
        ok: true,
        answeredBy: 'mirror',
        startedAt: 5
      },
      { tool: 'observe', source: 'agent', client: null, target: null, revision: null, answeredBy: 'mirror' }
    ]);
  });
});

describe('story_control', () => {
  it('steps next, previous and goto by index, key and snapshotId, advancing the revision', async () => {
    const { dispatcher, story } = setup();
    let r = await dispatcher.execute('story_control', { action: 'next' }, { source: 'agent' });
    expect(r.structuredContent).toMatchObject({ changed: true, previousRevision: 0, story: { index: 1, key: 'site', revision: 1 } });
    r = await dispatcher.execute('story_control', { action: 'goto', key: 'ligand' }, { source: 'kernel' });
    expect(story.index).toBe(2);
    r = await dispatcher.execute('story_control', { action: 'goto', index: 0 }, { source: 'ui' });
    expect(story.index).toBe(0);
    r = await dispatcher.execute('story_control', { action: 'goto', snapshotId: 'site' }, { source: 'agent' });
    expect(r.structuredContent).toMatchObject({ story: { index: 1, revision: 4 } });
    await dispatcher.execute('story_control', { action: 'previous' }, { source: 'agent' });
    expect(story.log.map(c => c.source)).toEqual(['agent', 'kernel', 'ui', 'agent', 'agent']);
    expect(dispatcher.lastAction).toMatchObject({ tool: 'story_control', target: 'm1', ok: true, revision: 5 });
  });

  it('leaves the Story as it is at either end and says so, without a new revision', async () => {
    const { dispatcher, story } = setup();
    const r = await dispatcher.execute('story_control', { action: 'previous' }, { source: 'agent' });
    expect(r.structuredContent).toMatchObject({ changed: false, story: { revision: 0, index: 0 } });
    expect(r.text).toMatch(/already at the first step/);
    story.index = 2;
    const r2 = await dispatcher.execute('story_control', { action: 'next' }, { source: 'agent' });
    expect(r2.structuredContent).toMatchObject({ changed: false });
  });

  it('plays from the start at the last step, and pauses', async () => {
    const { dispatcher, story } = setup();
    story.index = 2;
    await dispatcher.execute('story_control', { action: 'play' }, { source: 'agent' });
    expect(story.state()).toMatchObject({ playing: true, index: 0 });
    await dispatcher.execute('story_control', { action: 'pause' }, { source: 'agent' });
    expect(story.playing).toBe(false);
  });

  it('refuses a stale expectedRevision with both revisions and what changed', async () => {
    const { dispatcher } = setup();
    await dispatcher.execute('story_control', { action: 'next' }, { source: 'kernel' });
    const e = await failure(dispatcher.execute('story_control', { action: 'next', expectedRevision: 0 }, { source: 'agent' }));
    expect(e.code).toBe('REVISION_CONFLICT');
    expect(e.where).toBe('/expectedRevision');
    expect(e.details).toMatchObject({ expectedRevision: 0, currentRevision: 1, changes: [{ revision: 1, source: 'kernel' }] });
    expect(e.fix).toMatch(/expectedRevision 1/);
  });

  it('applies a retried actionId once and replays its result', async () => {
    const { dispatcher, story } = setup();
    const a = await dispatcher.execute('story_control', { action: 'next', actionId: 'x1' }, { source: 'agent' });
    const b = await dispatcher.execute('story_control', { action: 'next', actionId: 'x1' }, { source: 'agent' });
    expect(story.applied).toHaveLength(1);
    expect(b.structuredContent).toMatchObject({ ...a.structuredContent, replayed: true });
  });

  it('replays the answer as it was, kept apart from the objects the first caller holds', async () => {
    // The record keeps each result as JSON text (an act result carries the whole view): a retry
    // gets what was answered then, not what the first caller's objects became since.
    const { dispatcher } = setup();
    const a = await dispatcher.execute('story_control', { action: 'next', actionId: 'x2' }, { source: 'agent' });
    const answered = JSON.parse(JSON.stringify(a.structuredContent));
    (a.structuredContent.story as Record<string, unknown>).title = 'changed by the first caller';
    const b = await dispatcher.execute('story_control', { action: 'next', actionId: 'x2' }, { source: 'agent' });
    expect(b.structuredContent).toEqual({ ...answered, replayed: true });
  });

  it('answers a change only once its target has sent it to the kernel; a refusal at once', async () => {
    // ipywidgets may hold a state update while an earlier one is unacknowledged: an answer given
    // before it leaves is lost with a reload, though the gateway replays it as applied.
    const { dispatcher, story } = setup();
    const sent = gate();
    let asked = 0;
    Object.assign(story, { whenSent: () => (asked++, sent.promise) });
    let answered = false;
    const next = dispatcher.execute('story_control', { action: 'next' }, { source: 'agent' }).then(r => ((answered = true), r));
    await flush();
    expect(story.revision).toBe(1); // applied
    expect(asked).toBe(1);
    expect(answered).toBe(false); // but not answered while held
    const refused = await failure(dispatcher.execute('story_control', { action: 'goto', key: 'nope' }, { source: 'agent' }));
    expect(refused.code).toBe('NOT_FOUND');
    expect(answered).toBe(false);
    sent.open();
    expect((await next).structuredContent.story).toMatchObject({ revision: 1 });
  });

  it('records each change when it is made, with its revision, while its answer waits for the send', async () => {
    // The record is lastAction and the activity panel: a cell's change shows there at once.
    const { dispatcher, story } = setup();
    const sent = gate();
    Object.assign(story, { whenSent: () => sent.promise });
    const records: { tool: string; revision: number | null; ok: boolean }[] = [];
    dispatcher.executed.connect((_, r) => records.push(r));
    let answered = 0;
    const calls = [1, 2].map(() => dispatcher.execute('story_control', { action: 'next' }, { source: 'kernel' }).then(() => answered++));
    await flush();
    expect(story.revision).toBe(2); // both applied, neither answered
    expect(answered).toBe(0);
    expect(records.map(r => r.revision)).toEqual([1, 2]);
    expect(dispatcher.lastAction).toMatchObject({ tool: 'story_control', source: 'kernel', revision: 2 });
    sent.open();
    await Promise.all(calls);
    expect(answered).toBe(2);
  });

  it('forgets a failed actionId so the retry can apply', async () => {
    const { dispatcher, story } = setup();
    story.failNext = new MolspaceError('NOT_FOUND', 'could not load x', '/snapshots/1', 'check url');
    const e = await failure(dispatcher.execute('story_control', { action: 'next', actionId: 'y' }, { source: 'agent' }));
    expect(e.code).toBe('NOT_FOUND');
    await dispatcher.execute('story_control', { action: 'next', actionId: 'y' }, { source: 'agent' });
    expect(story.applied).toHaveLength(2);
  });

  it('serialises concurrent calls on one target: both apply in order, each with its own revision', async () => {
    const { dispatcher, story } = setup(['a', 'b', 'c', 'd']);
    const drawing = gate();
    story.drawing = drawing.promise;
    const both = Promise.all([
      dispatcher.execute('story_control', { action: 'next', expectedRevision: 0 }, { source: 'kernel' }),
      dispatcher.execute('story_control', { action: 'next' }, { source: 'agent' })
    ]);
    await flush();
    // The second call waits while the first one's step is being drawn.
    expect(story.applied).toHaveLength(1);
    drawing.open();
    const [x, y] = await both;
    expect(x.structuredContent).toMatchObject({ story: { revision: 1, index: 1 } });
    expect(y.structuredContent).toMatchObject({ story: { revision: 2, index: 2 } });
    // The same race with a revision guard on the second call is refused, not lost.
    const [, z] = await Promise.allSettled([
      dispatcher.execute('story_control', { action: 'next', expectedRevision: 2 }, { source: 'kernel' }),
      dispatcher.execute('story_control', { action: 'previous', expectedRevision: 2 }, { source: 'agent' })
    ]);
    expect(z.status).toBe('rejected');
    expect((z as PromiseRejectedResult).reason.code).toBe('REVISION_CONFLICT');
    expect(story.index).toBe(3);
  });

  it('does not apply a call whose turn comes after its deadline: TIMEOUT, revision unchanged', async () => {
    const { dispatcher, story } = setup(['a', 'b', 'c']);
    const drawing = gate();
    story.drawing = drawing.promise;
    const first = dispatcher.execute('story_control', { action: 'next' }, { source: 'kernel' });
    const late = failure(
      // The gateway stopped waiting (its deadline is past) while the call queued behind the first one's drawing.
      dispatcher.execute('story_control', { action: 'next' }, { source: 'agent', deadline: Date.now() - 1 })
    );
    await flush();
    drawing.open();
    await first;
    const error = await late;
    expect(error).toMatchObject({ code: 'TIMEOUT', details: { tool: 'story_control' } });
    expect(error.fix).toMatch(/observe/);
    expect(story.applied).toHaveLength(1);
    expect(story.state().revision).toBe(1);
    // Within its deadline a call applies as usual.
    await dispatcher.execute('story_control', { action: 'next' }, { source: 'agent', deadline: Date.now() + 60_000 });
    expect(story.state().revision).toBe(2);
  });

  it('locates bad goto arguments', async () => {
    const { dispatcher } = setup();
    let e = await failure(dispatcher.execute('story_control', { action: 'goto', index: 9 }, { source: 'agent' }));
    expect([e.code, e.where]).toEqual(['INVALID_INPUT', '/index']);
    expect(e.fix).toMatch(/0 to 2/);
    e = await failure(dispatcher.execute('story_control', { action: 'goto', key: 'nope' }, { source: 'agent' }));
    expect([e.code, e.where]).toEqual(['NOT_FOUND', '/key']);
    expect(e.details.keys).toEqual(['overview', 'site', 'ligand']);
    e = await failure(dispatcher.execute('story_control', { action: 'goto', snapshotId: 'nope' }, { source: 'agent' }));
    expect(e.where).toBe('/snapshotId');
    e = await failure(dispatcher.execute('story_control', { action: 'goto' }, { source: 'agent' }));
    expect([e.code, e.where]).toEqual(['INVALID_INPUT', '/index']);
  });

  it('reports an unknown or removed target', async () => {
    const { dispatcher, registry, story } = setup();
    let e = await failure(dispatcher.execute('story_control', { action: 'next', target: 'zz' }, { source: 'agent' }));
    expect([e.code, e.where]).toEqual(['NOT_FOUND', '/target']);
    expect(e.details.known).toEqual(['m1']);
    registry.unregister(story.targetId);
    e = await failure(dispatcher.execute('story_control', { action: 'next' }, { source: 'agent' }));
    expect(e.code).toBe('NOT_FOUND');
    expect(e.fix).toMatch(/story_template_create/); // an agent with MCP only can follow it
  });

  it('refuses unknown tools and tools the gateway answers, listing the page tools of the contract', async () => {
    const { dispatcher } = setup();
    for (const tool of ['status', 'launch_rockets']) {
      const e = await failure(dispatcher.execute(tool, {}, { source: 'agent' }));
      expect(e.code).toBe('NOT_FOUND');
      expect(e.fix).toBe(`Use one of: ${PAGE_TOOL_NAMES.join(', ')}.`);
    }
  });
});

describe('STALE_TARGET', () => {
  it('refuses a queued call whose Story was removed while an earlier call was drawing', async () => {
    const { dispatcher, registry, story } = setup();
    const drawing = gate();
    story.drawing = drawing.promise;
    const first = dispatcher.execute('story_control', { action: 'next' }, { source: 'agent' });
    const queued = dispatcher.execute('story_control', { action: 'goto', key: 'ligand', target: 'm1' }, { source: 'kernel' });
    await flush();
    registry.unregister('m1');
    drawing.open();
    await first;
    const e = await failure(queued);
    expect([e.code, e.where]).toEqual(['STALE_TARGET', '/target']);
    expect(e.details).toEqual({ target: 'm1' });
    expect(e.fix).toMatch(/observe/);
    expect(story.applied).toHaveLength(1);
  });

  it('refuses a call whose Story was removed while it was loading', async () => {
    const { dispatcher, registry, story } = setup();
    const loading = gate();
    story.loaded = loading.promise;
    const call = dispatcher.execute('story_control', { action: 'next', target: 'm1' }, { source: 'agent' });
    await flush();
    registry.unregister('m1');
    loading.open();
    const e = await failure(call);
    expect(e.code).toBe('STALE_TARGET');
    expect(story.applied).toHaveLength(0);
  });

  it('does not take a new widget with the same id for the removed one', async () => {
    const { dispatcher, registry, story } = setup();
    const loading = gate();
    story.loaded = loading.promise;
    const call = dispatcher.execute('story_control', { action: 'next', target: 'm1' }, { source: 'agent' });
    await flush();
    registry.unregister('m1');
    const successor = new MemoryStory('m1', metas(['x', 'y']));
    registry.register(successor);
    loading.open();
    expect((await failure(call)).code).toBe('STALE_TARGET');
    expect(successor.applied).toHaveLength(0);
  });

  it('says why when the widget was retired while the call waited (a kernel restart)', async () => {
    const { dispatcher, registry, story } = setup();
    const drawing = gate();
    story.drawing = drawing.promise;
    const first = dispatcher.execute('story_control', { action: 'next' }, { source: 'agent' });
    const queued = dispatcher.execute('story_control', { action: 'next', target: 'm1' }, { source: 'agent' });
    await flush();
    registry.retire('m1', 'its kernel restarted');
    drawing.open();
    await first;
    const e = await failure(queued);
    expect([e.code, e.where]).toEqual(['STALE_TARGET', '/target']);
    expect(e.message).toMatch(/was removed before the call ran: its kernel restarted\.$/);
    expect(e.details).toEqual({ target: 'm1', reason: 'its kernel restarted' });
    expect(story.applied).toHaveLength(1);
  });
});

describe('retired widgets', () => {
  it('a call naming a widget that left the page gets STALE_TARGET with why, until it is shown again', async () => {
    const { dispatcher, registry, story } = setup();
    registry.retire('m1', 'its cell was re-run');
    const [listed] = [(await dispatcher.execute('observe', {}, { source: 'agent' })).structuredContent];
    expect(listed.widgets).toEqual([]);
    const e = await failure(dispatcher.execute('story_control', { action: 'next', target: 'm1' }, { source: 'agent' }));
    expect([e.code, e.where]).toEqual(['STALE_TARGET', '/target']);
    expect(e.message).toContain('its cell was re-run');
    expect(e.details).toMatchObject({ target: 'm1', reason: 'its cell was re-run', live: [] });
    expect(e.fix).toMatch(/observe/);
    // An id the page never had is still NOT_FOUND.
    expect((await failure(dispatcher.execute('story_control', { action: 'next', target: 'nope' }, { source: 'agent' }))).code).toBe(
      'NOT_FOUND'
    );
    registry.register(story);
    await dispatcher.execute('story_control', { action: 'next', target: 'm1' }, { source: 'agent' });
    expect(story.applied).toHaveLength(1);
  });
});

describe('targets', () => {
  it('defaults to the most recently used Story', async () => {
    const { dispatcher, registry, story } = setup();
    const other = new MemoryStory('m2', metas(['a', 'b']));
    registry.register(other);
    await dispatcher.execute('story_control', { action: 'next' }, { source: 'agent' });
    expect([story.index, other.index]).toEqual([1, 0]);
    registry.touch('m2');
    await dispatcher.execute('story_control', { action: 'next' }, { source: 'agent' });
    expect([story.index, other.index]).toEqual([1, 1]);
    registry.unregister('m2');
    expect(registry.active?.targetId).toBe('m1');
  });

  it('keeps a change log per target for REVISION_CONFLICT and forgets a removed target', async () => {
    const { dispatcher, registry, story } = setup();
    const other = new MemoryStory('m2', metas(['a', 'b']));
    registry.register(other);
    await dispatcher.execute('story_control', { action: 'next', target: 'm2' }, { source: 'ui' });
    await dispatcher.execute('story_control', { action: 'next', target: 'm1' }, { source: 'kernel' });
    const e = await failure(
      dispatcher.execute('story_control', { action: 'next', target: 'm1', expectedRevision: 0 }, { source: 'agent' })
    );
    expect(e.details.changes).toEqual([{ revision: 1, source: 'kernel', summary: 'next: step 2 of 3 ("site")' }]);
    registry.unregister('m1');
    registry.register(story);
    const again = await failure(
      dispatcher.execute('story_control', { action: 'next', target: 'm1', expectedRevision: 0 }, { source: 'agent' })
    );
    expect(again.details.changes).toEqual([]);
  });
});

it('waits for a Story that is still loading instead of failing', async () => {
  const { dispatcher, story } = setup();
  const loading = gate();
  story.loaded = loading.promise;
  const call = dispatcher.execute('story_control', { action: 'goto', key: 'ligand' }, { source: 'kernel' });
  await flush();
  expect(story.applied).toHaveLength(0);
  loading.open();
  await call;
  expect(story.index).toBe(2);
});

describe('observe and story_observe', () => {
  it('lists widgets with bounded pages and cursors', async () => {
    const registry = new WidgetRegistry();
    for (let i = 0; i < 5; i++) registry.register(new MemoryStory(`w${i}`, metas(['a', 'b'])));
    const dispatcher = pageDispatcher(registry);
    const ctx = { pageId: 'p1', pages: [{ pageId: 'p1', focused: true, connectedAt: 'x', lastFocusAt: 'y', widgets: 5 }] };
    const a = await dispatcher.execute('observe', { limit: 2 }, { source: 'agent', context: ctx });
    expect(a.structuredContent).toMatchObject({ pageId: 'p1', total: 5, nextCursor: '2', pages: ctx.pages });
    expect((a.structuredContent.widgets as { id: string }[]).map(w => w.id)).toEqual(['w0', 'w1']);
    const b = await dispatcher.execute('observe', { limit: 10, cursor: '2' }, { source: 'agent', context: ctx });
    expect(b.structuredContent).toMatchObject({ nextCursor: null });
    expect((b.structuredContent.widgets as unknown[]).length).toBe(3);
    const e = await failure(dispatcher.execute('observe', { cursor: 'banana' }, { source: 'agent' }));
    expect([e.code, e.where]).toEqual(['INVALID_INPUT', '/cursor']);
  });

  it('returns the current snapshot and a bounded snapshot page', async () => {
    const { dispatcher } = setup(['a', 'b', 'c', 'd', 'e']);
    const r = await dispatcher.execute('story_observe', { offset: 1, limit: 2 }, { source: 'agent' });
    expect(r.structuredContent).toMatchObject({ current: { key: 'a' }, nextOffset: 3, story: { count: 5 } });
    expect((r.structuredContent.snapshots as SnapshotMeta[]).map(s => s.key)).toEqual(['b', 'c']);
  });
});

describe('executed records', () => {
  it('reports every call, successful or refused, with its source, client, target and revision', async () => {
    const { dispatcher } = setup();
    const records: unknown[] = [];
    dispatcher.executed.connect((_, r) => records.push(r));
    const context = { pageId: 'p', pages: [], client: { name: 'claude-code', version: '2.1' } };
    await dispatcher.execute('story_control', { target: 'm1', action: 'next' }, { source: 'agent', context });
    const conflict = await failure(
      dispatcher.execute('story_control', { target: 'm1', action: 'next', expectedRevision: 0 }, { source: 'kernel' })
    );
    expect(conflict.code).toBe('REVISION_CONFLICT');
    expect((await failure(dispatcher.execute('no_such_tool', {}, { source: 'ui' }))).code).toBe('NOT_FOUND');
    expect(records).toMatchObject([
      { tool: 'story_control', source: 'agent', client: 'claude-code', target: 'm1', ok: true, revision: 1, errorCode: null },
      { tool: 'story_control', source: 'kernel', client: null, target: 'm1', ok: false, revision: 1, errorCode: 'REVISION_CONFLICT' },
      { tool: 'no_such_tool', source: 'ui', target: null, ok: false, errorCode: 'NOT_FOUND' }
    ]);
  });
});
