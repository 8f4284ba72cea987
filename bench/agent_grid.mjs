/**
 * An agent's molecule grid (`render_panel` over MCP, official TypeScript SDK
 * client, relayed by the gateway to the page): first page painted, for a 50-
 * and a 200-molecule grid of tests/data/structures/pubchem200.sdf, against the
 * same 200 rows as a plain JupyterLab output (`HTML(df.to_html())`, the
 * baseline of bench/molecule_grid.mjs), in the same page of the same run.
 *
 * first paint: `Date.now()` just before the tool call, then the first
 *   animation frame where the docked panel reports `data-molspace-ready="true"`
 *   (its first page of 24 depictions shown as images). Each grid is the first
 *   of a freshly loaded page (cold: nothing depicted, no depiction frame).
 * Two servers, alternating trial by trial in the same run:
 *   - rdkit: the gateway draws the grid's first page with RDKit and sends it in
 *     the relayed call's context (`CallContext.depictions`); the page shows
 *     those at once;
 *   - indigo: the same build with `MOLSPACE_GRID_DEPICTIONS=off` in the
 *     server's environment, so the gateway sends none and the page's hidden
 *     depiction frame (Indigo's WASM) draws every depiction, as before.
 * Figures are medians; nothing fails on a time. MOLSPACE_BENCH_GRID_N trials per path.
 * Ports: MOLSPACE_BENCH_PORT_A (rdkit) and MOLSPACE_BENCH_PORT_B (indigo).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { callTool, execCell, fmt, launchBrowser, loadAvg, log, mcpClient, newContext, openNotebook, PORTS, ROOT, stampWhen, startCell, startServer, stopOnExit, summary, writeNotebook, writeResult } from './lib.mjs';

const N = Number(process.env.MOLSPACE_BENCH_GRID_N || 3);
const SIZES = [50, 200];
const SDF = path.join(ROOT, 'tests', 'data', 'structures', 'pubchem200.sdf');

// The grid's molecules, read once by RDKit (not timed): {smiles, name, properties}.
const MOLECULES = JSON.parse(
  execFileSync('python', [
    '-c',
    [
      'import json, sys',
      'from rdkit import Chem',
      'mols = [m for m in Chem.SDMolSupplier(sys.argv[1]) if m is not None]',
      'print(json.dumps([{"smiles": Chem.MolToSmiles(m), "name": m.GetProp("_Name"), "properties": {k: v for k, v in m.GetPropsAsDict().items() if isinstance(v, (int, float, str))}} for m in mols]))'
    ].join('\n'),
    SDF
  ]).toString()
);
if (MOLECULES.length !== 200) {
  throw new Error(`expected 200 molecules, got ${MOLECULES.length}`);
}

const rdkit = await startServer({ port: PORTS.a, name: 'agent-grid-rdkit' });
process.env.MOLSPACE_GRID_DEPICTIONS = 'off';
const indigo = await startServer({ port: PORTS.b, name: 'agent-grid-indigo' });
delete process.env.MOLSPACE_GRID_DEPICTIONS;
const servers = { rdkit, indigo };
const stopAll = stopOnExit([rdkit, indigo]);
for (const server of [rdkit, indigo]) {
  fs.copyFileSync(SDF, path.join(server.root, 'pubchem200.sdf'));
  writeNotebook(server.root, 'grid.ipynb');
}

const ready = id => `.molspace-panel[data-molspace-panel-id="${id}"][data-molspace-ready="true"]`;

/** A freshly loaded page of `server`, its bridge connected; the baseline's data loaded in the kernel. */
async function freshPage(page, server, client) {
  await openNotebook(page, server, 'grid.ipynb');
  const loaded = await execCell(
    page,
    0,
    [
      'import pandas as pd',
      'from rdkit import Chem',
      'from IPython.display import HTML',
      'mols = [m for m in Chem.SDMolSupplier("pubchem200.sdf") if m is not None]',
      'df = pd.DataFrame([{"name": m.GetProp("_Name"), "smiles": Chem.MolToSmiles(m), **m.GetPropsAsDict()} for m in mols])',
      'print(len(mols), df.shape)'
    ].join('\n')
  );
  if (!loaded.startsWith('200 ')) {
    throw new Error(`expected 200 molecules in the kernel, got: ${loaded}`);
  }
  for (let i = 0; ; i++) {
    const status = await callTool(client, 'status');
    if (status.pageConnected && status.pageCount === 1) {
      return;
    }
    if (i > 600) {
      throw new Error(`no single page connected: ${JSON.stringify(status)}`);
    }
    await new Promise(r => setTimeout(r, 50));
  }
}

let browser;
let exitCode = 0;
const clients = {};
try {
  browser = await launchBrowser();
  const context = await newContext(browser);
  const page = await context.newPage();
  clients.rdkit = await mcpClient(rdkit);
  clients.indigo = await mcpClient(indigo);
  const paths = ['rdkit', 'indigo'];
  const runs = Object.fromEntries(paths.map(p => [p, Object.fromEntries(SIZES.map(n => [n, []]))]));
  const drawnBy = Object.fromEntries(paths.map(p => [p, []]));
  const baseline = [];
  const loads = [loadAvg()];
  for (let i = 0; i < N * paths.length; i++) {
    const mode = paths[i % paths.length];
    const server = servers[mode];
    const client = clients[mode];
    for (const n of SIZES) {
      await freshPage(page, server, client);
      const id = `grid-${n}-${i}`;
      const t0 = Date.now();
      const [result, t1] = await Promise.all([
        callTool(client, 'render_panel', { panelId: id, content: { type: 'molecules', molecules: MOLECULES.slice(0, n) } }),
        stampWhen(page, ready(id))
      ]);
      if (!result.created) {
        throw new Error(`render_panel did not create ${id}: ${JSON.stringify(result)}`);
      }
      runs[mode][n].push(t1 - t0);
      const gateway = await page.locator(`.molspace-panel[data-molspace-panel-id="${id}"] [data-molspace-depiction="gateway"]`).count();
      drawnBy[mode].push(gateway);
      if ((mode === 'rdkit') !== (gateway === 24)) {
        throw new Error(`${mode}: ${gateway} gateway depictions on the first page of ${id}`);
      }
    }
    // baseline: the same 200 rows as a plain HTML output, in the same page
    const b0 = await startCell(page, 1, `HTML('<div class="bench-grid-html-${i}">' + df.to_html(index=False) + '</div>')`);
    const b1 = await stampWhen(page, `.bench-grid-html-${i} tbody tr:nth-child(200)`);
    baseline.push(b1 - b0);
    loads.push(loadAvg());
    log(`trial ${i + 1}/${N * paths.length} (${mode}): ${SIZES.map(n => `${n} molecules ${fmt(runs[mode][n].at(-1), 0)} ms`).join(', ')}; DataFrame HTML ${fmt(baseline.at(-1), 0)} ms`);
    await page.evaluate(() => window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs'));
    await page.evaluate(() => window.jupyterapp.commands.execute('docmanager:save'));
  }
  const base = summary(baseline);
  const out = {
    n: N,
    sizes: SIZES,
    pageSize: 24,
    baseline: base,
    firstPaint: Object.fromEntries(paths.map(p => [p, Object.fromEntries(SIZES.map(n => [n, summary(runs[p][n])]))])),
    load: loads,
    raw: { ...runs, baseline, drawnBy }
  };
  const ratio = v => fmt(v / base.p50, 1);
  console.log(`\nAgent render_panel grid, first page painted (cold page), N=${N} per path, ms (p50 / p95; ratio of p50 to the DataFrame HTML's):`);
  console.log(`DataFrame HTML (200 rows: name, SMILES, properties): ${fmt(base.p50)} / ${fmt(base.p95)}`);
  for (const p of paths) {
    console.log(
      `${p}: ${SIZES.map(n => `${n} molecules ${fmt(out.firstPaint[p][n].p50)} / ${fmt(out.firstPaint[p][n].p95)} (${ratio(out.firstPaint[p][n].p50)}x)`).join('; ')}`
    );
  }
  for (const n of SIZES) {
    console.log(`${n} molecules: indigo p50 / rdkit p50 = ${fmt(out.firstPaint.indigo[n].p50 / out.firstPaint.rdkit[n].p50, 1)}x`);
  }
  console.log(`load average (1-min) over the run: ${loads.map(l => l.one.toFixed(1)).join(', ')}`);
  writeResult('agent_grid', out);
} catch (e) {
  console.error(e);
  exitCode = 1;
} finally {
  await Promise.all(Object.values(clients).map(c => c.close().catch(() => {})));
  await browser?.close();
  await stopAll();
}
process.exit(exitCode);
