/**
 * Selectors while an MVS state is drawn are checked against the structure
 * that state loads (`mvsStructure.ts`), not the Viewer's own file; a state
 * that loads none or several is refused, located, saying why. And the clear
 * operations: one undoable step each, nothing else touched.
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import { initialView, planActions, type MvsData } from '../viewerActions';
import { defaultLayers, readStructure, type StructureData } from '../structureData';
import { fetchMvsStructure, mvsDownloads, mvsStructureOf } from '../mvsStructure';
import { defaultResourcePolicy } from '../../resources/resourcePolicy';
import { ActInput, LIMITS, MolspaceError, type ViewerAction } from '../../contract';

const DATA = join(__dirname, '..', '..', '..', 'tests', 'data', 'structures');
const HPV_URL = 'https://files.rcsb.org/molspace-test/1hpv.pdb';
let cbs: StructureData;
let hpv: StructureData;

beforeAll(async () => {
  cbs = await readStructure(new Uint8Array(readFileSync(join(DATA, '1cbs.cif'))), 'mmcif', '1cbs.cif');
  hpv = await readStructure(new Uint8Array(readFileSync(join(DATA, '1hpv.pdb'))), 'pdb', '1hpv.pdb');
});

const actions = (a: unknown[]): ViewerAction[] => ActInput.parse({ actions: a }).actions;
const download = (url: string, format: string) => ({
  kind: 'download',
  params: { url },
  children: [{ kind: 'parse', params: { format }, children: [{ kind: 'structure', params: { type: 'model' } }] }]
});
const stateOf = (...downloads: object[]) => ({ kind: 'single', metadata: { version: '1' }, root: { kind: 'root', children: downloads } });
const HPV = stateOf(download(HPV_URL, 'pdb'));
const accept = async () => undefined;
/** What the model answers: the structure of the state's one download (here: 1hpv), as mvsStructureOf picks it. */
const mvsData: MvsData = async (state, where) => {
  const { url } = mvsStructureOf(state, where);
  expect(url).toBe(HPV_URL);
  return hpv;
};

test('after apply_mvs in the same batch, a selector is checked against the structure the state loads', async () => {
  // 1hpv has chains A and B and the ligand 478 (amprenavir); 1cbs has none
  const mk1 = { auth_comp_id: '478' };
  await expect(planActions(initialView(defaultLayers(cbs)), actions([{ op: 'focus', selector: mk1 }]), cbs)).rejects.toMatchObject({
    code: 'NOT_FOUND'
  });
  const plan = await planActions(
    initialView(defaultLayers(cbs)),
    actions([
      { op: 'apply_mvs', state: HPV },
      { op: 'focus', selector: mk1 },
      { op: 'label', selector: mk1, text: 'APV' }
    ]),
    cbs,
    undefined,
    accept,
    mvsData
  );
  expect(plan.view.focus).toEqual(mk1);
  expect(plan.applied[1].summary).toMatch(/^focus .*478.* \(\d+ atoms\)$/);
  // and a selector of the Viewer's own file that the drawn state does not hold is NOT_FOUND, with the drawn chains
  const drawn = plan.view;
  await expect(
    planActions(drawn, actions([{ op: 'select', selector: { auth_comp_id: 'REA' } }]), cbs, undefined, accept, mvsData)
  ).rejects.toMatchObject({
    code: 'NOT_FOUND',
    where: '/actions/0/selector',
    details: expect.objectContaining({ auth_asym_ids: expect.arrayContaining(['A', 'B']) })
  });
  // distances too: both sides on the drawn structure
  const one = await planActions(
    drawn,
    actions([
      {
        op: 'measure_distance',
        start: { auth_asym_id: 'A', auth_seq_id: 1, auth_atom_id: 'CA' },
        end: { auth_asym_id: 'B', auth_seq_id: 1, auth_atom_id: 'CA' }
      }
    ]),
    cbs,
    undefined,
    accept,
    mvsData
  );
  expect(one.view.measurements[0].distance).toBeGreaterThan(1);
  // back to the layers while a 1hpv distance is held: refused (Mol* could not draw it on 1cbs), saying to clear it
  await expect(planActions(one.view, actions([{ op: 'apply_mvs', state: null }]), cbs, undefined, accept, mvsData)).rejects.toMatchObject({
    code: 'VALIDATION_FAILED',
    where: '/actions/0/state',
    details: { measurement: 0, side: 'end' }, // B 1 CA: 1cbs has one chain A, no B
    fix: expect.stringContaining('clear_measurements')
  });
  const back = await planActions(
    one.view,
    actions([{ op: 'clear_measurements' }, { op: 'apply_mvs', state: null }, { op: 'focus', selector: { auth_comp_id: 'REA' } }]),
    cbs,
    undefined,
    accept,
    mvsData
  );
  expect(back.view).toMatchObject({ mvs: null, measurements: [], focus: { auth_comp_id: 'REA' } });
  // a distance that exists in both structures stays
  const both = { ...initialView([]), measurements: [{ start: { atom_index: 0 }, end: { atom_index: 1 }, distance: 1 }] };
  await expect(planActions(both, actions([{ op: 'apply_mvs', state: HPV }]), cbs, undefined, accept, mvsData)).resolves.toMatchObject({
    view: { mvs: HPV }
  });
});

test('without a reader for the drawn state, selectors are refused rather than checked against the wrong file', async () => {
  const drawn = { ...initialView(defaultLayers(cbs)), mvs: HPV };
  await expect(planActions(drawn, actions([{ op: 'focus', selector: 'ligand' }]), cbs)).rejects.toMatchObject({
    code: 'VALIDATION_FAILED',
    where: '/actions/0/selector'
  });
  // operations without selectors still plan
  const plan = await planActions(drawn, actions([{ op: 'set_background', color: '#101010' }]), cbs);
  expect(plan.view.background).toBe('#101010');
});

test('a state that loads no structure, several, or a format the Viewer cannot read: located, saying why', () => {
  const where = '/actions/1/selector';
  expect(() => mvsStructureOf(stateOf(), where)).toThrow(
    expect.objectContaining({ code: 'VALIDATION_FAILED', where, message: expect.stringContaining('no structure') })
  );
  const two = stateOf(download(HPV_URL, 'pdb'), download('https://files.rcsb.org/x/1cbs.cif', 'mmcif'));
  expect(() => mvsStructureOf(two, where)).toThrow(
    expect.objectContaining({
      code: 'VALIDATION_FAILED',
      where,
      details: { urls: [HPV_URL, 'https://files.rcsb.org/x/1cbs.cif'] },
      fix: expect.stringContaining('apply_mvs with state null')
    })
  );
  expect(() => mvsStructureOf(stateOf(download('https://files.rcsb.org/x/map.ccp4', 'map')), where)).toThrow(
    expect.objectContaining({ code: 'UNSUPPORTED_FORMAT', where, details: { url: 'https://files.rcsb.org/x/map.ccp4', format: 'map' } })
  );
  // the same URL twice is one structure
  expect(mvsDownloads(stateOf(download(HPV_URL, 'pdb'), download(HPV_URL, 'pdb')))).toEqual([{ url: HPV_URL, format: 'pdb' }]);
});

test('the fetch of a state structure: HTTP errors, network errors, refused redirects and size, located', async () => {
  const policy = defaultResourcePolicy();
  const where = '/actions/0/selector';
  const answer =
    (body: BodyInit | null, init: ResponseInit & { url?: string } = {}) =>
    async () => {
      const r = new Response(body, init);
      Object.defineProperty(r, 'url', { value: init.url ?? HPV_URL });
      return r;
    };
  await expect(fetchMvsStructure(HPV_URL, where, policy, answer('ATOM', { status: 200 }))).resolves.toEqual(
    new TextEncoder().encode('ATOM')
  );
  await expect(fetchMvsStructure(HPV_URL, where, policy, answer('gone', { status: 404 }))).rejects.toMatchObject({
    code: 'NOT_FOUND',
    where,
    details: { status: 404 }
  });
  await expect(
    fetchMvsStructure(HPV_URL, where, policy, async () => {
      throw new TypeError('Failed to fetch');
    })
  ).rejects.toMatchObject({ code: 'NOT_FOUND', where, message: expect.stringContaining('Failed to fetch') });
  await expect(fetchMvsStructure(HPV_URL, where, policy, answer('x', { url: 'https://example.org/1hpv.pdb' }))).rejects.toMatchObject({
    code: 'FORBIDDEN',
    where,
    details: { finalUrl: 'https://example.org/1hpv.pdb' }
  });
  // over viewerSourceBytes: by the declared length (nothing read), or while reading
  const declared = answer('x', { headers: { 'content-length': String(LIMITS.viewerSourceBytes + 1) } });
  await expect(fetchMvsStructure(HPV_URL, where, policy, declared)).rejects.toMatchObject({
    code: 'TOO_LARGE',
    where,
    details: { limit: LIMITS.viewerSourceBytes }
  });
  const chunk = new Uint8Array(LIMITS.viewerSourceBytes / 4);
  const stream = () =>
    new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < 5; i++) c.enqueue(chunk);
        c.close();
      }
    });
  await expect(fetchMvsStructure(HPV_URL, where, policy, answer(stream()))).rejects.toBeInstanceOf(MolspaceError);
  await expect(fetchMvsStructure(HPV_URL, where, policy, answer(stream()))).rejects.toMatchObject({ code: 'TOO_LARGE', where });
});

test('clear_labels and clear_measurements: one step, the other annotations stay', async () => {
  const c1 = { auth_asym_id: 'A', auth_seq_id: 200, auth_atom_id: 'C1' };
  const c2 = { auth_asym_id: 'A', auth_seq_id: 200, auth_atom_id: 'C2' };
  const annotated = await planActions(
    initialView(defaultLayers(cbs)),
    actions([
      { op: 'label', selector: 'ligand', text: 'REA' },
      { op: 'label', selector: { auth_asym_id: 'A', auth_seq_id: 1 }, text: 'N' },
      { op: 'measure_distance', start: c1, end: c2 },
      { op: 'set_transparency', selector: 'polymer', value: 0.5 }
    ]),
    cbs
  );
  const labels = await planActions(annotated.view, actions([{ op: 'clear_labels' }]), cbs);
  expect(labels).toMatchObject({ changed: true, step: 'push', applied: [{ op: 'clear_labels', summary: 'clear 2 labels' }] });
  expect(labels.view).toEqual({ ...annotated.view, labels: [] });
  const distances = await planActions(labels.view, actions([{ op: 'clear_measurements' }]), cbs);
  expect(distances.applied[0].summary).toBe('clear 1 distance');
  expect(distances.view).toEqual({ ...annotated.view, labels: [], measurements: [] });
  // nothing to clear: no change, so no revision
  const again = await planActions(distances.view, actions([{ op: 'clear_labels' }, { op: 'clear_measurements' }]), cbs);
  expect(again).toMatchObject({ changed: false, applied: [{ summary: 'clear 0 labels' }, { summary: 'clear 0 distances' }] });
  // a clear then new labels in one batch: only the new ones
  const relabel = await planActions(
    annotated.view,
    actions([{ op: 'clear_labels' }, { op: 'label', selector: 'water', text: 'HOH' }]),
    cbs
  );
  expect(relabel.view.labels).toEqual([{ selector: 'water', text: 'HOH' }]);
  // and undo brings them back (the history holds the view before)
  const undone = await planActions(labels.view, actions([{ op: 'undo' }]), cbs, { undo: annotated.view, redo: null });
  expect(undone.view.labels).toHaveLength(2);
  // a clear takes no fields
  expect(ActInput.safeParse({ actions: [{ op: 'clear_labels', selector: 'all' }] }).success).toBe(false);
});

test('labels given while an MVS state is drawn are drawn in it: one label component under each structure node', async () => {
  const { viewToMvs } = await import('../viewerMvs');
  const { MVSData } = await import('molstar/lib/extensions/mvs/mvs-data');
  const view = { ...initialView([]), mvs: stateOf(download(HPV_URL, 'pdb')), labels: [{ selector: { auth_comp_id: '478' }, text: 'APV' }] };
  const mvs = viewToMvs(view, { url: 'arcp://x/structure.mmcif', format: 'mmcif', models: [0], background: '#ffffff' }) as any;
  const structure = mvs.root.children[0].children[0].children[0];
  expect(structure.children).toEqual([
    { kind: 'component', params: { selector: { auth_comp_id: '478' } }, children: [{ kind: 'label', params: { text: 'APV' } }] }
  ]);
  expect((view.mvs as any).root.children[0].children[0].children[0]).not.toHaveProperty('children'); // the state itself is not changed
  expect(MVSData.validationIssues(mvs)).toBeUndefined();
});
