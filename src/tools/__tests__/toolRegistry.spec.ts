/**
 * Page tools are contract entries plus handler modules: a tool declared only
 * here, through `toolSpec` and `defineWidgetTool` / `defineTool`, is validated,
 * routed, queued, revision-checked and replayed by the Dispatcher without any
 * change to it.
 */
import { z } from 'zod';
import { LIMITS, TOOLS, toolSpec, type ToolSpec } from '../../contract';
import { WidgetRegistry } from '../../dispatcher/registry';
import { expectFailure as failure } from '../../__tests__/expectFailure';
import { MemoryStory, gate, metas } from '../../__tests__/memoryStory';
import { PAGE_TOOLS, pageDispatcher } from '..';
import { defineTool, defineWidgetTool } from '../../dispatcher/pageTool';

// ----------------------------------------------------------------- the contract of two new tools
const STORY_BUMP_TOOL = toolSpec({
  name: 'story_bump',
  description: 'Advance a Story revision without moving it (test tool).',
  runs: 'page',
  input: z
    .object({
      pageId: z.string().optional(),
      target: z.string().optional(),
      note: z.string().min(1).max(20),
      expectedRevision: z.number().int().min(0).optional(),
      actionId: z.string().min(1).optional()
    })
    .strict(),
  output: z.object({ target: z.string(), revision: z.number().int(), note: z.string() }),
  annotations: { title: 'Bump', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  target: 'story',
  mutating: true,
  errors: ['NOT_FOUND', 'STALE_TARGET', 'REVISION_CONFLICT']
});

const COUNT_TOOL = toolSpec({
  name: 'count_widgets',
  description: 'How many widgets the page has (test tool).',
  runs: 'page',
  input: z.object({ pageId: z.string().optional() }).strict(),
  output: z.object({ widgets: z.number().int(), budget: z.number().int() }),
  annotations: { title: 'Count', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  target: null,
  mutating: false,
  errors: []
});

// ----------------------------------------------------------------- their handlers
const storyBump = defineWidgetTool(STORY_BUMP_TOOL, async ({ args, target, source }) => {
  // args.note is a string and target a StoryTarget, typed from the contract entry.
  const entry = await target.applyChange({}, source, `bump: ${args.note}`);
  return {
    output: { target: target.targetId, revision: entry.revision, note: args.note },
    text: `bumped ${target.targetId}`,
    changes: [entry],
    summary: `bump: ${args.note}`
  };
});

const countWidgets = defineTool(COUNT_TOOL, ({ registry }) => ({
  output: { widgets: registry.size, budget: LIMITS.observeOutputBytes },
  text: `${registry.size} widget(s)`
}));

function setup() {
  const registry = new WidgetRegistry();
  const story = new MemoryStory('m1', metas(['a', 'b', 'c']));
  registry.register(story);
  const dispatcher = pageDispatcher(registry, {
    contract: [...TOOLS, STORY_BUMP_TOOL, COUNT_TOOL],
    handlers: [...PAGE_TOOLS, storyBump, countWidgets]
  });
  return { registry, story, dispatcher };
}

it('dispatches a new widget tool with typed, validated arguments and output', async () => {
  const { dispatcher, story } = setup();
  const r = await dispatcher.execute('story_bump', { note: 'hi' }, { source: 'agent' });
  expect(r).toEqual({ structuredContent: { target: 'm1', revision: 1, note: 'hi' }, text: 'bumped m1' });
  expect(story.log).toEqual([{ revision: 1, source: 'agent', summary: 'bump: hi' }]);
  expect(dispatcher.lastAction).toMatchObject({ tool: 'story_bump', target: 'm1', revision: 1, summary: 'bump: hi' });
  const e = await failure(dispatcher.execute('story_bump', { note: '' }, { source: 'agent' }));
  expect([e.code, e.where]).toEqual(['INVALID_INPUT', '/note']);
  const unknown = await failure(dispatcher.execute('story_bump', { note: 'x', target: 'nope' }, { source: 'agent' }));
  expect([unknown.code, unknown.where]).toEqual(['NOT_FOUND', '/target']);
});

it('gives a new mutating tool actionId replay, expectedRevision and the per-target queue', async () => {
  const { dispatcher, story } = setup();
  await dispatcher.execute('story_bump', { note: 'a', actionId: 'k' }, { source: 'agent' });
  const replay = await dispatcher.execute('story_bump', { note: 'a', actionId: 'k' }, { source: 'agent' });
  expect(replay.structuredContent).toMatchObject({ revision: 1, replayed: true });
  expect(story.revision).toBe(1);
  const conflict = await failure(dispatcher.execute('story_bump', { note: 'b', expectedRevision: 0 }, { source: 'agent' }));
  expect(conflict.code).toBe('REVISION_CONFLICT');
  expect(conflict.details.changes).toEqual([{ revision: 1, source: 'agent', summary: 'bump: a' }]);
  // One queue per target across tools: a story_control waits for a bump being drawn.
  const drawing = gate();
  story.drawing = drawing.promise;
  const bump = dispatcher.execute('story_bump', { note: 'c' }, { source: 'agent' });
  const step = dispatcher.execute('story_control', { action: 'next', expectedRevision: 2 }, { source: 'kernel' });
  await new Promise<void>(resolve => setImmediate(resolve));
  expect(story.applied).toHaveLength(2);
  drawing.open();
  await bump;
  expect((await step).structuredContent).toMatchObject({ story: { revision: 3, index: 1 } });
});

it('dispatches a new tool without a target', async () => {
  const { dispatcher } = setup();
  const r = await dispatcher.execute('count_widgets', {}, { source: 'agent' });
  expect(r.structuredContent).toEqual({ widgets: 1, budget: 8192 });
  const e = await failure(dispatcher.execute('nope', {}, { source: 'agent' }));
  const pageTools = TOOLS.filter(t => t.runs === 'page').map(t => t.name);
  expect(e.fix).toBe(`Use one of: ${[...pageTools, 'story_bump', 'count_widgets'].join(', ')}.`);
});

it('reports a page tool of the contract that has no handler as INTERNAL', async () => {
  const registry = new WidgetRegistry();
  const dispatcher = pageDispatcher(registry, { contract: [...TOOLS, COUNT_TOOL], handlers: PAGE_TOOLS });
  const e = await failure(dispatcher.execute('count_widgets', {}, { source: 'agent' }));
  expect(e.code).toBe('INTERNAL');
});

it('has a handler for every page tool of the contract and none for another', () => {
  const pageTools = TOOLS.filter(t => t.runs === 'page').map(t => t.name);
  expect(PAGE_TOOLS.map(h => h.spec.name).sort()).toEqual([...pageTools].sort());
  for (const handler of PAGE_TOOLS) {
    const spec: ToolSpec | undefined = TOOLS.find(t => t.name === handler.spec.name);
    expect(handler.spec).toBe(spec);
  }
});

// ----------------------------------------------------------------- a tool that waits for the person
const ASK_TOOL = toolSpec({
  name: 'story_ask',
  description: 'Ask the person; pending until answered (test tool).',
  runs: 'page',
  input: z.object({ pageId: z.string().optional(), target: z.string().optional(), actionId: z.string().min(1).optional() }).strict(),
  output: z.object({ status: z.enum(['done', 'pending']), answer: z.string().nullable(), replayed: z.boolean().optional() }),
  annotations: { title: 'Ask', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  target: 'story',
  mutating: true,
  errors: []
});

it('lets a waiting handler settle after the target queue is released; a pending answer is not replayed', async () => {
  const registry = new WidgetRegistry();
  const story = new MemoryStory('m1', metas(['a', 'b']));
  registry.register(story);
  let answer: string | null = null;
  const answered = gate();
  let asked = 0;
  let wait = true;
  const ask = defineWidgetTool(ASK_TOOL, async () => {
    asked++;
    const now = () => ({
      output: { status: answer === null ? ('pending' as const) : ('done' as const), answer },
      text: answer ?? 'pending'
    });
    return answer === null && wait ? { ...now(), settle: async () => (await answered.promise, now()) } : now();
  });
  const dispatcher = pageDispatcher(registry, { contract: [...TOOLS, ASK_TOOL], handlers: [...PAGE_TOOLS, ask] });
  const waiting = dispatcher.execute('story_ask', { actionId: 'q' }, { source: 'agent' });
  // While it waits, the same Story's queue runs other calls (the person's own edits go on).
  const step = await dispatcher.execute('story_control', { action: 'next' }, { source: 'ui' });
  expect(step.structuredContent).toMatchObject({ story: { index: 1 } });
  answer = 'yes';
  answered.open();
  expect((await waiting).structuredContent).toEqual({ status: 'done', answer: 'yes' });
  // The first answer of 'q' was final (done): remembered.
  expect((await dispatcher.execute('story_ask', { actionId: 'q' }, { source: 'agent' })).structuredContent).toMatchObject({
    replayed: true
  });
  expect(asked).toBe(1);
  // A pending answer is not remembered: the retry asks again.
  answer = null;
  wait = false;
  expect((await dispatcher.execute('story_ask', { actionId: 'p' }, { source: 'agent' })).structuredContent).toEqual({
    status: 'pending',
    answer: null
  });
  expect((await dispatcher.execute('story_ask', { actionId: 'p' }, { source: 'agent' })).structuredContent).toEqual({
    status: 'pending',
    answer: null
  });
  expect(asked).toBe(3);
});

it('tells an agent on an empty page which tools open widgets (MCP only: no notebook cell)', async () => {
  const dispatcher = pageDispatcher(new WidgetRegistry());
  const r = await dispatcher.execute('observe', {}, { source: 'agent' });
  expect(r.structuredContent).toMatchObject({ widgets: [], total: 0 });
  for (const tool of ['open', 'render_panel', 'ketcher_open', 'story_template_create']) {
    expect(r.text).toContain(tool);
  }
  expect(r.text).not.toMatch(/cell/);
  const e = await failure(dispatcher.execute('viewer_observe', {}, { source: 'agent' }));
  expect([e.code, e.fix]).toEqual(['NOT_FOUND', expect.stringContaining('open with path or pdbId')]);
});
