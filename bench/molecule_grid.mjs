/**
 * A 200-molecule grid (tests/data/structures/pubchem200.sdf, read by RDKit in
 * the kernel): a molspace molecule-grid panel's first paint against the same
 * data as a plain JupyterLab output (`HTML(df.to_html())` of name, SMILES and
 * properties), in the same page of the same run.
 *
 * first paint: `Date.now()` in the page, then the cell is run
 *   (`notebook:run-cell`); done at the first animation frame where the panel
 *   reports `data-molspace-ready="true"` (its first page of 24 depictions is
 *   shown as images) or where the output's table has its 200th row.
 *   - cold: the first grid of a freshly loaded page (the hidden depiction
 *     frame and Indigo's WASM start, then 24 depictions);
 *   - warm: a second grid in the same page, of molecules not depicted yet
 *     (the list reversed), so the engine is up and nothing is cached.
 * Each trial reloads the page. Figures are medians; nothing fails on a time.
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
  const cold = { molspace: [], baseline: [] };
  const warm = [];
  for (let i = 0; i < N; i++) {
    await openNotebook(page, server, 'grid.ipynb');
    const loaded = await execCell(
      page,
      0,
      [
        'import molspace, pandas as pd',
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
    // molspace, cold: the page's first grid
    let t0 = await startCell(page, 1, `molspace.Panel(mols, panel_id="grid-${i}")`);
    let t1 = await stampWhen(page, `.molspace-panel[data-molspace-panel-id="grid-${i}"][data-molspace-ready="true"]`);
    cold.molspace.push(t1 - t0);
    // molspace, warm: a second grid of molecules not depicted yet
    t0 = await startCell(page, 2, `molspace.Panel(mols[::-1], panel_id="grid-warm-${i}")`);
    t1 = await stampWhen(page, `.molspace-panel[data-molspace-panel-id="grid-warm-${i}"][data-molspace-ready="true"]`);
    warm.push(t1 - t0);
    // baseline: the same data as a plain HTML output
    t0 = await startCell(page, 3, `HTML('<div class="bench-grid-html-${i}">' + df.to_html(index=False) + '</div>')`);
    t1 = await stampWhen(page, `.bench-grid-html-${i} tbody tr:nth-child(${MOLECULES})`);
    cold.baseline.push(t1 - t0);
    log(`trial ${i + 1}/${N}: grid cold ${fmt(cold.molspace[i], 0)} ms, warm ${fmt(warm[i], 0)} ms; DataFrame HTML ${fmt(cold.baseline[i], 0)} ms`);
    // next trial: a fresh page, the kernel's outputs cleared
    await page.evaluate(() => window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs'));
    await page.evaluate(() => window.jupyterapp.commands.execute('docmanager:save'));
  }
  const out = {
    n: N,
    molecules: MOLECULES,
    pageSize: 24,
    firstPaint: { cold: summary(cold.molspace), warm: summary(warm), baseline: summary(cold.baseline) },
    raw: { cold: cold.molspace, warm, baseline: cold.baseline }
  };
  console.log(`\n200-molecule grid first paint, N=${N}, ms (p50 / p95):`);
  console.log(`molspace grid, cold (first in the page): ${fmt(out.firstPaint.cold.p50)} / ${fmt(out.firstPaint.cold.p95)}`);
  console.log(`molspace grid, warm (engine up, new molecules): ${fmt(out.firstPaint.warm.p50)} / ${fmt(out.firstPaint.warm.p95)}`);
  console.log(`DataFrame HTML (name, SMILES, properties): ${fmt(out.firstPaint.baseline.p50)} / ${fmt(out.firstPaint.baseline.p95)}`);
  writeResult('molecule_grid', out);
} catch (e) {
  console.error(e);
  exitCode = 1;
} finally {
  await browser?.close();
  await stopAll();
}
process.exit(exitCode);
