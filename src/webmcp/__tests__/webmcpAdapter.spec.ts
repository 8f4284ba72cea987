/**
 * The WebMCP adapter against a fake model context (the real one, in Chromium
 * with WebMCP on, is `ui-tests/tests/activity.spec.ts`): off when the API is
 * absent, read-only hints from the contract, a tool list that follows the
 * widgets, calls through the one Dispatcher as `agent (WebMCP)`, and no other
 * module of molspace aware of WebMCP.
 */
import * as fs from 'fs';
import * as path from 'path';
import { TOOLS } from '../../contract';
import { Dispatcher, type DispatchRecord } from '../../dispatcher/dispatcher';
import { WidgetRegistry } from '../../dispatcher/registry';
import type { IMolspacePage } from '../../tokens';
import { MemoryStory, metas } from '../../__tests__/memoryStory';
import { findModelContext, startWebMcp } from '../webmcpAdapter';
import { pageDispatcher } from '../../tools';

type Registered = { name: string; annotations: { readOnlyHint: boolean }; execute(input: object): Promise<object> };

class FakeModelContext {
  readonly tools = new Map<string, Registered>();
  registerTool(tool: Registered, options?: { signal?: AbortSignal }): void {
    this.tools.set(tool.name, tool);
    options?.signal?.addEventListener('abort', () => this.tools.delete(tool.name));
  }
}

/** As Chromium 156's: `registerTool` returns a promise that rejects with an AbortError once its signal aborts. */
class PromisingModelContext extends FakeModelContext {
  registerTool(tool: Registered, options?: { signal?: AbortSignal }): Promise<void> {
    super.registerTool(tool, options);
    return new Promise((_resolve, reject) => options?.signal?.addEventListener('abort', () => reject(options.signal!.reason)));
  }
}

function page(): { page: IMolspacePage; registry: WidgetRegistry; dispatcher: Dispatcher } {
  const registry = new WidgetRegistry();
  const dispatcher = pageDispatcher(registry);
  return { page: { registry, dispatcher } as unknown as IMolspacePage, registry, dispatcher };
}

// A page without WebMCP: a document and a navigator that have no modelContext.
const globals = globalThis as unknown as { document?: object; navigator?: object };
let document: { modelContext?: unknown };
let navigator: object;
beforeEach(() => {
  document = {};
  navigator = {};
  Object.defineProperty(globalThis, 'document', { value: document, configurable: true, writable: true });
  Object.defineProperty(globalThis, 'navigator', { value: navigator, configurable: true, writable: true });
});
afterAll(() => {
  delete globals.document;
});

it('is off where the browser has no WebMCP', () => {
  expect('modelContext' in document || 'modelContext' in navigator).toBe(false);
  expect(findModelContext()).toBeNull();
  document.modelContext = { registerTool: 'not a function' };
  expect(findModelContext()).toBeNull();
  const context = new FakeModelContext();
  document.modelContext = context;
  expect(findModelContext()).toBe(context);
  delete document.modelContext;
  (navigator as { modelContext?: unknown }).modelContext = context; // earlier Chromium builds
  expect(findModelContext()).toBe(context);
});

it('offers the page tools with the contract annotations, following the widgets', () => {
  const { page: p, registry } = page();
  const context = new FakeModelContext();
  const stop = startWebMcp(p, context);
  const pageTools = TOOLS.filter(t => t.runs === 'page');
  const free = pageTools
    .filter(t => t.target === null)
    .map(t => t.name)
    .sort();
  expect([...context.tools.keys()].sort()).toEqual(free);
  registry.register(new MemoryStory('m1', metas(['a', 'b'])));
  const withStory = pageTools
    .filter(t => t.target === null || t.target === 'story')
    .map(t => t.name)
    .sort();
  expect([...context.tools.keys()].sort()).toEqual(withStory);
  for (const spec of pageTools.filter(t => context.tools.has(t.name))) {
    expect(context.tools.get(spec.name)!.annotations.readOnlyHint).toBe(spec.annotations.readOnlyHint);
  }
  registry.unregister('m1');
  expect([...context.tools.keys()].sort()).toEqual(free);
  stop();
  expect(context.tools.size).toBe(0);
});

it('runs calls through the Dispatcher as agent (WebMCP), errors as located error results', async () => {
  const { page: p, registry, dispatcher } = page();
  registry.register(new MemoryStory('m1', metas(['a', 'b'])));
  const records: DispatchRecord[] = [];
  dispatcher.executed.connect((_, r) => records.push(r));
  const context = new FakeModelContext();
  startWebMcp(p, context);
  const ok = (await context.tools.get('story_control')!.execute({ action: 'next' })) as {
    structuredContent: { story: { revision: number } };
  };
  expect(ok.structuredContent.story.revision).toBe(1);
  const failed = (await context.tools.get('story_control')!.execute({ action: 'goto', key: 'nope' })) as {
    isError: boolean;
    content: { text: string }[];
  };
  expect(failed.isError).toBe(true);
  expect(JSON.parse(failed.content[0].text.split('\n')[1])).toMatchObject({ code: 'NOT_FOUND', where: '/key' });
  expect(records.map(r => [r.source, r.client, r.target, r.ok])).toEqual([
    ['agent', 'WebMCP', 'm1', true],
    ['agent', 'WebMCP', 'm1', false]
  ]);
});

it('is the one module that knows WebMCP (started from the activity plugin only)', () => {
  const src = path.join(__dirname, '..', '..');
  const aware: string[] = [];
  const walk = (dir: string) => {
    for (const name of fs.readdirSync(dir)) {
      const file = path.join(dir, name);
      if (fs.statSync(file).isDirectory()) {
        if (name !== '__tests__') {
          walk(file);
        }
      } else if (file.endsWith('.ts') && /\bmodelContext\b|webmcp/i.test(fs.readFileSync(file, 'utf8'))) {
        aware.push(path.relative(src, file));
      }
    }
  };
  walk(src);
  expect(aware.sort()).toEqual(['activity/startActivity.ts', 'plugins/activity.ts', 'webmcp/webmcpAdapter.ts']);
});

it("a registration's promise that rejects when molspace unregisters the tool is settled, never an uncaught rejection", async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  try {
    const { page: p, registry } = page();
    const context = new PromisingModelContext();
    const stop = startWebMcp(p, context);
    registry.register(new MemoryStory('m1', metas(['a', 'b'])));
    expect(context.tools.has('story_control')).toBe(true);
    registry.unregister('m1'); // the Story tools leave: their signals abort
    expect(context.tools.has('story_control')).toBe(false);
    stop();
    await new Promise(resolve => setTimeout(resolve, 10)); // rejections are reported after a macrotask
    expect(unhandled).toEqual([]);
    expect(warn).not.toHaveBeenCalled(); // an abort molspace asked for is no news
  } finally {
    process.off('unhandledRejection', onUnhandled);
    warn.mockRestore();
  }
});
