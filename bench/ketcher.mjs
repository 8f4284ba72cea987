/**
 * Benchmark — the Ketcher editor: ready time cold and warm, JupyterLab's start
 * with and without molspace, and the size of the editor frame's assets.
 *
 * 1. Editor ready. In JupyterLab (Debian Chromium), a cell
 *    `molspace.Ketcher("<aspirin SMILES>")` is run with `notebook:run-cell`
 *    (`import molspace` ran before and is not counted). Timer:
 *    performance.now() in the page just before the command → the NEW widget
 *    root (`.molspace-ketcher`) has `data-molspace-ready="true"`
 *    (MutationObserver): the frame page, the Ketcher bundle, the Indigo worker
 *    and its WASM loaded, Indigo answered, and the SMILES loaded into the
 *    editor. Milestones: the widget element appears (`view`), the frame's
 *    entry JS received (`frameJs`, Playwright's request timing), the iframe's
 *    `load` event (`frameLoad`: the frame page and its entry script run), the
 *    Indigo WASM received (`wasm`), the kernel's execute reply (`reply`); and
 *    the requests under `static/ketcher/`, their body bytes and statuses.
 *    - cold: the first editor in a new browser context (empty HTTP cache);
 *    - second: a second editor, in another cell, in the same page;
 *    - reload: the first editor after a page reload (HTTP cache warm, the
 *      kernel session kept).
 *    The same three again in a persistent profile (temp user-data dir, HTTP
 *    cache on disk, as a person's browser has) for MOLSPACE_BENCH_KETCHER_DISK_N
 *    rounds: in Playwright's new contexts (HTTP cache in memory) the Indigo WASM
 *    was fetched again for every editor, in a persistent profile it was not.
 *    BASELINE, in the same page at the same moments: a cell
 *    `ipywidgets.Label("<marker>")` → the label's element is in the DOM. Its
 *    cold run is the first widget of the page (it loads the widget manager's
 *    controls); its warm runs come after the Ketcher ones.
 * 2. JupyterLab start: navigation start → `window.jupyterapp.restored`, and →
 *    the launcher shown (`.jp-Launcher` in the DOM), on `/lab` with no notebook
 *    open; "cold" a new context, "warm" a reload. With molspace against the
 *    same server config WITHOUT it (its labextension left out of a temp
 *    `labextensions_path`, its server extension off: as bench/lab_startup.mjs).
 *    Every request of every start (cold and warm, until the network is idle) is
 *    checked: none may be under `static/ketcher/` (reported, not failed on).
 *    Runs before (1), while the servers' workspaces are empty, so that the
 *    launcher is what JupyterLab shows.
 * 3. Sizes of the frame's assets as the server serves them (the installed
 *    labextension's `static/ketcher/`): raw and gzip -6 per file and per kind,
 *    and the bytes Chromium received for them in the cold editor load.
 *
 *    Each round once per mode of the page's spare editor frame (localStorage
 *    `molspace.ketcherSpare`): "off" (no spare), "unwarmed" (a spare without
 *    its warm-up) and "on" (the default: a spare that ran its warm-up), in an
 *    order rotated every round (MOLSPACE_BENCH_KETCHER_MODES, default
 *    "off,unwarmed,on"); with a spare, the second editor runs once the spare is
 *    ready (`spareReadyAfter`: ms from the first editor's ready until then).
 *    FLOOR: the same frame page (`static/ketcher/index.html`) as a plain page,
 *    no JupyterLab, kernel or widget: navigation → its `ready` message (the
 *    frame posts it to itself), cold in a new context, then two reloads. Cold
 *    editors are compared with the floor's cold load, the others with its reloads.
 * (1) runs N rounds, each in a new context on the server with molspace; in
 * (2) with / without alternate, order swapped every round. Medians and p90;
 * nothing fails on a time. Bounded: the whole run stops itself after MOLSPACE_BENCH_KETCHER_BUDGET_S
 * (default 900 s), servers and browser included.
 *
 *   node bench/ketcher.mjs    # MOLSPACE_BENCH_KETCHER_N (5), _KETCHER_DISK_N (3), _KETCHER_FLOOR_N (5), MOLSPACE_BENCH_STARTUP_N (5; 0 skips (2))
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { chromium } from 'playwright';
import {
  CHROMIUM,
  CHROMIUM_ARGS,
  execCell,
  fmt,
  launchBrowser,
  log,
  newContext,
  openNotebook,
  PORTS,
  quantile,
  sleep,
  startServer,
  stopOnExit,
  TOKEN,
  waitRestored,
  writeNotebook,
  writeResult
} from './lib.mjs';

const N = Number(process.env.MOLSPACE_BENCH_KETCHER_N || 5);
const N_START = Number(process.env.MOLSPACE_BENCH_STARTUP_N || 5);
const N_DISK = Number(process.env.MOLSPACE_BENCH_KETCHER_DISK_N || 3);
/** Spare-frame modes each round runs (localStorage `molspace.ketcherSpare`; "on" is the default). */
const MODES = (process.env.MOLSPACE_BENCH_KETCHER_MODES || 'off,unwarmed,on').split(',');
const MODE_SUFFIX = { on: '', unwarmed: 'Unwarmed', off: 'NoSpare' };
for (const m of MODES) if (!(m in MODE_SUFFIX)) throw new Error(`MOLSPACE_BENCH_KETCHER_MODES: unknown mode "${m}" (use off, unwarmed, on)`);
const N_FLOOR = Number(process.env.MOLSPACE_BENCH_KETCHER_FLOOR_N || 5);
const BUDGET_S = Number(process.env.MOLSPACE_BENCH_KETCHER_BUDGET_S || 900);
const SMILES = 'CC(=O)Oc1ccccc1C(=O)O';
const KETCHER_PATH = '/lab/extensions/molspace/static/ketcher/';
const NB = 'ketcher_bench.ipynb';
// Cells: 0 import, 1 label, 2 first editor, 3 second editor, 4 second label.
const CELL = { imports: 0, label: 1, editor: 2, editor2: 3, label2: 4 };

const stats = values => ({
  n: values.length,
  p50: quantile(values, 0.5),
  p90: quantile(values, 0.9),
  min: Math.min(...values),
  max: Math.max(...values)
});
const load = () =>
  os
    .loadavg()
    .map(v => v.toFixed(2))
    .join(' ');

// ------------------------------------------------------------------ 3. sizes
/** The `static/ketcher/` folder the server serves (the first labextensions path holding molspace). */
function servedKetcherDir() {
  const paths = JSON.parse(
    execFileSync('python', [
      '-c',
      "import json; from jupyter_core.paths import jupyter_path; print(json.dumps(jupyter_path('labextensions')))"
    ]).toString()
  );
  for (const p of paths) {
    const dir = path.join(p, 'molspace', 'static', 'ketcher');
    if (fs.existsSync(dir)) return dir;
  }
  throw new Error(`no molspace/static/ketcher in ${paths.join(', ')}: install molspace (scripts/install.sh)`);
}

/** What a file of the frame is: the entry bundle, the Indigo worker (the chunk that loads the WASM), other chunks... */
function kindOf(name, bytes) {
  if (name.endsWith('.wasm')) return 'Indigo WASM';
  if (name === 'index.html') return 'frame page';
  if (/^frame\.[0-9a-f]+\.js$/.test(name)) return 'frame JS (entry)';
  if (name.endsWith('.js') && /onmessage/.test(bytes.toString('latin1')) && /\.wasm"/.test(bytes.toString('latin1')))
    return 'Indigo worker JS';
  if (name.endsWith('.js')) return 'chunks JS';
  return 'other (css, fonts, images)';
}

function assetSizes(dir) {
  const files = [];
  const walk = d => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else {
        const raw = fs.readFileSync(p);
        files.push({
          name: path.relative(dir, p),
          kind: kindOf(e.name, raw),
          raw: raw.length,
          gzip: zlib.gzipSync(raw, { level: 6 }).length
        });
      }
    }
  };
  walk(dir);
  files.sort((a, b) => b.raw - a.raw);
  const kinds = {};
  for (const f of files) {
    const k = (kinds[f.kind] ??= { files: 0, raw: 0, gzip: 0 });
    k.files++;
    k.raw += f.raw;
    k.gzip += f.gzip;
  }
  const total = files.reduce((s, f) => ({ files: s.files + 1, raw: s.raw + f.raw, gzip: s.gzip + f.gzip }), { files: 0, raw: 0, gzip: 0 });
  return { dir, files, kinds, total };
}

// ------------------------------------------------------------------ helpers
const servers = [];
const stopAll = stopOnExit(servers);
let browser;
const watchdog = setTimeout(async () => {
  console.error(`ketcher bench: over its budget of ${BUDGET_S} s; stopping`);
  await browser?.close().catch(() => undefined);
  await stopAll();
  process.exit(1);
}, BUDGET_S * 1000);
watchdog.unref();

/** Requests finished in `context`, with body bytes as received (workers' requests included). */
function recordRequests(context) {
  const list = [];
  context.on('requestfinished', async req => {
    const sizes = await req.sizes().catch(() => null);
    const resp = await req.response().catch(() => null);
    const t = req.timing();
    list.push({
      url: req.url(),
      body: Math.max(0, sizes?.responseBodySize ?? 0),
      status: resp?.status() ?? 0,
      encoding: resp?.headers()['content-encoding'] ?? '',
      endEpoch: t.startTime > 0 && t.responseEnd >= 0 ? t.startTime + t.responseEnd : NaN
    });
  });
  context.on('requestfailed', req => list.push({ url: req.url(), body: 0, status: 0, failed: req.failure()?.errorText ?? 'failed' }));
  return list;
}

/**
 * Run `source` in cell `index` (appending cells as needed); resolve with ms
 * from the command to each milestone of the NEW widget of `kind` ("ketcher":
 * `.molspace-ketcher` until ready; "label": `.widget-label` in the DOM).
 * Widgets present before are marked old. `ms` is the figure measured.
 */
async function timeCell(page, index, source, kind) {
  return page.evaluate(
    async ({ index, source, kind }) => {
      const selector = kind === 'ketcher' ? '.molspace-ketcher' : '.widget-label';
      document.querySelectorAll(selector).forEach(e => e.setAttribute('data-bench-old', ''));
      const app = window.jupyterapp;
      const nb = app.shell.currentWidget.content;
      while (nb.widgets.length <= index) {
        nb.model.sharedModel.insertCell(nb.widgets.length, { cell_type: 'code', source: '' });
      }
      nb.activeCellIndex = index;
      nb.deselectAll();
      nb.activeCell.model.sharedModel.setSource(source);
      const marks = {};
      let t0 = 0;
      let frameSeen = null;
      const done = new Promise((resolve, reject) => {
        const check = () => {
          const el = document.querySelector(`${selector}:not([data-bench-old])`);
          if (!el) return;
          marks.view ??= performance.now() - t0;
          if (kind !== 'ketcher') {
            mo.disconnect();
            resolve();
            return;
          }
          const frame = el.querySelector('iframe');
          if (frame && frame !== frameSeen) {
            frameSeen = frame;
            frame.addEventListener('load', () => (marks.frameLoad ??= performance.now() - t0), { once: true });
          }
          if (el.getAttribute('data-molspace-ready') === 'true') {
            marks.ready = performance.now() - t0;
            mo.disconnect();
            resolve();
          }
        };
        const mo = new MutationObserver(check);
        mo.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-molspace-ready'] });
        setTimeout(() => reject(new Error(`no ready ${kind} within 120 s: ${JSON.stringify(marks)}`)), 120_000);
      });
      t0 = performance.now();
      marks.t0Epoch = performance.timeOrigin + t0;
      const run = app.commands.execute('notebook:run-cell').then(() => (marks.reply = performance.now() - t0));
      await Promise.all([done, run]);
      if (kind === 'ketcher') {
        const el = document.querySelector('.molspace-ketcher:not([data-bench-old])');
        const err = el.querySelector('.molspace-ketcher-error');
        if (err && !err.hidden && err.textContent) throw new Error(`the editor reported an error: ${err.textContent}`);
      }
      marks.ms = kind === 'ketcher' ? marks.ready : marks.view;
      return marks;
    },
    { index, source, kind }
  );
}

/**
 * Add to `marks` when the frame's entry JS and the Indigo WASM had arrived
 * (ms after the cell was run; Playwright's request timing), from `requests`
 * finished since index `from`.
 */
function addAssetMarks(marks, requests, from) {
  const end = re => requests.slice(from).find(r => r.url.includes(KETCHER_PATH) && re.test(r.url) && Number.isFinite(r.endEpoch));
  const js = end(/\/frame\.[0-9a-f]+\.js/);
  const wasm = end(/\.wasm/);
  if (js) marks.frameJs = js.endEpoch - marks.t0Epoch;
  if (wasm) marks.wasm = wasm.endEpoch - marks.t0Epoch;
  const mine = requests.slice(from).filter(r => r.url.includes(KETCHER_PATH));
  marks.ketcherRequests = mine.length;
  marks.ketcherBytes = mine.reduce((s, r) => s + r.body, 0);
  marks.ketcherStatuses = [...new Set(mine.map(r => r.status))].join(',');
  return marks;
}

/** Wait for `nbPath` to be the current notebook with an idle kernel (after a reload). */
async function waitNotebook(page, nbPath) {
  await waitRestored(page);
  await page.waitForFunction(
    nb => {
      const w = window.jupyterapp.shell.currentWidget;
      const s = w?.sessionContext;
      return w?.context?.path === nb && s?.session?.kernel && s.kernelDisplayStatus === 'idle';
    },
    nbPath,
    { timeout: 120_000, polling: 50 }
  );
}

/** One JupyterLab start, cold (new context) then warm (reload): ms to restored and to the launcher; every request. */
async function labStart(server) {
  const context = await newContext(browser);
  const requests = recordRequests(context);
  const page = await context.newPage();
  const once = async nav => {
    await nav();
    const restored = await waitRestored(page);
    const launcher = await page
      .waitForFunction(() => (document.querySelector('.jp-Launcher') ? performance.now() : false), null, {
        polling: 'raf',
        timeout: 60_000
      })
      .then(h => h.jsonValue());
    await page.waitForLoadState('networkidle', { timeout: 15_000 }).catch(() => undefined);
    await sleep(500);
    return { restored, launcher };
  };
  const cold = await once(() => page.goto(`${server.url}/lab`, { waitUntil: 'commit' }));
  const coldRequests = requests.length;
  const warm = await once(() => page.reload({ waitUntil: 'commit' }));
  await context.close();
  return {
    cold,
    warm,
    requests: requests.length,
    coldBytes: requests.slice(0, coldRequests).reduce((s, r) => s + r.body, 0),
    molspaceColdBytes: requests
      .slice(0, coldRequests)
      .filter(r => r.url.includes('/lab/extensions/molspace/'))
      .reduce((s, r) => s + r.body, 0),
    ketcherRequests: requests.filter(r => r.url.includes('/static/ketcher/')).map(r => r.url)
  };
}

// ------------------------------------------------------------------ run
let exitCode = 0;
try {
  const sizes = assetSizes(servedKetcherDir());
  log(
    `frame assets in ${sizes.dir}: ${sizes.total.files} files, ${(sizes.total.raw / 1e6).toFixed(2)} MB raw, ${(sizes.total.gzip / 1e6).toFixed(2)} MB gzip; load ${load()}`
  );

  servers.push(await startServer({ port: PORTS.a, name: 'ketcher-with', molspace: true }));
  servers.push(await startServer({ port: PORTS.b, name: 'ketcher-without', molspace: false }));
  const [withMs, withoutMs] = servers;
  writeNotebook(withMs.root, NB);
  browser = await launchBrowser();
  const loadStart = load();

  // ---------------------------------------------------------- 2. start-up (first: an empty workspace, so the launcher shows)
  const starts = { with: [], without: [] };
  if (N_START > 0) {
    await labStart(withMs); // unmeasured: server-side caches warm up
    await labStart(withoutMs);
  }
  for (let i = 0; i < N_START; i++) {
    const order = i % 2 === 0 ? [withMs, withoutMs] : [withoutMs, withMs];
    for (const server of order) {
      const s = await labStart(server);
      starts[server.molspace ? 'with' : 'without'].push(s);
      log(
        `start ${i + 1}/${N_START} ${server.molspace ? 'with   ' : 'without'}: cold restored ${Math.round(s.cold.restored)} / launcher ${Math.round(s.cold.launcher)} ms, ` +
          `warm ${Math.round(s.warm.restored)} / ${Math.round(s.warm.launcher)} ms, ${s.requests} requests`
      );
    }
  }
  // ---------------------------------------------------------- 1. editor ready
  const editor = {};
  const label = {};
  let coldKetcherRequests = [];
  /** One round: a new context (`disk`: a persistent profile in a temp dir, its HTTP cache on disk). */
  async function editorRound(i, disk, mode) {
    const spare = mode !== 'off';
    const sfx = (disk ? 'Disk' : '') + MODE_SUFFIX[mode];
    const push = (table, key, value) => (table[key + sfx] ??= []).push(value);
    const profile = disk ? fs.mkdtempSync(path.join(os.tmpdir(), 'molspace-bench-profile-')) : null;
    const context = disk
      ? await chromium.launchPersistentContext(profile, {
          executablePath: CHROMIUM,
          headless: true,
          args: CHROMIUM_ARGS,
          viewport: { width: 1280, height: 900 },
          extraHTTPHeaders: { Authorization: `token ${TOKEN}` }
        })
      : await newContext(browser);
    if (mode !== 'on') await context.addInitScript(m => window.localStorage.setItem('molspace.ketcherSpare', m), mode);
    try {
      const requests = recordRequests(context);
      const page = await context.newPage();
      await openNotebook(page, withMs, NB);
      await execCell(page, CELL.imports, 'import molspace, ipywidgets');
      push(label, 'cold', await timeCell(page, CELL.label, `ipywidgets.Label("bench-label-${i}${sfx}-cold")`, 'label'));
      let before = requests.length;
      const cold = await timeCell(page, CELL.editor, `molspace.Ketcher(${JSON.stringify(SMILES)})`, 'ketcher');
      await page.waitForLoadState('networkidle', { timeout: 10_000 }).catch(() => undefined);
      push(editor, 'cold', addAssetMarks(cold, requests, before));
      if (i === 0 && !disk) coldKetcherRequests = requests.slice(before).filter(r => r.url.includes(KETCHER_PATH));
      if (spare) {
        // The page's spare frame starts in idle time after the first editor: the time until it is ready, from the first editor's ready.
        const t = Date.now();
        await page.waitForSelector('.molspace-ketcher-spare[data-molspace-ready="true"]', { state: 'attached', timeout: 120_000 });
        cold.spareReadyAfter = Date.now() - t;
      }
      before = requests.length;
      const second = await timeCell(page, CELL.editor2, `molspace.Ketcher(${JSON.stringify(SMILES)})`, 'ketcher');
      // The frame's own user timing of its last `set` (frame/main.ts): check, load, snapshot, ms.
      Object.assign(
        second,
        await page.evaluate(() => {
          const frames = [...document.querySelectorAll('.molspace-ketcher iframe')];
          const perf = frames.at(-1)?.contentWindow?.performance;
          const ms = phase => perf?.getEntriesByName(`molspace.ketcher.set.${phase}`).at(-1)?.duration ?? NaN;
          return { setCheck: ms('check'), setLoad: ms('load'), setSnapshot: ms('snapshot') };
        })
      );
      await page.waitForLoadState('networkidle', { timeout: 10_000 }).catch(() => undefined);
      push(editor, 'second', addAssetMarks(second, requests, before));
      push(label, 'second', await timeCell(page, CELL.label2, `ipywidgets.Label("bench-label-${i}${sfx}-second")`, 'label'));
      // Reload: clear the outputs and save first, so that no editor is restored by the reload itself.
      await page.evaluate(async () => {
        const app = window.jupyterapp;
        await app.commands.execute('notebook:clear-all-cell-outputs');
        await app.shell.currentWidget.context.save();
      });
      await page.reload({ waitUntil: 'commit' });
      await waitNotebook(page, NB);
      push(label, 'reload', await timeCell(page, CELL.label, `ipywidgets.Label("bench-label-${i}${sfx}-reload")`, 'label'));
      before = requests.length;
      const reloaded = await timeCell(page, CELL.editor, `molspace.Ketcher(${JSON.stringify(SMILES)})`, 'ketcher');
      await page.waitForLoadState('networkidle', { timeout: 10_000 }).catch(() => undefined);
      push(editor, 'reload', addAssetMarks(reloaded, requests, before));
      // Leave the notebook clean for the next round's context; the kernel is shut down with the session.
      await page.evaluate(async () => {
        const app = window.jupyterapp;
        await app.commands.execute('notebook:clear-all-cell-outputs');
        await app.shell.currentWidget.context.save();
        await app.shell.currentWidget.sessionContext.shutdown();
      });
    } finally {
      await context.close();
      if (profile) fs.rmSync(profile, { recursive: true, force: true });
    }
    const last = (t, k) => Math.round(t[k + sfx].at(-1).ms);
    log(
      `round ${i + 1} (${disk ? 'on-disk profile' : 'new context'}, spare frame ${mode}): editor cold ${last(editor, 'cold')}, second ${last(editor, 'second')}, after reload ${last(editor, 'reload')} ms ` +
        `(reload: ${(editor['reload' + sfx].at(-1).ketcherBytes / 1e6).toFixed(2)} MB of frame assets received); ` +
        `label cold ${last(label, 'cold')}, second ${last(label, 'second')}, after reload ${last(label, 'reload')} ms; load ${load()}`
    );
  }
  // Before / after in one run: the page's spare editor frame off, on without its warm-up
  // (localStorage["molspace.ketcherSpare"]) and on, the order rotated every round.
  const rotated = i => MODES.map((_, j) => MODES[(i + j) % MODES.length]);
  for (let i = 0; i < N; i++) {
    for (const mode of rotated(i)) await editorRound(i, false, mode);
  }
  for (let i = 0; i < N_DISK; i++) {
    for (const mode of rotated(i)) await editorRound(i, true, mode);
  }
  // FLOOR: the same frame page as a plain page (no JupyterLab, no kernel): navigation → its "ready" message. Cold: new context; warm: reloads.
  const floor = { cold: [], warm: [] };
  for (let i = 0; i < N_FLOOR; i++) {
    const context = await newContext(browser);
    try {
      const page = await context.newPage();
      await page.addInitScript(() => {
        window.__floorReady = new Promise(resolve =>
          window.addEventListener('message', e => {
            if (e.data?.event === 'ready') resolve(performance.now());
            if (e.data?.event === 'failed') resolve(-1);
          })
        );
      });
      const url = `${withMs.url}${KETCHER_PATH}index.html?v=floor`;
      await page.goto(url, { waitUntil: 'commit' });
      floor.cold.push(await page.evaluate(() => window.__floorReady));
      for (let r = 0; r < 2; r++) {
        await page.reload({ waitUntil: 'commit' });
        floor.warm.push(await page.evaluate(() => window.__floorReady));
      }
    } finally {
      await context.close();
    }
    log(
      `floor ${i + 1}/${N_FLOOR}: plain page cold ${Math.round(floor.cold.at(-1))} ms, reloads ${floor.warm.slice(-2).map(Math.round).join(', ')} ms; load ${load()}`
    );
  }

  const loadEnd = load();

  // ---------------------------------------------------------- summary
  const pick = (list, key) => stats(list.map(m => m[key]).filter(Number.isFinite));
  const editorOut = {};
  for (const k of Object.keys(editor)) {
    if (!label[k]) continue;
    editorOut[k] = {
      ketcher: {
        ready: pick(editor[k], 'ready'),
        view: pick(editor[k], 'view'),
        frameJs: pick(editor[k], 'frameJs'),
        frameLoad: pick(editor[k], 'frameLoad'),
        wasm: pick(editor[k], 'wasm'),
        reply: pick(editor[k], 'reply'),
        spareReadyAfter: pick(editor[k], 'spareReadyAfter'),
        setCheck: pick(editor[k], 'setCheck'),
        setLoad: pick(editor[k], 'setLoad'),
        setSnapshot: pick(editor[k], 'setSnapshot'),
        ketcherRequests: pick(editor[k], 'ketcherRequests'),
        ketcherBytes: pick(editor[k], 'ketcherBytes'),
        ketcherStatuses: [...new Set(editor[k].map(m => m.ketcherStatuses))]
      },
      label: { shown: pick(label[k], 'view'), reply: pick(label[k], 'reply') }
    };
    editorOut[k].ratioP50 = editorOut[k].ketcher.ready.p50 / editorOut[k].label.shown.p50;
  }
  const st = (list, phase, key) => stats(list.map(s => s[phase][key]));
  const startOut = {};
  for (const v of ['with', 'without']) {
    startOut[v] = {
      cold: { restored: st(starts[v], 'cold', 'restored'), launcher: st(starts[v], 'cold', 'launcher') },
      warm: { restored: st(starts[v], 'warm', 'restored'), launcher: st(starts[v], 'warm', 'launcher') },
      coldBytes: stats(starts[v].map(s => s.coldBytes)),
      molspaceColdBytes: stats(starts[v].map(s => s.molspaceColdBytes))
    };
  }
  const ratio = (phase, key) => startOut.with[phase][key].p50 / startOut.without[phase][key].p50;
  const ketcherAtStart = starts.with.flatMap(s => s.ketcherRequests);
  const startLoads = starts.with.length * 2;
  const received = coldKetcherRequests.map(r => ({
    file: r.url.slice(r.url.indexOf(KETCHER_PATH) + KETCHER_PATH.length).replace(/\?.*/, ''),
    body: r.body,
    status: r.status,
    encoding: r.encoding
  }));
  const floorOut = { cold: stats(floor.cold), warm: stats(floor.warm) };
  const out = {
    floor: floorOut,
    n: N,
    nDisk: N_DISK,
    nStart: N_START,
    smiles: SMILES,
    load: { start: loadStart, end: loadEnd },
    editor: editorOut,
    startup: {
      ...startOut,
      ratio: {
        coldRestored: ratio('cold', 'restored'),
        coldLauncher: ratio('cold', 'launcher'),
        warmRestored: ratio('warm', 'restored'),
        warmLauncher: ratio('warm', 'launcher')
      },
      loadsChecked: startLoads,
      ketcherRequestsAtStart: ketcherAtStart
    },
    sizes: { dir: sizes.dir, kinds: sizes.kinds, total: sizes.total, files: sizes.files },
    coldEditorReceived: { files: received, bytes: received.reduce((s, r) => s + r.body, 0) },
    raw: { editor, label, starts }
  };

  const p = s => `${fmt(s.p50, 0)} / ${fmt(s.p90, 0)}`;
  console.log(`\nKetcher editor ready, run cell → data-molspace-ready="true", ms p50 / p90 (N=${N}); baseline ipywidgets.Label shown:`);
  console.log(
    '                        Ketcher          Label       ratio p50   [Ketcher p50: view / frame JS in / frame load / WASM in / reply]'
  );
  const rows = [];
  for (const [k, title] of [
    ['cold', 'cold (new context)'],
    ['second', 'second in the page'],
    ['reload', 'after reload'],
    ['coldDisk', 'cold, disk profile'],
    ['secondDisk', 'second, disk profile'],
    ['reloadDisk', 'reload, disk profile']
  ]) {
    rows.push([k, `${title}, spare on`], [`${k}Unwarmed`, `${title}, spare unwarmed`], [`${k}NoSpare`, `${title}, spare off`]);
  }
  for (const [k, title] of rows) {
    if (!editorOut[k]) continue;
    const e = editorOut[k];
    // Against the floor (the frame page alone): cold rows against its cold load, the others against its reloads.
    const f = k.startsWith('cold') ? floorOut.cold : floorOut.warm;
    e.floorRatioP50 = e.ketcher.ready.p50 / f.p50;
    console.log(
      `${title.padEnd(36)} ${(e.floorRatioP50.toFixed(2) + '× floor').padStart(12)}${Number.isFinite(e.ketcher.spareReadyAfter.p50) ? ` (spare ready ${fmt(e.ketcher.spareReadyAfter.p50, 0)} ms after)` : ''} ${p(e.ketcher.ready).padStart(13)}   ${p(e.label.shown).padStart(11)}   ${e.ratioP50.toFixed(1).padStart(7)}×   [${fmt(e.ketcher.view.p50, 0)} / ${fmt(e.ketcher.frameJs.p50, 0)} / ${fmt(e.ketcher.frameLoad.p50, 0)} / ${fmt(e.ketcher.wasm.p50, 0)} / ${fmt(e.ketcher.reply.p50, 0)}]` +
        (Number.isFinite(e.ketcher.setLoad.p50)
          ? ` [set in the frame: check ${fmt(e.ketcher.setCheck.p50, 0)} / load ${fmt(e.ketcher.setLoad.p50, 0)} / snapshot ${fmt(e.ketcher.setSnapshot.p50, 0)}]`
          : '') +
        ` ${fmt(e.ketcher.ketcherRequests.p50, 0)} frame requests, ${(e.ketcher.ketcherBytes.p50 / 1e6).toFixed(2)} MB body, status ${e.ketcher.ketcherStatuses.join(' ')}`
    );
  }
  console.log(
    `floor (the frame page alone, navigation → ready), ms p50 / p90: cold ${p(floorOut.cold)} (N=${floorOut.cold.n}), reload ${p(floorOut.warm)} (N=${floorOut.warm.n})`
  );
  if (N_START > 0) {
    console.log(`\nJupyterLab start, navigation → restored and → launcher shown, ms p50 / p90 (N=${N_START} each):`);
    console.log('                     with molspace      without      ratio p50');
    for (const phase of ['cold', 'warm']) {
      for (const key of ['restored', 'launcher']) {
        console.log(
          `${`${phase} ${key}`.padEnd(20)} ${p(startOut.with[phase][key]).padStart(13)}   ${p(startOut.without[phase][key]).padStart(11)}   ${ratio(phase, key).toFixed(3)}×`
        );
      }
    }
    console.log(
      `bytes at a cold start: ${(startOut.with.coldBytes.p50 / 1e6).toFixed(2)} MB with, ${(startOut.without.coldBytes.p50 / 1e6).toFixed(2)} MB without; molspace's own ${(startOut.with.molspaceColdBytes.p50 / 1e3).toFixed(1)} kB`
    );
    console.log(
      ketcherAtStart.length
        ? `REQUESTS UNDER static/ketcher/ DURING START (${ketcherAtStart.length}): ${ketcherAtStart.join(', ')}`
        : `no request under static/ketcher/ during ${startLoads} starts with molspace (cold and warm): OK`
    );
  }
  console.log(`\nFrame assets (${sizes.dir}), bytes raw / gzip -6:`);
  for (const [k, v] of Object.entries(sizes.kinds))
    console.log(`  ${k.padEnd(28)} ${String(v.files).padStart(3)} files ${String(v.raw).padStart(10)} / ${String(v.gzip).padStart(9)}`);
  console.log(
    `  ${'total'.padEnd(28)} ${String(sizes.total.files).padStart(3)} files ${String(sizes.total.raw).padStart(10)} / ${String(sizes.total.gzip).padStart(9)}`
  );
  for (const f of sizes.files.slice(0, 8)) console.log(`    ${f.name} ${f.raw} / ${f.gzip}`);
  console.log(`received in the first cold editor load (body bytes, content-encoding): ${out.coldEditorReceived.bytes} B`);
  for (const r of received) console.log(`    ${r.file} ${r.body} B ${r.status} ${r.encoding}`);
  console.log(`load average at start ${loadStart}, at end ${loadEnd}`);
  writeResult('ketcher', out);
} catch (e) {
  console.error(e);
  exitCode = 1;
} finally {
  clearTimeout(watchdog);
  await browser?.close().catch(() => undefined);
  await stopAll();
}
process.exit(exitCode);
