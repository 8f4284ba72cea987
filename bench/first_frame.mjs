/**
 * Benchmark 2 — a new Story → its first drawn frame: molspace against a tight
 * floor (the same Mol* work in a plain page) and against what users pick
 * instead (molviewspec's `molstar_notebook`, viewer and stories UI; nglview,
 * where it runs), all in the same run.
 *
 * Subjects (each round runs every subject once, in a rotated order, each in a
 * NEW browser process so that none inherits another's shader or HTTP cache):
 * - floor (BASELINE): bench/floor/ — molspace's own Story parser and Mol*
 *   wrapper in a plain page, production build, loaded as lazy chunks like the
 *   widget's. Timer: `firstFrame()` called in the loaded page → the Story's
 *   step 0 loaded and drawn (`viewer.load` resolved), the moment the widget
 *   sets `data-molspace-ready`.
 * - molspace: `story = molspace.Story("data/1cbs-story.mvsx"); story` run with
 *   `notebook:run-cell` in JupyterLab (`import molspace` ran before). Timer:
 *   just before the command → the new `.molspace-story` has
 *   `data-molspace-ready="true"`.
 * - molviewspec viewer / stories: `molstar_notebook(<the same .mvsx bytes>,
 *   ui=...)` (its HTML loads Mol*'s prebuilt viewer / mvs-stories from
 *   cdn.jsdelivr.net: answered from node_modules/molstar/build by
 *   `page.route`, nothing reaches the internet). Ready for the viewer UI: its
 *   `loadMvsData` resolved and the next committed frame drawn (hooked in the
 *   frame, bench/lib.mjs captureMolstarViewer).
 * - nglview: `nglview.show_file("data/1cbs.cif")` — it cannot show an MVS Story,
 *   so the Story's structure; only when `import nglview` works. Its
 *   `geometry` is its first WebGL draw call of any kind (three.js draws
 *   nothing for an empty stage).
 * For every subject `geometry` = the first instanced WebGL draw call after the
 * start (Mol* draws each representation instanced; its empty scene does not):
 * the one milestone all of them share. Cold = the first of its kind in a fresh
 * browser (Mol* code not loaded); warm = the same again in the same page once
 * drawing stopped (a new viewer; for notebooks the cell re-run).
 *
 * Prints p50 per subject and ratios against the floor and against molspace,
 * with the load average at every run.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { build } from 'esbuild';
import { BENCH, PORTS, ROOT, RESULTS, compareSubjects, fmt, fmtLoad, loadAvg, log, notebookSubject, printComparison, startServer, stopOnExit, writeResult } from './lib.mjs';

const RUNS = Number(process.env.MOLSPACE_BENCH_FRAME_N || 3);
const FLOOR_PORT = Number(process.env.MOLSPACE_BENCH_PORT_STATIC || 8897);
const ONLY = (process.env.MOLSPACE_BENCH_FRAME_SUBJECTS || '').split(',').filter(Boolean);
const MVSX = 'data/1cbs-story.mvsx';

// ------------------------------------------------------------ floor page
const floorDir = path.join(RESULTS, 'floor');
fs.rmSync(floorDir, { recursive: true, force: true });
fs.mkdirSync(floorDir, { recursive: true });
await build({
  entryPoints: [path.join(BENCH, 'floor', 'entry.ts')],
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2020',
  // As the labextension scripts/install.sh installs (webpack production mode).
  minify: true,
  define: { 'process.env.NODE_ENV': '"production"' },
  outdir: floorDir,
  entryNames: 'floor',
  logLevel: 'warning'
});
fs.copyFileSync(path.join(BENCH, 'floor', 'index.html'), path.join(floorDir, 'index.html'));
fs.copyFileSync(path.join(ROOT, 'examples', 'data', '1cbs-story.mvsx'), path.join(floorDir, '1cbs-story.mvsx'));
const floorBytes = fs.readdirSync(floorDir).filter(f => f.endsWith('.js')).reduce((n, f) => n + fs.statSync(path.join(floorDir, f)).size, 0);
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
log(`floor bundle ${(floorBytes / 1e6).toFixed(2)} MB (production, lazy chunks) at ${FLOOR_URL}`);

// ------------------------------------------------------------ notebooks
const server = await startServer({ port: PORTS.a, name: 'frame' });
const stopAll = stopOnExit([server]);
fs.copyFileSync(path.join(ROOT, 'examples', 'data', '1cbs.cif'), path.join(server.root, 'data', '1cbs.cif'));
const hasNglview = (await pyImports('nglview')) === 'ok';

const READY_ATTR = "el => el.getAttribute('data-molspace-ready') === 'true'";
const MVS_READY = "el => !!el.contentWindow && el.contentWindow.__benchMvsReady !== undefined";

/** The floor: `firstFrame()` in the plain page, same milestones as a notebook subject. */
const floorSubject = {
  name: 'floor',
  async open(page) {
    await page.goto(FLOOR_URL);
    await page.waitForFunction(() => typeof window.firstFrame === 'function', null, { timeout: 60_000 });
  },
  time(page) {
    return page.evaluate(async () => {
      window.__molspaceBenchFirstInstanced = null;
      const r = await window.firstFrame();
      if (window.__molspaceBenchFirstInstanced != null) r.geometry = window.__molspaceBenchFirstInstanced - r.start;
      const c = document.querySelector('#host canvas');
      r.canvas = c ? `${c.clientWidth}x${c.clientHeight}` : null;
      delete r.start;
      return r;
    });
  }
};

/**
 * The floor again, in a browser that has already drawn this Story in another
 * context (closed before the timed one): what the GPU process keeps across
 * contexts (compiled shader programs) is then warm. The old floor ran first
 * in a fresh browser and molspace after it in the same browser.
 */
const floorPrimedSubject = {
  name: 'floor, browser primed',
  async open(page) {
    const other = await page.context().browser().newContext();
    const p = await other.newPage();
    await p.goto(FLOOR_URL);
    await p.waitForFunction(() => typeof window.firstFrame === 'function', null, { timeout: 60_000 });
    await p.evaluate(() => window.firstFrame());
    await other.close();
    await floorSubject.open(page);
  },
  time: page => floorSubject.time(page)
};

const SUBJECTS = [
  floorSubject,
  floorPrimedSubject,
  notebookSubject(server, {
    name: 'molspace',
    setup: 'import molspace',
    cell: `story = molspace.Story("${MVSX}")\nstory`,
    shown: '.molspace-story',
    ready: READY_ATTR
  }),
  notebookSubject(server, {
    name: 'molviewspec viewer',
    setup: 'from molviewspec.molstar_widgets import molstar_notebook',
    cell: `molstar_notebook(open("${MVSX}", "rb").read(), width=834, height=420, ui="viewer")`,
    shown: 'iframe[src^="blob:"]',
    ready: MVS_READY
  }),
  notebookSubject(server, {
    name: 'molviewspec stories',
    setup: 'from molviewspec.molstar_widgets import molstar_notebook',
    cell: `molstar_notebook(open("${MVSX}", "rb").read(), width=834, height=420, ui="stories")`,
    shown: 'iframe[src^="blob:"]'
  }),
  ...(hasNglview
    ? [notebookSubject(server, { name: 'nglview', setup: 'import nglview', cell: 'view = nglview.show_file("data/1cbs.cif")\nview', shown: '.jupyter-widgets canvas', geometryKey: 'anyDraw' })]
    : [])
].filter(s => !ONLY.length || ONLY.includes(s.name));
log(`subjects: ${SUBJECTS.map(s => s.name).join(', ')}${hasNglview ? '' : ' (nglview: not importable in this environment)'}`);

let exitCode = 0;
const loadStart = loadAvg();
try {
  const { raw, table } = await compareSubjects(SUBJECTS, RUNS);
  const loadEnd = loadAvg();
  console.log(`\nFirst frame of a new Story, p50 of N=${RUNS} per subject, ms (${fmtLoad(loadStart)} at start, ${fmtLoad(loadEnd)} at end):`);
  printComparison(table, { floor: 'floor', ref: 'molspace' });
  for (const phase of ['cold', 'warm']) {
    const x = table.floor?.[phase];
    if (x) console.log(`floor ${phase} parts: import parser ${fmt(x.importParser?.p50, 0)}, fetch ${fmt(x.fetch?.p50, 0)}, parse ${fmt(x.parse?.p50, 0)}, import viewer ${fmt(x.importViewer?.p50, 0)}, create ${fmt(x.create?.p50, 0)}, load+draw ${fmt(x.load?.p50, 0)}, geometry ${fmt(x.geometry?.p50, 0)}`);
    const m = table.molspace?.[phase];
    if (m) console.log(`molspace ${phase} milestones: element ${fmt(m.shown?.p50, 0)}, kernel reply ${fmt(m.reply?.p50, 0)}, geometry ${fmt(m.geometry?.p50, 0)}, ready ${fmt(m.ready?.p50, 0)}`);
  }
  writeResult('first_frame', { runs: RUNS, floorBundleBytes: floorBytes, loadStart, loadEnd, nglview: hasNglview, table, raw });
} catch (e) {
  console.error(e);
  exitCode = 1;
} finally {
  staticServer.close();
  await stopAll();
}
process.exit(exitCode);

async function pyImports(mod) {
  const { spawnSync } = await import('node:child_process');
  const r = spawnSync('python', ['-c', `import ${mod}; print("ok")`], { encoding: 'utf8' });
  return r.stdout.trim();
}
