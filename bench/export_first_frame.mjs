/**
 * Benchmark — an exported HTML file (issue 24): its size, and open → first
 * frame from `file://` with the network off, against the same structure /
 * Story shown by a cell in JupyterLab, measured in the same run.
 *
 * The files: made at bench time by the repository's Python
 * (`MOLSPACE_BENCH_PYTHON`, default `.venv/bin/python`, run in the repository
 * root so that `import molspace` is the checkout, whose built App scripts
 * `molspace/app/static/*.js` the files inline): `molspace.Viewer(<cif>).to_html(...)`
 * of tests/data/structures/1cbs.cif and `molspace.Story(<mvsx>).to_html(...)`
 * of examples/data/1cbs-story.mvsx, written to a temp folder; their sizes
 * (bytes on disk) are printed.
 *
 * Subjects (each round runs every subject once, the order rotated each round,
 * each in a NEW browser: no shader, code or HTTP cache carried from another):
 * - `export viewer` / `export story`: a new page navigates to the file's
 *   `file://` URL. Every request that is not that file, `data:` or `blob:` is
 *   aborted and counted (Playwright `context.route`, plus every `request`
 *   event seen), as is every CSP violation naming a URL
 *   (`securitypolicyviolation`: a request the file's own policy stopped
 *   before it left): any one is a failure of the run. Other CSP violations
 *   (`script-src eval`: code probing `eval`, which the policy forbids) are
 *   recorded and printed, not failed on. Timer: the document's navigation start
 *   (`performance.timeOrigin`) → `document.documentElement.dataset.molspaceApp`
 *   becomes `drawn` (src/app/appStatus.ts `markState`: the App's Mol* viewer
 *   showed the structure / the Story's step 0), stamped in the page by a
 *   MutationObserver. On the way: `domContentLoaded` (the inline scripts
 *   parsed and run), `geometry` (the first instanced WebGL draw, bench/lib.mjs
 *   `instrumentWebgl`: Mol* draws each representation instanced). Cold = the
 *   browser's first open; again = the same file opened in a new tab of the
 *   same browser once the first stopped drawing (what the GPU process keeps
 *   is then warm).
 * - `widget viewer` / `widget story` (BASELINE): JupyterLab in a new browser,
 *   the notebook open, its kernel idle and `import molspace` run (untimed);
 *   then `v = molspace.Viewer("data/1cbs.cif")\nv` / `story =
 *   molspace.Story("data/1cbs-story.mvsx")\nstory` run with
 *   `notebook:run-cell`, timed from just before the command to the new
 *   element's `data-molspace-ready="true"` (bench/lib.mjs `notebookSubject`,
 *   as bench/first_frame.mjs's `molspace`), with its own `geometry`. Cold =
 *   the page's first such cell (Mol*'s chunks load then); again = the cell
 *   re-run once drawing stopped. Also recorded: `labOpen`, navigation start →
 *   notebook restored, kernel idle and `import molspace` done (what a person
 *   waits for before the cell can run; the exported file has no such step).
 *
 * Prints p50 / p95 and ratios export ÷ widget; writes
 * bench/results/export_first_frame.json. Nothing fails on a time.
 * Env: MOLSPACE_BENCH_EXPORT_N (5), MOLSPACE_BENCH_EXPORT_SUBJECTS (comma-separated
 * names, default all four), MOLSPACE_BENCH_EXPORT_WIDTH (the exported page's viewport
 * width, 1280 as the JupyterLab page's; 848 gives its canvas the widget's width),
 * MOLSPACE_BENCH_PORT_A (8899).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  PORTS,
  ROOT,
  fmt,
  fmtLoad,
  instrumentWebgl,
  keepOffline,
  launchBrowser,
  loadAvg,
  log,
  newContext,
  notebookSubject,
  startServer,
  stopOnExit,
  summary,
  waitSettled,
  writeResult
} from './lib.mjs';

const RUNS = Number(process.env.MOLSPACE_BENCH_EXPORT_N || 5);
const ONLY = (process.env.MOLSPACE_BENCH_EXPORT_SUBJECTS || '').split(',').filter(Boolean);
const PYTHON = process.env.MOLSPACE_BENCH_PYTHON || path.join(ROOT, '.venv', 'bin', 'python');
/** The exported page's viewport width (its canvas takes the page's width; the widget's is ~848 px in JupyterLab at 1280). */
const EXPORT_WIDTH = Number(process.env.MOLSPACE_BENCH_EXPORT_WIDTH || 1280);
const CIF = 'tests/data/structures/1cbs.cif';
const MVSX = 'examples/data/1cbs-story.mvsx';

// ------------------------------------------------------------ the exported files

const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'molspace-bench-export-'));
const files = { viewer: path.join(outDir, '1cbs-viewer.html'), story: path.join(outDir, '1cbs-story.html') };
const py = [
  'import json, sys, molspace',
  `v = molspace.Viewer(${JSON.stringify(path.join(ROOT, CIF))}).to_html(${JSON.stringify(files.viewer)})`,
  `s = molspace.Story(${JSON.stringify(path.join(ROOT, MVSX))}).to_html(${JSON.stringify(files.story)})`,
  'print(json.dumps({"viewer": v, "story": s, "molspace": molspace.__file__}))'
].join('\n');
const made = spawnSync(PYTHON, ['-c', py], { cwd: ROOT, encoding: 'utf8' });
if (made.status !== 0) {
  console.error(`exporting failed (${PYTHON}):\n${made.stderr}`);
  process.exit(1);
}
const exported = JSON.parse(made.stdout.trim().split('\n').pop());
const sizes = { viewer: fs.statSync(files.viewer).size, story: fs.statSync(files.story).size };
const inputs = { viewer: fs.statSync(path.join(ROOT, CIF)).size, story: fs.statSync(path.join(ROOT, MVSX)).size };
const staticBytes = Object.fromEntries(
  ['viewer.js', 'export-handoff.js'].map(f => [f, fs.statSync(path.join(path.dirname(exported.molspace), 'app', 'static', f)).size])
);
log(`molspace from ${exported.molspace}; App scripts ${JSON.stringify(staticBytes)}`);
for (const k of ['viewer', 'story']) {
  log(
    `${k}: ${files[k]} ${sizes[k].toLocaleString('en')} bytes (to_html said ${exported[k].toLocaleString('en')}; input ${inputs[k].toLocaleString('en')} bytes)`
  );
}

// ------------------------------------------------------------ exported subjects

/** In every page of `context`: stamp (ms since navigation start) when `data-molspace-app` first becomes `drawn`, and count CSP violations. */
async function stampDrawn(context) {
  await context.addInitScript(() => {
    window.__benchCsp = [];
    document.addEventListener('securitypolicyviolation', e => window.__benchCsp.push(`${e.violatedDirective} ${e.blockedURI}`));
    const check = () => {
      const s = document.documentElement?.dataset.molspaceApp;
      if (s && window.__benchAppState?.at(-1)?.[0] !== s) (window.__benchAppState ??= []).push([s, performance.now()]);
      if (s === 'drawn' && window.__benchDrawn === undefined) window.__benchDrawn = performance.now();
    };
    new MutationObserver(check).observe(document, {
      subtree: true,
      attributes: true,
      attributeFilter: ['data-molspace-app'],
      childList: true
    });
  });
}

/** Open `file` in `page` (its context offline but for the file) and return its milestones, ms since navigation start. */
async function openExport(page, file, refused) {
  const errors = [];
  page.on('pageerror', e => errors.push(String(e).slice(0, 300)));
  await page.goto(pathToFileURL(file).href, { waitUntil: 'commit' });
  await page.waitForFunction(() => window.__benchDrawn !== undefined || document.documentElement?.dataset.molspaceApp === 'error', null, {
    timeout: 120_000,
    polling: 50
  });
  const marks = await page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    return {
      drawn: window.__benchDrawn,
      geometry: window.__molspaceBenchFirstInstanced ?? undefined,
      domContentLoaded: nav?.domContentLoadedEventEnd,
      load: nav?.loadEventEnd || undefined,
      states: window.__benchAppState,
      csp: window.__benchCsp,
      error: document.getElementById('molspace-app-error')?.textContent || null,
      canvas: (c => (c ? `${c.clientWidth}x${c.clientHeight}` : null))(document.querySelector('canvas'))
    };
  });
  if (marks.drawn === undefined) throw new Error(`the App showed an error: ${marks.error}`);
  // A CSP violation naming a URL is a request the file's policy stopped: counted as refused.
  // Others (`script-src eval`: a library probing eval, which the policy forbids) are kept and printed.
  for (const v of marks.csp) if (/ (https?|wss?|file|ftp):/.test(v)) refused.push(`CSP ${v}`);
  if (refused.length || errors.length) {
    throw new Error(
      `not offline-clean: refused ${JSON.stringify(refused)}, CSP ${JSON.stringify(marks.csp)}, page errors ${JSON.stringify(errors)}`
    );
  }
  marks.cspCount = marks.csp.length;
  marks.csp = [...new Set(marks.csp)].join('; ');
  return marks;
}

function exportSubject(kind) {
  const file = files[kind];
  const href = pathToFileURL(file).href;
  return {
    name: `export ${kind}`,
    async run() {
      const browser = await launchBrowser();
      try {
        const context = await newContext(browser);
        await instrumentWebgl(context);
        await stampDrawn(context);
        const refused = [];
        await context.route(
          url => url.href !== href,
          async route => {
            refused.push(route.request().url());
            await route.abort('internetdisconnected');
          }
        );
        // Requests Playwright's router might not see (it does not route every scheme): any but the file itself counts.
        context.on('request', r => {
          const u = r.url();
          if (u !== href && !u.startsWith('data:') && !u.startsWith('blob:') && !refused.includes(u)) refused.push(u);
        });
        const out = {};
        const page = await context.newPage();
        await page.setViewportSize({ width: EXPORT_WIDTH, height: 900 });
        const load = loadAvg();
        out.cold = { ...(await openExport(page, file, refused)), loadAvg: load.one };
        await waitSettled(page, 1500, 60_000, '__molspaceBenchInstanced');
        const again = await context.newPage();
        await again.setViewportSize({ width: EXPORT_WIDTH, height: 900 });
        await page.close();
        const load2 = loadAvg();
        out.again = { ...(await openExport(again, file, refused)), loadAvg: load2.one };
        out.refused = refused;
        return out;
      } finally {
        await browser.close();
      }
    }
  };
}

// ------------------------------------------------------------ widget subjects (baseline)

const READY_ATTR = "el => el.getAttribute('data-molspace-ready') === 'true'";
let server = null;

function widgetSubject(kind) {
  const inner = notebookSubject(server, {
    name: `widget ${kind}`,
    setup: 'import molspace',
    cell: kind === 'viewer' ? 'v = molspace.Viewer("data/1cbs.cif")\nv' : 'story = molspace.Story("data/1cbs-story.mvsx")\nstory',
    shown: kind === 'viewer' ? '.molspace-viewer' : '.molspace-story',
    ready: READY_ATTR
  });
  return {
    name: inner.name,
    async run() {
      const browser = await launchBrowser();
      try {
        const context = await newContext(browser);
        await instrumentWebgl(context);
        const offline = await keepOffline(context);
        const page = await context.newPage();
        await inner.open(page);
        const labOpen = await page.evaluate(() => performance.now());
        const out = {};
        out.cold = { ...(await inner.time(page)), labOpen, loadAvg: loadAvg().one };
        await waitSettled(page, 1500, 60_000, '__molspaceBenchInstanced');
        out.again = { ...(await inner.time(page)), loadAvg: loadAvg().one };
        out.refused = offline.refused;
        if (offline.refused.length) throw new Error(`requests left the machine: ${JSON.stringify(offline.refused)}`);
        return out;
      } finally {
        await browser.close();
      }
    }
  };
}

// ------------------------------------------------------------ run

const NAMES = ['export viewer', 'export story', 'widget viewer', 'widget story'].filter(n => !ONLY.length || ONLY.includes(n));
if (NAMES.some(n => n.startsWith('widget'))) {
  server = await startServer({ port: PORTS.a, name: 'export' });
  fs.copyFileSync(path.join(ROOT, CIF), path.join(server.root, 'data', '1cbs.cif'));
}
const stopAll = stopOnExit(server ? [server] : []);
const SUBJECTS = NAMES.map(n => (n.startsWith('export') ? exportSubject(n.split(' ')[1]) : widgetSubject(n.split(' ')[1])));
log(`subjects: ${NAMES.join(', ')}; N=${RUNS}`);

let exitCode = 0;
const loadStart = loadAvg();
const raw = Object.fromEntries(NAMES.map(n => [n, []]));
const round = m =>
  Object.fromEntries(
    Object.entries(m ?? {})
      .filter(([, v]) => typeof v === 'number' || typeof v === 'string')
      .map(([k, v]) => [k, typeof v === 'number' ? Math.round(v) : v])
  );
try {
  for (let i = 0; i < RUNS; i++) {
    const order = SUBJECTS.map((_, k) => SUBJECTS[(k + i) % SUBJECTS.length]);
    for (const s of order) {
      let out;
      try {
        out = await s.run();
        log(
          `run ${i + 1}/${RUNS} ${s.name}: cold ${JSON.stringify(round(out.cold))} again ${JSON.stringify(round(out.again))} refused ${out.refused.length}`
        );
      } catch (e) {
        out = { error: String(e?.message ?? e).slice(0, 2000) };
        log(`run ${i + 1}/${RUNS} ${s.name} FAILED: ${out.error.slice(0, 500)}`);
      }
      raw[s.name].push(out);
    }
  }
  const loadEnd = loadAvg();
  const table = {};
  for (const n of NAMES) {
    const ok = raw[n].filter(r => !r.error);
    table[n] = { errors: raw[n].filter(r => r.error).map(r => r.error), loads: ok.map(r => r.cold.loadAvg) };
    for (const phase of ['cold', 'again']) {
      const recs = ok.map(r => r[phase]);
      const keys = [...new Set(recs.flatMap(r => Object.keys(r).filter(k => typeof r[k] === 'number' && k !== 'loadAvg')))];
      table[n][phase] = Object.fromEntries(keys.map(k => [k, summary(recs.map(r => r[k]).filter(v => typeof v === 'number'))]));
    }
  }
  const pp = s => (s ? `${fmt(s.p50, 0)} / ${fmt(s.p95, 0)}` : 'n/a');
  const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}×` : '—');
  console.log(
    `\nExported file → first frame against the widget cell, N=${RUNS}, ms p50 / p95 (${fmtLoad(loadStart)} at start, ${fmtLoad(loadEnd)} at end):`
  );
  console.log(
    'kind    file bytes   export open→drawn cold   again          widget cell→ready cold (baseline)   again          drawn÷ready cold   again   export geometry cold   widget geometry cold   widget labOpen'
  );
  for (const kind of ['viewer', 'story']) {
    const e = table[`export ${kind}`];
    const w = table[`widget ${kind}`];
    console.log(
      [
        kind.padEnd(7),
        sizes[kind].toLocaleString('en').padStart(11),
        pp(e?.cold.drawn).padStart(22),
        pp(e?.again.drawn).padStart(13),
        pp(w?.cold.ready).padStart(33),
        pp(w?.again.ready).padStart(13),
        ratio(e?.cold.drawn?.p50, w?.cold.ready?.p50).padStart(17),
        ratio(e?.again.drawn?.p50, w?.again.ready?.p50).padStart(7),
        pp(e?.cold.geometry).padStart(21),
        pp(w?.cold.geometry).padStart(21),
        pp(w?.cold.labOpen).padStart(15)
      ].join('  ')
    );
  }
  for (const n of NAMES) {
    const t = table[n];
    const extra = n.startsWith('export')
      ? `domContentLoaded cold ${pp(t.cold.domContentLoaded)}`
      : `element shown cold ${pp(t.cold.shown)}, kernel reply ${pp(t.cold.reply)}`;
    const csp = n.startsWith('export')
      ? `; CSP violations per open (not requests): ${[...new Set(raw[n].filter(r => !r.error).flatMap(r => [r.cold.csp, r.again.csp]))].join(' | ') || 'none'}`
      : '';
    console.log(
      `${n}: ${extra}${csp}; 1-min load per run ${t.loads.map(x => x.toFixed(1)).join(' ')}${t.errors.length ? `; ${t.errors.length} FAILED: ${t.errors[0].slice(0, 300)}` : ''}`
    );
    if (t.errors.length) exitCode = 1;
  }
  writeResult('export_first_frame', {
    runs: RUNS,
    sizes,
    inputs,
    staticBytes,
    molspace: exported.molspace,
    loadStart,
    loadEnd,
    table,
    raw
  });
} catch (e) {
  console.error(e);
  exitCode = 1;
} finally {
  await stopAll();
  fs.rmSync(outDir, { recursive: true, force: true });
}
process.exit(exitCode);
