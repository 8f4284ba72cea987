/**
 * Benchmark 5 — a 10,000-row table: a molspace table panel against the same
 * DataFrame as a plain JupyterLab output (`HTML(df.to_html())`), in the same
 * page of the same run.
 *
 * render: `Date.now()` in the page, then the cell is run (`notebook:run-cell`);
 *   done when the panel reports `data-molspace-ready="true"` (molspace) or the
 *   output's table has its 10,000th row (baseline), stamped by a
 *   requestAnimationFrame poll, so both include the kernel's reply, the comm or
 *   output message, and building the DOM.
 * sort: molspace sorts in the page (a click on the "score" header; done at
 *   the next frame after the rows are replaced); a plain output cannot sort,
 *   so its baseline is re-running the cell with `df.sort_values("score")`.
 * Each trial replaces the previous output of its cell. Figures are medians;
 * nothing fails on a time.
 */
import { execCell, fmt, launchBrowser, log, newContext, openNotebook, PORTS, stampWhen, startCell, startServer, stopOnExit, summary, writeNotebook, writeResult } from './lib.mjs';

const N = Number(process.env.MOLSPACE_BENCH_TABLE_N || 5);
const ROWS = 10_000;

const server = await startServer({ port: PORTS.a, name: 'table' });
const stopAll = stopOnExit([server]);
writeNotebook(server.root, 'table.ipynb');

let browser;
let exitCode = 0;
try {
  browser = await launchBrowser();
  const context = await newContext(browser);
  const page = await context.newPage();
  await openNotebook(page, server, 'table.ipynb');
  await execCell(
    page,
    0,
    [
      'import molspace, numpy as np, pandas as pd',
      'from IPython.display import HTML',
      'rng = np.random.default_rng(0)',
      `df = pd.DataFrame({"ligand": [f"L{i}" for i in range(${ROWS})], "score": rng.normal(-7, 1.5, ${ROWS}).round(3), "pose": rng.integers(1, 10, ${ROWS})})`,
      'print(df["score"].min())'
    ].join('\n')
  );
  const render = { molspace: [], baseline: [] };
  const sort = { molspace: [], baseline: [] };
  for (let i = 0; i < N; i++) {
    // molspace: render
    let t0 = await startCell(page, 1, `molspace.Panel(df, panel_id="bench-${i}", units={"score": "kcal/mol"})`);
    let t1 = await stampWhen(page, `.molspace-panel[data-molspace-panel-id="bench-${i}"][data-molspace-ready="true"]`);
    render.molspace.push(t1 - t0);
    // molspace: sort by a header click, until the next frame after the rows are replaced
    const ms = await page.evaluate(async id => {
      const panel = document.querySelector(`.molspace-panel[data-molspace-panel-id="${id}"]`);
      const button = [...panel.querySelectorAll('th button')].find(b => b.textContent.startsWith('score'));
      const t = performance.now();
      button.click();
      await new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
      return performance.now() - t;
    }, `bench-${i}`);
    sort.molspace.push(ms);
    // baseline: the same DataFrame as a plain HTML output, and "sorting" it by re-running
    t0 = await startCell(page, 2, `HTML('<div class="bench-html-${i}">' + df.to_html(index=False) + '</div>')`);
    t1 = await stampWhen(page, `.bench-html-${i} tbody tr:nth-child(${ROWS})`);
    render.baseline.push(t1 - t0);
    t0 = await startCell(page, 2, `HTML('<div class="bench-sorted-${i}">' + df.sort_values("score").to_html(index=False) + '</div>')`);
    t1 = await stampWhen(page, `.bench-sorted-${i} tbody tr:nth-child(${ROWS})`);
    sort.baseline.push(t1 - t0);
    log(
      `trial ${i + 1}/${N}: render molspace ${fmt(render.molspace[i], 0)} ms, DataFrame HTML ${fmt(render.baseline[i], 0)} ms; ` +
        `sort molspace ${fmt(sort.molspace[i], 0)} ms, re-run sorted HTML ${fmt(sort.baseline[i], 0)} ms`
    );
  }
  const out = {
    n: N,
    rows: ROWS,
    render: { molspace: summary(render.molspace), baseline: summary(render.baseline) },
    sort: { molspace: summary(sort.molspace), baseline: summary(sort.baseline) },
    raw: { render, sort }
  };
  console.log(`\n10,000-row table, N=${N}, ms (p50 / p95):`);
  console.log(`render: molspace panel ${fmt(out.render.molspace.p50)} / ${fmt(out.render.molspace.p95)}; DataFrame HTML ${fmt(out.render.baseline.p50)} / ${fmt(out.render.baseline.p95)}`);
  console.log(`sort:   molspace header click ${fmt(out.sort.molspace.p50)} / ${fmt(out.sort.molspace.p95)}; re-run with sort_values ${fmt(out.sort.baseline.p50)} / ${fmt(out.sort.baseline.p95)}`);
  writeResult('table_panel', out);
} catch (e) {
  console.error(e);
  exitCode = 1;
} finally {
  await browser?.close();
  await stopAll();
}
process.exit(exitCode);
