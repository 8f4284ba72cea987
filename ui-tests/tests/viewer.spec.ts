/**
 * The structure Viewer end to end: a cell shows real files of several formats
 * in Mol*, the composition matches the files, an agent (official TS SDK)
 * observes and acts on the same Viewer the kernel mirrors, and bad files show
 * a located error instead of a blank canvas.
 */
import * as path from 'path';
import { expect, test } from './sharedLab';
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import { PNG } from 'pngjs';
import { ROOT, call, foregroundFraction, mcpClient, runCell, setCode } from './helpers';

const DATA = path.join(ROOT, 'tests', 'data', 'structures');

async function upload(page: IJupyterLabPageFixture, tmpPath: string, ...names: string[]): Promise<void> {
  for (const name of names) {
    await page.contents.uploadFile(path.join(DATA, name), `${tmpPath}/${name}`);
  }
}

/** Run `source` as the first cell of a new notebook; return the first Viewer once drawn. */
async function showViewer(page: IJupyterLabPageFixture, source: string) {
  await page.notebook.createNew('viewer.ipynb');
  await setCode(page, 0, source);
  await page.notebook.runCell(0, true);
  const viewer = page.locator('.molspace-viewer').first();
  await expect(viewer).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
  return viewer;
}

test('a cell shows real files of several formats; the composition matches the files', async ({ page, tmpPath }) => {
  await upload(page, tmpPath, '1cbs.cif', '1hpv.pdb', '2c6e_poses.pdb', 'cdk2.sdf', 'small03.mol2', 'spc216.gro');
  const viewer = await showViewer(page, 'import molspace\nv = molspace.Viewer("1cbs.cif")\nv');
  await expect(viewer.locator('.molspace-viewer-summary')).toContainText('1 ligand (REA A 200)');
  const canvas = viewer.locator('canvas').first();
  await expect.poll(() => foregroundFraction(canvas), { timeout: 30_000 }).toBeGreaterThan(0.02);
  // The kernel mirrors the page's composition.
  expect(await runCell(page, 'c = v.composition\nprint(c["modelCount"], c["atoms"], c["waters"], c["ligands"][0]["comp_id"], c["polymerTypes"])')).toBe(
    "1 1213 100 REA ['polypeptide(L)']"
  );
  const cases: [string, string, string][] = [
    ['1hpv.pdb', 'c["chains"][0]["auth_asym_id"], c["chains"][1]["auth_asym_id"], c["atoms"]', 'A B 1631'],
    ['2c6e_poses.pdb', 'c["modelCount"], [m["atoms"] for m in c["models"]], c["shownModels"]', '5 [36, 43, 24, 35, 32] [0, 1, 2, 3, 4]'],
    ['cdk2.sdf', 'c["modelCount"], c["shownModels"]', '47 [0]'],
    ['small03.mol2', 'c["modelCount"], c["format"]', '16 mol2'],
    ['spc216.gro', 'c["atoms"], c["residues"], c["waters"]', '648 216 216']
  ];
  for (const [file, expr, expected] of cases) {
    await runCell(page, `w = molspace.Viewer("${file}")\nw`);
    const w = page.locator('.molspace-viewer').last();
    // drawn once in Mol* (it may be parked by the budget afterwards, once scrolled out of view)
    await expect(w).toHaveAttribute('data-molspace-revision', '0', { timeout: 90_000 });
    expect(await runCell(page, `c = w.composition\nprint(${expr})`), file).toBe(expected);
  }
});

test('an agent observes and acts on the Viewer a cell shows; the kernel sees the same revision', async ({ page, tmpPath }) => {
  await upload(page, tmpPath, '1cbs.cif');
  const viewer = await showViewer(page, 'import molspace\nv = molspace.Viewer("1cbs.cif")\nv');
  const client = await mcpClient();
  try {
    const [observed] = await call(client, 'observe');
    const entry = observed.widgets.find((w: { kind: string }) => w.kind === 'viewer');
    expect(entry.summary).toContain('1cbs.cif (mmcif): 1 model, 1 polymer chain (A), 1 ligand (REA A 200), 100 waters, 1213 atoms');
    const target = entry.id;

    const [full, observeError] = await call(client, 'viewer_observe', { target });
    expect(observeError).toBe(false);
    expect(full.composition).toMatchObject({ format: 'mmcif', atoms: 1213, ligandCount: 1, waters: 100 });
    expect(full.view.layers).toEqual([
      { selector: 'polymer', representation: 'cartoon' },
      { selector: 'ligand', representation: 'ball_and_stick' }
    ]);
    expect(full.camera.position).toHaveLength(3);
    expect(JSON.stringify(full)).not.toContain('ATOM ');
    const revision = full.viewer.revision;

    // focus a residue: one revision, drawn before the call returns, seen by the kernel
    const [focused, focusError] = await call(client, 'act', {
      target,
      expectedRevision: revision,
      actions: [
        { op: 'focus', selector: { auth_asym_id: 'A', auth_seq_id: 200 } },
        { op: 'set_representation', selector: 'ligand', representation: 'spacefill' },
        { op: 'select', selector: { auth_asym_id: 'A', beg_auth_seq_id: 1, end_auth_seq_id: 10 } }
      ]
    });
    expect(focusError).toBe(false);
    expect(focused.viewer).toMatchObject({ revision: revision + 1, ready: true });
    expect(focused.changes).toHaveLength(1);
    expect(focused.view.focus).toEqual({ auth_asym_id: 'A', auth_seq_id: 200 });
    await expect(viewer).toHaveAttribute('data-molspace-revision', String(revision + 1));
    const [after] = await call(client, 'viewer_observe', { target });
    expect(after.camera.target).not.toEqual(full.camera.target);
    expect(await runCell(page, 'print(v.revision, v.view["focus"], v.last_change["source"])')).toBe(
      `${revision + 1} {'auth_asym_id': 'A', 'auth_seq_id': 200} agent`
    );

    // a selector that matches nothing: NOT_FOUND naming it and the chains that exist; nothing applied
    const [missing, missingError] = await call(client, 'act', {
      target,
      actions: [
        { op: 'set_background', color: '#000000' },
        { op: 'focus', selector: { auth_asym_id: 'Z', auth_seq_id: 5 } }
      ]
    });
    expect(missingError).toBe(true);
    expect(missing).toMatchObject({
      code: 'NOT_FOUND',
      where: '/actions/1/selector',
      details: { selector: { auth_asym_id: 'Z', auth_seq_id: 5 }, auth_asym_ids: ['A'] }
    });
    expect(missing.fix).toContain('auth_asym_id: "A"');
    const [unchanged] = await call(client, 'viewer_observe', { target });
    expect(unchanged.viewer.revision).toBe(revision + 1);
    expect(unchanged.view.background).toBeNull();

    // a stale expectedRevision
    const [conflict, conflictError] = await call(client, 'act', {
      target,
      expectedRevision: revision,
      actions: [{ op: 'reset_camera' }]
    });
    expect(conflictError).toBe(true);
    expect(conflict).toMatchObject({
      code: 'REVISION_CONFLICT',
      details: { expectedRevision: revision, currentRevision: revision + 1 }
    });

    // dryRun reports and changes nothing
    const [dry] = await call(client, 'act', { target, dryRun: true, actions: [{ op: 'set_color', selector: 'polymer', color: '#ff0000' }] });
    expect(dry).toMatchObject({ dryRun: true, changed: false, viewer: { revision: revision + 1 } });
    expect(dry.view.colors).toEqual([{ selector: 'polymer', color: '#ff0000' }]);
    const [still] = await call(client, 'viewer_observe', { target });
    expect(still.view.colors).toEqual([]);
    expect(still.viewer.revision).toBe(revision + 1);

    // screenshot: by default a JPEG at most LIMITS.screenshotDefaultWidth (512) px wide, sized for an agent's context
    const shot = await client.callTool({ name: 'act', arguments: { target, actions: [{ op: 'screenshot' }] } });
    expect(shot.isError).toBeFalsy();
    const jpeg = (shot.content as { type: string; data?: string; mimeType?: string }[]).find(c => c.type === 'image')!;
    expect(jpeg.mimeType).toBe('image/jpeg');
    expect(Buffer.from(jpeg.data!, 'base64').subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    const defaultShot = (shot.structuredContent as any).screenshot;
    expect(defaultShot).toMatchObject({ mimeType: 'image/jpeg' });
    expect(defaultShot.width).toBeLessThanOrEqual(512);
    // webp on request; out-of-bounds sizes and unknown formats are INVALID_INPUT, located
    const [webp] = await call(client, 'act', { target, actions: [{ op: 'screenshot', format: 'webp', width: 200 }] });
    expect(webp.screenshot).toMatchObject({ mimeType: 'image/webp', width: 200 });
    const [tooWide, tooWideError] = await call(client, 'act', { target, actions: [{ op: 'screenshot', width: 4096 }] });
    expect([tooWideError, tooWide.code]).toEqual([true, 'INVALID_INPUT']);
    expect(tooWide.where).toMatch(/^\/actions\/0/);
    const [gif, gifError] = await call(client, 'act', { target, actions: [{ op: 'screenshot', format: 'gif' }] });
    expect([gifError, gif.code]).toEqual([true, 'INVALID_INPUT']);
    expect(gif.where).toMatch(/^\/actions\/0/);
    // and a PNG when asked for, at the size asked
    const result = await client.callTool({ name: 'act', arguments: { target, actions: [{ op: 'screenshot', width: 320, height: 240, format: 'png' }] } });
    expect(result.isError).toBeFalsy();
    const content = result.content as { type: string; data?: string; mimeType?: string }[];
    const image = content.find(c => c.type === 'image')!;
    expect(image.mimeType).toBe('image/png');
    const png = PNG.sync.read(Buffer.from(image.data!, 'base64'));
    expect([png.width, png.height]).toEqual([320, 240]);
    expect((result.structuredContent as any).screenshot).toMatchObject({ mimeType: 'image/png', width: 320, height: 240 });
    expect((result.structuredContent as any).viewer.revision).toBe(revision + 1);
    require('fs').writeFileSync(test.info().outputPath('act-screenshot.png'), Buffer.from(image.data!, 'base64'));

    // cell -> page -> agent: the kernel's thin methods run the same act operations
    await runCell(page, 'v.set_representation("ligand", "ball_and_stick")\nv.set_color({"auth_asym_id": "A", "auth_seq_id": 200}, "#ff00ff")');
    await expect.poll(async () => (await call(client, 'viewer_observe', { target }))[0].viewer.revision).toBe(revision + 3);
    const [fromCell] = await call(client, 'viewer_observe', { target });
    expect(fromCell.view.layers[1]).toEqual({ selector: 'ligand', representation: 'ball_and_stick' });
    expect(fromCell.view.colors).toEqual([{ selector: { auth_asym_id: 'A', auth_seq_id: 200 }, color: '#ff00ff' }]);
    expect(await runCell(page, 'print(v.last_change["source"], v.last_result["ok"])')).toBe('kernel True');
    // a cell's selector that matches nothing comes back located in last_result
    await runCell(page, 'v.focus({"label_asym_id": "Q"})');
    await expect
      .poll(async () => runCell(page, 'print(v.last_result.get("error", {}).get("code"), v.last_result.get("error", {}).get("where"))'))
      .toBe('NOT_FOUND /actions/0/selector');
    // and a screenshot lands as PNG bytes
    await runCell(page, 'v.screenshot(100, 80)');
    await expect.poll(async () => runCell(page, 'print(v.last_screenshot[:8] if v.last_screenshot else None)')).toBe("b'\\x89PNG\\r\\n\\x1a\\n'");
  } finally {
    await client.close();
  }
});

test('bad files give a located error in the cell or in the widget and the kernel, never a blank canvas', async ({ page, tmpPath }) => {
  await upload(page, tmpPath, '1cbs.cif');
  await page.notebook.createNew('bad.ipynb');
  // what the kernel can know: an unknown extension fails in the cell
  await setCode(page, 0, 'import molspace, pathlib\npathlib.Path("notes.txt").write_text("hello")\nmolspace.Viewer("notes.txt")');
  await page.notebook.runCell(0, true);
  const cellError = (await page.notebook.getCellTextOutput(0))!.join('');
  expect(cellError).toContain('StructureSourceError');
  expect(cellError).toContain('UNSUPPORTED_FORMAT');
  expect(cellError).toContain('notes.txt');
  // what only Mol* can know: a truncated mmCIF and text that is no PDB
  const truncate = 'src = pathlib.Path("1cbs.cif").read_text()\npathlib.Path("cut.cif").write_text(src[: src.index("_atom_site.") + 200])';
  await runCell(page, truncate);
  for (const [file, code] of [['cut.cif', 'VALIDATION_FAILED'], ['words.pdb', 'VALIDATION_FAILED']]) {
    await runCell(page, `pathlib.Path("words.pdb").write_text("hello\\nworld\\n")\nbad = molspace.Viewer("${file}")\nbad`);
    const widget = page.locator('.molspace-viewer').last();
    const error = widget.locator('.molspace-viewer-error');
    await expect(error).toBeVisible({ timeout: 60_000 });
    await expect(error).toContainText(code);
    await expect(error).toContainText(`Where: ${file}`);
    await expect(widget.locator('.molspace-story-placeholder')).toContainText('could not be shown');
    await expect(widget.locator('canvas')).toHaveCount(0);
    expect(await runCell(page, 'print(bad.error["code"], bad.error["where"], bad.ready)')).toBe(`${code} ${file} False`);
  }
  // and an agent reading it gets the same located error
  const client = await mcpClient();
  try {
    const [observed] = await call(client, 'observe');
    const broken = observed.widgets.filter((w: { kind: string; error: unknown }) => w.kind === 'viewer' && w.error);
    expect(broken.map((w: { error: { where: string } }) => w.error.where)).toEqual(['cut.cif', 'words.pdb']);
    const [acted, isError] = await call(client, 'act', { target: broken[0].id, actions: [{ op: 'reset_camera' }] });
    expect(isError).toBe(true);
    expect(acted).toMatchObject({ code: 'VALIDATION_FAILED', where: 'cut.cif' });
  } finally {
    await client.close();
  }
});

test('an agent opens a file and inline text in docked Viewers, lists them and acts on them', async ({ page, tmpPath }) => {
  await upload(page, tmpPath, '1hpv.pdb');
  const client = await mcpClient();
  try {
    const [opened, openError] = await call(client, 'open', { path: `${tmpPath}/1hpv.pdb` });
    expect(openError).toBe(false);
    expect(opened.composition).toMatchObject({ format: 'pdb', atoms: 1631 });
    expect(opened.viewer).toMatchObject({ kind: 'viewer', title: `${tmpPath}/1hpv.pdb`, error: null });
    const docked = page.locator(`#${opened.viewer.target} .molspace-viewer`);
    await expect(docked).toHaveAttribute('data-molspace-ready', 'true', { timeout: 60_000 });
    await expect(page.locator('.lm-DockPanel-tabBar .lm-TabBar-tab', { hasText: '1hpv.pdb' })).toBeVisible();

    const text = require('fs').readFileSync(path.join(DATA, '2c6e_poses.pdb'), 'utf8');
    const [inline] = await call(client, 'open', { text, format: 'pdb', title: 'poses' });
    expect(inline.composition).toMatchObject({ modelCount: 5, shownModels: [0, 1, 2, 3, 4] });

    const [observed] = await call(client, 'observe');
    expect(observed.widgets.map((w: { id: string }) => w.id)).toEqual([opened.viewer.target, inline.viewer.target]);
    expect(observed.widgets[0]).toMatchObject({ kind: 'viewer', notebook: null });

    const [acted, actError] = await call(client, 'act', {
      target: opened.viewer.target,
      actions: [{ op: 'focus', selector: { label_comp_id: '478' } }]
    });
    expect(actError).toBe(false);
    expect(acted.viewer).toMatchObject({ revision: 1, ready: true });
    await expect(docked).toHaveAttribute('data-molspace-revision', '1');

    // bad paths and formats are located errors; nothing is docked for them, and the page logs no error
    const logged: string[] = [];
    // (the browser's own line for the missing file's 404 is expected)
    page.on('console', m => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && logged.push(m.text()));
    page.on('pageerror', e => logged.push(e.message));
    for (const [args, code, where] of [
      [{ path: `${tmpPath}/missing.pdb` }, 'NOT_FOUND', '/path'],
      [{ path: '../../etc/hostname.pdb' }, 'FORBIDDEN', '/path'],
      [{ path: `${tmpPath}/1hpv` }, 'UNSUPPORTED_FORMAT', '/path'],
      [{ text: 'hello\nworld\n', format: 'pdb' }, 'VALIDATION_FAILED', '/text'],
      [{ text: 'ATOM' }, 'UNSUPPORTED_FORMAT', '/format']
    ] as [Record<string, unknown>, string, string][]) {
      const [error, isError] = await call(client, 'open', args);
      expect(isError, JSON.stringify(args)).toBe(true);
      expect(error, JSON.stringify(args)).toMatchObject({ code, where });
    }
    const [after] = await call(client, 'observe');
    expect(after.widgets).toHaveLength(2);
    await expect(page.locator('.molspace-docked-viewer')).toHaveCount(2);
    // A tab docked and disposed at once for unreadable data made Lumino deliver messages to its
    // disposed widget view: "Cannot read properties of null (reading 'processLuminoMessage')".
    expect(logged).toEqual([]);
  } finally {
    await client.close();
  }
});

test('undo and redo: one step per batch, from the widget, a cell and an agent', async ({ page, tmpPath }) => {
  await upload(page, tmpPath, '1hpv.pdb');
  const viewer = await showViewer(page, 'import molspace\nv = molspace.Viewer("1hpv.pdb")\nv');
  const undo = viewer.locator('[data-action="undo"]');
  const redo = viewer.locator('[data-action="redo"]');
  await expect(undo).toBeDisabled();
  const client = await mcpClient();
  try {
    const [observed] = await call(client, 'observe');
    const target = observed.widgets[0].id;
    await call(client, 'act', {
      target,
      actions: [
        { op: 'set_representation', selector: 'polymer', representation: 'surface' },
        { op: 'set_background', color: '#202040' }
      ]
    });
    await expect(undo).toBeEnabled();
    // the step says what it takes back and who made it
    await expect(undo).toHaveAttribute('title', /^Undo: .*surface.*\(agent\)$/);
    // the button takes back the whole batch as one step
    await undo.click();
    await expect.poll(async () => (await call(client, 'viewer_observe', { target }))[0].viewer.redo).toBe(1);
    const [undone] = await call(client, 'viewer_observe', { target });
    expect(undone.view.layers[0]).toEqual({ selector: 'polymer', representation: 'cartoon' });
    expect(undone.view.background).toBeNull();
    expect(undone.viewer).toMatchObject({ revision: 2, undo: 0, redo: 1 });
    await expect(redo).toBeEnabled();
    await expect(redo).toHaveAttribute('title', /^Redo: .*\(agent\)$/);
    // a cell redoes it
    await runCell(page, 'v.redo()');
    await expect.poll(async () => (await call(client, 'viewer_observe', { target }))[0].view.background).toBe('#202040');
    expect(await runCell(page, 'print(v.undo_steps, v.redo_steps, v.revision, v.undo_label.endswith("(agent)"))')).toBe('1 0 3 True');
    // an agent with nothing to redo gets a located NOT_FOUND
    const [none, isError] = await call(client, 'act', { target, actions: [{ op: 'redo' }] });
    expect(isError).toBe(true);
    expect(none).toMatchObject({ code: 'NOT_FOUND', where: '/actions/0/op' });
  } finally {
    await client.close();
  }
});

test('ten Viewers stay within the live WebGL budget and all answer act', async ({ page, tmpPath }) => {
  await upload(page, tmpPath, '1pgp_lig.pdbqt', 'small01.mol');
  await page.notebook.createNew('many.ipynb');
  await setCode(
    page,
    0,
    'import molspace, ipywidgets\nvs = [molspace.Viewer("1pgp_lig.pdbqt" if i % 2 else "small01.mol", layout={"height": "220px"}) for i in range(10)]\nipywidgets.VBox(vs)'
  );
  await page.notebook.runCell(0, true);
  const viewers = page.locator('.molspace-viewer');
  await expect(viewers).toHaveCount(10, { timeout: 60_000 });
  const max = 8; // DEFAULT_MAX_LIVE (src/molstar/viewerBudget.ts)
  await expect.poll(async () => page.locator('.molspace-viewer .molspace-story-viewer').count(), { timeout: 120_000 }).toBeGreaterThan(0);
  const client = await mcpClient();
  try {
    const [observed] = await call(client, 'observe');
    const ids = observed.widgets.filter((w: { kind: string }) => w.kind === 'viewer').map((w: { id: string }) => w.id);
    expect(ids).toHaveLength(10);
    expect(observed.widgets.every((w: { error: unknown }) => w.error === null)).toBe(true);
    // every Viewer answers act and viewer_observe, live or parked
    for (const target of ids) {
      const [acted, isError] = await call(client, 'act', { target, actions: [{ op: 'set_representation', selector: 'all', representation: 'spacefill' }] });
      expect(isError, target).toBe(false);
      expect(acted.viewer.revision).toBe(1);
      expect(await page.locator('.molspace-viewer .molspace-story-viewer').count()).toBeLessThanOrEqual(max);
    }
    expect(await runCell(page, 'print([v.revision for v in vs])')).toBe('[1, 1, 1, 1, 1, 1, 1, 1, 1, 1]');
  } finally {
    await client.close();
  }
});

test('an agent opens a PDB ID from an allow-listed mirror (served locally); over the cap and unknown IDs are refused, located', async ({ page }) => {
  const cif = require('fs').readFileSync(path.join(DATA, '1cbs.cif'));
  // The mirrors are served from the local copy; nothing reaches the network.
  await page.route('https://files.rcsb.org/download/1CBS.cif', route =>
    route.fulfill({ body: cif, contentType: 'text/plain', headers: { 'Access-Control-Allow-Origin': '*' } })
  );
  // an entry over the preview cap (redirects off the allow-list: src/viewer/__tests__/pdbDownload.spec.ts)
  const big = Buffer.concat([cif, Buffer.alloc(3 * 1024 * 1024, 0x20)]);
  await page.route('https://www.ebi.ac.uk/pdbe/entry-files/download/1cbs.cif', route =>
    route.fulfill({ body: big, contentType: 'text/plain', headers: { 'Access-Control-Allow-Origin': '*' } })
  );
  await page.route('https://pdbj.org/**', route =>
    route.fulfill({ status: 404, body: 'no such entry', headers: { 'Access-Control-Allow-Origin': '*' } })
  );
  const client = await mcpClient();
  try {
    const [opened, isError] = await call(client, 'open', { pdbId: '1cbs' });
    expect(isError).toBe(false);
    expect(opened.viewer.title).toBe('PDB 1CBS');
    expect(opened.composition).toMatchObject({ format: 'mmcif', atoms: 1213, ligands: [{ comp_id: 'REA', auth_seq_id: 200 }] });
    const [refused, refusedError] = await call(client, 'open', { pdbId: '1cbs', mirror: 'pdbe' });
    expect(refusedError).toBe(true);
    expect(refused).toMatchObject({ code: 'TOO_LARGE', where: '/pdbId', details: { host: 'www.ebi.ac.uk', maxBytes: 3 * 1024 * 1024 } });
    expect(refused.message).toContain('3145728-byte cap');
    const [missing] = await call(client, 'open', { pdbId: '9zzz', mirror: 'pdbj' });
    expect(missing).toMatchObject({ code: 'NOT_FOUND', where: '/pdbId', details: { host: 'pdbj.org', status: 404 } });
    const [observed] = await call(client, 'observe');
    expect(observed.widgets).toHaveLength(1);
  } finally {
    await client.close();
  }
});
