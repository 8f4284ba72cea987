/**
 * "Show anything in the workspace" and "templates over local files"
 * (issue 19, items 2 and 3), as an agent does it through MCP alone (official
 * TypeScript MCP client) against the real gateway, the real contents API and a
 * real page: `open` of committed `.mvsj` / `.mvsx` Stories docks them, `observe`
 * lists them and `story_control` drives them; a Story that fails to load is an
 * isError result with the widget's located error; `ketcher_open {path}` loads a
 * molecule file from the root; `story_template_create` packs a local structure
 * into an `.mvsx` (assets) and `dryRun` writes nothing. Every bad input is
 * located. Structures are served from the repository by page.route: nothing
 * reaches the internet.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import { expect, test } from './sharedLab';
import type { Locator } from '@playwright/test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ROOT, call, foregroundFraction, mcpClient } from './helpers';

const DATA = path.join(ROOT, 'tests', 'data');
const CIF = path.join(ROOT, 'examples', 'data', '1cbs.cif');
/** The structure tests/data/1cbs.mvsj downloads, served from tests/data/structures. */
const BCIF_URL = 'https://www.ebi.ac.uk/pdbe/entry-files/1cbs.bcif';
/** The structure tests/data/1h9t.mvsx downloads: answered 404 here, so that Story fails to load. */
const MISSING_URL = 'https://www.ebi.ac.uk/pdbe/entry-files/download/1h9t_updated.cif';

async function connected(): Promise<Client> {
  const client = await mcpClient();
  await expect.poll(async () => (await call(client, 'status'))[0].pageConnected, { timeout: 60_000 }).toBe(true);
  return client;
}

/** Wait until Mol* has drawn step `key` in `story` and its canvas is not blank. */
async function drawnNonBlank(story: Locator, key: string): Promise<void> {
  await expect(story).toHaveAttribute('data-molspace-drawn', key, { timeout: 60_000 });
  const canvas = story.locator('.molspace-story-canvas canvas').first();
  await expect.poll(() => foregroundFraction(canvas), { timeout: 30_000 }).toBeGreaterThan(0.02);
  await expect(story.locator('.molspace-story-error')).toBeHidden();
}

/** The Jupyter root on disk, as the page knows it. */
async function serverRoot(page: IJupyterLabPageFixture): Promise<string> {
  return page.evaluate(() => JSON.parse(document.getElementById('jupyter-config-data')!.textContent!).serverRoot as string);
}

/** A sparse file of `bytes` bytes at `file` (relative to the Jupyter root); returns its path on disk. */
async function sparse(page: IJupyterLabPageFixture, file: string, bytes: number): Promise<string> {
  const onDisk = path.join(await serverRoot(page), file);
  fs.mkdirSync(path.dirname(onDisk), { recursive: true });
  fs.writeFileSync(onDisk, '');
  fs.truncateSync(onDisk, bytes);
  return onDisk;
}

test.beforeEach(async ({ page }) => {
  const bcif = fs.readFileSync(path.join(DATA, 'structures', '1cbs.bcif'));
  await page.route(BCIF_URL, route => route.fulfill({ body: bcif, contentType: 'application/octet-stream', headers: { 'Access-Control-Allow-Origin': '*' } }));
  await page.route(MISSING_URL, route => route.fulfill({ status: 404, body: 'not here', headers: { 'Access-Control-Allow-Origin': '*' } }));
});

test('open shows committed .mvsj and .mvsx Stories docked; observe lists them, story_control drives them', async ({ page, tmpPath }) => {
  await page.contents.uploadFile(path.join(DATA, '1cbs.mvsj'), `${tmpPath}/stories/1cbs.mvsj`);
  await page.contents.uploadFile(path.join(ROOT, 'examples', 'data', '1cbs-story.mvsx'), `${tmpPath}/stories/1cbs-story.mvsx`);
  const client = await connected();
  try {
    // .mvsj: the Story's structure comes from its https URL (test-served).
    const [shown, shownError] = await call(client, 'open', { path: `${tmpPath}/stories/1cbs.mvsj` });
    expect(shownError, JSON.stringify(shown)).toBe(false);
    expect(shown.story).toMatchObject({ kind: 'story', ready: true, index: 0, error: null });
    expect(shown.viewer).toBeUndefined();
    const mvsj = shown.story.target;
    expect(shown.steps.length).toBe(shown.story.count);
    const docked = page.locator('.molspace-docked-story .molspace-story');
    await expect(docked).toHaveCount(1);
    await drawnNonBlank(docked, shown.story.key);

    // .mvsx: assets inside the archive, three steps.
    const [packed, packedError] = await call(client, 'open', { path: `${tmpPath}/stories/1cbs-story.mvsx`, title: 'packed 1CBS' });
    expect(packedError, JSON.stringify(packed)).toBe(false);
    expect(packed.story).toMatchObject({ kind: 'story', ready: true, count: 3, key: 'overview', error: null });
    expect(packed.steps.map((s: { key: string }) => s.key)).toEqual(['overview', 'binding-site', 'ligand']);
    const mvsx = packed.story.target;
    const archive = page.locator(`.molspace-story[data-molspace-model="${mvsx}"]`);
    await expect(page.locator('.lm-TabBar-tab', { hasText: 'packed 1CBS' })).toHaveCount(1);

    // The agent sees both and drives each at once.
    const [observed] = await call(client, 'observe');
    const ids = observed.widgets.map((w: { id: string }) => w.id);
    expect(ids).toContain(mvsj);
    expect(ids).toContain(mvsx);
    const [moved, moveError] = await call(client, 'story_control', { target: mvsx, action: 'goto', key: 'ligand' });
    expect(moveError, JSON.stringify(moved)).toBe(false);
    expect(moved.story).toMatchObject({ index: 2, key: 'ligand' });
    await drawnNonBlank(archive, 'ligand');
    if (shown.story.count > 1) {
      const [next, nextError] = await call(client, 'story_control', { target: mvsj, action: 'next' });
      expect(nextError, JSON.stringify(next)).toBe(false);
      expect(next.story.index).toBe(1);
    }
  } finally {
    await client.close();
  }
});

test('open of a Story that cannot load is an isError result with the docked widget\'s located error', async ({ page, tmpPath }) => {
  await page.contents.uploadFile(path.join(DATA, '1h9t.mvsx'), `${tmpPath}/1h9t.mvsx`);
  const client = await connected();
  try {
    const [err, isError] = await call(client, 'open', { path: `${tmpPath}/1h9t.mvsx` });
    expect(isError, JSON.stringify(err)).toBe(true);
    expect(err.code).not.toBe('TIMEOUT');
    expect(err.details.target).toMatch(/story/);
    expect(err.details.path).toBe(`${tmpPath}/1h9t.mvsx`);
    expect(JSON.stringify(err)).toContain('1h9t_updated.cif');
    // The same error is the widget's: story_observe reads it.
    const [observed] = await call(client, 'story_observe', { target: err.details.target });
    expect(observed.story).toMatchObject({ ready: false, error: { code: err.code } });
  } finally {
    await client.close();
  }
});

test('open refuses bad Story paths, each located at /path, and docks nothing', async ({ page, tmpPath }) => {
  await page.contents.uploadContent('{"not": "a story"}', 'text', `${tmpPath}/bad.mvsj`);
  await page.contents.uploadContent('not a zip', 'text', `${tmpPath}/bad.mvsx`);
  const big = await sparse(page, `${tmpPath}/big.mvsx`, 50 * 1024 * 1024 + 1);
  // The size is refused before a byte is read: no contents request for the big file's content.
  const bigReads: string[] = [];
  page.on('request', r => {
    if (r.url().includes('/api/contents/') && r.url().includes('big.mvsx') && /[?&]content=1/.test(r.url())) {
      bigReads.push(r.url());
    }
  });
  const client = await connected();
  try {
    const cases: [Record<string, unknown>, Record<string, unknown>][] = [
      [{ path: `${tmpPath}/none.mvsj` }, { code: 'NOT_FOUND', where: '/path' }],
      [{ path: '../outside.mvsx' }, { code: 'FORBIDDEN', where: '/path' }],
      [{ path: `${tmpPath}/big.mvsx` }, { code: 'TOO_LARGE', where: '/path', details: { limit: 50 * 1024 * 1024 } }],
      [{ path: `${tmpPath}/bad.mvsj` }, { where: '/path', details: { path: `${tmpPath}/bad.mvsj` } }],
      [{ path: `${tmpPath}/bad.mvsx` }, { code: 'UNSUPPORTED_FORMAT', where: '/path' }],
      [{ path: `${tmpPath}/a.mvsj`, format: 'pdb' }, { code: 'INVALID_INPUT', where: '/format' }]
    ];
    for (const [args, want] of cases) {
      const [err, isError] = await call(client, 'open', args);
      expect(isError, JSON.stringify(args)).toBe(true);
      expect(err, JSON.stringify(args)).toMatchObject(want);
      expect(err.fix.length, JSON.stringify(err)).toBeGreaterThan(10);
    }
    // An unknown extension: the fix lists the Story extensions beside the structure formats.
    const [unknown] = await call(client, 'open', { path: `${tmpPath}/notes.txt` });
    expect(unknown).toMatchObject({ code: 'UNSUPPORTED_FORMAT', where: '/path', details: { storyExtensions: ['mvsj', 'mvsx'] } });
    expect(unknown.fix).toContain('.mvsj .mvsx');
    expect(unknown.fix).toContain('.cif');
    await expect(page.locator('.molspace-docked-story')).toHaveCount(0);
    expect(bigReads).toEqual([]);
  } finally {
    await client.close();
    fs.rmSync(big, { force: true });
  }
});

test('ketcher_open loads a molecule file from the root; bad files are located, naming the path and extensions', async ({ page, tmpPath }) => {
  await page.contents.uploadFile(path.join(DATA, 'structures', 'small01.mol'), `${tmpPath}/mol/small01.mol`);
  await page.contents.uploadContent('O=C(O)[C@@]([H])(N)C alanine\n', 'text', `${tmpPath}/mol/alanine.smi`);
  const big = await sparse(page, `${tmpPath}/mol/big.sdf`, 64 * 1024 + 1);
  const client = await connected();
  try {
    const [smi, smiError] = await call(client, 'ketcher_open', { path: `${tmpPath}/mol/alanine.smi` });
    expect(smiError, JSON.stringify(smi)).toBe(false);
    expect(smi.editor).toMatchObject({ ready: true, atoms: 7, formula: 'C3 H7 N O2', title: 'alanine.smi', error: null });
    const [mol, molError] = await call(client, 'ketcher_open', { path: `${tmpPath}/mol/small01.mol`, title: 'small01' });
    expect(molError, JSON.stringify(mol)).toBe(false);
    expect(mol.editor.ready).toBe(true);
    // The editor holds the file's molecule: as many atoms as its Molfile counts line says.
    const counts = fs.readFileSync(path.join(DATA, 'structures', 'small01.mol'), 'utf8').split('\n')[3];
    expect(mol.editor.atoms).toBe(Number(counts.slice(0, 3)));
    const [got] = await call(client, 'ketcher_control', { target: mol.editor.target, action: 'get_structure', format: 'smiles' });
    expect(got.value.length).toBeGreaterThan(0);

    const cases: [Record<string, unknown>, Record<string, unknown>][] = [
      [{ path: `${tmpPath}/mol/none.mol` }, { code: 'NOT_FOUND', where: '/path', details: { path: `${tmpPath}/mol/none.mol` } }],
      [{ path: `${tmpPath}/mol/x.pdb` }, { code: 'UNSUPPORTED_FORMAT', where: '/path', details: { extension: '.pdb' } }],
      [{ path: `${tmpPath}/mol/big.sdf` }, { code: 'TOO_LARGE', where: '/path', details: { limit: 64 * 1024 } }],
      [{ path: '../x.mol' }, { code: 'FORBIDDEN', where: '/path' }],
      [{ path: `${tmpPath}/mol/small01.mol`, value: 'CCO' }, { code: 'INVALID_INPUT', where: '/path' }]
    ];
    for (const [args, want] of cases) {
      const [err, isError] = await call(client, 'ketcher_open', args);
      expect(isError, JSON.stringify(args)).toBe(true);
      expect(err, JSON.stringify(args)).toMatchObject(want);
    }
    const [missing] = await call(client, 'ketcher_open', { path: `${tmpPath}/mol/none.mol` });
    expect(missing.fix).toContain('.mol');
    expect(missing.fix).toContain('.sdf');
    const [wrong] = await call(client, 'ketcher_open', { path: `${tmpPath}/mol/x.pdb` });
    expect(wrong.message).toContain(`${tmpPath}/mol/x.pdb`);
    expect(wrong.fix).toContain('.smi');
    const [large] = await call(client, 'ketcher_open', { path: `${tmpPath}/mol/big.sdf` });
    expect(large.message).toContain('ketcherInlineBytes');
  } finally {
    await client.close();
    fs.rmSync(big, { force: true });
  }
});

test('a template over a local structure packs it into an .mvsx that opens drawn; dryRun writes nothing; bad assets are located', async ({
  page,
  tmpPath
}) => {
  await page.contents.uploadFile(CIF, `${tmpPath}/data/1cbs.cif`);
  const client = await connected();
  const variables = {
    title: 'CRABP2 with retinoic acid (1CBS), local',
    structure_url: `${tmpPath}/data/1cbs.cif`,
    overview_text: 'Cellular retinoic acid-binding protein II (PDB 1CBS), from a file under the root.'
  };
  try {
    // An .mvsj cannot hold the file: the fix names assets, which the tool now takes.
    const [notPacked, notPackedError] = await call(client, 'story_template_create', {
      template: 'structure-overview',
      path: `${tmpPath}/1cbs.mvsj`,
      variables
    });
    expect(notPackedError).toBe(true);
    expect(notPacked.code).toBe('VALIDATION_FAILED');
    expect(JSON.stringify(notPacked.details)).toContain('assets');

    // Fill only: the document comes back, nothing is written.
    const [filled, filledError] = await call(client, 'story_template_create', { template: 'structure-overview', variables, dryRun: true });
    expect(filledError, JSON.stringify(filled)).toBe(false);
    expect(filled).toMatchObject({ dryRun: true, nextOffset: null, template: 'structure-overview' });
    expect(JSON.stringify(JSON.parse(filled.document))).toContain(`${tmpPath}/data/1cbs.cif`);
    await expect(page.contents.fileExists(`${tmpPath}/1cbs.mvsj`)).resolves.toBe(false);

    // Following the fix: .mvsx with the file in assets; opened and drawn.
    const file = `${tmpPath}/stories/1cbs.mvsx`;
    const [created, createError] = await call(client, 'story_template_create', {
      template: 'structure-overview',
      path: file,
      variables,
      assets: [`${tmpPath}/data/1cbs.cif`],
      open: true
    });
    expect(createError, JSON.stringify(created)).toBe(false);
    expect(created).toMatchObject({
      path: file,
      format: 'mvsx',
      template: 'structure-overview',
      assets: [{ path: `${tmpPath}/data/1cbs.cif`, entry: 'assets/1cbs.cif', bytes: fs.statSync(CIF).size }],
      story: { kind: 'story', index: 0 }
    });
    const docked = page.locator('.molspace-docked-story .molspace-story');
    await drawnNonBlank(docked, created.story.key);
    const [validated] = await call(client, 'story_validate', { path: file });
    expect(validated).toMatchObject({ valid: true, format: 'mvsx', issueCount: 0 });
    // And open shows the written file again, as any Story file.
    const [reopened, reopenError] = await call(client, 'open', { path: file });
    expect(reopenError, JSON.stringify(reopened)).toBe(false);
    expect(reopened.story).toMatchObject({ ready: true, count: created.snapshotCount });

    // Bad assets: each located, nothing written.
    const bad = `${tmpPath}/bad.mvsx`;
    const cases: [unknown[], Record<string, unknown>][] = [
      [[`${tmpPath}/data/none.cif`], { code: 'NOT_FOUND', where: '/assets/0' }],
      [['../x.cif'], { code: 'FORBIDDEN', where: '/assets/0' }],
      [Array.from({ length: 51 }, (_, i) => `${tmpPath}/data/${i}.cif`), { code: 'INVALID_INPUT', where: '/assets' }]
    ];
    for (const [assets, want] of cases) {
      const [err, isError] = await call(client, 'story_template_create', { template: 'structure-overview', path: bad, variables, assets });
      expect(isError, JSON.stringify(assets).slice(0, 80)).toBe(true);
      expect(err, JSON.stringify(assets).slice(0, 80)).toMatchObject(want);
    }
    await expect(page.contents.fileExists(bad)).resolves.toBe(false);
  } finally {
    await client.close();
  }
});
