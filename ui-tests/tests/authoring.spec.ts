/**
 * Story authoring end to end, as an agent does it (official TypeScript MCP
 * client, tools/list first) against the real gateway and a real page with the
 * bundled Mol*: validate, create from a template on real data (1HPV, served
 * from tests/data by page.route: nothing reaches the internet), refuse to
 * overwrite and to leave the root, and the created file opens and steps in
 * the Story widget with two non-blank steps. The malformed fixtures run
 * through the page's story_validate with the issues jest asserts.
 */
import * as fs from 'fs';
import * as path from 'path';
import { expect, test } from '@jupyterlab/galata';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ROOT, call, foregroundFraction, mcpClient } from './helpers';

const STRUCTURE_URL = 'https://molspace.test/1hpv.pdb';

/** The binding-site tour of 1HPV, as an agent fills it after reading the template's variables. */
const BINDING_SITE = {
  title: 'HIV-1 protease with VX-478 (1HPV)',
  structure_url: STRUCTURE_URL,
  format: 'pdb',
  ligand_comp_id: '478',
  residue_chain: 'A',
  residue_number: 25,
  residue_label: 'Asp25 (catalytic)',
  overview_text: 'HIV-1 protease homodimer with the inhibitor VX-478 (PDB 1HPV).',
  site_text: 'VX-478 in the active-site cleft between the two monomers.',
  residue_text: 'Asp25 of chain A: the catalytic aspartate (from the deposited model; no contact calculation here).'
};

/** Connect once the page's bridge is up (status says so). */
async function connected(): Promise<Client> {
  const client = await mcpClient();
  await expect.poll(async () => (await call(client, 'status'))[0].pageConnected, { timeout: 60_000 }).toBe(true);
  return client;
}

/** Requests for the 1HPV file the page made (served locally). */
let served = 0;

test.beforeEach(async ({ page }) => {
  served = 0;
  const pdb = fs.readFileSync(path.join(ROOT, 'tests', 'data', '1hpv.pdb'));
  await page.route(STRUCTURE_URL, route => {
    served++;
    return route.fulfill({ body: pdb, contentType: 'text/plain', headers: { 'Access-Control-Allow-Origin': '*' } });
  });
});

test('an agent builds a binding-site Story from a template; it opens and steps with two non-blank steps', async ({
  page,
  tmpPath
}) => {
  const client = await connected();
  let calls = 0;
  const agent = (name: string, args: Record<string, unknown> = {}) => {
    calls++;
    return call(client, name, args);
  };
  try {
    // The agent task: from status to a created Story.
    const [status] = await agent('status');
    expect(status.pageConnected).toBe(true);
    const [catalogue] = await agent('story_template_list', { template: 'binding-site-tour' });
    expect(catalogue.templates[0].storyboard.map((s: { key: string }) => s.key)).toEqual([
      'overview',
      'binding-site',
      'key-residue'
    ]);
    const file = `${tmpPath}/1hpv-tour.mvsj`;
    const [created, createError] = await agent('story_template_create', {
      template: 'binding-site-tour',
      path: file,
      variables: BINDING_SITE
    });
    expect(createError).toBe(false);
    expect(created).toMatchObject({ path: file, replaced: false, snapshotCount: 3, template: 'binding-site-tour' });
    console.log(`agent task check: ${calls} calls from status to a created 3-step binding-site Story`);
    expect(calls).toBeLessThanOrEqual(6);

    const [validated] = await call(client, 'story_validate', { path: file });
    expect(validated).toMatchObject({ valid: true, format: 'mvsj', snapshotCount: 3, issueCount: 0 });
    expect(validated.steps.map((s: { key: string }) => s.key)).toEqual(['overview', 'binding-site', 'key-residue']);

    // Overwrite is refused unless asked for.
    const again = { template: 'binding-site-tour', path: file, variables: BINDING_SITE };
    const [refused, isRefused] = await call(client, 'story_template_create', again);
    expect(isRefused).toBe(true);
    expect(refused).toMatchObject({ code: 'FORBIDDEN', where: '/overwrite' });
    const [replaced] = await call(client, 'story_template_create', { ...again, overwrite: true });
    expect(replaced.replaced).toBe(true);

    // The file opens in a Story widget and steps: two steps drawn, neither blank.
    await page.notebook.createNew('open.ipynb');
    await page.notebook.setCell(0, 'code', 'import molspace\nstory = molspace.Story("1hpv-tour.mvsj")\nstory');
    await page.notebook.runCell(0, true);
    const story = page.locator('.molspace-story').first();
    await expect(story).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
    await expect(story.locator('.molspace-story-step')).toHaveText('step 1 of 3');
    await expect(story.locator('.molspace-story-title')).toHaveText('Overview');
    await expect(story).toHaveAttribute('data-molspace-drawn', 'overview', { timeout: 60_000 });
    const canvas = story.locator('.molspace-story-canvas canvas').first();
    await expect.poll(() => foregroundFraction(canvas), { timeout: 30_000 }).toBeGreaterThan(0.02);
    await story.locator('[data-action="next"]').click();
    await expect(story.locator('.molspace-story-title')).toHaveText('Binding site');
    await expect(story).toHaveAttribute('data-molspace-drawn', 'binding-site', { timeout: 60_000 });
    await expect.poll(() => foregroundFraction(canvas), { timeout: 30_000 }).toBeGreaterThan(0.02);
    await expect(story.locator('.molspace-story-error')).toBeHidden();
    expect(served).toBeGreaterThan(0);
  } finally {
    await client.close();
  }
});

test('story_create refuses paths that leave the Jupyter root, and other formats', async ({ tmpPath }) => {
  const client = await connected();
  const document = { title: 'T', steps: [{ key: 'a', title: 'A', description: 'a', root: { kind: 'root' } }] };
  try {
    for (const p of ['../outside.mvsj', `${tmpPath}/../../outside.mvsj`, '/tmp/outside.mvsj', '~/outside.mvsj', 'file:///tmp/x.mvsj']) {
      const [err, isError] = await call(client, 'story_create', { path: p, document });
      expect(isError).toBe(true);
      expect(err).toMatchObject({ code: 'FORBIDDEN', where: '/path' });
    }
    const [wrongExt] = await call(client, 'story_create', { path: `${tmpPath}/a.txt`, document });
    expect(wrongExt).toMatchObject({ code: 'UNSUPPORTED_FORMAT', where: '/path' });
    const [escape] = await call(client, 'story_validate', { path: '../../etc/passwd.mvsj' });
    expect(escape).toMatchObject({ code: 'FORBIDDEN', where: '/path' });
    const [missing] = await call(client, 'story_validate', { path: `${tmpPath}/none.mvsj` });
    expect(missing).toMatchObject({ code: 'NOT_FOUND', where: '/path' });
    // An invalid Story is not written; every issue is in the error.
    const bad = { title: 'T', steps: [{ key: 'a', title: 'A', description: 'a', root: { kind: 'root', children: [{ kind: 'teleport' }] } }, { key: 'a', root: { kind: 'root' } }] };
    const [invalid] = await call(client, 'story_create', { path: `${tmpPath}/bad.mvsj`, document: bad });
    expect(invalid).toMatchObject({ code: 'VALIDATION_FAILED', where: '/document', details: { issueCount: 2 } });
    const [notWritten] = await call(client, 'story_validate', { path: `${tmpPath}/bad.mvsj` });
    expect(notWritten.code).toBe('NOT_FOUND');
  } finally {
    await client.close();
  }
});

test('the real Stories validate and every malformed fixture gives its located issues', async ({ page, tmpPath }) => {
  for (const name of ['1cbs.mvsj', '1h9t.mvsx', 'kinase-story.mvsj']) {
    await page.contents.uploadFile(path.join(ROOT, 'tests', 'data', name), `${tmpPath}/${name}`);
  }
  const client = await connected();
  try {
    for (const name of ['1cbs.mvsj', '1h9t.mvsx', 'kinase-story.mvsj']) {
      const [result, isError] = await call(client, 'story_validate', { path: `${tmpPath}/${name}` });
      expect(isError).toBe(false);
      expect(result, name).toMatchObject({ valid: true, issueCount: 0 });
    }
    const fixtures = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'fixtures', 'authoring', 'malformed-stories.json'), 'utf8'));
    for (const c of fixtures.cases) {
      const [result, isError] = await call(client, 'story_validate', { document: c.document });
      if (c.error) {
        expect(isError, c.name).toBe(true);
        expect(result, c.name).toMatchObject(c.error);
        continue;
      }
      expect(isError, c.name).toBe(false);
      expect(result.valid, c.name).toBe(false);
      expect(result.issueCount, c.name).toBe(c.issues.length);
      c.issues.forEach((want: { snapshotIndex: number | null; path: string; message: string }, k: number) => {
        expect(result.issues[k], c.name).toMatchObject({ snapshotIndex: want.snapshotIndex, path: want.path });
        expect(result.issues[k].message, c.name).toMatch(new RegExp(want.message));
        expect(result.issues[k].fix.length, c.name).toBeGreaterThan(10);
      });
    }
  } finally {
    await client.close();
  }
});
