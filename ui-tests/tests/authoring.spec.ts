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
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import { expect, test } from './sharedLab';
import type { Locator } from '@playwright/test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ROOT, call, foregroundFraction, mcpClient, setCode, addCode } from './helpers';

const STRUCTURE_URL = 'https://files.rcsb.org/molspace-test/1hpv.pdb';

/** Every template filled on real data (test-served files), as story_template_create takes it. */
const ON_REAL_DATA: Record<string, Record<string, string | number>> = {
  'structure-overview': {
    title: 'CRABP2 with retinoic acid (1CBS)',
    structure_url: 'https://files.rcsb.org/molspace-test/1cbs.cif',
    overview_text: 'Cellular retinoic acid-binding protein II (PDB 1CBS).'
  },
  'docking-pose-comparison': {
    title: 'Aurora A (2C6E): two docked ligands',
    receptor_url: 'https://files.rcsb.org/molspace-test/2c6e_protein.pdb',
    pose_a_url: 'https://files.rcsb.org/molspace-test/2c6e_docked_ACP.pdb',
    pose_b_url: 'https://files.rcsb.org/molspace-test/2c6e_docked_AKI.pdb',
    pose_a_name: 'ACP',
    pose_b_name: 'AKI',
    pose_a_text: 'ACP pose; the Vina score is in the file (REMARK VINA RESULT), not recomputed here.',
    pose_b_text: 'AKI pose; the Vina score is in the file (REMARK VINA RESULT), not recomputed here.',
    comparison_text: 'Both poses in the receptor frame; no RMSD was computed for this test.'
  },
  'aligned-structure-comparison': {
    title: 'HIV-1 protease and Aurora A (frames as deposited)',
    structure_a_url: 'https://files.rcsb.org/molspace-test/1hpv.pdb',
    structure_b_url: 'https://files.rcsb.org/molspace-test/2c6e_protein.pdb',
    format_a: 'pdb',
    format_b: 'pdb',
    name_a: '1HPV',
    name_b: '2C6E',
    text_a: 'HIV-1 protease.',
    text_b: 'Aurora A kinase.',
    comparison_text: 'Not superposed: the template needs pre-aligned files (see its caveats).'
  }
};

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

/** Requests for the test-served files the page made, by file name. */
const served = new Map<string, number>();
/** Files served at https://files.rcsb.org/molspace-test/<name> from the repository's test data. */
const FILES: Record<string, string> = {
  '1hpv.pdb': path.join(ROOT, 'tests', 'data', 'structures', '1hpv.pdb'),
  '2c6e_protein.pdb': path.join(ROOT, 'tests', 'data', '2c6e_protein.pdb'),
  '2c6e_docked_ACP.pdb': path.join(ROOT, 'tests', 'data', '2c6e_docked_ACP.pdb'),
  '2c6e_docked_AKI.pdb': path.join(ROOT, 'tests', 'data', '2c6e_docked_AKI.pdb'),
  '1cbs.cif': path.join(ROOT, 'examples', 'data', '1cbs.cif')
};

test.beforeEach(async ({ page }) => {
  served.clear();
  for (const [name, file] of Object.entries(FILES)) {
    const body = fs.readFileSync(file);
    await page.route(`https://files.rcsb.org/molspace-test/${name}`, route => {
      served.set(name, (served.get(name) ?? 0) + 1);
      return route.fulfill({ body, contentType: 'text/plain', headers: { 'Access-Control-Allow-Origin': '*' } });
    });
  }
});

/** Show a Story file in a new notebook (in the test folder) and wait until it is ready. */
async function showStory(page: IJupyterLabPageFixture, notebook: string, file: string): Promise<Locator> {
  await page.notebook.createNew(notebook);
  await setCode(page, 0, `import molspace\nstory = molspace.Story(${JSON.stringify(file)})\nstory`);
  await page.notebook.runCell(0, true);
  const story = page.locator('.molspace-story').first();
  await expect(story).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
  return story;
}

/** Wait until Mol* has drawn step `key` and its canvas is not blank. */
async function drawnNonBlank(story: Locator, key: string): Promise<void> {
  await expect(story).toHaveAttribute('data-molspace-drawn', key, { timeout: 60_000 });
  const canvas = story.locator('.molspace-story-canvas canvas').first();
  await expect.poll(() => foregroundFraction(canvas), { timeout: 30_000 }).toBeGreaterThan(0.02);
  await expect(story.locator('.molspace-story-error')).toBeHidden();
}

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
    const story = await showStory(page, 'open.ipynb', '1hpv-tour.mvsj');
    await expect(story.locator('.molspace-story-step')).toHaveText('step 1 of 3');
    await expect(story.locator('.molspace-story-title')).toHaveText('Overview');
    await drawnNonBlank(story, 'overview');
    await story.locator('[data-action="next"]').click();
    await expect(story.locator('.molspace-story-title')).toHaveText('Binding site');
    await drawnNonBlank(story, 'binding-site');
    expect(served.get('1hpv.pdb')).toBeGreaterThan(0);
  } finally {
    await client.close();
  }
});

test('every template makes a valid Story on real data; the docking-pose comparison opens and steps', async ({
  page,
  tmpPath
}) => {
  const client = await connected();
  try {
    // The catalogue pages on within the read budget (nextOffset), as an agent reads it.
    const ids: string[] = [];
    for (let offset: number | null = 0, pages = 0; offset !== null && pages < 10; pages++) {
      const [catalogue] = await call(client, 'story_template_list', offset ? { offset } : {});
      ids.push(...catalogue.templates.map((t: { id: string }) => t.id));
      offset = catalogue.nextOffset;
    }
    ids.sort();
    expect(ids).toEqual(['aligned-structure-comparison', 'binding-site-tour', 'docking-pose-comparison', 'structure-overview']);
    for (const [id, variables] of Object.entries({ ...ON_REAL_DATA, 'binding-site-tour': BINDING_SITE })) {
      const file = `${tmpPath}/${id}.mvsj`;
      const [created, isError] = await call(client, 'story_template_create', { template: id, path: file, variables });
      expect(isError, `${id}: ${JSON.stringify(created)}`).toBe(false);
      const [validated] = await call(client, 'story_validate', { path: file });
      expect(validated, id).toMatchObject({ valid: true, snapshotCount: created.snapshotCount });
    }
    const story = await showStory(page, 'docking.ipynb', 'docking-pose-comparison.mvsj');
    await expect(story.locator('.molspace-story-title')).toHaveText('ACP');
    await drawnNonBlank(story, 'pose-a');
    await story.locator('[data-action="next"]').click();
    await expect(story.locator('.molspace-story-title')).toHaveText('AKI');
    await drawnNonBlank(story, 'pose-b');
    expect(served.get('2c6e_docked_AKI.pdb')).toBeGreaterThan(0);
  } finally {
    await client.close();
  }
});

test('an agent edits a shown Story by key; the widget and the cell see the change', async ({ page, tmpPath }) => {
  const client = await connected();
  try {
    const file = `${tmpPath}/edit.mvsj`;
    const [created] = await call(client, 'story_template_create', { template: 'binding-site-tour', path: file, variables: BINDING_SITE });
    expect(created.snapshotCount).toBe(3);
    const story = await showStory(page, 'edit.ipynb', 'edit.mvsj');
    await drawnNonBlank(story, 'overview');
    const [observed] = await call(client, 'observe');
    const target = observed.widgets[0].id;
    const revision = observed.widgets[0].revision;
    const [steps] = await call(client, 'story_template_list', { template: 'binding-site-tour' });
    const site = JSON.parse(JSON.stringify(steps.steps[1]).split('{{structure_url}}').join(STRUCTURE_URL).split('{{format}}').join('pdb').split('{{ligand_comp_id}}').join('478'));
    const [edited, editError] = await call(client, 'story_edit', {
      target,
      edit: 'replace',
      key: 'binding-site',
      step: { ...site, title: 'The inhibitor in the cleft', description: 'Edited by an agent.' },
      expectedRevision: revision
    });
    expect(editError, JSON.stringify(edited)).toBe(false);
    expect(edited).toMatchObject({ previousRevision: revision, story: { index: 1, key: 'binding-site', revision: revision + 1 } });
    await expect(story.locator('.molspace-story-title')).toHaveText('The inhibitor in the cleft');
    await drawnNonBlank(story, 'binding-site');
    await addCode(page, 'print(story.snapshots[1]["title"], story.revision)');
    await page.notebook.runCell(1, true);
    await expect
      .poll(async () => ((await page.notebook.getCellTextOutput(1)) ?? []).join('').trim())
      .toBe(`The inhibitor in the cleft ${revision + 1}`);
    const [conflict, isConflict] = await call(client, 'story_edit', { target, edit: 'insert', step: { ...site, key: 'again' }, expectedRevision: revision });
    expect(isConflict).toBe(true);
    expect(conflict).toMatchObject({ code: 'REVISION_CONFLICT', where: '/expectedRevision' });
    const [inserted] = await call(client, 'story_edit', { target, edit: 'insert', step: { ...site, key: 'again', title: 'Again' } });
    expect(inserted.story).toMatchObject({ index: 3, count: 4, key: 'again' });
    await expect(story.locator('.molspace-story-step')).toHaveText('step 4 of 4');
  } finally {
    await client.close();
  }
});

test('a cell edits a shown Story with replace_step; the agent\'s story_observe sees it, and the agent\'s edit reaches the cell', async ({
  page,
  tmpPath
}) => {
  const client = await connected();
  try {
    const file = `${tmpPath}/cell-edit.mvsj`;
    await call(client, 'story_template_create', { template: 'binding-site-tour', path: file, variables: BINDING_SITE });
    const story = await showStory(page, 'cell-edit.ipynb', 'cell-edit.mvsj');
    await drawnNonBlank(story, 'overview');
    const [before] = await call(client, 'story_observe');
    const revision = before.story.revision;
    const target = before.story.target;

    // The cell replaces a step; the page validates and shows it; the agent observes it.
    await addCode(
      page,
      [
        'import json',
        `step = {"key": "binding-site", "title": "Edited in a cell", "description": "From replace_step.", "root": json.loads(story._mvsj)["snapshots"][1]["root"]}`,
        `story.replace_step("binding-site", step, expected_revision=${revision})`
      ].join('\n')
    );
    await page.notebook.runCell(1, true);
    await expect(story.locator('.molspace-story-title')).toHaveText('Edited in a cell');
    await drawnNonBlank(story, 'binding-site');
    const [observed] = await call(client, 'story_observe', { target });
    expect(observed.story).toMatchObject({ revision: revision + 1, index: 1, key: 'binding-site' });
    expect(observed.snapshots[1].title).toBe('Edited in a cell');
    const [activity] = await call(client, 'observe');
    expect(activity.lastAction).toMatchObject({ tool: 'story_edit', source: 'kernel', target });

    // A refused edit from the cell comes back located, in last_result; nothing changes.
    await addCode(page, 'story.insert_step({"key": "overview", "root": {"kind": "root"}})');
    await page.notebook.runCell(2, true);
    await addCode(page, 'print(story.last_result["ok"], story.last_result["error"]["code"], story.last_result["error"]["where"], story.revision)');
    await expect
      .poll(async () => {
        await page.notebook.runCell(3, true);
        return ((await page.notebook.getCellTextOutput(3)) ?? []).join('').trim();
      })
      .toBe(`False VALIDATION_FAILED /step/key ${revision + 1}`);

    // The reverse: the agent inserts a step; the cell's snapshots follow.
    const [inserted, insertError] = await call(client, 'story_edit', {
      target,
      edit: 'insert',
      key: 'binding-site',
      step: { key: 'from-agent', title: 'Inserted by the agent', description: '', root: { kind: 'root' } },
      expectedRevision: revision + 1
    });
    expect(insertError, JSON.stringify(inserted)).toBe(false);
    await addCode(page, 'print([s["key"] for s in story.snapshots], story.revision)');
    await expect
      .poll(async () => {
        await page.notebook.runCell(4, true);
        return ((await page.notebook.getCellTextOutput(4)) ?? []).join('').trim();
      })
      .toBe(`['overview', 'binding-site', 'from-agent', 'key-residue'] ${revision + 2}`);
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
    expect(invalid).toMatchObject({ code: 'VALIDATION_FAILED', where: '/document/steps/0/root/children/0', details: { issueCount: 2 } });
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
      // their structures are on the internet: validated without fetching them (nothing leaves this machine)
      const [result, isError] = await call(client, 'story_validate', { path: `${tmpPath}/${name}`, checkResources: false });
      expect(isError).toBe(false);
      expect(result, name).toMatchObject({ valid: true, issueCount: 0 });
    }
    const fixtures = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'fixtures', 'authoring', 'malformed-stories.json'), 'utf8'));
    for (const c of fixtures.cases) {
      const [result, isError] = await call(client, 'story_validate', { document: c.document, checkResources: false });
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
