/**
 * viewerActions / viewerMvs: an act batch is validated whole before anything
 * changes, then planned as one new view; the view becomes an MVS state that
 * Mol*'s own MVS validation accepts.
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import { MVSData } from 'molstar/lib/extensions/mvs/mvs-data';
import { initialView, planActions, selectorKey } from '../viewerActions';
import { viewToMvs } from '../viewerMvs';
import { LIMITS } from '../../contract';
import { defaultLayers, readStructure, type StructureData } from '../structureData';
import { ActInput, type ViewerAction } from '../../contract';

const DATA = join(__dirname, '..', '..', '..', 'tests', 'data', 'structures');
let cbs: StructureData;

beforeAll(async () => {
  cbs = await readStructure(new Uint8Array(readFileSync(join(DATA, '1cbs.cif'))), 'mmcif', '1cbs.cif');
});

const actions = (a: unknown[]): ViewerAction[] => ActInput.parse({ actions: a }).actions;

test('a batch plans one new view with every operation, in order', async () => {
  const before = initialView(defaultLayers(cbs));
  expect(before.layers).toEqual([
    { selector: 'polymer', representation: 'cartoon' },
    { selector: 'ligand', representation: 'ball_and_stick' }
  ]);
  const plan = await planActions(
    before,
    actions([
      { op: 'focus', selector: { auth_asym_id: 'A', auth_seq_id: 200 } },
      { op: 'set_representation', selector: 'ligand', representation: 'spacefill' },
      { op: 'set_representation', selector: 'water', representation: 'ball_and_stick' },
      { op: 'set_color', selector: { auth_asym_id: 'A', beg_auth_seq_id: 1, end_auth_seq_id: 10 }, color: '#FF0000' },
      { op: 'set_color', selector: { end_auth_seq_id: 10, beg_auth_seq_id: 1, auth_asym_id: 'A' }, color: '#00ff00' },
      { op: 'select', selector: 'ligand' },
      { op: 'highlight', selector: [{ auth_seq_id: 1 }, { auth_seq_id: 2 }] },
      { op: 'set_background', color: '#000000' },
      { op: 'screenshot', width: 200 }
    ]),
    cbs
  );
  expect(plan.changed).toBe(true);
  expect(plan.view.layers.map(l => `${l.selector}:${l.representation}`)).toEqual([
    'polymer:cartoon',
    'ligand:spacefill',
    'water:ball_and_stick'
  ]);
  // the same selector (keys in another order) replaces its colour
  expect(plan.view.colors).toEqual([{ selector: { end_auth_seq_id: 10, beg_auth_seq_id: 1, auth_asym_id: 'A' }, color: '#00ff00' }]);
  expect(plan.view).toMatchObject({ focus: { auth_asym_id: 'A', auth_seq_id: 200 }, selection: 'ligand', background: '#000000' });
  expect(plan.applied.map(a => a.op)).toEqual([
    'focus',
    'set_representation',
    'set_representation',
    'set_color',
    'set_color',
    'select',
    'highlight',
    'set_background',
    'screenshot'
  ]);
  expect(plan.applied[0].summary).toBe('focus {"auth_asym_id":"A","auth_seq_id":200} (22 atoms)');
  expect(plan.screenshot).toEqual({
    width: 200,
    height: undefined,
    defaultWidth: LIMITS.screenshotDefaultWidth,
    format: 'jpeg',
    quality: 0.8
  });
  expect(before.layers[1].representation).toBe('ball_and_stick'); // the view before is not touched
});

test('one selector that matches nothing fails the whole batch, located at it', async () => {
  const before = initialView(defaultLayers(cbs));
  await expect(
    planActions(
      before,
      actions([
        { op: 'set_background', color: '#000000' },
        { op: 'select', selector: { label_asym_id: 'Q' } }
      ]),
      cbs
    )
  ).rejects.toThrow(
    expect.objectContaining({
      code: 'NOT_FOUND',
      where: '/actions/1/selector',
      details: expect.objectContaining({ label_asym_ids: ['A', 'B', 'C'] })
    })
  );
  expect(before.background).toBeNull();
});

test('a batch that changes nothing is reported unchanged; reset_camera and clears are changes', async () => {
  const before = initialView(defaultLayers(cbs));
  expect((await planActions(before, actions([{ op: 'screenshot' }]), cbs)).changed).toBe(false);
  expect(
    (await planActions(before, actions([{ op: 'set_representation', selector: 'polymer', representation: 'cartoon' }]), cbs)).changed
  ).toBe(false);
  const reset = await planActions(before, actions([{ op: 'reset_camera' }]), cbs);
  expect(reset.changed).toBe(true);
  expect(reset.view.cameraResets).toBe(1);
  const selected = (await planActions(before, actions([{ op: 'select', selector: 'polymer' }]), cbs)).view;
  expect((await planActions(selected, actions([{ op: 'clear_selection' }]), cbs)).view.selection).toBeNull();
});

test('selector keys ignore key order', () => {
  expect(selectorKey({ auth_asym_id: 'A', auth_seq_id: 1 })).toBe(selectorKey({ auth_seq_id: 1, auth_asym_id: 'A' }));
  expect(selectorKey('ligand')).not.toBe(selectorKey('polymer'));
});

test("the view becomes an MVS state that Mol*'s MVS validation accepts", async () => {
  const view = (
    await planActions(
      initialView(defaultLayers(cbs)),
      actions([
        { op: 'set_color', selector: [{ auth_asym_id: 'A', auth_seq_id: 200 }], color: '#ff00ff' },
        { op: 'set_background', color: '#101010' }
      ]),
      cbs
    )
  ).view;
  const mvs = viewToMvs(view, { url: 'arcp://x/structure.mmcif', format: 'mmcif', models: [0, 1], background: '#ffffff' });
  expect(MVSData.validationIssues(mvs as never)).toBeUndefined();
  const root = (mvs as any).root;
  expect(root.children[0]).toEqual({ kind: 'canvas', params: { background_color: '#101010' } });
  const structures = root.children[1].children[0].children;
  expect(structures.map((s: any) => s.params.model_index)).toEqual([0, 1]);
  expect(structures[0].children.map((c: any) => c.params.selector)).toEqual(['polymer', 'ligand']);
});

test('labels become MVS label nodes on their own components; an applied MVS state is drawn as given', async () => {
  const plan = await planActions(
    initialView(defaultLayers(cbs)),
    actions([
      { op: 'label', selector: { auth_asym_id: 'A', auth_seq_id: 200 }, text: 'REA <i>200</i>' },
      { op: 'set_transparency', selector: 'polymer', value: 0.5 }
    ]),
    cbs
  );
  const mvs = viewToMvs(plan.view, { url: 'arcp://x/structure.mmcif', format: 'mmcif', models: [0], background: '#ffffff' });
  expect(MVSData.validationIssues(mvs as never)).toBeUndefined();
  const structure = (mvs as any).root.children[1].children[0].children[0];
  expect(structure.children[2]).toEqual({
    kind: 'component',
    params: { selector: { auth_asym_id: 'A', auth_seq_id: 200 } },
    children: [{ kind: 'label', params: { text: 'REA <i>200</i>' } }]
  });
  // transparency is not an MVS node: the live viewer applies it with Mol*'s transparency helper
  expect(JSON.stringify(mvs)).not.toContain('transparen');
  const state = { metadata: { version: '1' }, root: { kind: 'root', children: [] } };
  expect(viewToMvs({ ...plan.view, mvs: state }, { url: 'u', format: 'mmcif', models: [0], background: '#ffffff' })).toEqual({
    ...state,
    kind: 'single'
  });
});

test('apply_mvs without an MVS check is refused rather than drawn unchecked', async () => {
  await expect(planActions(initialView(defaultLayers(cbs)), actions([{ op: 'apply_mvs', state: { root: {} } }]), cbs)).rejects.toThrow(
    expect.objectContaining({ code: 'INTERNAL', where: '/actions/0/state' })
  );
});
