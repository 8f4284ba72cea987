/**
 * The Viewer's act operations on what Mol* draws, end to end: an agent (the
 * official TS SDK, tools/list first) and a cell set transparency, measure a
 * distance, label atoms and apply an MVS state; each call returns once Mol*
 * holds it (the counts the live viewer writes on its host), and bad input
 * comes back located with nothing applied. Remote URLs are served from
 * tests/data by page.route.
 */
import * as fs from 'fs';
import * as path from 'path';
import { expect, test } from './sharedLab';
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import { ROOT, call, foregroundFraction, mcpClient, runCell, setCode } from './helpers';

const DATA = path.join(ROOT, 'tests', 'data');
const REA = { auth_asym_id: 'A', auth_seq_id: 200 };
const C1 = { ...REA, auth_atom_id: 'C1' };
const C2 = { ...REA, auth_atom_id: 'C2' };

async function showViewer(page: IJupyterLabPageFixture, tmpPath: string) {
  await page.contents.uploadFile(path.join(DATA, 'structures', '1cbs.cif'), `${tmpPath}/1cbs.cif`);
  await page.notebook.createNew('ops.ipynb');
  await setCode(page, 0, 'import molspace\nv = molspace.Viewer("1cbs.cif")\nv');
  await page.notebook.runCell(0, true);
  const viewer = page.locator('.molspace-viewer').first();
  await expect(viewer).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
  return viewer;
}

test('transparency, a distance and a label: drawn by Mol* when act returns, located failures, the same from a cell', async ({
  page,
  tmpPath
}) => {
  const viewer = await showViewer(page, tmpPath);
  const host = viewer.locator('[data-molspace-measurements]');
  const canvas = viewer.locator('canvas').first();
  await expect.poll(() => foregroundFraction(canvas), { timeout: 30_000 }).toBeGreaterThan(0.02);
  const opaque = await foregroundFraction(canvas);
  // The first load waited for one frame: the initial view the model set meanwhile is the same view, drawn already
  // (a second frame of the same scene costs seconds on software WebGL). Read once the view has settled: the
  // saved-notebook fallback is taken only after a quiet time with nothing left to draw.
  await expect(viewer).toHaveAttribute('data-molspace-fallback-revision', '0', { timeout: 60_000 });
  await expect(host).toHaveAttribute('data-molspace-frames', '1');
  const client = await mcpClient();
  try {
    const [observed] = await call(client, 'observe');
    const target = observed.widgets.find((w: { kind: string }) => w.kind === 'viewer').id;

    // everything fully transparent: Mol* draws (almost) nothing
    const [clear, clearError] = await call(client, 'act', { target, actions: [{ op: 'set_transparency', selector: 'all', value: 1 }] });
    expect(clearError).toBe(false);
    expect(clear.view.transparency).toEqual([{ selector: 'all', value: 1 }]);
    expect(Number(await host.getAttribute('data-molspace-transparent'))).toBeGreaterThan(0);
    expect(await foregroundFraction(canvas)).toBeLessThan(opaque / 4);
    await call(client, 'act', { target, actions: [{ op: 'set_transparency', selector: 'all', value: 0 }] });
    expect(await foregroundFraction(canvas)).toBeGreaterThan(opaque / 2);

    // a distance: Mol*'s measurement manager holds it; the value comes back in Å
    const [measured, measureError] = await call(client, 'act', { target, actions: [{ op: 'measure_distance', start: C1, end: C2 }] });
    expect(measureError).toBe(false);
    expect(measured.applied[0]).toMatchObject({ op: 'measure_distance', distance: 1.546 });
    expect(measured.view.measurements).toEqual([{ start: C1, end: C2, distance: 1.546 }]);
    await expect(host).toHaveAttribute('data-molspace-measurements', '1');
    // a side matching 22 atoms: located, named, nothing applied
    const [many, manyError] = await call(client, 'act', { target, actions: [{ op: 'measure_distance', start: C1, end: REA }] });
    expect(manyError).toBe(true);
    expect(many).toMatchObject({ code: 'VALIDATION_FAILED', where: '/actions/0/end', details: { name: 'end', atoms: 22 } });
    await expect(host).toHaveAttribute('data-molspace-measurements', '1');

    // a label: Mol*'s label representation draws the text as text, never as markup
    const text = '<img src=x onerror="window.__molspaceLabel=1">REA';
    const [labelled, labelError] = await call(client, 'act', { target, actions: [{ op: 'label', selector: REA, text }] });
    expect(labelError).toBe(false);
    expect(labelled.view.labels).toEqual([{ selector: REA, text }]);
    await expect(host).toHaveAttribute('data-molspace-labels', '1');
    await expect(host).toHaveAttribute('data-molspace-measurements', '1');
    // the label loaded a new MVS state, which resets Mol*'s canvas: software WebGL still draws without SSAO
    await expect(host).toHaveAttribute('data-molspace-occlusion', 'off');
    expect(await page.locator('.molspace-viewer img').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __molspaceLabel?: number }).__molspaceLabel)).toBeUndefined();
    const [tooLong, tooLongError] = await call(client, 'act', { target, actions: [{ op: 'label', selector: REA, text: 'x'.repeat(81) }] });
    expect(tooLongError).toBe(true);
    expect(tooLong).toMatchObject({ code: 'INVALID_INPUT', where: '/actions/0/text' });

    // the kernel mirrors them; the cell's methods run the same operations
    expect(
      await runCell(page, 'print(v.view["measurements"][0]["distance"], v.view["labels"][0]["text"][-3:], v.view["transparency"])')
    ).toBe("1.546 REA [{'selector': 'all', 'value': 0}]");
    const revision = (await call(client, 'viewer_observe', { target }))[0].viewer.revision;
    await runCell(
      page,
      'v.measure_distance({"auth_asym_id": "A", "auth_seq_id": 200, "auth_atom_id": "C2"}, {"auth_asym_id": "A", "auth_seq_id": 200, "auth_atom_id": "C3"})'
    );
    await expect.poll(async () => (await call(client, 'viewer_observe', { target }))[0].viewer.revision).toBe(revision + 1);
    await expect(host).toHaveAttribute('data-molspace-measurements', '2');
    expect(await runCell(page, 'print(v.last_result["structuredContent"]["applied"][0]["distance"])')).toMatch(/^1\.\d{3}$/);
    await runCell(page, 'v.set_transparency("polymer", 0.5)\nv.label("ligand", "retinoic acid")');
    await expect.poll(async () => (await call(client, 'viewer_observe', { target }))[0].viewer.revision).toBe(revision + 3);
    await expect(host).toHaveAttribute('data-molspace-labels', '2');
    // a cell's distance to a whole residue comes back located in last_result
    await runCell(page, 'v.measure_distance("ligand", {"auth_asym_id": "A", "auth_seq_id": 200, "auth_atom_id": "C1"})');
    await expect
      .poll(async () =>
        runCell(page, 'e = v.last_result.get("error") or {}\nprint(e.get("code"), e.get("where"), (e.get("details") or {}).get("atoms"))')
      )
      .toBe('VALIDATION_FAILED /actions/0/start 22');
    // undo takes back one batch: the second label goes, the distances stay
    await call(client, 'act', { target, actions: [{ op: 'undo' }] });
    await expect(host).toHaveAttribute('data-molspace-labels', '1');
    await expect(host).toHaveAttribute('data-molspace-measurements', '2');
  } finally {
    await client.close();
  }
});

test('apply_mvs: a valid MVS state is drawn from an allowed host; invalid or refused states are located and change nothing', async ({
  page,
  tmpPath
}) => {
  const served: string[] = [];
  const refusedSeen: string[] = [];
  const body = fs.readFileSync(path.join(DATA, 'structures', '1cbs.cif'));
  await page.route('https://files.rcsb.org/molspace-test/1cbs.cif', route => {
    served.push(route.request().url());
    return route.fulfill({ body, contentType: 'text/plain', headers: { 'Access-Control-Allow-Origin': '*' } });
  });
  await page.route(/example\.org/, route => {
    refusedSeen.push(route.request().url());
    return route.abort();
  });
  const viewer = await showViewer(page, tmpPath);
  const host = viewer.locator('[data-molspace-measurements]');
  // the MolViewSpec documentation's 1CBS view (two labels), its structure served from an allowed host
  const state = JSON.parse(fs.readFileSync(path.join(DATA, '1cbs.mvsj'), 'utf8'));
  state.root.children[0].params.url = 'https://files.rcsb.org/molspace-test/1cbs.cif';
  state.root.children[0].children[0].params.format = 'mmcif';
  const client = await mcpClient();
  try {
    const [observed] = await call(client, 'observe');
    const target = observed.widgets.find((w: { kind: string }) => w.kind === 'viewer').id;
    const before = (await call(client, 'viewer_observe', { target }))[0].viewer.revision;

    const [applied, appliedError] = await call(client, 'act', { target, actions: [{ op: 'apply_mvs', state }] });
    expect(appliedError).toBe(false);
    expect(applied.viewer.revision).toBe(before + 1);
    expect(applied.view.mvs.root.children[0].params.url).toBe('https://files.rcsb.org/molspace-test/1cbs.cif');
    expect(served.length).toBeGreaterThan(0);
    await expect(host).toHaveAttribute('data-molspace-labels', '2');
    await expect(viewer).toHaveAttribute('data-molspace-ready', 'true');

    // an invalid node: VALIDATION_FAILED at its path inside the operation
    const bad = structuredClone(state);
    bad.root.children[0].children[0].children[0].children[0].params.selector = 'everything';
    const [invalid, invalidError] = await call(client, 'act', { target, actions: [{ op: 'apply_mvs', state: bad }] });
    expect(invalidError).toBe(true);
    expect(invalid).toMatchObject({
      code: 'VALIDATION_FAILED',
      where: '/actions/0/state/root/children/0/children/0/children/0/children/0'
    });
    expect(invalid.message).toContain('selector');
    // a host not on resourceHosts: FORBIDDEN at the url param, never fetched
    const foreign = structuredClone(state);
    foreign.root.children[0].params.url = 'https://example.org/1cbs.cif';
    const [refused, refusedError] = await call(client, 'act', { target, actions: [{ op: 'apply_mvs', state: foreign }] });
    expect(refusedError).toBe(true);
    expect(refused).toMatchObject({ code: 'FORBIDDEN', where: '/actions/0/state/root/children/0/params/url' });
    expect(refusedSeen).toEqual([]);
    const [still] = await call(client, 'viewer_observe', { target });
    expect(still.viewer.revision).toBe(before + 1);

    // null: back to the layers; from a cell, a molviewspec builder is one MVS state
    await call(client, 'act', { target, actions: [{ op: 'apply_mvs', state: null }] });
    await expect(host).toHaveAttribute('data-molspace-labels', '0');
    await runCell(
      page,
      [
        'from molviewspec import create_builder',
        'b = create_builder()',
        'c = b.download(url="https://files.rcsb.org/molspace-test/1cbs.cif").parse(format="mmcif").model_structure().component(selector="ligand")',
        'c.representation(type="ball_and_stick")',
        'c.label(text="REA")',
        'v.apply_mvs(b)'
      ].join('\n')
    );
    await expect.poll(async () => (await call(client, 'viewer_observe', { target }))[0].viewer.revision).toBe(before + 3);
    await expect(host).toHaveAttribute('data-molspace-labels', '1');
    expect(await runCell(page, 'print(v.last_result["ok"], v.view["mvs"]["root"]["children"][0]["params"]["url"][-8:])')).toBe(
      'True 1cbs.cif'
    );
  } finally {
    await client.close();
  }
});

test('BCIF, XYZ, extended XYZ and PDBQT load; what Mol* does not draw is named in the composition and the open result', async ({
  page,
  tmpPath
}) => {
  for (const name of ['1cbs.bcif', 'small01.xyz', 'small01.extxyz', '1pgp_lig.pdbqt']) {
    await page.contents.uploadFile(path.join(DATA, 'structures', name), `${tmpPath}/${name}`);
  }
  await page.notebook.createNew('formats.ipynb');
  await setCode(page, 0, 'import molspace\nb = molspace.Viewer("1cbs.bcif")\nb');
  await page.notebook.runCell(0, true);
  await expect(page.locator('.molspace-viewer').first()).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
  expect(
    await runCell(page, 'c = b.composition\nprint(c["format"], c["atoms"], c["waters"], c["ligands"][0]["comp_id"], c["dropped"])')
  ).toBe('bcif 1213 100 REA []');
  const cases: [string, string][] = [
    ['small01.xyz', '36 []'],
    ['small01.extxyz', "36 ['extended XYZ per-atom properties: masses (R×1)', 'extended XYZ frame properties: source, pbc']"]
  ];
  for (const [file, expected] of cases) {
    await runCell(page, `w = molspace.Viewer("${file}")\nw`);
    await expect(page.locator('.molspace-viewer').last()).toHaveAttribute('data-molspace-revision', '0', { timeout: 90_000 });
    expect(await runCell(page, 'print(w.composition["atoms"], w.composition["dropped"])'), file).toBe(expected);
  }
  // an agent's open answers with the composition, dropped data named
  const client = await mcpClient();
  try {
    const [opened, openError] = await call(client, 'open', { path: `${tmpPath}/1pgp_lig.pdbqt` });
    expect(openError).toBe(false);
    expect(opened.composition.format).toBe('pdbqt');
    expect(opened.composition.dropped).toEqual([
      `PDBQT partial charges of ${opened.composition.atoms} atoms per model (read, not drawn)`,
      'PDBQT AutoDock atom types (drawn as their elements)',
      'PDBQT torsion tree (ROOT/BRANCH/TORSDOF records)'
    ]);
    const [observed] = await call(client, 'viewer_observe', { target: opened.viewer.target });
    expect(observed.composition.dropped).toHaveLength(3);
  } finally {
    await client.close();
  }
});
