/**
 * Viewer sources that are not files, and the clear operations, through the
 * real page: an RDKit Mol (SDF, one model per conformer) and an MVS state as
 * a cell's Viewer source; `open {mvs}` by an agent (the official TS SDK,
 * tools/list first); selectors after `apply_mvs` checked against the
 * structure the state loads; `clear_labels` / `clear_measurements` drawn by
 * Mol* when `act` returns, undoable, from a cell too. Remote URLs are served
 * from tests/data by page.route.
 */
import * as fs from 'fs';
import * as path from 'path';
import { expect, test } from './sharedLab';
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import { ROOT, call, mcpClient, runCell, setCode } from './helpers';

const DATA = path.join(ROOT, 'tests', 'data', 'structures');
const HPV_URL = 'https://files.rcsb.org/molspace-test/1hpv.pdb';
const APV = { auth_comp_id: '478' }; // amprenavir, in 1hpv only
const REA = { auth_asym_id: 'A', auth_seq_id: 200 }; // retinoic acid, in 1cbs only
const C1 = { ...REA, auth_atom_id: 'C1' };
const C2 = { ...REA, auth_atom_id: 'C2' };

const hpvState = (url = HPV_URL) => ({
  kind: 'single',
  metadata: { version: '1', title: '1HPV' },
  root: {
    kind: 'root',
    children: [
      {
        kind: 'download',
        params: { url },
        children: [
          {
            kind: 'parse',
            params: { format: 'pdb' },
            children: [
              { kind: 'structure', params: { type: 'model' }, children: [{ kind: 'component', params: { selector: 'polymer' }, children: [{ kind: 'representation', params: { type: 'cartoon' } }] }] }
            ]
          }
        ]
      }
    ]
  }
});

async function serve(page: IJupyterLabPageFixture): Promise<string[]> {
  const served: string[] = [];
  const body = fs.readFileSync(path.join(DATA, '1hpv.pdb'));
  await page.route(HPV_URL, route => {
    served.push(route.request().url());
    return route.fulfill({ body, contentType: 'text/plain', headers: { 'Access-Control-Allow-Origin': '*' } });
  });
  await page.route('https://files.rcsb.org/molspace-test/missing.pdb', route =>
    route.fulfill({ status: 404, body: 'no', headers: { 'Access-Control-Allow-Origin': '*' } })
  );
  return served;
}

test('an RDKit Mol is a Viewer source: SDF read by Mol*, one model per conformer; without 3D coordinates embedded; located refusals', async ({ page }) => {
  await page.notebook.createNew('rdkit.ipynb');
  await setCode(
    page,
    0,
    [
      'import molspace',
      'from rdkit import Chem',
      'from rdkit.Chem import AllChem',
      'm = Chem.AddHs(Chem.MolFromSmiles("CCCO"))',
      'ids = AllChem.EmbedMultipleConfs(m, numConfs=3, randomSeed=1)',
      'r = molspace.Viewer(m)',
      'r'
    ].join('\n')
  );
  await page.notebook.runCell(0, true);
  await expect(page.locator('.molspace-viewer').first()).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
  // one model per conformer, every atom with its hydrogens, read by Mol* from the SDF the kernel wrote
  expect(await runCell(page, 'c = r.composition\nprint(r.format, r.source_name, c["modelCount"], c["atoms"], len(c["shownModels"]))')).toBe('sdf rdkit.Mol 3 12 3');
  // a 2D Mol: embedded by ETKDG, hydrogens added
  await runCell(page, 'f = molspace.Viewer(Chem.MolFromSmiles("c1ccccc1O"))\nf');
  await expect(page.locator('.molspace-viewer').nth(1)).toContainText('1 model, 0 polymer chains, 1 ligand (MOL A 1), 0 waters, 13 atoms', { timeout: 90_000 });
  expect(await runCell(page, 'print(f.source_name, f.composition["modelCount"], f.composition["atoms"])')).toBe('rdkit.Mol (embedded with ETKDG) 1 13');
  // an empty Mol fails in the cell, located
  expect(await runCell(page, 'try:\n    molspace.Viewer(Chem.Mol())\nexcept molspace.StructureSourceError as e:\n    print(e.to_dict()["code"], e.to_dict()["where"])')).toBe(
    'VALIDATION_FAILED source'
  );
});

test('an MVS state is a Viewer source (a cell) and an open source (an agent); its structure is fetched; bad ones are located', async ({ page }) => {
  const served = await serve(page);
  // an MVS state (a molviewspec builder): drawn; its structure, fetched by the page, is the Viewer's own
  await page.notebook.createNew('mvs.ipynb');
  await setCode(
    page,
    0,
    [
      'import molspace',
      'from molviewspec import create_builder',
      'b = create_builder()',
      `b.download(url="${HPV_URL}").parse(format="pdb").model_structure().component(selector="polymer").representation(type="cartoon")`,
      's = molspace.Viewer(b)',
      's'
    ].join('\n')
  );
  await page.notebook.runCell(0, true);
  const mvsViewer = page.locator('.molspace-viewer').first();
  await expect(mvsViewer).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
  expect(served.length).toBeGreaterThan(0);
  expect(await runCell(page, 'print(s.composition["format"], s.composition["chainCount"] >= 2, s.view["mvs"]["root"]["children"][0]["params"]["url"][-8:])')).toBe(
    'pdb True 1hpv.pdb'
  );
  const target = await runCell(page, 'print(s.model_id)');

  const client = await mcpClient();
  try {
    // selectors on the MVS source are checked against its structure (1hpv), drawn by Mol*
    const [focused, focusError] = await call(client, 'act', { target, actions: [{ op: 'focus', selector: APV }, { op: 'label', selector: APV, text: 'APV' }] });
    expect(focusError).toBe(false);
    expect(focused.applied[0].summary).toMatch(/^focus .*478.*atoms\)$/);
    expect(await mvsViewer.locator('[data-molspace-labels]').getAttribute('data-molspace-labels')).toBe('1');

    // a state whose structure is not there: the Viewer shows a located error
    await runCell(
      page,
      'bad = molspace.Viewer({"kind": "single", "metadata": {"version": "1"}, "root": {"kind": "root", "children": [{"kind": "download", "params": {"url": "https://files.rcsb.org/molspace-test/missing.pdb"}, "children": [{"kind": "parse", "params": {"format": "pdb"}}]}]}})\nbad'
    );
    await expect
      .poll(() => runCell(page, 'e = bad.error or {}\nprint(e.get("code"), e.get("where"), (e.get("details") or {}).get("status"))'), { timeout: 90_000 })
      .toBe('NOT_FOUND mvs 404');

    // open {mvs}: the same, docked by an agent
    const [opened, openError] = await call(client, 'open', { mvs: hpvState() });
    expect(openError).toBe(false);
    expect(opened.viewer.title).toBe('1HPV');
    expect(opened.composition.format).toBe('pdb');
    const [observedOpen] = await call(client, 'viewer_observe', { target: opened.viewer.target });
    expect(observedOpen.view.mvs.root.children[0].params.url).toBe(HPV_URL);
    // refused: a host off the allow-list (never fetched), a multi-state Story, a missing structure; located under /mvs
    const [foreign, foreignError] = await call(client, 'open', { mvs: hpvState('https://example.org/1hpv.pdb') });
    expect(foreignError).toBe(true);
    expect(foreign).toMatchObject({ code: 'FORBIDDEN', where: '/mvs/root/children/0/params/url' });
    const [multi, multiError] = await call(client, 'open', { mvs: { kind: 'multiple', snapshots: [], metadata: { version: '1' } } });
    expect(multiError).toBe(true);
    expect(multi).toMatchObject({ code: 'UNSUPPORTED_FORMAT', where: '/mvs/kind' });
    const [missing, missingError] = await call(client, 'open', { mvs: hpvState('https://files.rcsb.org/molspace-test/missing.pdb') });
    expect(missingError).toBe(true);
    expect(missing).toMatchObject({ code: 'NOT_FOUND', where: '/mvs', details: { status: 404 } });
    const [both, bothError] = await call(client, 'open', { mvs: hpvState(), pdbId: '1cbs' });
    expect(bothError).toBe(true);
    expect(both.code).toBe('INVALID_INPUT');
  } finally {
    await client.close();
  }
});

test('after apply_mvs, selectors are checked against the structure it loads; clear_labels and clear_measurements are drawn and undoable', async ({ page, tmpPath }) => {
  await serve(page);
  await page.contents.uploadFile(path.join(DATA, '1cbs.cif'), `${tmpPath}/1cbs.cif`);
  await page.notebook.createNew('clear.ipynb');
  await setCode(page, 0, 'import molspace\nv = molspace.Viewer("1cbs.cif")\nv');
  await page.notebook.runCell(0, true);
  const viewer = page.locator('.molspace-viewer').first();
  await expect(viewer).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
  const host = viewer.locator('[data-molspace-measurements]');
  const client = await mcpClient();
  try {
    const [observed] = await call(client, 'observe');
    const target = observed.widgets.find((w: { kind: string }) => w.kind === 'viewer').id;

    // clear_labels / clear_measurements: Mol* no longer holds them when act returns
    const [annotated, annotateError] = await call(client, 'act', {
      target,
      actions: [{ op: 'label', selector: REA, text: 'REA' }, { op: 'label', selector: { auth_asym_id: 'A', auth_seq_id: 1 }, text: 'N' }, { op: 'measure_distance', start: C1, end: C2 }]
    });
    expect(annotateError).toBe(false);
    await expect(host).toHaveAttribute('data-molspace-labels', '2');
    await expect(host).toHaveAttribute('data-molspace-measurements', '1');
    const [cleared, clearError] = await call(client, 'act', { target, actions: [{ op: 'clear_labels' }] });
    expect(clearError).toBe(false);
    expect(cleared).toMatchObject({ changed: true, applied: [{ op: 'clear_labels', summary: 'clear 2 labels' }] });
    expect(cleared.viewer.revision).toBe(annotated.viewer.revision + 1);
    expect(cleared.view.labels).toEqual([]);
    expect(await host.getAttribute('data-molspace-labels')).toBe('0');
    expect(await host.getAttribute('data-molspace-measurements')).toBe('1');
    const [gone] = await call(client, 'act', { target, actions: [{ op: 'clear_measurements' }] });
    expect(gone.view.measurements).toEqual([]);
    expect(await host.getAttribute('data-molspace-measurements')).toBe('0');
    // undo: the distance is back; undo again: the labels
    await call(client, 'act', { target, actions: [{ op: 'undo' }] });
    expect(await host.getAttribute('data-molspace-measurements')).toBe('1');
    await call(client, 'act', { target, actions: [{ op: 'undo' }] });
    expect(await host.getAttribute('data-molspace-labels')).toBe('2');
    // a clear takes no fields: refused by the contract, located
    const [extra, extraError] = await call(client, 'act', { target, actions: [{ op: 'clear_labels', selector: 'all' }] });
    expect(extraError).toBe(true);
    expect(extra).toMatchObject({ code: 'INVALID_INPUT', where: '/actions/0/selector' });
    // from a cell: the same operations
    const revision = (await call(client, 'viewer_observe', { target }))[0].viewer.revision;
    await runCell(page, 'v.clear_labels()\nv.clear_measurements()');
    await expect.poll(async () => (await call(client, 'viewer_observe', { target }))[0].viewer.revision).toBe(revision + 2);
    await expect(host).toHaveAttribute('data-molspace-labels', '0');
    await expect(host).toHaveAttribute('data-molspace-measurements', '0');
    expect(await runCell(page, 'print(v.view["labels"], v.view["measurements"], v.undo_label)')).toBe('[] [] clear 1 distance (cell)');

    // apply_mvs of another structure (1hpv): its ligand can be focused, labelled, measured; 1cbs's cannot
    const [drawn, drawnError] = await call(client, 'act', {
      target,
      actions: [
        { op: 'apply_mvs', state: hpvState() },
        { op: 'focus', selector: APV },
        { op: 'label', selector: APV, text: 'APV' },
        { op: 'measure_distance', start: { auth_asym_id: 'A', auth_seq_id: 1, auth_atom_id: 'CA' }, end: { auth_asym_id: 'B', auth_seq_id: 1, auth_atom_id: 'CA' } }
      ]
    });
    expect(drawnError).toBe(false);
    expect(drawn.applied[3].distance).toBeGreaterThan(5);
    await expect(host).toHaveAttribute('data-molspace-labels', '1');
    await expect(host).toHaveAttribute('data-molspace-measurements', '1');
    await expect(viewer).toHaveAttribute('data-molspace-ready', 'true');
    const [rea, reaError] = await call(client, 'act', { target, actions: [{ op: 'select', selector: REA }] });
    expect(reaError).toBe(true);
    expect(rea).toMatchObject({ code: 'NOT_FOUND', where: '/actions/0/selector' });
    // a state that loads two structures: selectors refused, saying why
    const two = hpvState();
    two.root.children.push({ ...structuredClone(two.root.children[0]), params: { url: 'https://files.rcsb.org/molspace-test/other.pdb' } });
    const [refused, refusedError] = await call(client, 'act', { target, actions: [{ op: 'clear_measurements' }, { op: 'apply_mvs', state: two }, { op: 'focus', selector: APV }] });
    expect(refusedError).toBe(true);
    expect(refused).toMatchObject({ code: 'VALIDATION_FAILED', where: '/actions/2/selector', details: { urls: [HPV_URL, 'https://files.rcsb.org/molspace-test/other.pdb'] } });
    // back to the Viewer's own file with a 1hpv distance held: refused, saying to clear it first
    const [held, heldError] = await call(client, 'act', { target, actions: [{ op: 'apply_mvs', state: null }] });
    expect(heldError).toBe(true);
    expect(held).toMatchObject({ code: 'VALIDATION_FAILED', where: '/actions/0/state', details: { measurement: 0 } });
    // cleared first in the same batch: back, with the Viewer's own selectors
    const [back, backError] = await call(client, 'act', { target, actions: [{ op: 'clear_measurements' }, { op: 'apply_mvs', state: null }, { op: 'focus', selector: REA }] });
    expect(backError).toBe(false);
    expect(back.view).toMatchObject({ mvs: null, focus: REA, measurements: [] });
    await expect(host).toHaveAttribute('data-molspace-measurements', '0');
  } finally {
    await client.close();
  }
});
