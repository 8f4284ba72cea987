/**
 * An agent (official MCP client) exports a Viewer a cell showed, after an `act` colour change, as
 * a MolViewSpec archive (`.mvsx`) and a PNG of its frame, written under the root by the page: the
 * archive holds `index.mvsj` (with the colour) and the structure file, and opens in Mol*'s own MVS
 * loader as a Story (`open {path}`) that draws; the PNG decodes at the Viewer's canvas size and is
 * not blank. Bad inputs are refused, located, and nothing is written for them. A cell's
 * `Viewer.to_mvsx` writes the same archive, built by the page and sent to the kernel.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { expect, test } from './sharedLab';
import { PNG } from 'pngjs';

import { ROOT, call, foregroundFraction, mcpClient, runCell, setCode } from './helpers';

/** The archive's entries and its `index.mvsj` text, read by Python's zipfile. */
function archive(file: string): { names: string[]; index: string } {
  const run = spawnSync(
    'python',
    [
      '-c',
      'import json, sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print(json.dumps({"names": sorted(z.namelist()), "index": z.read("index.mvsj").decode()}))',
      file
    ],
    { encoding: 'utf8' }
  );
  if (run.status !== 0) {
    throw new Error(`zipfile failed: ${run.stderr}`);
  }
  return JSON.parse(run.stdout);
}

test('an agent exports a Viewer a cell showed (coloured by act) as .mvsx that opens as a Story and as a nonblank PNG; bad inputs located', async ({
  page,
  tmpPath
}) => {
  await page.contents.uploadFile(path.join(ROOT, 'tests', 'data', 'structures', '1cbs.cif'), `${tmpPath}/1cbs.cif`);
  await page.notebook.createNew('exportViewer.ipynb');
  await setCode(page, 0, 'import molspace\nv = molspace.Viewer("1cbs.cif", title="RBP")\nv');
  await page.notebook.runCell(0, true);
  const shown = page.locator('.molspace-viewer').first();
  await expect(shown).toHaveAttribute('data-molspace-ready', 'true', { timeout: 120_000 });
  const viewer = (await runCell(page, 'print(v.model_id)')).trim();
  const root = await page.evaluate(() => JSON.parse(document.getElementById('jupyter-config-data')!.textContent!).serverRoot as string);

  const client = await mcpClient();
  try {
    await expect.poll(async () => (await call(client, 'status'))[0].pageConnected, { timeout: 60_000 }).toBe(true);
    const [acted, actFailed] = await call(client, 'act', {
      target: viewer,
      actions: [{ op: 'set_color', selector: { auth_asym_id: 'A' }, color: '#e4007c' }]
    });
    expect(actFailed, JSON.stringify(acted)).toBe(false);

    const mvsx = `${tmpPath}/out/rbp.mvsx`;
    const [written, failed] = await call(client, 'export', { target: viewer, path: mvsx });
    expect(failed, JSON.stringify(written)).toBe(false);
    const onDisk = path.join(root, mvsx);
    expect(written).toEqual({ path: mvsx, target: viewer, kind: 'viewer', bytes: fs.statSync(onDisk).size, replaced: false });
    const { names, index } = archive(onDisk);
    expect(names).toEqual(['1cbs.cif', 'index.mvsj']);
    const state = JSON.parse(index);
    expect(state.root.children.find((c: { kind: string }) => c.kind === 'download').params.url).toBe('1cbs.cif');
    expect(index).toContain('#e4007c');

    const png = `${tmpPath}/out/rbp.png`;
    const [shot, shotFailed] = await call(client, 'export', { path: png });
    expect(shotFailed, JSON.stringify(shot)).toBe(false);
    expect(shot).toMatchObject({ path: png, target: viewer, kind: 'viewer', replaced: false });
    const pngBytes = fs.readFileSync(path.join(root, png));
    expect(shot.bytes).toBe(pngBytes.length);
    const image = PNG.sync.read(pngBytes);
    const canvas = await shown
      .locator('canvas')
      .first()
      .evaluate(c => [(c as HTMLCanvasElement).width, (c as HTMLCanvasElement).height]);
    expect([image.width, image.height]).toEqual(canvas);
    const counts = new Map<number, number>();
    for (let i = 0; i < image.data.length; i += 4) {
      const key = image.data.readUInt32BE(i);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    expect(1 - Math.max(...counts.values()) / (image.width * image.height)).toBeGreaterThan(0.02);

    // Bad inputs, each located; nothing written for them.
    const refused = async (args: Record<string, unknown>) => (await call(client, 'export', args))[0];
    expect(await refused({ target: viewer, path: mvsx })).toMatchObject({ code: 'FORBIDDEN', where: '/overwrite' });
    expect(await refused({ target: viewer, path: `${tmpPath}/../escape.png` })).toMatchObject({ code: 'FORBIDDEN', where: '/path' });
    expect(await refused({ target: viewer, path: `${tmpPath}/out/rbp.jpg` })).toMatchObject({
      code: 'UNSUPPORTED_FORMAT',
      where: '/path',
      details: { extensions: ['.html', '.mvsx', '.png'] }
    });
    expect(fs.readdirSync(path.join(root, tmpPath, 'out')).sort()).toEqual(['rbp.mvsx', 'rbp.png']);

    // Mol*'s own MVS loader plays the archive: opened as a Story, it draws.
    const [opened, openFailed] = await call(client, 'open', { path: mvsx });
    expect(openFailed, JSON.stringify(opened)).toBe(false);
    const story = page.locator('.molspace-docked-story .molspace-story');
    await expect(story).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
    await expect.poll(() => foregroundFraction(story.locator('canvas').first()), { timeout: 60_000 }).toBeGreaterThan(0.02);
  } finally {
    await client.close();
  }
});

test("a cell's Viewer.to_mvsx writes the page's archive beside the notebook: index.mvsj with the colour and the structure; it opens as a Story", async ({
  page,
  tmpPath
}) => {
  await page.contents.uploadFile(path.join(ROOT, 'tests', 'data', 'structures', '1cbs.cif'), `${tmpPath}/1cbs.cif`);
  await page.notebook.createNew('toMvsx.ipynb');
  await setCode(page, 0, 'import molspace\nv = molspace.Viewer("1cbs.cif", title="RBP")\nv');
  await page.notebook.runCell(0, true);
  await expect(page.locator('.molspace-viewer').first()).toHaveAttribute('data-molspace-ready', 'true', { timeout: 120_000 });
  const root = await page.evaluate(() => JSON.parse(document.getElementById('jupyter-config-data')!.textContent!).serverRoot as string);

  // The kernel asks the page for the archive over the widget's comm and writes the bytes it answers.
  const size = await runCell(page, "v.set_color({'auth_asym_id': 'A'}, '#e4007c').wait()\nprint(v.to_mvsx('rbp.mvsx'))");
  const onDisk = path.join(root, tmpPath, 'rbp.mvsx');
  expect(Number(size)).toBe(fs.statSync(onDisk).size);
  const { names, index } = archive(onDisk);
  expect(names).toEqual(['1cbs.cif', 'index.mvsj']);
  expect(JSON.parse(index).root.children.find((c: { kind: string }) => c.kind === 'download').params.url).toBe('1cbs.cif');
  expect(index).toContain('#e4007c');

  // Bad paths are refused in the cell, located, before the page is asked.
  expect(await runCell(page, "v.to_mvsx('missing/rbp.mvsx')")).toContain('INVALID_INPUT');

  // Mol*'s own MVS loader plays it: a Story of the archive draws.
  await runCell(page, "s = molspace.Story('rbp.mvsx')\ns");
  const story = page.locator('.molspace-story').first();
  await story.scrollIntoViewIfNeeded(); // a Story out of view is not drawn
  await expect(story).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
  await expect.poll(() => foregroundFraction(story.locator('canvas').first()), { timeout: 60_000 }).toBeGreaterThan(0.02);
});
