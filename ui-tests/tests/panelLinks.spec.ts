/**
 * Panel links end to end: an agent (official TypeScript MCP client,
 * tools/list first) docks a table whose rows focus selections in a real
 * Viewer (a cell's molspace.Viewer, so the kernel sees the change) and a
 * molecule grid whose cells go to steps of a real Story (docked by
 * story_create); each click is a `ui` call of `act` / `story_control`
 * through the Dispatcher (the activity panel lists it); a link whose widget
 * is gone, or whose selector or step does not exist, shows a located error
 * in the panel. A cell attaches the same links from DataFrame columns. A
 * chart's points go to frames of a trajectory Viewer (act goto_frame, as the
 * frame player does), from an agent's chart and a cell's Altair chart.
 */
import * as fs from 'fs';
import * as path from 'path';
import { expect, test } from './sharedLab';
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import type { Page } from '@playwright/test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ROOT, call, mcpClient, runCell, setCode } from './helpers';

const DATA = path.join(ROOT, 'tests', 'data', 'structures');
const TRAJECTORIES = path.join(ROOT, 'tests', 'data', 'trajectories');
const REA = { auth_asym_id: 'A', auth_seq_id: 200 };

async function agent(): Promise<Client> {
  const client = await mcpClient();
  const tools = await client.listTools();
  expect(tools.tools.map(t => t.name)).toEqual(expect.arrayContaining(['render_panel', 'act', 'story_control']));
  await expect.poll(async () => (await call(client, 'status'))[0].pageConnected, { timeout: 60_000 }).toBe(true);
  return client;
}

function panel(page: Page, panelId: string) {
  return page.locator(`.molspace-panel[data-molspace-panel-id="${panelId}"]`);
}

/** A cell's Viewer of 1cbs.cif; returns its widget id. */
async function cellViewer(page: IJupyterLabPageFixture, tmpPath: string): Promise<string> {
  await page.contents.uploadFile(path.join(DATA, '1cbs.cif'), `${tmpPath}/1cbs.cif`);
  await page.notebook.createNew('links.ipynb');
  await setCode(page, 0, 'import molspace\nv = molspace.Viewer("1cbs.cif")\nv');
  await page.notebook.runCell(0, true);
  await expect(page.locator('.molspace-viewer').first()).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
  return (await runCell(page, 'print(v.model_id)')).trim();
}

/** Run `source` in the links notebook (brought to the front: docked tabs may hold the focus). */
async function inKernel(page: IJupyterLabPageFixture, source: string): Promise<string> {
  await page.notebook.activate('links.ipynb');
  return runCell(page, source);
}

/** A two-step Story of 1hpv.pdb docked by story_create; returns its widget id. */
async function dockedStory(page: IJupyterLabPageFixture, client: Client, tmpPath: string): Promise<string> {
  await page.contents.uploadFile(path.join(DATA, '1hpv.pdb'), `${tmpPath}/data/1hpv.pdb`);
  const tree = (type: string) => ({
    kind: 'root',
    children: [
      {
        kind: 'download',
        params: { url: `${tmpPath}/data/1hpv.pdb` },
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
  const [created, isError] = await call(client, 'story_create', {
    path: `${tmpPath}/links.mvsx`,
    document: {
      title: 'Linked story',
      steps: [
        { key: 'cartoon', title: 'Cartoon', description: 'Cartoon.', root: tree('cartoon') },
        { key: 'surface', title: 'Surface', description: 'Surface.', root: tree('surface') }
      ]
    },
    assets: [`${tmpPath}/data/1hpv.pdb`],
    open: true
  });
  expect(isError, JSON.stringify(created)).toBe(false);
  await expect(page.locator('.molspace-docked-story .molspace-story')).toHaveAttribute('data-molspace-drawn', 'cartoon', { timeout: 90_000 });
  return created.story.target;
}

/** Click a link button and wait for its outcome. */
async function follow(link: ReturnType<Page['locator']>, outcome: 'done' | 'error'): Promise<void> {
  await link.click();
  await expect(link).toHaveAttribute('data-molspace-link-state', outcome, { timeout: 60_000 });
}

test('table rows focus selections in a Viewer, grid cells go to Story steps, through the Dispatcher; gone targets are located', async ({
  page,
  tmpPath
}) => {
  const viewer = await cellViewer(page, tmpPath);
  const client = await agent();
  try {
    const story = await dockedStory(page, client, tmpPath);
    const [before] = await call(client, 'viewer_observe', { target: viewer });

    // Links are checked when the panel renders: an unknown Viewer, a selector that matches nothing and an
    // unknown step are refused, located under the link, and no panel opens (the person never meets them).
    const sitesContent = (links: unknown[]) => ({
      type: 'table',
      columns: [{ name: 'site' }, { name: 'score', type: 'number' }],
      rows: [
        ['REA 200', -9.1],
        ['no link', 0],
        ['REA again', 1]
      ],
      links
    });
    const good = [{ op: 'focus', viewer, selector: REA }, null, { op: 'focus', viewer, selector: 'ligand' }];
    const [noViewer, noViewerError] = await call(client, 'render_panel', {
      panelId: 'sites',
      content: sitesContent([good[0], null, { op: 'focus', viewer: 'no-such-viewer', selector: 'ligand' }])
    });
    expect(noViewerError).toBe(true);
    expect(noViewer).toMatchObject({ code: 'NOT_FOUND', where: '/content/links/2/viewer' });
    const [noResidue] = await call(client, 'render_panel', {
      panelId: 'sites',
      content: sitesContent([good[0], null, { op: 'focus', viewer, selector: { auth_asym_id: 'Z', auth_seq_id: 5 } }])
    });
    expect(noResidue).toMatchObject({ code: 'NOT_FOUND', where: '/content/links/2/selector' });
    expect(noResidue.fix).toContain('"A"');
    await expect(panel(page, 'sites')).toHaveCount(0);

    const [table, tableError] = await call(client, 'render_panel', { panelId: 'sites', content: sitesContent(good) });
    expect(tableError, JSON.stringify(table)).toBe(false);
    const sites = panel(page, 'sites');
    await expect(sites).toHaveAttribute('data-molspace-ready', 'true');
    const rowLinks = sites.locator('tbody tr .molspace-panel-link');
    await expect(rowLinks).toHaveCount(2);
    await expect(sites.locator('tbody tr[data-row="1"] .molspace-panel-link')).toHaveCount(0);

    // Row 0: act focus on the Viewer, source ui, one revision the agent and the kernel both see.
    await follow(sites.locator('tbody tr[data-row="0"] .molspace-panel-link'), 'done');
    await expect(sites.locator('.molspace-panel-link-error')).toBeHidden();
    const [after] = await call(client, 'viewer_observe', { target: viewer });
    expect(after.viewer.revision).toBe(before.viewer.revision + 1);
    expect(after.view.focus).toEqual(REA);
    await expect
      .poll(() => inKernel(page, 'print(v.revision, v.view["focus"], v.last_change["source"])'))
      .toBe(`${before.viewer.revision + 1} {'auth_asym_id': 'A', 'auth_seq_id': 200} ui`);
    const linkError = sites.locator('.molspace-panel-link-error');

    // A sort moves the rows with their links.
    await sites.locator('thead th').nth(1).locator('button').click();
    await expect(sites.locator('tbody tr').first()).toHaveAttribute('data-row', '0');
    await follow(sites.locator('tbody tr[data-row="0"] .molspace-panel-link'), 'done');
    await expect(linkError).toBeHidden();

    // Grid: a molecule's link goes to a Story step (story_control goto, source ui); an unknown step is refused.
    const molecules = [
      { smiles: 'CCO', name: 'surface pose', link: { op: 'goto', story, key: 'surface' } },
      { smiles: 'c1ccccc1', name: 'no step', link: { op: 'goto', story, key: 'no-such-step' } },
      { smiles: 'C', name: 'unlinked' }
    ];
    const [noStep, noStepError] = await call(client, 'render_panel', { panelId: 'poses', content: { type: 'molecules', molecules } });
    expect(noStepError).toBe(true);
    expect(noStep).toMatchObject({ code: 'NOT_FOUND', where: '/content/molecules/1/link/key', details: { keys: ['cartoon', 'surface'] } });
    molecules[1] = { smiles: 'c1ccccc1', name: 'cartoon pose', link: { op: 'goto', story, key: 'cartoon' } };
    const [grid, gridError] = await call(client, 'render_panel', { panelId: 'poses', content: { type: 'molecules', molecules } });
    expect(gridError, JSON.stringify(grid)).toBe(false);
    const [storyBefore] = await call(client, 'story_observe', { target: story });
    const poses = panel(page, 'poses');
    await expect(poses).toHaveAttribute('data-molspace-ready', 'true', { timeout: 60_000 });
    await expect(poses.locator('.molspace-panel-link')).toHaveCount(2);
    await expect(poses.locator('[data-molspace-index="0"] .molspace-panel-link')).toHaveText('Go to surface');
    await follow(poses.locator('[data-molspace-index="0"] .molspace-panel-link'), 'done');
    const [stepped] = await call(client, 'story_observe', { target: story });
    expect(stepped.story).toMatchObject({ key: 'surface', index: 1 });
    await expect(page.locator('.molspace-docked-story .molspace-story')).toHaveAttribute('data-molspace-drawn', 'surface', { timeout: 60_000 });
    expect(stepped.story.revision).toBe(storyBefore.story.revision + 1);
    const gridLinkError = poses.locator('.molspace-panel-link-error');

    // The Story closed by the person: its link answers STALE_TARGET in the panel, never nothing.
    await page.locator('.lm-TabBar-tab', { hasText: 'Linked story' }).locator('.lm-TabBar-tabCloseIcon').click();
    await expect(page.locator('.molspace-docked-story')).toHaveCount(0);
    await poses.scrollIntoViewIfNeeded();
    await follow(poses.locator('[data-molspace-index="0"] .molspace-panel-link'), 'error');
    await expect(gridLinkError.locator('.molspace-panel-error-code')).toHaveText('STALE_TARGET');
    await expect(gridLinkError.locator('.molspace-panel-error-where')).toHaveText('Where: /content/molecules/0/link/story');
    // ... and observe names the panel's stale links.
    const [observed] = await call(client, 'observe');
    const posesSummary = observed.widgets.find((w: { id: string }) => w.id === 'poses').summary;
    expect(posesSummary).toContain(`stale links to ${story}`);

    // Every click is a ui entry of the activity panel.
    await page.locator('.jp-SideBar.jp-mod-right [title="molspace activity"], .jp-SideBar.jp-mod-right li[data-id="molspace-activity-panel"]').first().click();
    const entries = page.locator('#molspace-activity .molspace-activity-entry[data-source="ui"]');
    await expect.poll(async () => (await entries.allTextContents()).filter(t => /\bact\b|story_control/.test(t)).length).toBeGreaterThanOrEqual(4);
  } finally {
    await client.close();
  }
});

test('a cell attaches links from DataFrame columns; a click focuses the row in its Viewer', async ({ page, tmpPath }) => {
  await cellViewer(page, tmpPath);
  await runCell(
    page,
    [
      'import pandas as pd',
      'df = pd.DataFrame({"site": ["REA", "chain A"], "sel": [{"auth_asym_id": "A", "auth_seq_id": 200}, None]})',
      'p = molspace.Panel(df, viewer=v, selector_column="sel", panel_id="cell-sites")',
      'p'
    ].join('\n')
  );
  const sites = panel(page, 'cell-sites');
  await expect(sites).toHaveAttribute('data-molspace-ready', 'true', { timeout: 60_000 });
  await expect(sites.locator('thead th')).toHaveText(['site', 'Link']);
  await expect(sites.locator('.molspace-panel-link')).toHaveCount(1);
  const revision = Number((await inKernel(page, 'print(v.revision)')).trim());
  await follow(sites.locator('tbody tr[data-row="0"] .molspace-panel-link'), 'done');
  await expect
    .poll(() => inKernel(page, 'print(v.revision, v.view["focus"], v.last_change["source"])'))
    .toBe(`${revision + 1} {'auth_asym_id': 'A', 'auth_seq_id': 200} ui`);
});

/** One SDF record: a one-carbon molfile, a title and data fields. */
function sdfRecord(title: string, fields: Record<string, string>): string {
  const molfile = [title, '  molspace', '', '  1  0  0  0  0  0  0  0  0  0999 V2000', '    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0', 'M  END'];
  return [...molfile, ...Object.entries(fields).flatMap(([k, v]) => [`> <${k}>`, v, '']), '$$$$'].join('\n');
}

const HOSTILE = '<img src=x onerror="window.__molspacePwned=1"><script>window.__molspacePwned=2</script>';

test('an agent shows molecule grids from SDF (Indigo reads the records) and CSV; hostile fields are text; bad records are located', async ({ page }) => {
  const client = await agent();
  try {
    const cdk2 = fs.readFileSync(path.join(DATA, 'cdk2.sdf'), 'utf8');
    const first = cdk2.split(/^\$\$\$\$\r?\n/m).slice(0, 6).join('$$$$\n') + '$$$$\n';
    const sdf = first + sdfRecord(HOSTILE, { [HOSTILE.slice(0, 40)]: HOSTILE, score: '-7.25' });
    const [grid, gridError] = await call(client, 'render_panel', { panelId: 'sdf', content: { type: 'molecules', file: { format: 'sdf', text: sdf } } });
    expect(gridError, JSON.stringify(grid)).toBe(false);
    expect(grid.panel).toMatchObject({ type: 'molecules', ready: true });
    const sdfPanel = panel(page, 'sdf');
    await expect(sdfPanel.locator('.molspace-panel-molecule')).toHaveCount(7);
    await expect(sdfPanel.locator('.molspace-panel-molecule[data-molspace-depicted="true"]')).toHaveCount(7, { timeout: 60_000 });
    await expect(sdfPanel.locator('[data-molspace-index="0"] .molspace-panel-molecule-name')).toHaveText('ZINC03814457');
    await expect(sdfPanel.locator('[data-molspace-index="0"] dt').first()).toHaveText('id');
    const hostile = sdfPanel.locator('[data-molspace-index="6"]');
    await expect(hostile.locator('.molspace-panel-molecule-name')).toHaveText(HOSTILE);
    await expect(hostile.locator('dd').first()).toHaveText(HOSTILE);
    await expect(hostile.locator('dd').nth(1)).toHaveText('-7.25');
    await expect(page.locator('img[src="x"]')).toHaveCount(0);

    // CSV with a hostile header and cell, quoted delimiters, a name column.
    const csv = `name,smiles,"${HOSTILE.replace(/"/g, '""')}"\nethanol,CCO,"${HOSTILE.replace(/"/g, '""')}"\n"benzene, aromatic",c1ccccc1,plain\n`;
    const [table, tableError] = await call(client, 'render_panel', { panelId: 'csv', content: { type: 'molecules', file: { format: 'csv', text: csv } } });
    expect(tableError, JSON.stringify(table)).toBe(false);
    const csvPanel = panel(page, 'csv');
    await expect(csvPanel.locator('.molspace-panel-molecule[data-molspace-depicted="true"]')).toHaveCount(2, { timeout: 60_000 });
    await expect(csvPanel.locator('[data-molspace-index="1"] .molspace-panel-molecule-name')).toHaveText('benzene, aromatic');
    await expect(csvPanel.locator('[data-molspace-index="0"] dt')).toHaveText(HOSTILE);
    await expect(csvPanel.locator('[data-molspace-index="0"] dd')).toHaveText(HOSTILE);
    await expect(page.locator('img[src="x"]')).toHaveCount(0);
    expect(await page.evaluate(() => (window as unknown as { __molspacePwned?: number }).__molspacePwned)).toBeUndefined();

    // A record Indigo cannot read: the call is refused, naming the record and its line; the panel keeps its content.
    const broken = sdfRecord('ok', {}) + '\n' + ['broken', '  molspace', '', '  3  2  0  0  0  0  0  0  0  0999 V2000', '    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0', 'M  END', '$$$$'].join('\n');
    const [refused, isError] = await call(client, 'render_panel', { panelId: 'sdf', content: { type: 'molecules', file: { format: 'sdf', text: broken } } });
    expect(isError).toBe(true);
    expect(refused).toMatchObject({ code: 'VALIDATION_FAILED', where: '/content/file/text', details: { record: 2 } });
    expect(refused.message).toContain('SDF record 2 (line 8)');
    await expect(sdfPanel.locator('.molspace-panel-molecule')).toHaveCount(7);
    // A CSV without a SMILES column.
    const [noSmiles] = await call(client, 'render_panel', { content: { type: 'molecules', file: { format: 'tsv', text: 'a\tb\n1\t2\n' } } });
    expect(noSmiles).toMatchObject({ code: 'VALIDATION_FAILED', where: '/content/file/smilesColumn' });
  } finally {
    await client.close();
  }
});

/** The Jupyter root on disk, as the page knows it. */
async function serverRoot(page: IJupyterLabPageFixture): Promise<string> {
  return page.evaluate(() => JSON.parse(document.getElementById('jupyter-config-data')!.textContent!).serverRoot as string);
}

test('docked panels export as files under the root: by the agent (export) and by the Export… button; refusals located', async ({ page, tmpPath }) => {
  const client = await agent();
  try {
    const root = await serverRoot(page);
    const onDisk = (p: string) => fs.readFileSync(path.join(root, p), 'utf8');
    const table = { type: 'table', columns: [{ name: 'ligand' }, { name: 'score', type: 'number' }], rows: [['L1, "best"', -7.5], ['L2', null]] };
    await call(client, 'render_panel', { panelId: 'scores', content: table });
    await call(client, 'render_panel', { panelId: 'notes', content: { type: 'markdown', markdown: '# Notes\n\nStable pose.' } });
    const spec = { $schema: 'https://vega.github.io/schema/vega-lite/v5.json', data: { values: [{ a: 1 }] }, mark: 'point', encoding: { x: { field: 'a', type: 'quantitative' } } };
    await call(client, 'render_panel', { panelId: 'chart', content: { type: 'chart', spec } });
    await call(client, 'render_panel', { panelId: 'grid', content: { type: 'molecules', molecules: [{ smiles: 'CCO', name: 'ethanol', properties: { mw: 46.07 } }] } });

    const cases: [string, string, string][] = [
      ['scores', `${tmpPath}/out/scores.csv`, 'ligand,score\r\n"L1, ""best""",-7.5\r\nL2,\n'],
      ['notes', `${tmpPath}/out/notes.md`, '# Notes\n\nStable pose.'],
      ['grid', `${tmpPath}/out/grid.csv`, 'name,smiles,mw\r\nethanol,CCO,46.07\n']
    ];
    for (const [target, file, text] of cases) {
      const [written, isError] = await call(client, 'export', { target, path: file });
      expect(isError, JSON.stringify(written)).toBe(false);
      expect(written).toMatchObject({ path: file, target, kind: 'panel', replaced: false });
      expect(onDisk(file)).toBe(text);
    }
    const [chart] = await call(client, 'export', { target: 'chart', path: `${tmpPath}/out/chart.vl.json` });
    expect(JSON.parse(onDisk(chart.path))).toEqual(spec);

    // The rules of Story files: no overwrite without the flag, nothing outside the root, the type's ending.
    const [exists] = await call(client, 'export', { target: 'scores', path: `${tmpPath}/out/scores.csv` });
    expect(exists).toMatchObject({ code: 'FORBIDDEN', where: '/overwrite' });
    const [replaced] = await call(client, 'export', { target: 'scores', path: `${tmpPath}/out/scores.csv`, overwrite: true });
    expect(replaced).toMatchObject({ replaced: true });
    const [outside] = await call(client, 'export', { target: 'scores', path: `${tmpPath}/../../escape.csv` });
    expect(outside).toMatchObject({ code: 'FORBIDDEN', where: '/path' });
    const [absolute] = await call(client, 'export', { target: 'scores', path: '/tmp/escape.csv' });
    expect(absolute).toMatchObject({ code: 'FORBIDDEN', where: '/path' });
    const [ending] = await call(client, 'export', { target: 'scores', path: `${tmpPath}/scores.md` });
    expect(ending).toMatchObject({ code: 'UNSUPPORTED_FORMAT', where: '/path' });
    const [gone] = await call(client, 'export', { target: 'no-such-panel', path: `${tmpPath}/x.csv` });
    expect(gone).toMatchObject({ code: 'NOT_FOUND', where: '/target' });

    // The person: Export… asks for a path, writes it through the Dispatcher (ui), asks before replacing.
    const docked = page.locator('.molspace-docked-panel').filter({ has: panel(page, 'scores') });
    await page.locator('.lm-TabBar-tab', { hasText: 'Table' }).first().click();
    const exportAs = async (file: string) => {
      await docked.locator('.molspace-panel-export').click();
      const dialog = page.locator('.jp-Dialog');
      await dialog.locator('input').fill(file);
      await dialog.locator('.jp-mod-accept').click();
    };
    await exportAs(`${tmpPath}/ui/scores.csv`);
    await expect(docked.locator('.molspace-panel-export-status')).toHaveText(`Exported to ${tmpPath}/ui/scores.csv`);
    expect(onDisk(`${tmpPath}/ui/scores.csv`)).toBe(cases[0][2]);
    await exportAs(`${tmpPath}/ui/scores.csv`);
    await expect(page.locator('.jp-Dialog')).toContainText('Replace it with this panel?');
    await page.locator('.jp-Dialog .jp-mod-accept').click();
    await expect(docked.locator('.molspace-panel-export-status')).toHaveText(`Exported to ${tmpPath}/ui/scores.csv`);
    await exportAs('../escape.csv');
    await expect(docked.locator('.molspace-panel-export-status')).toContainText('FORBIDDEN at /path');
    await page.locator('.jp-SideBar.jp-mod-right [title="molspace activity"], .jp-SideBar.jp-mod-right li[data-id="molspace-activity-panel"]').first().click();
    const entries = page.locator('#molspace-activity .molspace-activity-entry[data-source="ui"]');
    await expect.poll(async () => (await entries.allTextContents()).filter(t => t.includes('export')).length).toBeGreaterThanOrEqual(4);
  } finally {
    await client.close();
  }
});

test("a chart's points go to frames of a trajectory Viewer: an agent's chart and a cell's Altair chart; the kernel sees the frame", async ({
  page,
  tmpPath
}) => {
  for (const name of ['adk.psf', 'adk_dims.dcd']) {
    await page.contents.uploadFile(path.join(TRAJECTORIES, name), `${tmpPath}/${name}`);
  }
  await page.notebook.createNew('links.ipynb');
  await setCode(page, 0, 'import molspace\nv = molspace.Viewer("adk.psf", coordinates="adk_dims.dcd")\nv');
  await page.notebook.runCell(0, true);
  const viewerNode = page.locator('.molspace-viewer').first();
  await expect(viewerNode).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
  const player = viewerNode.locator('.molspace-viewer-player');
  await expect(player).toHaveAttribute('data-molspace-frames', '98');
  const viewer = (await runCell(page, 'print(v.model_id)')).trim();

  // An RMSD-vs-frame line with point marks: value i is frame 7 i (0, 7, ..., 91), linked to that frame.
  const frames = Array.from({ length: 14 }, (_, i) => 7 * i);
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    data: { values: frames.map(f => ({ frame: f, rmsd: 1 + Math.sin(f / 10) })) },
    mark: { type: 'line', point: true },
    encoding: { x: { field: 'frame', type: 'quantitative' }, y: { field: 'rmsd', type: 'quantitative' } }
  };
  const links = frames.map(frame => ({ op: 'goto_frame', viewer, frame }));
  const client = await agent();
  try {
    // A frame the trajectory does not have is refused when the panel renders, located at the link; nothing opens.
    const [outOfRange, outError] = await call(client, 'render_panel', {
      panelId: 'rmsd',
      content: { type: 'chart', spec, links: links.map((l, i) => (i === 3 ? { ...l, frame: 98 } : l)) }
    });
    expect(outError).toBe(true);
    expect(outOfRange).toMatchObject({ code: 'VALIDATION_FAILED', where: '/content/links/3/frame', details: { frame: 98, frames: 98 } });
    const [tooMany] = await call(client, 'render_panel', { panelId: 'rmsd', content: { type: 'chart', spec, links: [...links, null] } });
    expect(tooMany).toMatchObject({ code: 'VALIDATION_FAILED', where: '/content/links/14' });
    await expect(panel(page, 'rmsd')).toHaveCount(0);

    const [rendered, renderError] = await call(client, 'render_panel', {
      panelId: 'rmsd',
      content: { type: 'chart', spec, links },
      dock: { mode: 'split-right' }
    });
    expect(renderError, JSON.stringify(rendered)).toBe(false);
    const rmsd = panel(page, 'rmsd');
    await expect(rmsd).toHaveAttribute('data-molspace-ready', 'true', { timeout: 60_000 });
    const chart = rmsd.locator('.molspace-panel-chart');
    await expect(chart).toHaveAttribute('data-molspace-chart-links', 'on');
    const points = chart.locator('svg g.mark-symbol path');
    await expect(points).toHaveCount(14);
    // Vega shows a mark's cursor on the chart's container while the pointer is over the mark.
    await points.nth(2).hover();
    await expect(chart.locator('.vega-embed')).toHaveCSS('cursor', 'pointer');

    // Point 2 (frame 14): act goto_frame through the Dispatcher, source ui; the player, the agent and the kernel see frame 14.
    const revision = Number(await inKernel(page, 'print(v.revision)'));
    await points.nth(2).click();
    await expect(chart).toHaveAttribute('data-molspace-link-state', 'done', { timeout: 60_000 });
    await expect(chart).toHaveAttribute('data-molspace-link', '/content/links/2');
    await expect(player).toHaveAttribute('data-molspace-frame', '14');
    const [observed] = await call(client, 'viewer_observe', { target: viewer });
    expect(observed.view.frame).toBe(14);
    await expect.poll(() => inKernel(page, 'print(v.frame, v.last_change["source"], v.undo_steps)')).toBe('14 ui 0');
    expect(Number(await inKernel(page, 'print(v.revision)'))).toBe(revision + 1);
    await expect(rmsd.locator('.molspace-panel-link-error')).toBeHidden();
  } finally {
    await client.close();
  }

  // A cell: an Altair chart of a DataFrame with a frame column; its points go to their frames.
  await inKernel(
    page,
    [
      'import altair as alt, pandas as pd',
      'df = pd.DataFrame({"frame": [0, 30, 60, 90], "rmsd": [0.0, 1.2, 1.2, 2.1]})',
      'chart = alt.Chart(df).mark_line(point=True).encode(x="frame", y="rmsd")',
      'p = molspace.Panel(chart, viewer=v, frame_column="frame", panel_id="cell-rmsd")',
      'p'
    ].join('\n')
  );
  const cellChart = panel(page, 'cell-rmsd').locator('.molspace-panel-chart');
  await expect(cellChart).toHaveAttribute('data-molspace-chart-links', 'on', { timeout: 60_000 });
  const cellPoints = cellChart.locator('svg g.mark-symbol path');
  await expect(cellPoints).toHaveCount(4);
  await cellPoints.nth(3).scrollIntoViewIfNeeded();
  await cellPoints.nth(3).click();
  await expect(cellChart).toHaveAttribute('data-molspace-link-state', 'done', { timeout: 60_000 });
  await expect(player).toHaveAttribute('data-molspace-frame', '90');
  await expect.poll(() => inKernel(page, 'print(v.frame, v.last_change["source"])')).toBe('90 ui');

  // A frame past the end from a cell is refused in the cell, located at its row, once the page has read the Viewer.
  expect(
    await inKernel(
      page,
      // One typed line (the editor indents typed blocks): the try block runs through exec.
      'exec("try:\\n molspace.Panel(df.assign(frame=[0, 1, 2, 98]), viewer=v, frame_column=\'frame\')\\nexcept molspace.PanelContentError as e:\\n print(e.code, e.where)")'
    )
  ).toBe('VALIDATION_FAILED content/frame/3');
});
