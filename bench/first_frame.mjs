/**
 * Benchmark 2 — cell executed → first rendered frame of the Story, against a floor.
 *
 * molspace: in JupyterLab (Debian Chromium, SwiftShader WebGL) a notebook cell
 *   `story = molspace.Story("data/1cbs-story.mvsx"); story` is run with
 *   `notebook:run-cell` (the kernel has already run `import molspace`, so the
 *   Python import is not counted). Timer: performance.now() just before the
 *   command → the new widget root gets `data-molspace-ready="true"` (its
 *   first step applied in a live Mol* viewer and a frame drawn). It includes
 *   the kernel building the widget (reading and sending the .mvsx bytes over
 *   the comm), the model/view creation in the page, lazy chunks, parsing and
 *   validating the Story, creating the Mol* plugin (WebGL) and loading step 0.
 *   Milestones are recorded: the widget element appears (`view`), the Mol*
 *   canvas appears (`canvas`), the kernel's execute reply (`reply`).
 * floor (BASELINE): a plain page, no JupyterLab, that bundles molspace's own
 *   viewer wrapper and Story parser (src/viewer/molstarStoryViewer.ts,
 *   src/story/storySource.ts) with esbuild against the same molstar, served
 *   with the .mvsx by a local static server. Timer: navigation start → the
 *   Story's step 0 loaded (`viewer.load` resolved: a frame drawn) + one
 *   requestAnimationFrame. It includes downloading and parsing the ~7 MB
 *   bundle, fetching and parsing the .mvsx, creating the plugin and loading.
 * Each kind is measured "cold" (new browser context: empty HTTP cache, Mol*
 * code not yet loaded; for molspace the first Story in a freshly opened
 * JupyterLab) and "warm" (the same page again once it stopped drawing: Mol*
 * code loaded, a new viewer and WebGL context; for molspace the cell re-run,
 * which replaces the widget). Runs alternate floor / molspace; medians.
 *
 * Aim: molspace ≤ 1.3 × floor.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { build } from 'esbuild';
import {
  BENCH,
  PORTS,
  ROOT,
  RESULTS,
  execCell,
  fmt,
  launchBrowser,
  log,
  newContext,
  openNotebook,
  startServer,
  stopOnExit,
  summary,
  waitSettled,
  writeResult
} from './lib.mjs';

const RUNS = Number(process.env.MOLSPACE_BENCH_FRAME_N || 3);
const FLOOR_PORT = Number(process.env.MOLSPACE_BENCH_PORT_STATIC || 8891);
const STORY_CELL = 'story = molspace.Story("data/1cbs-story.mvsx")\nstory';

// ------------------------------------------------------------ floor page
const floorDir = path.join(RESULTS, 'floor');
fs.mkdirSync(floorDir, { recursive: true });
await build({
  entryPoints: [path.join(BENCH, 'floor', 'entry.ts')],
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2020',
  // molspace's labextension here is a development build (not minified): match it.
  minify: false,
  define: { 'process.env.NODE_ENV': '"development"' },
  outfile: path.join(floorDir, 'floor.js'),
  logLevel: 'warning'
});
fs.copyFileSync(path.join(BENCH, 'floor', 'index.html'), path.join(floorDir, 'index.html'));
fs.copyFileSync(path.join(ROOT, 'examples', 'data', '1cbs-story.mvsx'), path.join(floorDir, '1cbs-story.mvsx'));
const floorBytes = fs.statSync(path.join(floorDir, 'floor.js')).size;
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mvsx': 'application/zip' };
const staticServer = http.createServer((req, res) => {
  const name = path.basename(new URL(req.url, 'http://x').pathname) || 'index.html';
  const file = path.join(floorDir, name);
  if (!fs.existsSync(file)) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
  fs.createReadStream(file).pipe(res);
});
await new Promise(r => staticServer.listen(FLOOR_PORT, '127.0.0.1', r));
const FLOOR_URL = `http://127.0.0.1:${FLOOR_PORT}/index.html`;
log(`floor bundle ${(floorBytes / 1e6).toFixed(1)} MB at ${FLOOR_URL}`);

// ------------------------------------------------------------ molspace
const server = await startServer({ port: PORTS.a, name: 'frame' });
const stopAll = stopOnExit([server]);
fs.writeFileSync(
  path.join(server.root, 'first_frame.ipynb'),
  JSON.stringify({
    cells: [
      { cell_type: 'code', execution_count: null, id: 'imp', metadata: {}, outputs: [], source: 'import molspace' },
      { cell_type: 'code', execution_count: null, id: 'story', metadata: {}, outputs: [], source: STORY_CELL }
    ],
    metadata: { kernelspec: { display_name: 'Python 3 (ipykernel)', language: 'python', name: 'python3' } },
    nbformat: 4,
    nbformat_minor: 5
  })
);

/** Run the Story cell; resolve with ms from the command to each milestone of the NEW widget. */
async function timeStoryCell(page) {
  return page.evaluate(async source => {
    document.querySelectorAll('.molspace-story').forEach(e => e.setAttribute('data-bench-old', ''));
    const app = window.jupyterapp;
    const nb = app.shell.currentWidget.content;
    nb.activeCellIndex = 1;
    nb.deselectAll();
    nb.activeCell.model.sharedModel.setSource(source);
    const marks = {};
    let t0 = 0;
    const ready = new Promise((resolve, reject) => {
      const check = () => {
        const el = document.querySelector('.molspace-story:not([data-bench-old])');
        if (!el) return;
        marks.view ??= performance.now() - t0;
        if (el.querySelector('canvas')) marks.canvas ??= performance.now() - t0;
        if (el.getAttribute('data-molspace-ready') === 'true') {
          marks.ready = performance.now() - t0;
          mo.disconnect();
          resolve();
        }
      };
      const mo = new MutationObserver(check);
      mo.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-molspace-ready'] });
      setTimeout(() => reject(new Error(`no ready Story within 120 s: ${JSON.stringify(marks)}`)), 120_000);
    });
    t0 = performance.now();
    const run = app.commands.execute('notebook:run-cell').then(() => (marks.reply = performance.now() - t0));
    await Promise.all([ready, run]);
    return marks;
  }, STORY_CELL);
}

const results = { floorCold: [], floorWarm: [], msCold: [], msWarm: [] };
let browser;
let exitCode = 0;
try {
  browser = await launchBrowser();
  for (let i = 0; i < RUNS; i++) {
    // floor, cold then warm
    let context = await newContext(browser);
    let page = await context.newPage();
    await page.goto(FLOOR_URL);
    await page.waitForFunction(() => window.__floor.ms || window.__floor.error, null, { timeout: 120_000, polling: 50 });
    const cold = await page.evaluate(() => window.__floor);
    if (cold.error) throw new Error(`floor page failed: ${cold.error}`);
    await waitSettled(page, 1000, 30_000);
    const warm = await page.evaluate(async () => {
      const r = await window.firstFrame();
      return { ms: r.end - r.start, ...r };
    });
    results.floorCold.push(cold);
    results.floorWarm.push(warm);
    await context.close();
    log(`run ${i + 1}/${RUNS} floor: cold ${fmt(cold.ms, 0)} ms, warm ${fmt(warm.ms, 0)} ms`);

    // molspace, cold (first Story in a fresh JupyterLab page) then warm (cell re-run)
    context = await newContext(browser);
    page = await context.newPage();
    await openNotebook(page, server, 'first_frame.ipynb');
    await execCell(page, 0, 'import molspace');
    const mCold = await timeStoryCell(page);
    await waitSettled(page, 1000, 30_000);
    const mWarm = await timeStoryCell(page);
    results.msCold.push(mCold);
    results.msWarm.push(mWarm);
    await waitSettled(page, 1000, 30_000);
    await context.close();
    log(`run ${i + 1}/${RUNS} molspace: cold ${JSON.stringify(round(mCold))}, warm ${JSON.stringify(round(mWarm))}`);
  }

  const med = (list, key) => summary(list.map(x => x[key]));
  const out = {
    runs: RUNS,
    floorBundleBytes: floorBytes,
    floor: {
      cold: { total: med(results.floorCold, 'ms'), fetch: med(results.floorCold, 'fetchMs'), parse: med(results.floorCold, 'parseMs'), create: med(results.floorCold, 'createMs'), load: med(results.floorCold, 'loadMs') },
      warm: { total: med(results.floorWarm, 'ms'), fetch: med(results.floorWarm, 'fetchMs'), parse: med(results.floorWarm, 'parseMs'), create: med(results.floorWarm, 'createMs'), load: med(results.floorWarm, 'loadMs') }
    },
    molspace: {
      cold: { ready: med(results.msCold, 'ready'), view: med(results.msCold, 'view'), canvas: med(results.msCold, 'canvas'), reply: med(results.msCold, 'reply') },
      warm: { ready: med(results.msWarm, 'ready'), view: med(results.msWarm, 'view'), canvas: med(results.msWarm, 'canvas'), reply: med(results.msWarm, 'reply') }
    },
    raw: results
  };
  out.ratioCold = out.molspace.cold.ready.p50 / out.floor.cold.total.p50;
  out.ratioWarm = out.molspace.warm.ready.p50 / out.floor.warm.total.p50;
  out.aim = { text: 'molspace ≤ 1.3 × floor (cold and warm)', met: out.ratioCold <= 1.3 && out.ratioWarm <= 1.3, metCold: out.ratioCold <= 1.3, metWarm: out.ratioWarm <= 1.3 };

  console.log(`\nFirst frame, medians of N=${RUNS} runs each, ms:`);
  console.log(`            floor (nav→frame)   molspace (run-cell→ready)   ratio   [molspace milestones: view / canvas / kernel reply]`);
  for (const k of ['cold', 'warm']) {
    const m = out.molspace[k];
    console.log(
      `${k.padEnd(10)} ${fmt(out.floor[k].total.p50, 0).padStart(10)}          ${fmt(m.ready.p50, 0).padStart(10)}              ${(k === 'cold' ? out.ratioCold : out.ratioWarm).toFixed(2)}×   [${fmt(m.view.p50, 0)} / ${fmt(m.canvas.p50, 0)} / ${fmt(m.reply.p50, 0)}]`
    );
    const f = out.floor[k];
    console.log(`           floor parts: fetch ${fmt(f.fetch.p50, 0)}, parse ${fmt(f.parse.p50, 0)}, create viewer ${fmt(f.create.p50, 0)}, load step 0 ${fmt(f.load.p50, 0)}`);
  }
  console.log(`aim molspace ≤ 1.3 × floor: cold ${out.aim.metCold ? 'MET' : 'MISSED'}, warm ${out.aim.metWarm ? 'MET' : 'MISSED'}`);
  writeResult('first_frame', out);
} catch (e) {
  console.error(e);
  exitCode = 1;
} finally {
  await browser?.close();
  staticServer.close();
  await stopAll();
}
process.exit(exitCode);

function round(marks) {
  return Object.fromEntries(Object.entries(marks).map(([k, v]) => [k, Math.round(v)]));
}
