/**
 * `panel_export` through a real Dispatcher with an in-memory panel and
 * contents manager: each content type's file text, the path rules of Story
 * files (absolute, `..`, URL, another ending, overwrite), and a panel without
 * valid content. Galata runs it against Jupyter's contents API
 * (ui-tests/tests/panelLinks.spec.ts).
 */
import { MolspaceError, type ChangeEntry, type PanelContent, type PanelState } from '../../contract';
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

describe('panel_export', () => {
  let contents: MemoryContents;
  let dispatcher: Dispatcher;
  let registry: WidgetRegistry;
  beforeEach(() => {
    contents = new MemoryContents();
    registry = new WidgetRegistry();
    registry.register(memoryPanel('scores', TABLE));
    dispatcher = pageDispatcher(registry, { files: new WorkspaceFiles(contents as never) });
  });
  const run = (args: Record<string, unknown>) => dispatcher.execute('panel_export', args, { source: 'agent' });
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
    expect(first.structuredContent).toMatchObject({ path: 'reports/scores.csv', panelId: 'scores', type: 'table', replaced: false });
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
      details: { extensions: ['.csv'] }
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
