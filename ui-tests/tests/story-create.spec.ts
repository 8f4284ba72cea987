/**
 * story_create / story_template_create end to end, as an agent does it
 * (official TypeScript MCP client, tools/list first) against the real gateway,
 * the real contents API and a real page with the bundled Mol*: an .mvsx
 * archive packed from files under the Jupyter root, its refusals (outside the
 * root, missing, too large, a name collision, an existing file), and `open`
 * showing the new Story docked in the main area — no kernel — where observe
 * lists it and story_control drives it at once.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import { expect, test } from './sharedLab';
import type { Locator } from '@playwright/test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ROOT, call, foregroundFraction, mcpClient } from './helpers';

const PDB = path.join(ROOT, 'tests', 'data', 'structures', '1hpv.pdb');
const STRUCTURE_URL = 'https://files.rcsb.org/molspace-test/1hpv.pdb';

async function connected(): Promise<Client> {
  const client = await mcpClient();
  await expect.poll(async () => (await call(client, 'status'))[0].pageConnected, { timeout: 60_000 }).toBe(true);
  return client;
}

/** A two-step storyboard whose structure is `url`. */
function storyboard(url: string): Record<string, unknown> {
  const tree = (type: string) => ({
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
              {
                kind: 'structure',
                params: { type: 'model' },
                children: [{ kind: 'component', params: { selector: 'polymer' }, children: [{ kind: 'representation', params: { type } }] }]
              }
            ]
          }
        ]
      }
    ]
  });
  return {
    title: 'HIV-1 protease (1HPV), packed',
    steps: [
      { key: 'cartoon', title: 'Cartoon', description: 'The dimer as cartoon.', root: tree('cartoon') },
      { key: 'surface', title: 'Surface', description: 'The same file as a surface.', root: tree('surface') }
    ]
  };
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

test('story_create packs a file under the root into an .mvsx, opens it docked, and story_control drives it', async ({ page, tmpPath }) => {
  await page.contents.uploadFile(PDB, `${tmpPath}/data/1hpv.pdb`);
  const client = await connected();
  try {
    const file = `${tmpPath}/stories/1hpv.mvsx`;
    const [created, isError] = await call(client, 'story_create', {
      path: file,
      document: storyboard(`${tmpPath}/data/1hpv.pdb`),
      assets: [`${tmpPath}/data/1hpv.pdb`],
      open: true
    });
    expect(isError, JSON.stringify(created)).toBe(false);
    expect(created).toMatchObject({
      path: file,
      format: 'mvsx',
      replaced: false,
      snapshotCount: 2,
      assets: [{ path: `${tmpPath}/data/1hpv.pdb`, entry: 'assets/1hpv.pdb', bytes: fs.statSync(PDB).size }],
      story: { kind: 'story', index: 0, key: 'cartoon', count: 2 }
    });
    const target = created.story.target;

    // Shown to the person: docked in the main area, no notebook, drawn.
    const docked = page.locator('.molspace-docked-story .molspace-story');
    await expect(docked).toHaveCount(1);
    await drawnNonBlank(docked, 'cartoon');

    // The agent sees it and drives it at once.
    const [observed] = await call(client, 'observe');
    expect(observed.widgets.map((w: { id: string }) => w.id)).toContain(target);
    const [moved, moveError] = await call(client, 'story_control', { target, action: 'next' });
    expect(moveError, JSON.stringify(moved)).toBe(false);
    expect(moved.story).toMatchObject({ index: 1, key: 'surface' });
    await expect(docked.locator('.molspace-story-title')).toHaveText('Surface');
    await drawnNonBlank(docked, 'surface');

    // The written archive reads back with the same validation, assets resolved inside it.
    const [validated] = await call(client, 'story_validate', { path: file });
    expect(validated).toMatchObject({ valid: true, format: 'mvsx', snapshotCount: 2, issueCount: 0 });

    // Writing over it is refused without overwrite, before any asset is read.
    const again = { path: file, document: storyboard(`${tmpPath}/data/1hpv.pdb`), assets: [`${tmpPath}/data/1hpv.pdb`] };
    const [exists] = await call(client, 'story_create', again);
    expect(exists).toMatchObject({ code: 'FORBIDDEN', where: '/overwrite' });
    const [replaced] = await call(client, 'story_create', { ...again, overwrite: true });
    expect(replaced).toMatchObject({ replaced: true, story: null });

    // Closed by the person: out of observe at once, and naming it is STALE_TARGET.
    await page.locator('.lm-TabBar-tab', { hasText: 'HIV-1 protease (1HPV), packed' }).locator('.lm-TabBar-tabCloseIcon').click();
    await expect(docked).toHaveCount(0);
    const [after] = await call(client, 'observe');
    expect(after.widgets.map((w: { id: string }) => w.id)).not.toContain(target);
    const [stale] = await call(client, 'story_control', { target, action: 'next' });
    expect(stale).toMatchObject({ code: 'STALE_TARGET', where: '/target' });
  } finally {
    await client.close();
  }
});

test('story_create refuses bad assets, each located, and writes nothing', async ({ page, tmpPath }) => {
  await page.contents.uploadFile(PDB, `${tmpPath}/data/1hpv.pdb`);
  await page.contents.uploadFile(PDB, `${tmpPath}/other/1hpv.pdb`);
  // A sparse file just over the cap: the size is refused before a byte is read.
  const big = `${tmpPath}/data/big.pdb`;
  const bigOnDisk = path.join(await serverRoot(page), big);
  fs.mkdirSync(path.dirname(bigOnDisk), { recursive: true });
  fs.writeFileSync(bigOnDisk, '');
  fs.truncateSync(bigOnDisk, 50 * 1024 * 1024 + 1);
  const client = await connected();
  try {
    const file = `${tmpPath}/bad.mvsx`;
    const create = (assets: unknown[]) => call(client, 'story_create', { path: file, document: storyboard(`${tmpPath}/data/1hpv.pdb`), assets });
    const cases: [unknown[], Record<string, unknown>][] = [
      [['../outside.pdb'], { code: 'FORBIDDEN', where: '/assets/0' }],
      [[`${tmpPath}/../../etc/passwd`], { code: 'FORBIDDEN', where: '/assets/0' }],
      [['/etc/passwd'], { code: 'FORBIDDEN', where: '/assets/0' }],
      [[`${tmpPath}/data/1hpv.pdb`, `${tmpPath}/data/none.pdb`], { code: 'NOT_FOUND', where: '/assets/1' }],
      [[big], { code: 'TOO_LARGE', where: '/assets/0', details: { limit: 50 * 1024 * 1024 } }],
      [[`${tmpPath}/data/1hpv.pdb`, `${tmpPath}/other/1hpv.pdb`], { code: 'INVALID_INPUT', where: '/assets/1' }]
    ];
    for (const [assets, want] of cases) {
      const [err, isError] = await create(assets);
      expect(isError, JSON.stringify(assets)).toBe(true);
      expect(err, JSON.stringify(assets)).toMatchObject(want);
      expect(err.fix.length).toBeGreaterThan(10);
    }
    const [mvsj] = await call(client, 'story_create', { path: `${tmpPath}/bad.mvsj`, document: storyboard('x.pdb'), assets: [`${tmpPath}/data/1hpv.pdb`] });
    expect(mvsj).toMatchObject({ code: 'UNSUPPORTED_FORMAT', where: '/assets' });
    const [notWritten] = await call(client, 'story_validate', { path: file });
    expect(notWritten).toMatchObject({ code: 'NOT_FOUND', where: '/path' });
  } finally {
    await client.close();
    fs.rmSync(bigOnDisk, { force: true });
  }
});

test('story_template_create with open docks the Story; the agent steps it without a kernel', async ({ page, tmpPath }) => {
  const body = fs.readFileSync(PDB);
  await page.route(STRUCTURE_URL, route => route.fulfill({ body, contentType: 'text/plain', headers: { 'Access-Control-Allow-Origin': '*' } }));
  const client = await connected();
  try {
    const [created, isError] = await call(client, 'story_template_create', {
      template: 'binding-site-tour',
      path: `${tmpPath}/tour.mvsj`,
      open: true,
      variables: {
        title: 'HIV-1 protease with VX-478 (1HPV)',
        structure_url: STRUCTURE_URL,
        format: 'pdb',
        ligand_comp_id: '478',
        residue_chain: 'A',
        residue_number: 25,
        residue_label: 'Asp25 (catalytic)',
        overview_text: 'HIV-1 protease homodimer with the inhibitor VX-478 (PDB 1HPV).',
        site_text: 'VX-478 in the active-site cleft.',
        residue_text: 'Asp25 of chain A.'
      }
    });
    expect(isError, JSON.stringify(created)).toBe(false);
    expect(created).toMatchObject({ format: 'mvsj', template: 'binding-site-tour', story: { key: 'overview', count: 3 } });
    const docked = page.locator('.molspace-docked-story .molspace-story');
    await drawnNonBlank(docked, 'overview');
    // Descriptions go through JupyterLab's (sanitizing) markdown renderer, as in a cell's Story.
    await expect(docked.locator('.molspace-story-description .jp-RenderedMarkdown')).toContainText('HIV-1 protease homodimer');
    const [moved] = await call(client, 'story_control', { target: created.story.target, action: 'goto', key: 'binding-site' });
    expect(moved.story).toMatchObject({ index: 1, key: 'binding-site' });
    await drawnNonBlank(docked, 'binding-site');
    // story_edit works on it too: no kernel to sync, the page's state is the Story's.
    const [edited, editError] = await call(client, 'story_edit', {
      target: created.story.target,
      edit: 'insert',
      key: 'binding-site',
      step: { key: 'note', title: 'A note from the agent', description: 'Inserted into a docked Story.', root: { kind: 'root' } },
      expectedRevision: moved.story.revision
    });
    expect(editError, JSON.stringify(edited)).toBe(false);
    expect(edited.story).toMatchObject({ index: 2, key: 'note', count: 4 });
    await expect(docked.locator('.molspace-story-title')).toHaveText('A note from the agent');
    expect(await page.locator('.jp-Notebook').count()).toBe(0);
  } finally {
    await client.close();
  }
});

test('story_create with open fails with the Story\'s own located error when its structure cannot load', async ({ page, tmpPath }) => {
  // Answered in the browser (no traffic leaves the machine): the structure is missing.
  const missing = 'https://files.rcsb.org/molspace-test/missing.pdb';
  await page.route(missing, route => route.fulfill({ status: 404, body: 'not found', headers: { 'Access-Control-Allow-Origin': '*' } }));
  const client = await connected();
  try {
    const file = `${tmpPath}/missing.mvsj`;
    const [err, isError] = await call(client, 'story_create', { path: file, document: storyboard(missing), open: true });
    expect(isError, JSON.stringify(err)).toBe(true);
    expect(err).toMatchObject({
      code: 'NOT_FOUND',
      where: '/snapshots/0/root/children/0/params/url',
      details: { url: missing, status: 404, path: file, written: true }
    });
    expect(err.details.target).toMatch(/^molspace-story-/);
    expect(err.message).toContain(`${file} was written`);
    // The same error is the Story's: observe shows it docked, not ready.
    const [observed] = await call(client, 'story_observe', { target: err.details.target });
    expect(observed.story).toMatchObject({ ready: false, error: { code: 'NOT_FOUND' } });
  } finally {
    await client.close();
  }
});

test('story_validate says which resources it could fetch from the page, and never calls an unreachable one valid', async ({ page, tmpPath }) => {
  // Both answered in the browser: nothing leaves the machine; example.org is not an allowed host (not fetched).
  const ok = 'https://files.rcsb.org/molspace-test/ok.pdb';
  const missing = 'https://files.rcsb.org/molspace-test/gone.pdb';
  const refused = 'https://example.org/1hpv.pdb';
  const body = fs.readFileSync(PDB);
  const requested: string[] = [];
  await page.route(ok, route => route.fulfill({ body, contentType: 'text/plain', headers: { 'Access-Control-Allow-Origin': '*' } }));
  await page.route(missing, route => route.fulfill({ status: 404, body: 'no', headers: { 'Access-Control-Allow-Origin': '*' } }));
  await page.route(refused, route => {
    requested.push(route.request().url());
    return route.abort();
  });
  const client = await connected();
  try {
    const [good, goodError] = await call(client, 'story_validate', { document: storyboard(ok) });
    expect(goodError, JSON.stringify(good)).toBe(false);
    expect(good).toMatchObject({ valid: true, issueCount: 0, resourceCount: 2 });
    expect(good.resources.map((r: { status: string; httpStatus: number }) => [r.status, r.httpStatus])).toEqual([
      ['reachable', 200],
      ['reachable', 200]
    ]);

    const [bad] = await call(client, 'story_validate', { document: storyboard(missing) });
    const gone = { url: missing, status: 'unreachable', httpStatus: 404, source: 'remote', path: 'root/children/0/params/url' };
    expect(bad).toMatchObject({ valid: false, resources: [{ ...gone, snapshotIndex: 0 }, { ...gone, snapshotIndex: 1 }] });
    expect(bad.issues[0]).toMatchObject({ snapshotIndex: 0, key: 'cartoon', path: 'root/children/0/params/url' });
    expect(bad.issues[0].message).toContain('HTTP 404');

    const [off] = await call(client, 'story_validate', { document: storyboard(missing), checkResources: false });
    expect(off).toMatchObject({ valid: true, resources: [{ status: 'not-checked' }, { status: 'not-checked' }] });

    const [forbidden] = await call(client, 'story_validate', { document: storyboard(refused) });
    expect(forbidden.valid).toBe(false);
    expect(forbidden.resources[0]).toMatchObject({ url: refused, status: 'forbidden', httpStatus: null });
    expect(requested).toEqual([]); // a host the policy refuses is never asked

    // A file packed in an .mvsx needs no fetch.
    await page.contents.uploadFile(PDB, `${tmpPath}/data/1hpv.pdb`);
    await call(client, 'story_create', { path: `${tmpPath}/packed.mvsx`, document: storyboard(`${tmpPath}/data/1hpv.pdb`), assets: [`${tmpPath}/data/1hpv.pdb`] });
    const [packed] = await call(client, 'story_validate', { path: `${tmpPath}/packed.mvsx` });
    expect(packed).toMatchObject({ valid: true, resources: [{ source: 'archive', status: 'reachable' }, { source: 'archive', status: 'reachable' }] });
  } finally {
    await client.close();
  }
});
