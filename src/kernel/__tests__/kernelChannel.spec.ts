/**
 * The kernel channel with the real Dispatcher and an in-memory Story: the
 * kernel's `control` messages (as molspace/story/widget.py sends them) run as
 * `kernel` operations on the channel's widget and are answered with the
 * contract's `result` message.
 */
import { KernelResult, MolspaceError } from '../../contract';
import { WidgetRegistry } from '../../dispatcher/registry';
import { MemoryStory, metas } from '../../__tests__/memoryStory';
import { KernelChannel } from '../kernelChannel';
import { pageDispatcher } from '../../tools';

function setup() {
  const registry = new WidgetRegistry();
  const story = new MemoryStory('m1', metas(['overview', 'site', 'ligand']));
  const other = new MemoryStory('m2', metas(['a', 'b']));
  registry.register(other);
  registry.register(story);
  const dispatcher = pageDispatcher(registry);
  const sent: KernelResult[] = [];
  const channel = new KernelChannel({ targetId: 'm1', tool: 'story_control', dispatcher, send: m => sent.push(m) });
  return { story, other, dispatcher, sent, channel };
}

it('runs a control message on its own widget as a kernel operation and answers with structuredContent', async () => {
  const { story, other, sent, channel, dispatcher } = setup();
  await channel.receive({ type: 'control', requestId: 'r1', action: 'goto', key: 'ligand' });
  expect(story.index).toBe(2);
  expect(other.index).toBe(0);
  expect(story.log).toEqual([expect.objectContaining({ source: 'kernel' })]);
  expect(sent).toHaveLength(1);
  expect(KernelResult.safeParse(sent[0]).success).toBe(true);
  expect(sent[0]).toMatchObject({
    type: 'result',
    requestId: 'r1',
    ok: true,
    structuredContent: { changed: true, story: { target: 'm1', index: 2, key: 'ligand', revision: 1 } }
  });
  expect(sent[0].ok && sent[0].text).toMatch(/goto step 3 of 3/);
  expect(dispatcher.lastAction).toMatchObject({ source: 'kernel', target: 'm1' });
});

it('answers a refused control with a located error under the same requestId', async () => {
  const { sent, channel } = setup();
  await channel.receive({ type: 'control', requestId: 'r2', action: 'goto', index: 7 });
  await channel.receive({ type: 'control', requestId: 'r3', action: 'next', expectedRevision: 4 });
  await channel.receive({ type: 'control', requestId: 'r4', action: 'fly' });
  expect(sent.map(m => m.requestId)).toEqual(['r2', 'r3', 'r4']);
  expect(sent.map(m => (m.ok ? null : [m.error.code, m.error.where]))).toEqual([
    ['INVALID_INPUT', '/index'],
    ['REVISION_CONFLICT', '/expectedRevision'],
    ['INVALID_INPUT', '/action']
  ]);
  for (const m of sent) {
    expect(KernelResult.safeParse(m).success).toBe(true);
  }
});

it('cannot be pointed at another widget by the kernel', async () => {
  const { story, other, channel } = setup();
  await channel.receive({ type: 'control', requestId: 'r5', action: 'next', target: 'm2' });
  expect(other.index).toBe(0);
  expect(story.index).toBe(1);
});

it('ignores messages that are not control requests', async () => {
  const { sent, channel } = setup();
  const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  await channel.receive({ type: 'result', requestId: 'x' });
  await channel.receive('next');
  await channel.receive(null);
  await channel.receive({ type: 'control', action: 'next' });
  expect(sent).toEqual([]);
  expect(warn).toHaveBeenCalledTimes(1);
  warn.mockRestore();
});

it('answers a failure inside the Story with its located error', async () => {
  const { story, sent, channel } = setup();
  story.failNext = new MolspaceError(
    'NOT_FOUND',
    'Snapshot 1 could not load x.cif',
    '/snapshots/1/root/children/0/params/url',
    'check the URL'
  );
  await channel.receive({ type: 'control', requestId: 'r6', action: 'next' });
  expect(sent[0]).toMatchObject({
    ok: false,
    requestId: 'r6',
    error: { code: 'NOT_FOUND', where: '/snapshots/1/root/children/0/params/url' }
  });
});

it('runs story_edit when a control message names it (molspace.Story.replace_step), and refuses tools the channel does not run', async () => {
  const { parseStory } = await import('../../molstar/storySource');
  const root = { kind: 'root', children: [{ kind: 'canvas', params: { background_color: 'white' } }] };
  const snap = (key: string) => ({ root, metadata: { key, title: key, linger_duration_ms: 1000 } });
  const parsed = await parseStory({
    mvsj: JSON.stringify({ kind: 'multiple', metadata: { version: '1', timestamp: 't' }, snapshots: ['overview', 'site'].map(snap) })
  });
  const registry = new WidgetRegistry();
  const story = new MemoryStory('m1', parsed.snapshots);
  story.parsedStory = parsed;
  registry.register(story);
  const sent: KernelResult[] = [];
  const channel = new KernelChannel({
    targetId: 'm1',
    tool: 'story_control',
    tools: ['story_edit'],
    dispatcher: pageDispatcher(registry),
    send: m => sent.push(m)
  });
  await channel.receive({
    type: 'control',
    requestId: 'e1',
    tool: 'story_edit',
    edit: 'replace',
    key: 'site',
    step: { key: 'site', title: 'From a cell', root }
  });
  expect(sent[0]).toMatchObject({ requestId: 'e1', ok: true, structuredContent: { story: { index: 1, revision: 1 } } });
  expect(story.metas.map(m => m.title)).toEqual(['overview', 'From a cell']);
  expect(story.log).toEqual([expect.objectContaining({ source: 'kernel', summary: 'replace step 2 ("site")' })]);
  await channel.receive({ type: 'control', requestId: 'e2', tool: 'render_panel', content: {} });
  expect(sent[1]).toMatchObject({ requestId: 'e2', ok: false, error: { code: 'INVALID_INPUT', where: '/tool' } });
  expect(story.revision).toBe(1);
});
