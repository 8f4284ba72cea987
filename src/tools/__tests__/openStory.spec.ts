/**
 * `open` of a Story file through the Dispatcher, with an in-memory contents
 * manager and a recording StoryOpener in place of the page's (the real page,
 * contents API and drawing are in ui-tests/tests/openAnything.spec.ts): the
 * answer comes only for a drawn Story; a docked Story with an error is that
 * error; one neither drawn nor failed is TIMEOUT naming it (the branch the
 * real page reaches only when the first draw takes longer than the opener
 * waits); too large is refused before any content is read. And ketcher_open's
 * path extensions are the kernel's (molspace/ketcher/widget.py), one table in two languages.
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import { KETCHER_EXTENSIONS, LIMITS, type StoryState } from '../../contract';
import { Dispatcher } from '../../dispatcher/dispatcher';
import { WidgetRegistry } from '../../dispatcher/registry';
import { expectFailure as failure } from '../../__tests__/expectFailure';
import { WorkspaceFiles } from '../../resources/workspaceFiles';
import type { ParsedStory } from '../../molstar/storySource';
import { pageDispatcher } from '..';

const ROOT = join(__dirname, '../../..');
const MVSJ = readFileSync(join(ROOT, 'tests/data/1cbs.mvsj'));

class MemoryContents {
  files = new Map<string, Uint8Array>();
  sizes = new Map<string, number>();
  read: string[] = [];
  async get(path: string, opts: { content?: boolean; format?: string } = {}) {
    const f = this.files.get(path);
    if (f === undefined) {
      throw Object.assign(new Error('Not Found'), { response: { status: 404 } });
    }
    if (opts.content) {
      this.read.push(path);
    }
    const content = opts.content ? Buffer.from(f).toString(opts.format === 'base64' ? 'base64' : 'utf8') : null;
    return { path, type: 'file', size: this.sizes.get(path) ?? f.length, content };
  }
}

let contents: MemoryContents;
let dispatcher: Dispatcher;
let shownAs: Partial<StoryState>;
let opened: { path: string; story: ParsedStory; title?: string }[];

beforeEach(() => {
  contents = new MemoryContents();
  contents.files.set('stories/1cbs.mvsj', new Uint8Array(MVSJ));
  contents.files.set('stories/bad.mvsj', new TextEncoder().encode('{"not": "a story"}'));
  dispatcher = pageDispatcher(new WidgetRegistry(), { files: new WorkspaceFiles(contents as never) });
  shownAs = { ready: true, error: null };
  opened = [];
  dispatcher.openers.story = {
    async open(source) {
      opened.push(source);
      const state: StoryState = {
        target: 'molspace-story-1-test',
        kind: 'story',
        title: source.story.title,
        ready: false,
        revision: 0,
        index: 0,
        key: source.story.snapshots[0].key,
        count: source.story.snapshots.length,
        playing: false,
        error: null,
        ...shownAs
      };
      return { targetId: state.target, kind: 'story', state: () => state, whenLoaded: () => Promise.resolve() } as never;
    }
  };
});

// A gateway deadline 2 s away: the TIMEOUT case answers 1.5 s before it (`whenReady`).
const open = (args: Record<string, unknown>) => dispatcher.execute('open', args, { source: 'agent', deadline: Date.now() + 2000 });

describe('open a Story file', () => {
  it('answers with the drawn Story, its steps, and how to drive it', async () => {
    const r = await open({ path: 'stories/1cbs.mvsj', title: '1CBS' });
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatchObject({ path: 'stories/1cbs.mvsj', title: '1CBS' });
    expect(r.structuredContent).toMatchObject({ story: { kind: 'story', ready: true, target: 'molspace-story-1-test' } });
    expect((r.structuredContent.steps as unknown[]).length).toBe(opened[0].story.snapshots.length);
    expect(r.text).toContain('story_control {target: "molspace-story-1-test"}');
  });

  it('a docked Story with an error is that error, naming the widget', async () => {
    const error = {
      code: 'NOT_FOUND' as const,
      message: 'could not load https://x/1.cif',
      where: '/snapshots/0/root/children/0/params/url',
      fix: 'Check the URL.',
      details: { status: 404 }
    };
    shownAs = { ready: false, error };
    const e = await failure(open({ path: 'stories/1cbs.mvsj' }));
    expect(e).toMatchObject({
      code: 'NOT_FOUND',
      where: error.where,
      fix: error.fix,
      details: { status: 404, target: 'molspace-story-1-test', path: 'stories/1cbs.mvsj' }
    });
  });

  it('neither drawn nor failed is TIMEOUT, naming the widget and how to wait', async () => {
    shownAs = { ready: false, error: null };
    const e = await failure(open({ path: 'stories/1cbs.mvsj' }));
    expect(e).toMatchObject({ code: 'TIMEOUT', where: '/target', details: { target: 'molspace-story-1-test', path: 'stories/1cbs.mvsj' } });
    expect(e.fix).toContain('story_observe with target "molspace-story-1-test"');
  });

  it('too large is refused from its size, before any content is read; a bad file docks nothing', async () => {
    contents.sizes.set('stories/1cbs.mvsj', LIMITS.storySourceBytes + 1);
    const big = await failure(open({ path: 'stories/1cbs.mvsj' }));
    expect(big).toMatchObject({ code: 'TOO_LARGE', where: '/path', details: { limit: LIMITS.storySourceBytes } });
    expect(contents.read).toEqual([]);
    const bad = await failure(open({ path: 'stories/bad.mvsj' }));
    expect(bad).toMatchObject({ where: '/path', details: { path: 'stories/bad.mvsj' } });
    const missing = await failure(open({ path: 'stories/none.mvsx' }));
    expect(missing).toMatchObject({ code: 'NOT_FOUND', where: '/path' });
    expect(opened).toEqual([]);
  });
});

describe('ketcher_open {path} extensions', () => {
  it("are the kernel's molspace.Ketcher path extensions, format for format", () => {
    const py = readFileSync(join(ROOT, 'molspace/ketcher/widget.py'), 'utf8');
    const table = /^EXTENSIONS = \{([^}]*)\}/m.exec(py)![1];
    const kernel = Object.fromEntries([...table.matchAll(/"(\.[a-z]+)": "([a-z0-9-]+)"/g)].map(m => [m[1], m[2]]));
    expect(Object.keys(kernel).length).toBeGreaterThan(3);
    expect({ ...KETCHER_EXTENSIONS }).toEqual(kernel);
  });
});
