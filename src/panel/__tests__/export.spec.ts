/**
 * `export` through a real Dispatcher with in-memory widgets and contents
 * manager: each panel content type's file text, the path rules of Story files
 * (absolute, `..`, URL, another ending, overwrite), a panel without valid
 * content; and `.html`: the App `_meta` of a Viewer, a Story and a panel the
 * page answers the gateway with (only to a call the gateway relays for it),
 * an MVS Viewer, a Viewer given a panel's ending, data over a bridge frame.
 * Galata runs it against Jupyter's contents API and the real gateway
 * (ui-tests/tests/panelLinks.spec.ts, exportHtml.spec.ts).
 */
import { LIMITS, MolspaceError, type ChangeEntry, type PanelContent, type PanelState } from '../../contract';
import { MemoryStory } from '../../__tests__/memoryStory';
import { memoryViewer } from '../../__tests__/memoryViewer';
import type { ViewerSourceFile, ViewerTarget } from '../../viewer/viewerTarget';
import { WorkspaceFiles } from '../../resources/workspaceFiles';
import { Dispatcher } from '../../dispatcher/dispatcher';
import { WidgetRegistry } from '../../dispatcher/registry';
import { panelFileText } from '../panelFile';
import { panelSummary, type PanelTarget } from '../panelTarget';
import { pageDispatcher } from '../../tools';

class MemoryContents {
  files = new Map<string, string>();
  async get(path: string) {
    const f = this.files.get(path);
    if (f === undefined) {
      throw Object.assign(new Error('Not Found'), { response: { status: 404 } });
    }
    return { path, type: f === 'dir' ? 'directory' : 'file', content: null };
  }
  async save(path: string, opts: { type: string; content?: string }) {
    this.files.set(path, opts.type === 'directory' ? 'dir' : (opts.content ?? ''));
    return { path };
  }
}

function memoryPanel(id: string, content: PanelContent, error: PanelState['error'] = null): PanelTarget {
  const state = (): PanelState => ({
    target: id,
    kind: 'panel',
    panelId: id,
    title: id,
    placement: 'docked',
    type: content.type,
    ready: true,
    revision: 1,
    error
  });
  return {
    kind: 'panel',
    targetId: id,
    panelId: id,
    placement: 'docked',
    notebook: null,
    whenLoaded: () => Promise.resolve(),
    state,
    content: () => content,
    describe: () => panelSummary(state(), content),
    applyContent: async (): Promise<ChangeEntry> => ({ revision: 2, source: 'agent', summary: '' })
  };
}

const TABLE: PanelContent = {
  type: 'table',
  columns: [
    { name: 'ligand', type: 'string' },
    { name: 'score', type: 'number' }
  ],
  rows: [
    ['L1, "best"', -7.5],
    ['L2', null]
  ]
};

describe('panelFileText', () => {
  it('writes a table as CSV, quoting what needs it, null as empty', () => {
    expect(panelFileText(TABLE)).toBe('ligand,score\r\n"L1, ""best""",-7.5\r\nL2,\n');
  });
  it('writes a grid as name, smiles, properties', () => {
    const grid: PanelContent = {
      type: 'molecules',
      molecules: [
        { smiles: 'CCO', name: 'ethanol', properties: { mw: 46.07 } },
        { smiles: 'C', properties: { note: 'x' } }
      ]
    };
    expect(panelFileText(grid)).toBe('name,smiles,mw,note\r\nethanol,CCO,46.07,\r\n,C,,x\n');
  });
  it('writes markdown as is and a chart as its Vega-Lite JSON', () => {
    expect(panelFileText({ type: 'markdown', markdown: '# Notes\n' })).toBe('# Notes\n');
    expect(JSON.parse(panelFileText({ type: 'chart', spec: { mark: 'bar' } }))).toEqual({ mark: 'bar' });
  });
});

describe('export', () => {
  let contents: MemoryContents;
  let dispatcher: Dispatcher;
  let registry: WidgetRegistry;
  beforeEach(() => {
    contents = new MemoryContents();
    registry = new WidgetRegistry();
    registry.register(memoryPanel('scores', TABLE));
    dispatcher = pageDispatcher(registry, { files: new WorkspaceFiles(contents as never) });
  });
  const run = (args: Record<string, unknown>) => dispatcher.execute('export', args, { source: 'agent' });
  const refused = async (args: Record<string, unknown>) => {
    try {
      await run(args);
    } catch (e) {
      if (e instanceof MolspaceError) {
        return e.toJSON();
      }
      throw e;
    }
    throw new Error('expected a refusal');
  };

  it('writes the file under the root, making folders, and refuses to replace it without overwrite', async () => {
    const first = await run({ target: 'scores', path: 'reports/scores.csv' });
    expect(first.structuredContent).toMatchObject({
      path: 'reports/scores.csv',
      target: 'scores',
      kind: 'panel',
      type: 'table',
      replaced: false
    });
    expect(contents.files.get('reports')).toBe('dir');
    expect(contents.files.get('reports/scores.csv')).toBe(panelFileText(TABLE));
    expect(await refused({ target: 'scores', path: 'reports/scores.csv' })).toMatchObject({ code: 'FORBIDDEN', where: '/overwrite' });
    const again = await run({ target: 'scores', path: './reports/scores.csv', overwrite: true });
    expect(again.structuredContent).toMatchObject({ replaced: true });
  });

  it('refuses paths that leave the root and endings of another type', async () => {
    for (const path of [
      '/etc/scores.csv',
      '../scores.csv',
      'a/../../scores.csv',
      '~/scores.csv',
      'https://example.org/s.csv',
      'a\\b.csv'
    ]) {
      expect(await refused({ target: 'scores', path })).toMatchObject({ code: 'FORBIDDEN', where: '/path' });
    }
    expect(await refused({ target: 'scores', path: 'scores.md' })).toMatchObject({
      code: 'UNSUPPORTED_FORMAT',
      where: '/path',
      details: { extensions: ['.csv', '.html'] }
    });
    expect(contents.files.size).toBe(0);
  });

  it('refuses a panel without valid content and an unknown panel', async () => {
    registry.register(
      memoryPanel('broken', TABLE, { code: 'VALIDATION_FAILED', message: 'bad', where: '/content', fix: 'fix', details: {} })
    );
    expect(await refused({ target: 'broken', path: 'b.csv' })).toMatchObject({ code: 'VALIDATION_FAILED', where: '/target' });
    expect(await refused({ target: 'nope', path: 'b.csv' })).toMatchObject({ code: 'NOT_FOUND', where: '/target' });
  });
});

/** A Viewer as `export` sees it: its file (null: an MVS state), title and view. */
const fileViewer = (id: string, file: ViewerSourceFile | null): ViewerTarget =>
  memoryViewer(id, { sourceFile: () => file, view: () => ({ layers: [] }) }, { title: 'HIV-1 protease', revision: 3 });

describe('export to .html (the page half: the App _meta the gateway writes)', () => {
  const PDB = new TextEncoder().encode('ATOM      1  N   PRO A   1       0.000   0.000   0.000  1.00  0.00           N\n');
  let registry: WidgetRegistry;
  let dispatcher: Dispatcher;
  beforeEach(() => {
    registry = new WidgetRegistry();
    registry.register(memoryPanel('scores', TABLE));
    const story = new MemoryStory('tour', []);
    story.source = { mvsx: new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0xff]) };
    registry.register(story);
    registry.register(
      fileViewer('protease', {
        format: 'pdb',
        name: '1hpv.pdb',
        bytes: PDB,
        coordinates: { format: 'dcd', name: 'run.dcd', bytes: new Uint8Array([1, 2, 3]) }
      })
    );
    registry.register(fileViewer('mvs', null));
    dispatcher = pageDispatcher(registry, { files: new WorkspaceFiles(new MemoryContents() as never) });
  });
  const viaGateway = (args: Record<string, unknown>) =>
    dispatcher.execute('export', args, { source: 'agent', context: { pageId: 'p', pages: [], writesHtml: true } });
  const refusal = async (run: Promise<unknown>) => {
    try {
      await run;
    } catch (e) {
      return MolspaceError.from(e, 'test').toJSON();
    }
    throw new Error('expected a refusal');
  };

  it("answers each kind's App _meta, as to_html writes it: text as UTF-8, binary as base64", async () => {
    const viewer = await viaGateway({ target: 'protease', path: './share/protease.html' });
    expect(viewer.structuredContent).toMatchObject({ path: 'share/protease.html', target: 'protease', kind: 'viewer', bytes: 0 });
    expect(viewer.structuredContent.app).toEqual({
      'molspace/structure': {
        format: 'pdb',
        structure: { name: '1hpv.pdb', encoding: 'utf8', data: new TextDecoder().decode(PDB) },
        coordinates: { format: 'dcd', file: { name: 'run.dcd', encoding: 'base64', data: 'AQID' } },
        title: 'HIV-1 protease',
        view: { layers: [] }
      }
    });
    const story = await viaGateway({ target: 'tour', path: 'tour.HTML' });
    expect(story.structuredContent.app).toEqual({
      'molspace/story': { format: 'mvsx', file: { name: 'story.mvsx', encoding: 'base64', data: 'UEsDBP8=' }, title: 'T' }
    });
    const panel = await viaGateway({ target: 'scores', path: 'scores.html' });
    expect(panel.structuredContent).toMatchObject({
      kind: 'panel',
      type: 'table',
      app: { 'molspace/panel': { panelId: 'scores', content: TABLE } }
    });
    // no target: the most recent Viewer, Story or panel
    registry.touch('tour');
    expect((await viaGateway({ path: 'x.html' })).structuredContent.target).toBe('tour');
  });

  it('refuses, located: a call not relayed to write .html, an MVS Viewer, a panel ending for a Viewer or Story, a path climbing out, an unknown widget', async () => {
    expect(await refusal(dispatcher.execute('export', { target: 'protease', path: 'p.html' }, { source: 'kernel' }))).toMatchObject({
      code: 'UNSUPPORTED_FORMAT',
      where: '/path'
    });
    expect(await refusal(viaGateway({ target: 'mvs', path: 'm.html' }))).toMatchObject({ code: 'UNSUPPORTED_FORMAT', where: '/target' });
    expect(await refusal(viaGateway({ target: 'protease', path: 'p.csv' }))).toMatchObject({
      code: 'UNSUPPORTED_FORMAT',
      where: '/path',
      details: { kind: 'viewer', extensions: ['.html', '.mvsx', '.png'] }
    });
    expect(await refusal(viaGateway({ target: 'tour', path: 'p.md' }))).toMatchObject({ code: 'UNSUPPORTED_FORMAT', where: '/path' });
    expect(await refusal(viaGateway({ target: 'protease', path: '../p.html' }))).toMatchObject({ code: 'FORBIDDEN', where: '/path' });
    expect(await refusal(viaGateway({ target: 'nope', path: 'p.html' }))).toMatchObject({ code: 'NOT_FOUND', where: '/target' });
  });

  it('refuses data over a bridge frame with TOO_LARGE at /target, sending nothing', async () => {
    const big = new Uint8Array(LIMITS.bridgeFrameBytes);
    registry.register(fileViewer('big', { format: 'bcif', name: 'big.bcif', bytes: big, coordinates: null }));
    expect(await refusal(viaGateway({ target: 'big', path: 'big.html' }))).toMatchObject({
      code: 'TOO_LARGE',
      where: '/target',
      details: { limit: LIMITS.bridgeFrameBytes - 64 * 1024 }
    });
  });
});
