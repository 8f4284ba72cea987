/**
 * One HTML file of a Viewer or a Story (`to_html`), opened from `file://` in Chromium with every
 * request that is not the file itself refused and recorded: it draws, the Story steps, its text
 * stays text. The files are written by the kernel-side API (`molspace.Viewer(...).to_html`,
 * `molspace.Story(...).to_html`) in a Python process, as a cell would; and by an agent (official
 * MCP client) with `export` to `.html` of the widgets a cell showed in JupyterLab: the page
 * answers their App data, the gateway writes the file under the root; and by a person, with a
 * docked panel's Export… to `.html` (the server's `molspace/export-html` writes it).
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { expect, test, type Browser, type Page } from '@playwright/test';
import { test as labTest } from './sharedLab';

import { ROOT, call, foregroundFraction, mcpClient, runCell, setCode } from './helpers';

/** Run `code` in Python from the repository root (molspace importable); its stdout. */
function python(code: string): string {
  const run = spawnSync('python', ['-c', code], { cwd: ROOT, encoding: 'utf8' });
  if (run.status !== 0) {
    throw new Error(`python failed: ${run.stderr}`);
  }
  return run.stdout.trim();
}

/** Open `file` from file:// with the network refused; the page and what it tried to fetch. */
async function openOffline(browser: Browser, file: string): Promise<{ page: Page; leaks: string[]; close: () => Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
  const leaks: string[] = [];
  await context.route('**/*', route => {
    const url = route.request().url();
    if (url.startsWith('file:') || url.startsWith('data:')) {
      return route.continue();
    }
    leaks.push(url);
    return route.abort('internetdisconnected');
  });
  const page = await context.newPage();
  await page.goto(`file://${file}`);
  return { page, leaks, close: () => context.close() };
}

async function settled(page: Page): Promise<string> {
  await expect
    .poll(() => page.evaluate(() => document.documentElement.dataset.molspaceApp ?? 'none'), { timeout: 120_000 })
    .toMatch(/^(drawn|error)$/);
  const state = await page.evaluate(() => document.documentElement.dataset.molspaceApp);
  return state === 'error' ? `error: ${await page.locator('#molspace-app-error').textContent()}` : String(state);
}

test('a Viewer exported to one HTML file draws from file:// with the network off', async ({ browser }) => {
  const file = path.join(test.info().outputDir, 'viewer.html');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const size = Number(
    python(
      [
        // The structure text travels in the file's JSON: a REMARK that closes the script block stays data.
        'import molspace',
        `pdb = b"REMARK 999 </script><script>document.title='pwned'</script><!--\\n" + open("tests/data/structures/1hpv.pdb", "rb").read()`,
        `print(molspace.Viewer(pdb, format="pdb", title="HIV-1 protease").to_html(${JSON.stringify(file)}))`
      ].join('\n')
    )
  );
  expect(size).toBe(fs.statSync(file).size);
  const { page, leaks, close } = await openOffline(browser, file);
  try {
    expect(await settled(page)).toBe('drawn');
    expect(await page.title()).toBe('HIV-1 protease');
    expect(await foregroundFraction(page.locator('canvas').first())).toBeGreaterThan(0.02);
    expect(leaks).toEqual([]);
  } finally {
    await close();
  }
});

test('a Story exported to one HTML file plays offline: Next and Play step it, its text stays text', async ({ browser }) => {
  const file = path.join(test.info().outputDir, 'story.html');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // A two-step .mvsx whose structure is inside the archive: nothing to fetch.
  python(
    [
      'import io, json, zipfile, molspace',
      'def step(title, key, description, rep):',
      '    tree = {"kind": "root", "children": [{"kind": "download", "params": {"url": "1cbs.cif"}, "children": [{"kind": "parse", "params": {"format": "mmcif"}, "children": [{"kind": "structure", "params": {"type": "model"}, "children": [{"kind": "component", "params": {"selector": "all"}, "children": [{"kind": "representation", "params": {"type": rep}}]}]}]}]}]}',
      '    return {"root": tree, "metadata": {"title": title, "key": key, "description": description, "linger_duration_ms": 500}}',
      'hostile = "<img src=x onerror=alert(1)></script><script>document.title=\'pwned\'</script>"',
      'story = {"kind": "multiple", "metadata": {"title": "RBP offline", "version": "1"}, "snapshots": [step("Overview", "overview", hostile, "cartoon"), step("Atoms", "atoms", "Balls and sticks.", "ball_and_stick")]}',
      'buf = io.BytesIO()',
      'with zipfile.ZipFile(buf, "w") as z:',
      '    z.writestr("index.mvsj", json.dumps(story))',
      '    z.write("tests/data/structures/1cbs.cif", "1cbs.cif")',
      `print(molspace.Story(buf.getvalue()).to_html(${JSON.stringify(file)}))`
    ].join('\n')
  );
  const { page, leaks, close } = await openOffline(browser, file);
  try {
    expect(await settled(page)).toBe('drawn');
    const controls = page.locator('#molspace-app-story');
    await expect(controls.locator('.molspace-app-step')).toHaveText('1 / 2: Overview');
    await expect(controls.locator('.molspace-app-description')).toContainText('<img src=x onerror=alert(1)></script><script>');
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.title()).toBe('RBP offline');
    expect(await foregroundFraction(page.locator('canvas').first())).toBeGreaterThan(0.02);

    await controls.locator('[data-molspace-step="next"]').click();
    await expect(controls).toHaveAttribute('data-molspace-step-index', '1');
    await expect(controls.locator('.molspace-app-step')).toHaveText('2 / 2: Atoms');
    await controls.locator('[data-molspace-step="previous"]').click();
    await expect(controls).toHaveAttribute('data-molspace-step-index', '0');
    // Play steps on after the step's linger time and stops at the end.
    await controls.locator('[data-molspace-step="play"]').click();
    await expect(controls).toHaveAttribute('data-molspace-step-index', '1', { timeout: 60_000 });
    await expect(controls).toHaveAttribute('data-molspace-playing', 'false', { timeout: 60_000 });
    expect(leaks).toEqual([]);
  } finally {
    await close();
  }
});

test('a Panel exported to one HTML file renders from file:// with the network off: its markdown inert, its chart drawn', async ({
  browser
}) => {
  // A folder of its own (another run's start may clear test-results meanwhile).
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'molspace-panel-export-'));
  const notes = path.join(dir, 'notes.html');
  const chart = path.join(dir, 'chart.html');
  python(
    [
      'import molspace',
      'pwn = "document.documentElement.dataset.pwned=\'1\'"',
      // The markdown travels in the file's JSON: a closing script tag in it stays data.
      'md = f\'## Findings\\n\\n<img src=x onerror="{pwn}"></script><script>{pwn}</script>\\n\\n<a href="javascript:{pwn}">raw link</a> **bold** <!--\'',
      `molspace.Panel(md, title="Notes").to_html(${JSON.stringify(notes)})`,
      'spec = {"$schema": "https://vega.github.io/schema/vega-lite/v5.json", "data": {"values": [{"frame": i, "rmsd": i * 0.4 + i % 2} for i in range(6)]}, "mark": {"type": "line", "point": True}, "encoding": {"x": {"field": "frame", "type": "quantitative"}, "y": {"field": "rmsd", "type": "quantitative"}}}',
      `molspace.Panel(spec, title="RMSD").to_html(${JSON.stringify(chart)})`
    ].join('\n')
  );
  const shownNotes = await openOffline(browser, notes);
  try {
    const { page, leaks } = shownNotes;
    expect(await settled(page)).toBe('drawn');
    expect(await page.title()).toBe('Notes');
    const body = page.locator('.molspace-panel-body');
    await expect(body.locator('h2')).toHaveText(/^Findings/);
    await expect(body.locator('strong')).toHaveText('bold');
    expect(await body.locator('script, [onerror], img, a[href^="javascript:" i]').count()).toBe(0);
    await body.getByText('raw link').click();
    expect(await page.evaluate(() => document.documentElement.dataset.pwned ?? 'inert')).toBe('inert');
    expect(leaks).toEqual([]);
  } finally {
    await shownNotes.close();
  }
  const shownChart = await openOffline(browser, chart);
  try {
    const { page, leaks } = shownChart;
    expect(await settled(page)).toBe('drawn');
    await expect(page.locator('.molspace-panel')).toHaveAttribute('data-molspace-ready', 'true');
    expect(await foregroundFraction(page.locator('.molspace-panel-chart canvas').first())).toBeGreaterThan(0.01);
    expect(leaks).toEqual([]);
  } finally {
    await shownChart.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

labTest(
  'an agent exports a Viewer, a Story and a panel a cell showed as .html files that open offline; bad inputs located',
  async ({ page, tmpPath, browser }) => {
    await page.contents.uploadFile(path.join(ROOT, 'tests', 'data', 'structures', '1cbs.cif'), `${tmpPath}/1cbs.cif`);
    await page.notebook.createNew('export.ipynb');
    await setCode(
      page,
      0,
      [
        // No indented blocks: the cell editor indents typed lines itself.
        'import io, json, zipfile, molspace',
        'tree = lambda rep: {"kind": "root", "children": [{"kind": "download", "params": {"url": "1cbs.cif"}, "children": [{"kind": "parse", "params": {"format": "mmcif"}, "children": [{"kind": "structure", "params": {"type": "model"}, "children": [{"kind": "component", "params": {"selector": "all"}, "children": [{"kind": "representation", "params": {"type": rep}}]}]}]}]}]}',
        'step = lambda title, key, rep: {"root": tree(rep), "metadata": {"title": title, "key": key, "description": title, "linger_duration_ms": 500}}',
        'buf = io.BytesIO(); z = zipfile.ZipFile(buf, "w")',
        'z.writestr("index.mvsj", json.dumps({"kind": "multiple", "metadata": {"title": "RBP tour", "version": "1"}, "snapshots": [step("Overview", "overview", "cartoon"), step("Atoms", "atoms", "ball_and_stick")]}))',
        'z.write("1cbs.cif", "1cbs.cif"); z.close()',
        'v = molspace.Viewer("1cbs.cif", title="RBP")',
        's = molspace.Story(buf.getvalue())',
        'p = molspace.Panel("## Findings\\n\\nRetinoic acid sits in the **barrel**.", title="Findings")',
        'display(v, s, p)'
      ].join('\n')
    );
    await page.notebook.runCell(0, true);
    // The Story and panel below the Viewer may be out of view (not drawn): export needs their data, not a drawing.
    await expect(page.locator('.molspace-viewer').first()).toHaveAttribute('data-molspace-ready', 'true', { timeout: 120_000 });
    await expect(page.locator('.molspace-story')).toBeAttached();
    await expect(page.locator('.molspace-panel')).toBeAttached();
    const [viewer, story, panel] = (await runCell(page, 'print(v.model_id, s.model_id, p.model_id)')).trim().split(' ');
    const root = await page.evaluate(() => JSON.parse(document.getElementById('jupyter-config-data')!.textContent!).serverRoot as string);

    const client = await mcpClient();
    try {
      expect((await client.listTools()).tools.map(t => t.name)).toContain('export');
      await expect.poll(async () => (await call(client, 'status'))[0].pageConnected, { timeout: 60_000 }).toBe(true);
      const files: Record<string, string> = {};
      for (const [kind, target] of [
        ['viewer', viewer],
        ['story', story],
        ['panel', panel]
      ]) {
        const file = `${tmpPath}/out/${kind}.html`;
        const raw = await client.callTool({ name: 'export', arguments: { target, path: file } });
        expect(raw.isError, JSON.stringify(raw.content)).toBeFalsy();
        const onDisk = path.join(root, file);
        expect(raw.structuredContent).toEqual({
          path: file,
          target,
          kind,
          ...(kind === 'panel' ? { type: 'markdown' } : {}),
          bytes: fs.statSync(onDisk).size,
          replaced: false
        });
        // The model reads the path and size, never the data.
        expect(JSON.stringify(raw)).not.toMatch(/data_1CBS|barrel|index\.mvsj/);
        files[kind] = onDisk;
      }

      // Bad inputs, each located; nothing written for them.
      const refused = async (args: Record<string, unknown>) => (await call(client, 'export', args))[0];
      expect(await refused({ target: viewer, path: `${tmpPath}/out/viewer.csv` })).toMatchObject({
        code: 'UNSUPPORTED_FORMAT',
        where: '/path'
      });
      expect(await refused({ target: story, path: `${tmpPath}/../../escape.html` })).toMatchObject({ code: 'FORBIDDEN', where: '/path' });
      expect(await refused({ target: viewer, path: `${tmpPath}/out/viewer.html` })).toMatchObject({
        code: 'FORBIDDEN',
        where: '/overwrite'
      });
      expect(await refused({ target: 'no-such-widget', path: `${tmpPath}/out/x.html` })).toMatchObject({
        code: 'NOT_FOUND',
        where: '/target'
      });
      expect(fs.readdirSync(path.join(root, tmpPath, 'out')).sort()).toEqual(['panel.html', 'story.html', 'viewer.html']);

      const shownViewer = await openOffline(browser, files.viewer);
      try {
        expect(await settled(shownViewer.page)).toBe('drawn');
        expect(await shownViewer.page.title()).toBe('RBP');
        expect(await foregroundFraction(shownViewer.page.locator('canvas').first())).toBeGreaterThan(0.02);
        expect(shownViewer.leaks).toEqual([]);
      } finally {
        await shownViewer.close();
      }
      const shownStory = await openOffline(browser, files.story);
      try {
        expect(await settled(shownStory.page)).toBe('drawn');
        const controls = shownStory.page.locator('#molspace-app-story');
        await expect(controls.locator('.molspace-app-step')).toHaveText('1 / 2: Overview');
        await controls.locator('[data-molspace-step="next"]').click();
        await expect(controls).toHaveAttribute('data-molspace-step-index', '1');
        await expect(controls.locator('.molspace-app-step')).toHaveText('2 / 2: Atoms');
        expect(shownStory.leaks).toEqual([]);
      } finally {
        await shownStory.close();
      }
      const shownPanel = await openOffline(browser, files.panel);
      try {
        expect(await settled(shownPanel.page)).toBe('drawn');
        await expect(shownPanel.page.locator('.molspace-panel-body h2')).toHaveText(/^Findings/);
        await expect(shownPanel.page.locator('.molspace-panel-body strong')).toHaveText('barrel');
        expect(shownPanel.leaks).toEqual([]);
      } finally {
        await shownPanel.close();
      }
    } finally {
      await client.close();
    }
  }
);

labTest(
  "a docked panel's Export… writes one .html file under the root (the server writes it) that opens offline; replace asked, a path outside the root located",
  async ({ page, tmpPath, browser }) => {
    const root = await page.evaluate(() => JSON.parse(document.getElementById('jupyter-config-data')!.textContent!).serverRoot as string);
    const client = await mcpClient();
    let shown: Awaited<ReturnType<typeof openOffline>> | null = null;
    try {
      await expect.poll(async () => (await call(client, 'status'))[0].pageConnected, { timeout: 60_000 }).toBe(true);
      const table = { type: 'table', columns: [{ name: 'ligand' }, { name: 'score', type: 'number' }], rows: [['L1 </script><b>x</b>', -7.5], ['L2', null]] };
      const [rendered, failed] = await call(client, 'render_panel', { panelId: 'scores', title: 'Docking scores', content: table });
      expect(failed, JSON.stringify(rendered)).toBe(false);
      const docked = page.locator('.molspace-docked-panel').filter({ has: page.locator('.molspace-panel[data-molspace-panel-id="scores"]') });
      await page.locator('.lm-TabBar-tab', { hasText: 'Docking scores' }).first().click();
      const status = docked.locator('.molspace-panel-export-status');
      const exportAs = async (file: string) => {
        await docked.locator('.molspace-panel-export').click();
        const dialog = page.locator('.jp-Dialog');
        await expect(dialog).toContainText('.html: one file that opens offline');
        await dialog.locator('input').fill(file);
        await dialog.locator('.jp-mod-accept').click();
      };
      const file = `${tmpPath}/ui/scores.html`;
      await exportAs(file);
      await expect(status).toHaveText(`Exported to ${file}`, { timeout: 60_000 });
      const onDisk = path.join(root, file);
      const first = fs.statSync(onDisk);
      expect(first.size).toBeGreaterThan(1000);
      // Again: the server refuses to replace it unless the person says so.
      await exportAs(file);
      await expect(page.locator('.jp-Dialog')).toContainText('Replace it with this panel?');
      await page.locator('.jp-Dialog .jp-mod-accept').click();
      await expect(status).toHaveText(`Exported to ${file}`, { timeout: 60_000 });
      await exportAs('../escape.html');
      await expect(status).toContainText('FORBIDDEN at /path');
      expect(fs.existsSync(path.join(root, '..', 'escape.html'))).toBe(false);
      expect(fs.readdirSync(path.join(root, tmpPath, 'ui'))).toEqual(['scores.html']);

      shown = await openOffline(browser, onDisk);
      expect(await settled(shown.page)).toBe('drawn');
      expect(await shown.page.title()).toBe('Docking scores');
      const cells = shown.page.locator('.molspace-panel-table td');
      await expect(cells.first()).toHaveText('L1 </script><b>x</b>');
      expect(await shown.page.locator('.molspace-panel-table b').count()).toBe(0);
      expect(shown.leaks).toEqual([]);
    } finally {
      await shown?.close();
      await client.close();
    }
  }
);
