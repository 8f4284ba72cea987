/**
 * A 200-molecule grid (tests/data/structures/pubchem200.sdf, read by RDKit in
 * the kernel): a molspace molecule-grid panel's first paint against the same
 * data as a plain JupyterLab output (`HTML(df.to_html())` of name, SMILES and
 * properties), in the same page of the same run.
 *
 * first paint: `Date.now()` in the page, then the cell is run
 *   (`notebook:run-cell`); done at the first animation frame where the panel
 *   reports `data-molspace-ready="true"` (its first page of 24 depictions is
 *   shown as images) or where the output's table has its 200th row. Also
 *   timed (cold): the panel's root in the DOM (the widget's view made) and
 *   the first grid cell in the DOM (names and properties as text, the
 *   depictions pending).
 *   - cold: the first grid of a freshly loaded page;
 *   - warm: a second grid in the same page, of molecules not depicted yet
 *     (the list reversed), so nothing is cached.
 * Two paths, alternating trial by trial in the same run (each trial reloads
 * the page and sets the kernel's switch in its first cell):
 *   - rdkit: the kernel draws the first page with RDKit and sends it with the
 *     content (molspace/panel/depictions.py); the page shows those at once;
 *   - indigo: `MOLSPACE_GRID_DEPICTIONS=off` in the kernel, so the page's
 *     hidden depiction frame (Indigo's WASM) draws every depiction, as before
 *     issue 26 (cold: the frame and the engine start, then 24 depictions).
 * Figures are medians; nothing fails on a time. MOLSPACE_BENCH_GRID_N trials per path.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execCell, fmt, launchBrowser, log, newContext, openNotebook, PORTS, ROOT, stampWhen, startCell, startServer, stopOnExit, summary, writeNotebook, writeResult } from './lib.mjs';

const N = Number(process.env.MOLSPACE_BENCH_GRID_N || 3);
const MOLECULES = 200;

const server = await startServer({ port: PORTS.a, name: 'grid' });
const stopAll = stopOnExit([server]);
fs.copyFileSync(path.join(ROOT, 'tests', 'data', 'structures', 'pubchem200.sdf'), path.join(server.root, 'pubchem200.sdf'));
writeNotebook(server.root, 'grid.ipynb');

let browser;
let exitCode = 0;
try {
  browser = await launchBrowser();
  const context = await newContext(browser);
  const page = await context.newPage();
  const paths = ['rdkit', 'indigo'];
  const runs = Object.fromEntries(paths.map(p => [p, { cold: [], warm: [], cells: [], view: [] }]));
  const baseline = [];
  for (let i = 0; i < N * paths.length; i++) {
    const mode = paths[i % paths.length];
    const r = runs[mode];
    await openNotebook(page, server, 'grid.ipynb');
    const loaded = await execCell(
      page,
      0,
      [
        'import os, molspace, pandas as pd',
        `os.environ["MOLSPACE_GRID_DEPICTIONS"] = "${mode === 'rdkit' ? 'on' : 'off'}"`,
        'from rdkit import Chem',
        'from IPython.display import HTML',
        'mols = [m for m in Chem.SDMolSupplier("pubchem200.sdf") if m is not None]',
        'df = pd.DataFrame([{"name": m.GetProp("_Name"), "smiles": Chem.MolToSmiles(m), **m.GetPropsAsDict()} for m in mols])',
        'print(len(mols), df.shape)'
      ].join('\n')
    );
    if (!loaded.startsWith(`${MOLECULES} `)) {
      throw new Error(`expected ${MOLECULES} molecules, got: ${loaded}`);
    }
    const grid = id => `.molspace-panel[data-molspace-panel-id="${id}"]`;
    // molspace, cold: the page's first grid
    let t0 = await startCell(page, 1, `molspace.Panel(mols, panel_id="grid-${i}")`);
    let [view, cells, t1] = await Promise.all([
      stampWhen(page, grid(`grid-${i}`)),
      stampWhen(page, `${grid(`grid-${i}`)} .molspace-panel-molecule`),
      stampWhen(page, `${grid(`grid-${i}`)}[data-molspace-ready="true"]`)
    ]);
    r.cold.push(t1 - t0);
    r.cells.push(cells - t0);
    r.view.push(view - t0);
    // molspace, warm: a second grid of molecules not depicted yet
    t0 = await startCell(page, 2, `molspace.Panel(mols[::-1], panel_id="grid-warm-${i}")`);
    t1 = await stampWhen(page, `${grid(`grid-warm-${i}`)}[data-molspace-ready="true"]`);
    r.warm.push(t1 - t0);
    const kernel = await page.locator(`${grid(`grid-${i}`)} [data-molspace-depiction="kernel"]`).count();
    if ((mode === 'rdkit') !== (kernel === 24)) {
      throw new Error(`${mode}: ${kernel} kernel depictions on the first page`);
    }
    // baseline: the same data as a plain HTML output
    t0 = await startCell(page, 3, `HTML('<div class="bench-grid-html-${i}">' + df.to_html(index=False) + '</div>')`);
    t1 = await stampWhen(page, `.bench-grid-html-${i} tbody tr:nth-child(${MOLECULES})`);
    baseline.push(t1 - t0);
    log(
      `trial ${i + 1}/${N * paths.length} (${mode}): grid cold ${fmt(r.cold.at(-1), 0)} ms (panel ${fmt(r.view.at(-1), 0)}, cells ${fmt(r.cells.at(-1), 0)}), warm ${fmt(r.warm.at(-1), 0)} ms; DataFrame HTML ${fmt(baseline.at(-1), 0)} ms`
    );
    // next trial: a fresh page, the kernel's outputs cleared
    await page.evaluate(() => window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs'));
    await page.evaluate(() => window.jupyterapp.commands.execute('docmanager:save'));
  }
  const base = summary(baseline);
  const out = {
    n: N,
    molecules: MOLECULES,
    pageSize: 24,
    baseline: base,
    firstPaint: Object.fromEntries(
      paths.map(p => [p, { cold: summary(runs[p].cold), warm: summary(runs[p].warm), cells: summary(runs[p].cells), view: summary(runs[p].view) }])
    ),
    raw: { ...runs, baseline }
  };
  const ratio = v => fmt(v / base.p50, 1);
  console.log(`\n200-molecule grid first paint, N=${N} per path, ms (p50 / p95; ratio of p50 to the DataFrame HTML's):`);
  console.log(`DataFrame HTML (name, SMILES, properties): ${fmt(base.p50)} / ${fmt(base.p95)}`);
  for (const p of paths) {
    const f = out.firstPaint[p];
    console.log(`${p}: cold ${fmt(f.cold.p50)} / ${fmt(f.cold.p95)} (${ratio(f.cold.p50)}x); warm ${fmt(f.warm.p50)} / ${fmt(f.warm.p95)} (${ratio(f.warm.p50)}x); cold: panel in the DOM ${fmt(f.view.p50)}, first page's cells ${fmt(f.cells.p50)} (${ratio(f.cells.p50)}x)`);
  }
  writeResult('molecule_grid', out);
} catch (e) {
  console.error(e);
  exitCode = 1;
} finally {
  await browser?.close();
  await stopAll();
}
process.exit(exitCode);
