/**
 * render_panel checks link targets when it renders (through the real Dispatcher, a Viewer target
 * holding 1HPV read with Mol*'s parsers, a trajectory Viewer of MDAnalysis's adenylate kinase PSF +
 * DCD (98 frames), a Story in memory): unknown or wrong-kind widget ids, selectors matching
 * nothing, frames out of range and unknown Story keys are refused, located under the link (table
 * rows, grid cells and chart values alike); a link whose widget goes later is named in the panel's
 * summary (what observe lists).
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import type { ChangeEntry, ChangeSource, PanelContent, PanelState } from '../../contract';
import { Dispatcher } from '../../dispatcher/dispatcher';
import { WidgetRegistry } from '../../dispatcher/registry';
import { expectFailure } from '../../__tests__/expectFailure';
import { MemoryStory, metas } from '../../__tests__/memoryStory';
import { memoryViewer } from '../../__tests__/memoryViewer';
import { defaultLayers, readStructure, type StructureData } from '../../viewer/structureData';
import { initialView } from '../../viewer/viewerActions';
import type { ViewerTarget } from '../../viewer/viewerTarget';
import { DEFAULT_RESOURCE_HOSTS } from '../../resources/resourcePolicy';
import { setPanelHost, type NewPanel } from '../panelHost';
import { staleLinks } from '../panelLinkCheck';
import { linkFollower } from '../panelLinks';
import { panelSummary, type PanelUpdate } from '../panelTarget';
import { pageDispatcher } from '../../tools';

const DATA = join(__dirname, '..', '..', '..', 'tests', 'data', 'structures');
const TRAJECTORIES = join(__dirname, '..', '..', '..', 'tests', 'data', 'trajectories');

/** MDAnalysis's adenylate kinase: PSF topology + DCD coordinates, 98 frames; read once. */
let adk: Promise<StructureData> | null = null;
function adkData(): Promise<StructureData> {
  adk ??= readStructure(new Uint8Array(readFileSync(join(TRAJECTORIES, 'adk.psf'))), 'psf', 'adk.psf', {
    bytes: new Uint8Array(readFileSync(join(TRAJECTORIES, 'adk_dims.dcd'))),
    format: 'dcd',
    where: 'adk_dims.dcd'
  });
  return adk;
}

/** A Viewer of `data` as panel links see it: its composition, view and data, resource policy, no history. */
function viewerOf(id: string, data: StructureData): ViewerTarget {
  const view = initialView(defaultLayers(data));
  return memoryViewer(
    id,
    {
      describe: () => '1hpv',
      composition: () => data.composition,
      view: () => view,
      structureData: () => Promise.resolve(data),
      resourcePolicy: () => ({ hosts: DEFAULT_RESOURCE_HOSTS, pageOrigin: null }),
      history: () => ({ undo: null, redo: null })
    },
    { title: '1hpv.pdb' }
  );
}

/** A docked panel in memory whose summary names its stale links, as DockedPanel and PanelModel do. */
class MemoryPanel implements NewPanel {
  readonly kind = 'panel' as const;
  readonly placement = 'docked' as const;
  readonly notebook = null;
  revision = 0;
  constructor(
    readonly panelId: string,
    private _content: PanelContent,
    private readonly _registry: WidgetRegistry
  ) {}
  get targetId(): string {
    return this.panelId;
  }
  whenLoaded = () => Promise.resolve();
  state(): PanelState {
    return {
      target: this.panelId,
      kind: 'panel',
      panelId: this.panelId,
      title: 'T',
      placement: 'docked',
      type: this._content.type,
      ready: true,
      revision: this.revision,
      error: null
    };
  }
  content = () => this._content;
  describe = () => panelSummary(this.state(), this._content, staleLinks(this._content, this._registry));
  open(source: ChangeSource, summary: string): Promise<ChangeEntry> {
    return this.applyContent({ content: this._content }, source, summary);
  }
  async applyContent(update: PanelUpdate, source: ChangeSource, summary: string): Promise<ChangeEntry> {
    this._content = update.content;
    this.revision += 1;
    return { revision: this.revision, source, summary };
  }
}

let registry: WidgetRegistry;
let dispatcher: Dispatcher;
const table = (links: unknown[]) => ({
  type: 'table',
  columns: [{ name: 'site', type: 'string' }],
  rows: links.map((_, i) => [`row ${i}`]),
  links
});
const render = (content: unknown) => dispatcher.execute('render_panel', { content }, { source: 'agent' });

beforeEach(async () => {
  registry = new WidgetRegistry();
  const data = await readStructure(new Uint8Array(readFileSync(join(DATA, '1hpv.pdb'))), 'pdb', '1hpv.pdb');
  registry.register(viewerOf('v1', data));
  registry.register(viewerOf('traj', await adkData()));
  registry.register(new MemoryStory('s1', metas(['overview', 'binding-site'])));
  setPanelHost(registry, {
    dock(panelId, _title, content) {
      const panel = new MemoryPanel(panelId, content, registry);
      registry.register(panel);
      return panel;
    }
  });
  dispatcher = pageDispatcher(registry);
});

test('links to widgets that exist, with selectors that match and keys that exist, render', async () => {
  const result = await render(
    table([
      { op: 'focus', viewer: 'v1', selector: { auth_asym_id: 'A', auth_seq_id: 25 } },
      { op: 'focus', viewer: 'v1', selector: { auth_asym_id: ' ', auth_seq_id: 200 } },
      null,
      { op: 'goto', story: 's1', key: 'binding-site' }
    ])
  );
  expect(result.structuredContent).toMatchObject({ created: true });
});

test.each([
  [
    'an unknown viewer id',
    [
      { op: 'focus', viewer: 'v1' },
      { op: 'focus', viewer: 'nope', selector: 'ligand' }
    ],
    'NOT_FOUND',
    '/content/links/1/viewer'
  ],
  ['a Story id as the viewer', [{ op: 'focus', viewer: 's1', selector: 'ligand' }], 'NOT_FOUND', '/content/links/0/viewer'],
  [
    'a selector matching nothing',
    [{ op: 'focus', viewer: 'v1', selector: { auth_asym_id: 'Z' } }],
    'NOT_FOUND',
    '/content/links/0/selector'
  ],
  ['an unknown Story id', [{ op: 'goto', story: 'v9', key: 'overview' }], 'NOT_FOUND', '/content/links/0/story'],
  ['an unknown step key', [{ op: 'goto', story: 's1', key: 'nowhere' }], 'NOT_FOUND', '/content/links/0/key']
])('%s is refused, located under the link, and nothing opens', async (_name, links, code, where) => {
  const fixed = (links as Record<string, unknown>[]).map(l => (l.op === 'focus' && !('selector' in l) ? { ...l, selector: 'ligand' } : l));
  const e = await expectFailure(render(table(fixed)));
  expect(e).toMatchObject({ code, where });
  expect(e.fix.length).toBeGreaterThan(10);
  expect(registry.list().filter(t => t.kind === 'panel')).toEqual([]);
});

test('a molecule link is checked too', async () => {
  const e = await expectFailure(render({ type: 'molecules', molecules: [{ smiles: 'CCO', link: { op: 'goto', story: 's1', key: 'x' } }] }));
  expect(e).toMatchObject({ code: 'NOT_FOUND', where: '/content/molecules/0/link/key', details: { keys: ['overview', 'binding-site'] } });
});

test('a link whose widget goes later is named in observe', async () => {
  await render(
    table([
      { op: 'focus', viewer: 'v1', selector: 'ligand' },
      { op: 'goto', story: 's1', key: 'overview' }
    ])
  );
  registry.unregister('v1');
  const observed = await dispatcher.execute('observe', {}, { source: 'agent' });
  const panel = (observed.structuredContent as { widgets: { kind: string; summary: string }[] }).widgets.find(w => w.kind === 'panel')!;
  expect(panel.summary).toContain('stale links to v1');
  expect(panel.summary).not.toContain('s1');
});

describe('goto_frame links', () => {
  const frames = (...fs: (number | null)[]) => fs.map(f => (f === null ? null : { op: 'goto_frame', viewer: 'traj', frame: f }));
  const rmsd = (n: number, links: unknown[]) => ({
    type: 'chart',
    spec: {
      data: { values: Array.from({ length: n }, (_, i) => ({ frame: i, rmsd: i / 10 })) },
      mark: { type: 'line', point: true },
      encoding: { x: { field: 'frame', type: 'quantitative' }, y: { field: 'rmsd', type: 'quantitative' } }
    },
    links
  });

  test('frames of the trajectory render, in a table, a grid and a chart', async () => {
    expect((await render(table(frames(0, null, 97)))).structuredContent).toMatchObject({ created: true });
    const grid = { type: 'molecules', molecules: [{ smiles: 'CCO', link: { op: 'goto_frame', viewer: 'traj', frame: 5 } }] };
    expect((await render(grid)).structuredContent).toMatchObject({ created: true });
    expect((await render(rmsd(98, frames(...Array.from({ length: 98 }, (_, i) => i))))).structuredContent).toMatchObject({ created: true });
  });

  test.each([
    ['a table row', table(frames(0, 1, 2, 98)), '/content/links/3/frame'],
    ['a chart value', rmsd(5, frames(0, null, 120)), '/content/links/2/frame'],
    [
      'a grid cell',
      { type: 'molecules', molecules: [{ smiles: 'C' }, { smiles: 'CCO', link: { op: 'goto_frame', viewer: 'traj', frame: 500 } }] },
      '/content/molecules/1/link/frame'
    ]
  ])('a frame out of range in %s is refused at the link, with the frame count', async (_name, content, where) => {
    const e = await expectFailure(render(content));
    expect(e).toMatchObject({ code: 'VALIDATION_FAILED', where, details: { frames: 98, viewer: 'traj' } });
    expect(e.fix).toContain('0 to 97');
    expect(registry.list().filter(t => t.kind === 'panel')).toEqual([]);
  });

  test.each([
    ['a Viewer of one structure', [{ op: 'goto_frame', viewer: 'v1', frame: 1 }], 'VALIDATION_FAILED', '/content/links/0/frame'],
    ['a Story as the Viewer', [null, { op: 'goto_frame', viewer: 's1', frame: 0 }], 'NOT_FOUND', '/content/links/1/viewer'],
    ['an unknown Viewer', [{ op: 'goto_frame', viewer: 'nope', frame: 0 }], 'NOT_FOUND', '/content/links/0/viewer']
  ])('%s is refused, located', async (_name, links, code, where) => {
    const e = await expectFailure(render(rmsd(3, links)));
    expect(e).toMatchObject({ code, where });
  });

  test('a chart with more links than data values is refused at the first extra link', async () => {
    const e = await expectFailure(render(rmsd(2, frames(0, 1, 1))));
    expect(e).toMatchObject({ code: 'VALIDATION_FAILED', where: '/content/links/2', details: { links: 3, values: 2 } });
  });

  test("a chart's Viewer gone later is named in observe", async () => {
    await render(rmsd(2, frames(0, 1)));
    registry.unregister('traj');
    const observed = await dispatcher.execute('observe', {}, { source: 'agent' });
    const panel = (observed.structuredContent as { widgets: { kind: string; summary: string }[] }).widgets.find(w => w.kind === 'panel')!;
    expect(panel.summary).toContain('stale links to traj');
  });

  test("a click on a frame out of range (act refuses it) is located at the link's frame", async () => {
    const follow = linkFollower({ dispatcher });
    const error = await follow({ op: 'goto_frame', viewer: 'traj', frame: 98 }, '/content/links/7');
    expect(error).toMatchObject({
      code: 'VALIDATION_FAILED',
      where: '/content/links/7/frame',
      details: { frames: 98, toolWhere: '/actions/0/frame', tool: 'act' }
    });
  });

  test('a chart of panelChartDataValues distinct frame links is checked quickly', async () => {
    // The adk trajectory said to hold 5000 frames: only the frame count matters to the check.
    const data = await adkData();
    const many = { ...data, composition: { ...data.composition, trajectory: { ...data.composition.trajectory!, frames: 5000 } } };
    registry.register(viewerOf('long', many));
    const links = Array.from({ length: 5000 }, (_, i) => ({ op: 'goto_frame', viewer: 'long', frame: i }));
    const t0 = performance.now();
    expect((await render(rmsd(5000, links))).structuredContent).toMatchObject({ created: true });
    const ms = performance.now() - t0;
    expect(ms).toBeLessThan(1500);
  });

  test('the first frame out of range among thousands is located at its own index, quickly', async () => {
    const links = Array.from({ length: 5000 }, (_, i) => ({ op: 'goto_frame', viewer: 'traj', frame: (i * 7919) % 5000 }));
    const first = links.findIndex(l => l.frame >= 98);
    const t0 = performance.now();
    const e = await expectFailure(render(rmsd(5000, links)));
    expect(performance.now() - t0).toBeLessThan(1500);
    expect(e).toMatchObject({ code: 'VALIDATION_FAILED', where: `/content/links/${first}/frame`, details: { frame: links[first].frame } });
  });
});
