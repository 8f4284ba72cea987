/**
 * `act` and `viewer_observe` through the real Dispatcher, on a Viewer target
 * in memory that holds a real structure read with Mol*'s parsers (no WebGL):
 * one revision per batch, nothing applied on a failure, dryRun, expectedRevision,
 * actionId replay, and the screenshot as a result image.
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import { LIMITS, type ChangeEntry, type ChangeSource, type ViewerState, type ViewerViewState } from '../../contract';
import { Dispatcher } from '../../dispatcher/dispatcher';
import { WidgetRegistry } from '../../dispatcher/registry';
import { expectFailure } from '../../__tests__/expectFailure';
import { defaultLayers, readStructure, type StructureData } from '../../viewer/structureData';
import { initialView, type HistoryStep } from '../../viewer/viewerActions';
import type { ShotOptions } from '../../viewer/screenshot';
import type { ViewerTarget } from '../../viewer/viewerTarget';
import { viewerSummary } from '../../viewer/viewerText';
import { DEFAULT_RESOURCE_HOSTS } from '../../resources/resourcePolicy';
import { pageDispatcher } from '..';

const DATA = join(__dirname, '..', '..', '..', 'tests', 'data', 'structures');

class MemoryViewer implements ViewerTarget {
  readonly kind = 'viewer' as const;
  readonly notebook = null;
  revision = 0;
  shots = 0;
  current: ViewerViewState;
  constructor(
    readonly targetId: string,
    readonly data: StructureData
  ) {
    this.current = initialView(defaultLayers(data));
  }
  whenLoaded = () => Promise.resolve();
  /** The file's bytes, as a cell would send them (`export` to `.html`). */
  file = new TextEncoder().encode('data_1cbs\n');
  sourceFile = () => ({ format: 'mmcif', name: '1cbs.cif', bytes: this.file, coordinates: null });
  state(): ViewerState {
    return {
      target: this.targetId,
      kind: 'viewer',
      title: '1cbs.cif',
      ready: true,
      revision: this.revision,
      error: null,
      undo: this.past.length,
      redo: this.future.length
    };
  }
  describe = () => viewerSummary(this.state(), this.data.composition, this.current);
  composition = () => this.data.composition;
  view = () => this.current;
  structureData = () => Promise.resolve(this.data);
  mvsStructureData = () => Promise.resolve(this.data);
  camera = () => ({ position: [0, 0, 50], target: [0, 0, 0], up: [0, 1, 0], fov: 45 });
  past: ViewerViewState[] = [];
  future: ViewerViewState[] = [];
  resourcePolicy = () => ({ hosts: DEFAULT_RESOURCE_HOSTS, pageOrigin: 'http://localhost:8888' });
  history = () => ({ undo: this.past.at(-1) ?? null, redo: this.future.at(-1) ?? null });
  async applyView(view: ViewerViewState, source: ChangeSource, summary: string, step: HistoryStep = 'push'): Promise<ChangeEntry> {
    if (step === 'undo') {
      this.past.pop();
      this.future.push(this.current);
    } else if (step === 'redo') {
      this.future.pop();
      this.past.push(this.current);
    } else {
      this.past.push(this.current);
      this.future = [];
    }
    this.current = view;
    this.revision += 1;
    return { revision: this.revision, source, summary };
  }
  asked: ShotOptions[] = [];
  async screenshot(size: ShotOptions) {
    this.shots += 1;
    this.asked.push(size);
    const mimeType = `image/${size.format ?? 'png'}` as 'image/png' | 'image/jpeg' | 'image/webp';
    return { data: 'iVBORw0KGgo=', mimeType, width: size.width ?? 100, height: size.height ?? 80 };
  }
}

let viewer: MemoryViewer;
let dispatcher: Dispatcher;
const run = (args: Record<string, unknown>) => dispatcher.execute('act', { target: 'v1', ...args }, { source: 'agent' });

beforeEach(async () => {
  const data = await readStructure(new Uint8Array(readFileSync(join(DATA, '1cbs.cif'))), 'mmcif', '1cbs.cif');
  const registry = new WidgetRegistry();
  viewer = new MemoryViewer('v1', data);
  registry.register(viewer);
  dispatcher = pageDispatcher(registry);
});

test('a batch is one revision; viewer_observe and observe report it', async () => {
  const result = await run({
    actions: [
      { op: 'focus', selector: { auth_asym_id: 'A', auth_seq_id: 200 } },
      { op: 'select', selector: 'ligand' }
    ]
  });
  expect(result.structuredContent).toMatchObject({
    changed: true,
    previousRevision: 0,
    viewer: { revision: 1 },
    view: { focus: { auth_asym_id: 'A', auth_seq_id: 200 }, selection: 'ligand' }
  });
  expect(result.images).toBeUndefined();
  const observed = await dispatcher.execute('viewer_observe', { target: 'v1' }, { source: 'agent' });
  expect(observed.structuredContent).toMatchObject({ viewer: { revision: 1 }, composition: { ligandCount: 1 }, camera: { fov: 45 } });
  const page = await dispatcher.execute('observe', {}, { source: 'agent' });
  expect((page.structuredContent as any).widgets[0]).toMatchObject({ kind: 'viewer', revision: 1 });
  expect((page.structuredContent as any).widgets[0].summary).toContain('1 ligand (REA A 200)');
});

test('a selector that matches nothing applies nothing of the batch', async () => {
  const e = await expectFailure(
    run({
      actions: [
        { op: 'set_background', color: '#000000' },
        { op: 'focus', selector: { auth_asym_id: 'B' } }
      ]
    })
  );
  expect(e).toMatchObject({ code: 'NOT_FOUND', where: '/actions/1/selector' });
  expect(viewer.revision).toBe(0);
  expect(viewer.current.background).toBeNull();
});

test('dryRun reports and changes nothing, takes no screenshot', async () => {
  const result = await run({ dryRun: true, actions: [{ op: 'set_color', selector: 'polymer', color: '#FF0000' }, { op: 'screenshot' }] });
  expect(result.structuredContent).toMatchObject({
    dryRun: true,
    changed: false,
    screenshot: null,
    view: { colors: [{ selector: 'polymer', color: '#ff0000' }] }
  });
  expect(viewer.revision).toBe(0);
  expect(viewer.current.colors).toEqual([]);
  expect(viewer.shots).toBe(0);
});

test('expectedRevision and actionId work as for Stories', async () => {
  await run({ actions: [{ op: 'reset_camera' }] });
  const conflict = await expectFailure(run({ expectedRevision: 0, actions: [{ op: 'reset_camera' }] }));
  expect(conflict).toMatchObject({ code: 'REVISION_CONFLICT', details: { expectedRevision: 0, currentRevision: 1 } });
  expect(conflict.fix).toContain('viewer_observe');
  const first = await run({ actionId: 'once', actions: [{ op: 'set_background', color: '#202020' }] });
  const again = await run({ actionId: 'once', actions: [{ op: 'set_background', color: '#202020' }] });
  expect(viewer.revision).toBe(2);
  expect(first.structuredContent.replayed).toBe(false);
  expect(again.structuredContent.replayed).toBe(true);
});

test('a screenshot comes back as a result image (a PNG when asked), without a new revision', async () => {
  const result = await run({ actions: [{ op: 'screenshot', width: 64, height: 32, format: 'png' }] });
  expect(result.images).toEqual([{ mimeType: 'image/png', data: 'iVBORw0KGgo=' }]);
  expect(result.structuredContent).toMatchObject({
    changed: false,
    screenshot: { mimeType: 'image/png', width: 64, height: 32 },
    viewer: { revision: 0 }
  });
});

test("a screenshot defaults to a JPEG at most LIMITS.screenshotDefaultWidth wide, sized for an agent's context", async () => {
  const result = await run({ actions: [{ op: 'screenshot' }] });
  expect(result.images).toEqual([{ mimeType: 'image/jpeg', data: 'iVBORw0KGgo=' }]);
  expect(viewer.asked.at(-1)).toEqual({
    width: undefined,
    height: undefined,
    defaultWidth: LIMITS.screenshotDefaultWidth,
    format: 'jpeg',
    quality: 0.8
  });
  const bad = await expectFailure(run({ actions: [{ op: 'screenshot', quality: 0 }] }));
  expect(bad).toMatchObject({ code: 'INVALID_INPUT', where: '/actions/0/quality' });
});

test('undo and redo: each batch is one step, alone in its batch, located when there is none', async () => {
  const none = await expectFailure(run({ actions: [{ op: 'undo' }] }));
  expect(none).toMatchObject({ code: 'NOT_FOUND', where: '/actions/0/op' });
  await run({
    actions: [
      { op: 'set_background', color: '#101010' },
      { op: 'select', selector: 'ligand' }
    ]
  });
  await run({ actions: [{ op: 'set_representation', selector: 'ligand', representation: 'spacefill' }] });
  const undone = await run({ actions: [{ op: 'undo' }] });
  expect(undone.structuredContent).toMatchObject({
    viewer: { revision: 3, undo: 1, redo: 1 },
    view: { background: '#101010', selection: 'ligand' }
  });
  expect(viewer.current.layers[1].representation).toBe('ball_and_stick');
  await run({ actions: [{ op: 'undo' }] });
  expect(viewer.current).toMatchObject({ background: null, selection: null });
  await run({ actions: [{ op: 'redo' }] });
  await run({ actions: [{ op: 'redo' }] });
  expect(viewer.current.layers[1].representation).toBe('spacefill');
  expect(viewer.state()).toMatchObject({ undo: 2, redo: 0 });
  const mixed = await expectFailure(run({ actions: [{ op: 'reset_camera' }, { op: 'undo' }] }));
  expect(mixed).toMatchObject({ code: 'INVALID_INPUT', where: '/actions/1/op' });
  // a new batch after an undo drops the redo step
  await run({ actions: [{ op: 'undo' }] });
  await run({ actions: [{ op: 'clear_selection' }] });
  expect(viewer.state().redo).toBe(0);
});

// ---------------------------------------------------------------- set_transparency, measure_distance, label, apply_mvs

const REA = { auth_asym_id: 'A', auth_seq_id: 200 };
const C1 = { ...REA, auth_atom_id: 'C1' };
const C2 = { ...REA, auth_atom_id: 'C2' };

test("transparency, a distance and a label are one revision; the distance is Mol*'s, in Å", async () => {
  const result = await run({
    actions: [
      { op: 'set_transparency', selector: 'polymer', value: 0.7 },
      { op: 'measure_distance', start: C1, end: C2 },
      { op: 'label', selector: REA, text: '<b>retinoic acid</b>' }
    ]
  });
  const out = result.structuredContent as any;
  expect(out).toMatchObject({ changed: true, viewer: { revision: 1 } });
  // 1cbs.cif HETATM 1092/1093: C1 (21.972, 29.831, 16.739), C2 (20.921, 30.524, 15.841)
  expect(out.applied[1]).toMatchObject({ op: 'measure_distance', distance: 1.546 });
  expect(out.applied[1].summary).toContain('1.546 Å');
  expect(out.view).toMatchObject({
    transparency: [{ selector: 'polymer', value: 0.7 }],
    measurements: [{ start: C1, end: C2, distance: 1.546 }],
    labels: [{ selector: REA, text: '<b>retinoic acid</b>' }]
  });
  // the same selector replaces its transparency and its label; the same pair replaces its distance
  await run({
    actions: [
      { op: 'set_transparency', selector: 'polymer', value: 0 },
      { op: 'label', selector: REA, text: 'REA' },
      { op: 'measure_distance', start: C1, end: C2 }
    ]
  });
  expect(viewer.current).toMatchObject({ transparency: [{ value: 0 }], labels: [{ text: 'REA' }], measurements: [{ distance: 1.546 }] });
  expect(viewer.current.measurements).toHaveLength(1);
  // undo takes the batch back
  await run({ actions: [{ op: 'undo' }] });
  expect(viewer.current.labels).toEqual([{ selector: REA, text: '<b>retinoic acid</b>' }]);
});

test('a distance side that is not exactly one atom fails located, naming the side and the count', async () => {
  const many = await expectFailure(
    run({
      actions: [
        { op: 'set_background', color: '#000000' },
        { op: 'measure_distance', start: C1, end: REA }
      ]
    })
  );
  expect(many).toMatchObject({ code: 'VALIDATION_FAILED', where: '/actions/1/end', details: { name: 'end', atoms: 22, selector: REA } });
  expect(many.message).toContain('end selector');
  expect(many.message).toContain('22 atoms');
  const none = await expectFailure(run({ actions: [{ op: 'measure_distance', start: { ...REA, auth_atom_id: 'X9' }, end: C2 }] }));
  expect(none).toMatchObject({ code: 'NOT_FOUND', where: '/actions/0/start' });
  const blank = await expectFailure(run({ actions: [{ op: 'label', selector: 'ligand', text: '' }] }));
  expect(blank).toMatchObject({ code: 'INVALID_INPUT', where: '/actions/0/text' });
  const long = await expectFailure(run({ actions: [{ op: 'label', selector: 'ligand', text: 'x'.repeat(81) }] }));
  expect(long).toMatchObject({ code: 'INVALID_INPUT', where: '/actions/0/text' });
  const opaque = await expectFailure(run({ actions: [{ op: 'set_transparency', selector: 'ligand', value: -0.1 }] }));
  expect(opaque).toMatchObject({ code: 'INVALID_INPUT', where: '/actions/0/value' });
  expect(viewer.revision).toBe(0);
  expect(viewer.current.background).toBeNull();
});

const mvsj = (): Record<string, unknown> => JSON.parse(readFileSync(join(DATA, '..', '1cbs.mvsj'), 'utf8'));

test('apply_mvs draws a valid MVS state in place of the layers; null goes back', async () => {
  const state = mvsj();
  const result = await run({ actions: [{ op: 'apply_mvs', state }] });
  expect((result.structuredContent as any).applied[0].summary).toMatch(/^draw an MVS state \(\d+ nodes\)$/);
  expect(viewer.current.mvs).toEqual(state);
  expect(viewer.current.layers).toHaveLength(2);
  await run({ actions: [{ op: 'apply_mvs', state: null }] });
  expect(viewer.current.mvs).toBeNull();
  expect(viewer.revision).toBe(2);
});

test('apply_mvs: an invalid state, a refused resource, several states or too much JSON fail located; nothing applied', async () => {
  const bad = mvsj() as any;
  bad.root.children[0].children[0].children[0].children[0].params.selector = 'everything';
  const invalid = await expectFailure(run({ actions: [{ op: 'reset_camera' }, { op: 'apply_mvs', state: bad }] }));
  expect(invalid.code).toBe('VALIDATION_FAILED');
  // located at the bad node, as the Story path locates it, with the message naming the param
  expect(invalid.where).toBe('/actions/1/state/root/children/0/children/0/children/0/children/0');
  expect(invalid.message).toContain('the MVS state');
  expect(invalid.message).toContain('selector');
  expect((invalid.details as any).issues[0].path).toBe('root/children/0/children/0/children/0/children/0');

  const foreign = mvsj() as any;
  foreign.root.children[0].params.url = 'https://example.org/1cbs.bcif';
  const refused = await expectFailure(run({ actions: [{ op: 'apply_mvs', state: foreign }] }));
  expect(refused).toMatchObject({
    code: 'FORBIDDEN',
    where: '/actions/0/state/root/children/0/params/url',
    details: { url: 'https://example.org/1cbs.bcif' }
  });
  expect(refused.fix).toContain('resourceHosts');

  const several = await expectFailure(
    run({ actions: [{ op: 'apply_mvs', state: { kind: 'multiple', snapshots: [], metadata: { version: '1' } } }] })
  );
  expect(several).toMatchObject({ code: 'UNSUPPORTED_FORMAT', where: '/actions/0/state/kind' });

  const notMvs = await expectFailure(run({ actions: [{ op: 'apply_mvs', state: { hello: 'world' } }] }));
  expect(notMvs).toMatchObject({ code: 'UNSUPPORTED_FORMAT', where: '/actions/0/state' });

  const huge = mvsj() as any;
  huge.metadata.description = 'x'.repeat(5000);
  const large = await expectFailure(run({ actions: [{ op: 'apply_mvs', state: huge }] }));
  expect(large).toMatchObject({ code: 'TOO_LARGE', where: '/actions/0/state', details: { limit: 4096 } });
  expect(viewer.revision).toBe(0);
  expect(viewer.current.mvs).toBeNull();
});

test('labels, distances and transparency entries are bounded: TOO_LARGE naming the limit, nothing applied', async () => {
  const labels = Array.from({ length: 21 }, (_, k) => ({
    op: 'label',
    selector: { auth_asym_id: 'A', auth_seq_id: k + 1 },
    text: `r${k + 1}`
  }));
  const e = await expectFailure(run({ actions: labels }));
  expect(e).toMatchObject({ code: 'TOO_LARGE', where: '/actions/20', details: { list: 'labels', count: 21, limit: 20 } });
  expect(viewer.revision).toBe(0);
  await run({ actions: labels.slice(0, 20) });
  expect(viewer.current.labels).toHaveLength(20);
});

test('viewer_observe stays within the read budget and pages the composition lists with nextOffset', async () => {
  const big = structuredClone(viewer.data.composition);
  big.chains = Array.from({ length: 100 }, (_, i) => ({ ...big.chains[0], label_asym_id: `L${i}`, auth_asym_id: `A${i}` }));
  big.ligands = Array.from({ length: 100 }, (_, i) => ({ ...big.ligands[0], label_asym_id: `L${i}`, auth_seq_id: i }));
  big.chainCount = 100;
  big.ligandCount = 100;
  viewer.composition = () => big;
  const seen: string[] = [];
  let offset: number | null = 0;
  let calls = 0;
  while (offset !== null) {
    const r = await dispatcher.execute('viewer_observe', { target: 'v1', offset }, { source: 'agent' });
    const out = r.structuredContent as any;
    expect(new TextEncoder().encode(JSON.stringify(out)).length).toBeLessThanOrEqual(8192);
    expect(out.composition.chainCount).toBe(100);
    seen.push(...out.composition.chains.map((c: { label_asym_id: string }) => c.label_asym_id));
    offset = out.nextOffset;
    calls += 1;
  }
  expect(calls).toBeGreaterThan(1);
  expect(seen).toEqual(big.chains.map(c => c.label_asym_id));
  // A structure whose lists fit comes back whole, with nothing to page.
  viewer.composition = () => viewer.data.composition;
  const small = (await dispatcher.execute('viewer_observe', { target: 'v1' }, { source: 'agent' })).structuredContent as any;
  expect(small.nextOffset).toBeNull();
  expect(small.composition.chains).toHaveLength(viewer.data.composition.chains.length);
});

test('colours with long selectors stop at the view budget (TOO_LARGE, nothing applied), so viewer_observe stays within 8 KiB', async () => {
  // 50 residues a selector, one selector a set_color: before the view bound, 200 of them made a
  // 602 KB viewer_observe and a 952 KB act result.
  const sel = (k: number) =>
    Array.from({ length: 50 }, (_, j) => ({
      label_asym_id: 'A',
      auth_seq_id: 1 + (k % 80) + j,
      label_atom_id: ['CA', 'N', 'C'][Math.floor(k / 80)]
    }));
  const batch = (c: number) => ({
    actions: Array.from({ length: 50 }, (_, i) => ({ op: 'set_color', selector: sel(c * 50 + i), color: '#ff0000' }))
  });
  const before = structuredClone(viewer.current);
  const e = await expectFailure(run(batch(0)));
  expect(e.code).toBe('TOO_LARGE');
  expect(e.where).toMatch(/^\/actions\/\d+$/);
  expect(e.details).toMatchObject({ limit: 6144 });
  expect(viewer.current).toEqual(before);
  // as many as fit are taken, in batches, until the bound
  let c = 0;
  for (; c < 40; c++) {
    try {
      await run({ actions: [{ op: 'set_color', selector: sel(c), color: '#00ff00' }] });
    } catch (err) {
      expect((err as { code: string }).code).toBe('TOO_LARGE');
      break;
    }
  }
  expect(c).toBeGreaterThan(0);
  expect(c).toBeLessThan(40);
  const o = await dispatcher.execute('viewer_observe', { target: 'v1' }, { source: 'agent' });
  expect(new TextEncoder().encode(JSON.stringify(o.structuredContent)).length).toBeLessThanOrEqual(8192);
});
