/**
 * Shared steps of the molspace benchmarks: start and stop a real Jupyter
 * server (own port, temp root, token auth), launch Debian's Chromium with the
 * flags the Galata tests use, drive a notebook through `window.jupyterapp`,
 * connect the official MCP client, and summarise timings (median, p95, N).
 *
 * Nothing here asserts a time: the scripts print figures and ratios against a
 * baseline measured in the same run, and write them to bench/results/*.json
 * for bench/report.mjs.
 */
import { createRequire } from 'node:module';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright';

export const BENCH = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(BENCH, '..');
export const RESULTS = path.join(BENCH, 'results');
export const TOKEN = 'molspace-bench-token';
export const CHROMIUM = process.env.MOLSPACE_BENCH_CHROMIUM || '/usr/bin/chromium';
/** Ports of the benchmark servers (8888 is left to the tests / CI). */
export const PORTS = { a: Number(process.env.MOLSPACE_BENCH_PORT_A || 8899), b: Number(process.env.MOLSPACE_BENCH_PORT_B || 8898) };

/** Chromium flags shared with the Galata tests (ui-tests/chromium.js). */
export const CHROMIUM_ARGS = createRequire(import.meta.url)('../ui-tests/chromium.js').args;
/** What the benchmarks share with the Galata tests: notebook files, the server wait, the MCP client. */
const harness = createRequire(import.meta.url)('../ui-tests/harness.js');

// ------------------------------------------------------------------ numbers

export function quantile(values, q) {
  if (!values.length) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}

/** `{n, p50, p95, min, max}` of a list of milliseconds. */
export function summary(values) {
  return {
    n: values.length,
    p50: quantile(values, 0.5),
    p95: quantile(values, 0.95),
    min: Math.min(...values),
    max: Math.max(...values)
  };
}

export const fmt = (ms, digits = 1) => (Number.isFinite(ms) ? ms.toFixed(digits) : 'n/a');

export function log(...args) {
  console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...args);
}

export function writeResult(name, data) {
  fs.mkdirSync(RESULTS, { recursive: true });
  const file = path.join(RESULTS, `${name}.json`);
  fs.writeFileSync(file, JSON.stringify({ name, date: new Date().toISOString(), ...data }, null, 2));
  log(`wrote ${path.relative(ROOT, file)}`);
}

export const sleep = ms => new Promise(r => setTimeout(r, ms));

// ------------------------------------------------------------------ server

/**
 * Start `jupyter lab` on `port` with token auth, a temp root dir (the demo
 * notebook and its Story copied in) and a temp workspaces dir.
 *
 * @param {object} opts
 * @param {number} opts.port
 * @param {boolean} [opts.molspace=true] false: serve JupyterLab without the
 *   molspace labextension (the other installed labextensions are kept, via a
 *   temp `labextensions_path`) and without its server extension.
 * @param {string} [opts.name] label used in the temp dir name and log file.
 * @param {string[]} [opts.config] more lines of the server's config file.
 */
export async function startServer({ port, molspace = true, name = 'server', config = [] }) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `molspace-bench-${name}-`));
  const root = path.join(tmp, 'root');
  fs.mkdirSync(path.join(root, 'data'), { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'examples', 'demo.ipynb'), path.join(root, 'demo.ipynb'));
  fs.copyFileSync(path.join(ROOT, 'examples', 'data', '1cbs-story.mvsx'), path.join(root, 'data', '1cbs-story.mvsx'));

  const lines = [
    `c.ServerApp.port = ${port}`,
    'c.ServerApp.port_retries = 0',
    'c.ServerApp.open_browser = False',
    'c.ServerApp.allow_root = True',
    `c.ServerApp.root_dir = ${JSON.stringify(root)}`,
    `c.IdentityProvider.token = ${JSON.stringify(TOKEN)}`,
    `c.LabApp.workspaces_dir = ${JSON.stringify(path.join(tmp, 'workspaces'))}`,
    // Settings changed by a benchmark (e.g. ipywidgets' saveState) stay in the temp dir.
    `c.LabApp.user_settings_dir = ${JSON.stringify(path.join(tmp, 'settings'))}`,
    'c.LabApp.expose_app_in_browser = True',
    'c.LabApp.news_url = None',
    'c.LabApp.check_for_updates_class = "jupyterlab.NeverCheckForUpdate"',
    'c.ServerApp.log_level = "WARN"'
  ];
  if (!molspace) {
    // The same labextensions minus molspace: symlink every other one into a temp path.
    const extDir = path.join(tmp, 'labextensions');
    fs.mkdirSync(extDir);
    const paths = JSON.parse(
      await run('python', ['-c', "import json; from jupyter_core.paths import jupyter_path; print(json.dumps(jupyter_path('labextensions')))"])
    );
    for (const p of paths.reverse()) {
      if (!fs.existsSync(p)) continue;
      for (const entry of fs.readdirSync(p)) {
        if (entry === 'molspace') continue;
        const dest = path.join(extDir, entry);
        if (fs.existsSync(dest)) fs.rmSync(dest, { recursive: true, force: true });
        fs.symlinkSync(path.join(p, entry), dest);
      }
    }
    lines.push(`c.LabApp.labextensions_path = [${JSON.stringify(extDir)}]`);
    lines.push('c.ServerApp.jpserver_extensions = {"molspace": False}');
  }
  lines.push(...config);
  const configFile = path.join(tmp, 'jupyter_server_config.py');
  fs.writeFileSync(configFile, lines.join('\n') + '\n');
  const logFile = path.join(tmp, 'server.log');
  const out = fs.openSync(logFile, 'w');
  const child = spawn('jupyter', ['lab', '--config', configFile], {
    cwd: tmp,
    stdio: ['ignore', out, out],
    env: process.env,
    detached: true
  });
  const url = `http://localhost:${port}`;
  let upMs;
  try {
    upMs = await harness.waitForServer(url, TOKEN, {
      stillStarting: () => (child.exitCode === null ? null : `exited (${child.exitCode}); see ${logFile}:\n${fs.readFileSync(logFile, 'utf8').slice(-3000)}`)
    });
  } catch (e) {
    await stopProcess(child);
    throw new Error(`${e.message} (port ${port}; log ${logFile})`);
  }
  log(`jupyter lab (${molspace ? 'with' : 'without'} molspace) up on ${url} after ${fmt(upMs, 0)} ms, pid ${child.pid}`);
  return {
    url,
    port,
    root,
    tmp,
    logFile,
    molspace,
    pid: child.pid,
    async stop() {
      await stopProcess(child);
      log(`stopped jupyter lab on ${port} (pid ${child.pid})`);
    }
  };
}

/** SIGTERM the process group we started (the server and its kernels), SIGKILL after 10 s. */
async function stopProcess(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const done = new Promise(r => child.once('exit', r));
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }, 10_000);
  await done;
  clearTimeout(timer);
}

function run(cmd, args) {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', d => (out += d));
    p.on('exit', code => (code === 0 ? resolve(out) : reject(new Error(`${cmd} exited ${code}`))));
  });
}

/** Stop every server in `servers` when the process ends, however it ends. */
export function stopOnExit(servers) {
  let stopping = false;
  const stopAll = async () => {
    if (stopping) return;
    stopping = true;
    await Promise.allSettled(servers.map(s => s.stop()));
  };
  for (const sig of ['SIGINT', 'SIGTERM']) {
    process.once(sig, async () => {
      await stopAll();
      process.exit(1);
    });
  }
  return stopAll;
}

// ------------------------------------------------------------------ browser

export async function launchBrowser() {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/**
 * A fresh context (empty HTTP cache) whose requests carry the Jupyter token.
 * Every page counts its WebGL draw calls in `window.__molspaceBenchDraws`
 * (see {@link waitSettled}); the wrapper costs one increment per call.
 */
export async function newContext(browser) {
  const context = await browser.newContext({
    viewport: { width: 1280, height: 900 },
    extraHTTPHeaders: { Authorization: `token ${TOKEN}` }
  });
  await context.addInitScript(() => {
    window.__molspaceBenchDraws = 0;
    for (const P of [window.WebGL2RenderingContext?.prototype, window.WebGLRenderingContext?.prototype]) {
      for (const m of ['drawElements', 'drawArrays', 'drawElementsInstanced', 'drawArraysInstanced']) {
        const orig = P?.[m];
        if (!orig) continue;
        P[m] = function (...args) {
          window.__molspaceBenchDraws++;
          return orig.apply(this, args);
        };
      }
    }
  });
  return context;
}

/**
 * Wait until the page issued no WebGL draw call for `quietMs` (Mol* keeps
 * refining a new step for several frames; on SwiftShader each takes ~1 s and
 * blocks the page's main thread). Returns the ms waited. `counter`: the
 * window property to watch (`__molspaceBenchInstanced` of
 * {@link instrumentWebgl} also counts same-origin frames' draws).
 */
export async function waitSettled(page, quietMs = 1500, timeoutMs = 90_000, counter = '__molspaceBenchDraws') {
  const t0 = performance.now();
  const read = () => page.evaluate(c => window[c] ?? 0, counter);
  let last = await read();
  let quietSince = performance.now();
  while (performance.now() - t0 < timeoutMs) {
    await sleep(250);
    const now = await read();
    if (now !== last) {
      last = now;
      quietSince = performance.now();
    } else if (performance.now() - quietSince >= quietMs) {
      break;
    }
  }
  return performance.now() - t0;
}

/** Resolve once `window.jupyterapp.restored` has; returns ms since navigation start. */
export async function waitRestored(page) {
  await page.waitForFunction(() => !!window.jupyterapp, null, { timeout: 120_000, polling: 10 });
  return page.evaluate(async () => {
    await window.jupyterapp.restored;
    return performance.now();
  });
}

/**
 * Open `nbPath` in JupyterLab and wait for its kernel to be idle. The
 * workspace (open tabs) is kept by the server across browser contexts: pass
 * `workspace` (a name) to start from a new one, so that notebooks opened by
 * earlier steps of a benchmark are not restored beside this one.
 */
export async function openNotebook(page, server, nbPath, { workspace } = {}) {
  await page.goto(workspace ? `${server.url}/lab/workspaces/${workspace}/tree/${nbPath}` : `${server.url}/lab/tree/${nbPath}`);
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

/**
 * Put `source` into cell `index` of the current notebook (appending cells as
 * needed), run it with `notebook:run-cell`, and return its text output.
 */
export async function execCell(page, index, source) {
  return page.evaluate(
    async ({ index, source }) => {
      const app = window.jupyterapp;
      const panel = app.shell.currentWidget;
      const nb = panel.content;
      while (nb.widgets.length <= index) {
        nb.model.sharedModel.insertCell(nb.widgets.length, { cell_type: 'code', source: '' });
      }
      nb.activeCellIndex = index;
      nb.deselectAll();
      nb.activeCell.model.sharedModel.setSource(source);
      await app.commands.execute('notebook:run-cell');
      const outs = nb.activeCell.model.outputs.toJSON();
      return outs
        .map(o => (o.text ?? (o.data && o.data['text/plain']) ?? (o.ename ? `${o.ename}: ${o.evalue}` : '')))
        .map(t => (Array.isArray(t) ? t.join('') : String(t)))
        .join('');
    },
    { index, source }
  );
}

/** Run every cell of the current notebook and wait for the first Story to be ready. */
export async function runAllAndWaitStory(page) {
  await page.evaluate(() => window.jupyterapp.commands.execute('notebook:run-all-cells'));
  await page.waitForSelector('.molspace-story[data-molspace-ready="true"]', { timeout: 120_000 });
}

// ------------------------------------------------------------------ MCP

/**
 * A connected MCP client (official SDK, Streamable HTTP) with the server's token;
 * `listTools` false leaves `tools/list` to the caller (first_call.mjs times it).
 */
export function mcpClient(server, { listTools = true } = {}) {
  return harness.connectMcp({ server: server.url, token: TOKEN, name: 'molspace-bench', listTools });
}

/** Call a tool; throw on a tool error (its located error in the message); return structuredContent. */
export async function callTool(client, name, args = {}) {
  const [value, isError] = harness.readToolResult(await client.callTool({ name, arguments: args }));
  if (isError) {
    throw new Error(`${name} failed: ${JSON.stringify(value)}`);
  }
  return value;
}

// ------------------------------------------------------------------ machine load

/** The 1-, 5- and 15-minute load averages (`/proc/loadavg`), as printed by `uptime`. */
export function loadAvg() {
  try {
    const [one, five, fifteen] = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);
    return { one, five, fifteen };
  } catch {
    return { one: NaN, five: NaN, fifteen: NaN };
  }
}

export const fmtLoad = l => `load ${l.one.toFixed(2)} / ${l.five.toFixed(2)} / ${l.fifteen.toFixed(2)}`;

/** `{p50, p95, n}` of each field of a list of records (fields that are numbers in every record). */
export function summaries(records) {
  const keys = new Set(records.flatMap(r => Object.keys(r).filter(k => typeof r[k] === 'number')));
  return Object.fromEntries([...keys].map(k => [k, summary(records.map(r => r[k]).filter(v => typeof v === 'number'))]));
}

// ------------------------------------------------------------------ offline pages

/** Where Mol*'s prebuilt `build/` (viewer, mvs-stories) lies: the bundled molstar of the repository. */
export const MOLSTAR_BUILD = path.join(ROOT, 'node_modules', 'molstar', 'build');

const CONTENT_TYPES = { '.js': 'text/javascript', '.css': 'text/css', '.html': 'text/html', '.json': 'application/json', '.wasm': 'application/wasm', '.map': 'application/json', '.ico': 'image/x-icon', '.png': 'image/png', '.svg': 'image/svg+xml', '.woff2': 'font/woff2', '.woff': 'font/woff' };

/**
 * Keep `context` offline: requests to `localhost` / `127.0.0.1`, `blob:` and
 * `data:` go through; `https://cdn.jsdelivr.net/npm/molstar@<any>/build/<path>`
 * (what molviewspec's `molstar_notebook` HTML loads) is answered from
 * {@link MOLSTAR_BUILD}; every other request is aborted and counted.
 *
 * @returns `{served, refused}`: lists of URLs, filled as the page runs.
 */
export async function keepOffline(context) {
  const seen = { served: [], refused: [] };
  await context.route(
    url => !['localhost', '127.0.0.1'].includes(url.hostname) && !['blob:', 'data:'].includes(url.protocol),
    async route => {
      const url = new URL(route.request().url());
      const m = url.hostname === 'cdn.jsdelivr.net' && /^\/npm\/molstar@[^/]+\/build\/(.+)$/.exec(url.pathname);
      const file = m && path.join(MOLSTAR_BUILD, path.normalize(m[1]));
      if (file && file.startsWith(MOLSTAR_BUILD) && fs.existsSync(file)) {
        seen.served.push(url.href);
        await route.fulfill({ status: 200, body: fs.readFileSync(file), headers: { 'content-type': CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream', 'access-control-allow-origin': '*' } });
      } else {
        seen.refused.push(url.href);
        await route.abort('internetdisconnected');
      }
    }
  );
  return seen;
}

// ------------------------------------------------------------------ notebooks

/** Write a notebook of code cells (`sources`, none for an empty one) to `root/name` for the Python 3 kernel. */
export function writeNotebook(root, name, sources = []) {
  fs.writeFileSync(path.join(root, name), harness.notebookJson(sources));
}

/** Run `source` in cell `index` of the current notebook without waiting; return the page's Date.now() just before. */
export async function startCell(page, index, source) {
  return page.evaluate(
    ({ index, source }) => {
      const app = window.jupyterapp;
      const nb = app.shell.currentWidget.content;
      while (nb.widgets.length <= index) {
        nb.model.sharedModel.insertCell(nb.widgets.length, { cell_type: 'code', source: '' });
      }
      nb.activeCellIndex = index;
      nb.deselectAll();
      nb.activeCell.model.sharedModel.setSource(source);
      const t0 = Date.now();
      void app.commands.execute('notebook:run-cell');
      return t0;
    },
    { index, source }
  );
}

/** The page's Date.now() at the first animation frame where `selector` matches (at most `timeoutMs`). */
export async function stampWhen(page, selector, timeoutMs = 180_000) {
  const handle = await page.waitForFunction(sel => (document.querySelector(sel) ? Date.now() : false), selector, {
    polling: 'raf',
    timeout: timeoutMs
  });
  return handle.jsonValue();
}

/**
 * Put `source` into cell `index` of the current notebook and run it; resolve
 * with ms from just before `notebook:run-cell` to each milestone, all taken in
 * the page:
 * - `reply`: the kernel's execute reply;
 * - `shown`: an element matching `shownSelector` (not present before) is in the DOM;
 * - `geometry`: the first instanced WebGL draw call after the run (Mol* draws
 *   every representation instanced; its empty-scene and post-processing
 *   passes are not), in this page or any same-origin frame;
 * - `ready`: `readyCheck` (a function source, evaluated in the page with the
 *   new element, or `null`) returned true.
 * - `anyDraw`: the first WebGL draw call of any kind after the run;
 * Waits for `ready` (when given) else for `geometryKey` (`geometry` or
 * `anyDraw`), at most `timeoutMs`.
 */
export async function timeCell(page, index, source, { shownSelector, readyCheck = null, timeoutMs = 120_000, geometryKey = 'geometry' }) {
  return page.evaluate(
    async ({ index, source, shownSelector, readyCheck, timeoutMs, geometryKey }) => {
      const app = window.jupyterapp;
      const nb = app.shell.currentWidget.content;
      while (nb.widgets.length <= index) {
        nb.model.sharedModel.insertCell(nb.widgets.length, { cell_type: 'code', source: '' });
      }
      const old = new Set(document.querySelectorAll(shownSelector));
      nb.activeCellIndex = index;
      nb.deselectAll();
      nb.activeCell.model.sharedModel.setSource(source);
      const check = readyCheck ? new Function('el', `return (${readyCheck})(el);`) : null;
      const marks = {};
      let t0 = 0;
      const done = new Promise((resolve, reject) => {
        const tick = () => {
          const now = performance.now() - t0;
          const el = [...document.querySelectorAll(shownSelector)].find(e => !old.has(e));
          if (el) marks.shown ??= now;
          if (marks.geometry === undefined && window.__molspaceBenchFirstInstanced != null) {
            marks.geometry = window.__molspaceBenchFirstInstanced - t0;
          }
          if (marks.anyDraw === undefined && window.__molspaceBenchFirstDraw != null) {
            marks.anyDraw = window.__molspaceBenchFirstDraw - t0;
          }
          if (el && check && marks.ready === undefined && check(el)) marks.ready = now;
          const drawn = geometryKey === 'anyDraw' ? marks.anyDraw : marks.geometry;
          if ((check ? marks.ready !== undefined : drawn !== undefined) && marks.reply !== undefined) {
            resolve();
            return;
          }
          if (now > timeoutMs) {
            reject(new Error(`cell ${index} not ready within ${timeoutMs} ms: ${JSON.stringify(marks)}`));
            return;
          }
          setTimeout(tick, 5);
        };
        setTimeout(tick, 0);
      });
      window.__molspaceBenchFirstInstanced = null;
      window.__molspaceBenchFirstDraw = null;
      t0 = performance.now();
      await app.commands.execute('notebook:run-cell');
      marks.reply = performance.now() - t0;
      await done;
      return marks;
    },
    { index, source, shownSelector, readyCheck, timeoutMs, geometryKey }
  );
}

// ------------------------------------------------------------------ memory

/**
 * Counts, in every frame of pages of `context`, instanced WebGL draw calls
 * (`__molspaceBenchInstanced`, time of the last in `__molspaceBenchInstancedAt`,
 * of the first since `__molspaceBenchFirstInstanced` was last set to null in
 * `__molspaceBenchFirstInstanced`; the top page's `performance.now()` for
 * same-origin frames), the first non-instanced draw call since
 * `__molspaceBenchFirstDraw` was set to null (three.js / NGL draw an empty
 * scene with none) and an estimate
 * of the GPU memory the page allocated (`__molspaceBenchGpu()`: bytes of live
 * buffers, textures and renderbuffers, from the sizes passed to `bufferData`,
 * `texImage2D/3D`, `texStorage2D/3D` and `renderbufferStorage*`, less those
 * deleted, in contexts not lost (Mol* loses its context on dispose), plus
 * each live context's drawing buffer at 4 B/pixel colour + 4 B
 * depth-stencil. Textures are counted at 4 B per texel for 8-bit formats and
 * 16 B for float RGBA; mipmaps and driver overhead are not counted).
 */
export async function instrumentWebgl(context) {
  await context.addInitScript(() => {
    const top = (() => {
      try {
        return window.top.performance ? window.top : window;
      } catch {
        return window;
      }
    })();
    window.__molspaceBenchInstanced = 0;
    const stamp = () => {
      top.__molspaceBenchInstanced = (top.__molspaceBenchInstanced || 0) + 1;
      top.__molspaceBenchInstancedAt = top.performance.now();
      top.__molspaceBenchFirstInstanced ??= top.__molspaceBenchInstancedAt;
      if (top !== window) window.__molspaceBenchInstanced++;
    };
    const sizes = new Map(); // gl -> Map(object -> bytes)
    const bound = new WeakMap(); // gl -> Map(target -> object)
    const contexts = new Set();
    const bind = (gl, target, obj) => {
      let m = bound.get(gl);
      if (!m) bound.set(gl, (m = new Map()));
      m.set(target, obj);
    };
    const current = (gl, target) => bound.get(gl)?.get(target);
    const put = (gl, obj, bytes) => {
      let m = sizes.get(gl);
      if (!m) sizes.set(gl, (m = new Map()));
      m.set(obj, bytes);
    };
    const drop = (gl, obj) => sizes.get(gl)?.delete(obj);
    const bppOf = (gl, internal, type) => {
      const F = gl.FLOAT;
      const HF = gl.HALF_FLOAT ?? 0x140b;
      if (type === F || [0x8814, 0x8815, 0x822e, 0x8230].includes(internal)) return [0x822e].includes(internal) ? 4 : 16; // RGBA32F/RGB32F
      if (type === HF || [0x881a, 0x881b].includes(internal)) return 8;
      return 4;
    };
    window.__molspaceBenchGpu = () => {
      let bytes = 0;
      let drawing = 0;
      let live = 0;
      for (const gl of contexts) {
        if (gl.isContextLost && gl.isContextLost()) continue;
        live++;
        for (const v of sizes.get(gl)?.values() ?? []) bytes += v;
        drawing += gl.drawingBufferWidth * gl.drawingBufferHeight * 8;
      }
      return { resources: bytes, drawingBuffers: drawing, liveContexts: live, contextsEver: contexts.size, total: bytes + drawing };
    };
    for (const P of [window.WebGL2RenderingContext?.prototype, window.WebGLRenderingContext?.prototype]) {
      if (!P) continue;
      for (const m of ['drawElementsInstanced', 'drawArraysInstanced']) {
        const orig = P[m];
        if (orig) P[m] = function (...a) { stamp(); return orig.apply(this, a); };
      }
      for (const m of ['drawElements', 'drawArrays']) {
        const orig = P[m];
        if (orig) P[m] = function (...a) { top.__molspaceBenchFirstDraw ??= top.performance.now(); return orig.apply(this, a); };
      }
      const wrap = (m, f) => {
        const orig = P[m];
        if (orig) P[m] = function (...a) { contexts.add(this); f(this, a); return orig.apply(this, a); };
      };
      wrap('bindBuffer', (gl, [t, b]) => bind(gl, t, b));
      wrap('bufferData', (gl, [t, d]) => {
        const b = current(gl, t);
        if (b) put(gl, b, typeof d === 'number' ? d : d?.byteLength ?? 0);
      });
      wrap('deleteBuffer', (gl, [b]) => drop(gl, b));
      wrap('bindTexture', (gl, [t, tex]) => bind(gl, t === gl.TEXTURE_CUBE_MAP_POSITIVE_X ? gl.TEXTURE_CUBE_MAP : t, tex));
      wrap('texImage2D', (gl, a) => {
        if (a.length < 8 || a[1] !== 0) return; // level 0 with explicit width/height only
        const tex = current(gl, a[0] >= 0x8515 && a[0] <= 0x851a ? gl.TEXTURE_CUBE_MAP : a[0]);
        if (tex) put(gl, tex, a[3] * a[4] * bppOf(gl, a[2], a[7]));
      });
      wrap('texImage3D', (gl, a) => {
        if (a[1] !== 0) return;
        const tex = current(gl, a[0]);
        if (tex) put(gl, tex, a[3] * a[4] * a[5] * bppOf(gl, a[2], a[8]));
      });
      wrap('texStorage2D', (gl, [t, , internal, w, h]) => {
        const tex = current(gl, t);
        if (tex) put(gl, tex, w * h * bppOf(gl, internal, 0));
      });
      wrap('texStorage3D', (gl, [t, , internal, w, h, d]) => {
        const tex = current(gl, t);
        if (tex) put(gl, tex, w * h * d * bppOf(gl, internal, 0));
      });
      wrap('deleteTexture', (gl, [tex]) => drop(gl, tex));
      wrap('bindRenderbuffer', (gl, [t, rb]) => bind(gl, t, rb));
      wrap('renderbufferStorage', (gl, [t, internal, w, h]) => {
        const rb = current(gl, t);
        if (rb) put(gl, rb, w * h * bppOf(gl, internal, 0));
      });
      wrap('renderbufferStorageMultisample', (gl, [t, s, internal, w, h]) => {
        const rb = current(gl, t);
        if (rb) put(gl, rb, w * h * Math.max(1, s) * bppOf(gl, internal, 0));
      });
      wrap('deleteRenderbuffer', (gl, [rb]) => drop(gl, rb));
    }
  });
}

/** The page's JS heap after a forced garbage collection (Chromium DevTools protocol), bytes. */
export async function jsHeap(page) {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('HeapProfiler.collectGarbage');
    const { usedSize, totalSize } = await cdp.send('Runtime.getHeapUsage');
    return { used: usedSize, total: totalSize };
  } finally {
    await cdp.detach();
  }
}

/**
 * In every frame of `context`: when Mol*'s prebuilt viewer (`window.molstar`,
 * build/viewer/molstar.js, what molviewspec's `molstar_notebook` HTML loads)
 * appears, wrap `Viewer.create` so that after `viewer.loadMvsData(...)`
 * resolves, the frame waits for Mol*'s next `didDraw` with an empty commit
 * queue (the same condition molspace's `data-molspace-ready` waits for) and
 * sets `window.__benchMvsReady` (top page's `performance.now()`).
 */
export async function captureMolstarViewer(context) {
  await context.addInitScript(() => {
    let value;
    const topNow = () => {
      try {
        return window.top.performance.now();
      } catch {
        return performance.now();
      }
    };
    Object.defineProperty(window, 'molstar', {
      configurable: true,
      get: () => value,
      set(v) {
        value = v;
        const create = v?.Viewer?.create;
        if (!create || v.Viewer.__benchWrapped) return;
        v.Viewer.__benchWrapped = true;
        v.Viewer.create = async function (...args) {
          const viewer = await create.apply(this, args);
          window.__benchViewer = viewer;
          const load = viewer.loadMvsData.bind(viewer);
          viewer.loadMvsData = async (...a) => {
            const r = await load(...a);
            const c3 = viewer.plugin.canvas3d;
            await new Promise(resolve => {
              let first = true;
              const sub = c3.didDraw.subscribe(() => {
                if (first) {
                  first = false;
                  return;
                }
                if (c3.commitQueueSize.value === 0) {
                  sub.unsubscribe();
                  resolve();
                }
              });
              c3.requestDraw();
            });
            window.__benchMvsReady = topNow();
            return r;
          };
          return viewer;
        };
      }
    });
  });
}

// ------------------------------------------------------------------ subject comparisons

/**
 * A subject of {@link compareSubjects} shown by a notebook cell: the
 * notebook `<slug>.ipynb` in `server.root` has `setup` (run untimed) and
 * `cell` (timed by {@link timeCell} with `shown`, `ready`, `geometryKey`).
 */
export function notebookSubject(server, { name, setup, cell, shown, ready = null, geometryKey = 'geometry' }) {
  const nb = `${name.replace(/[^a-z0-9]+/gi, '_')}.ipynb`;
  writeNotebook(server.root, nb, [setup, cell]);
  return {
    name,
    async open(page) {
      await openNotebook(page, server, nb);
      const err = await execCell(page, 0, setup);
      if (/Error/.test(err)) throw new Error(`${name}: ${setup} failed: ${err}`);
    },
    async time(page) {
      const marks = await timeCell(page, 1, cell, { shownSelector: shown, readyCheck: ready, timeoutMs: 120_000, geometryKey });
      if (geometryKey === 'anyDraw') marks.geometry = marks.anyDraw;
      marks.canvas = await page.evaluate(sel => {
        const els = [...document.querySelectorAll(sel)];
        const el = els[els.length - 1];
        const doc = el?.tagName === 'IFRAME' ? el.contentDocument : null;
        const c = el?.tagName === 'CANVAS' ? el : (doc ?? el)?.querySelector('canvas');
        return c ? `${c.clientWidth}x${c.clientHeight}` : null;
      }, shown);
      return marks;
    }
  };
}

/**
 * Run every subject `runs` times, rotating the order each round (A B C, B C A,
 * ...) so that load drift hits all alike; each subject in a NEW browser (no
 * shared shader or HTTP cache), offline ({@link keepOffline}), instrumented
 * ({@link instrumentWebgl}, {@link captureMolstarViewer}). Per run: `open`,
 * then `time` cold, wait until no draw for 1.5 s, `time` warm. Records the
 * 1-min load average with every figure (`loadAvg`).
 *
 * @returns `{raw: {name: [run]}, table: {name: {cold, warm: {key: summary}, errors}}}`
 */
export async function compareSubjects(subjects, runs) {
  const raw = Object.fromEntries(subjects.map(s => [s.name, []]));
  for (let i = 0; i < runs; i++) {
    const order = subjects.map((_, k) => subjects[(k + i) % subjects.length]);
    for (const s of order) {
      const browser = await launchBrowser();
      const context = await newContext(browser);
      await instrumentWebgl(context);
      await captureMolstarViewer(context);
      const offline = await keepOffline(context);
      const page = await context.newPage();
      const settle = () => waitSettled(page, 1500, 60_000, '__molspaceBenchInstanced');
      const out = {};
      try {
        await s.open(page);
        for (const phase of ['cold', 'warm']) {
          if (phase === 'warm') await settle();
          const load = loadAvg();
          out[phase] = { ...(await s.time(page, phase)), loadAvg: load.one };
        }
        await settle();
        out.refused = offline.refused;
        out.served = offline.served.length;
        log(`run ${i + 1}/${runs} ${s.name}: cold ${JSON.stringify(roundMarks(out.cold))} warm ${JSON.stringify(roundMarks(out.warm))} refused ${offline.refused.length}`);
      } catch (e) {
        out.error = String(e?.message ?? e).slice(0, 2000);
        out.refused = offline.refused;
        log(`run ${i + 1}/${runs} ${s.name} FAILED: ${out.error.slice(0, 400)}`);
      } finally {
        raw[s.name].push(out);
        await browser.close();
      }
    }
  }
  const table = {};
  for (const s of subjects) {
    const ok = raw[s.name].filter(r => !r.error);
    table[s.name] = { errors: raw[s.name].filter(r => r.error).map(r => r.error) };
    for (const phase of ['cold', 'warm']) {
      const recs = ok.map(r => r[phase]);
      const keys = [...new Set(recs.flatMap(r => Object.keys(r).filter(k => typeof r[k] === 'number')))];
      table[s.name][phase] = Object.fromEntries(keys.map(k => [k, summary(recs.map(r => r[k]).filter(v => typeof v === 'number'))]));
      table[s.name][phase].canvas = recs.map(r => r.canvas);
      table[s.name][phase].loads = recs.map(r => r.loadAvg);
    }
  }
  return { raw, table };
}

/** Print p50 `ready` and `geometry` per subject and phase, with ratios against `floor` and `ref`. */
export function printComparison(table, { floor, ref }) {
  const p = (name, phase, key) => table[name]?.[phase]?.[key]?.p50;
  const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}×` : '—');
  for (const phase of ['cold', 'warm']) {
    console.log(`${phase}:  subject                 ready p50  geometry p50  ready/${floor ?? '-'}  geometry/${floor ?? '-'}  geometry/${ref}  ready/${ref}  load (1-min) per run`);
    for (const name of Object.keys(table)) {
      const r = p(name, phase, 'ready');
      const g = p(name, phase, 'geometry');
      console.log(
        `       ${name.padEnd(22)} ${fmt(r, 0).padStart(9)}  ${fmt(g, 0).padStart(11)}  ${ratio(r, p(floor, phase, 'ready')).padStart(8)}  ${ratio(g, p(floor, phase, 'geometry')).padStart(10)}  ${ratio(g, p(ref, phase, 'geometry')).padStart(10)}  ${ratio(r, p(ref, phase, 'ready')).padStart(8)}   ${(table[name][phase].loads ?? []).map(x => x.toFixed(1)).join(' ')}${table[name].errors.length ? `  (${table[name].errors.length} failed)` : ''}`
      );
    }
  }
}

function roundMarks(marks) {
  return Object.fromEntries(Object.entries(marks ?? {}).map(([k, v]) => [k, typeof v === 'number' ? Math.round(v) : v]));
}

/**
 * Write `frames` frames of MDAnalysisTests' adenylate kinase (its 98 DCD frames over and over) as
 * one DCD at `out` with MDAnalysis, run by `py`; checks the frame count read back. Returns its bytes.
 */
export function writeAdkDcd(py, out, frames) {
  const data = path.join(ROOT, 'tests', 'data', 'trajectories');
  const script = [
    'import sys, warnings',
    'warnings.simplefilter("ignore")',
    'import MDAnalysis as mda',
    'psf, dcd, out, n = sys.argv[1:5]',
    'u = mda.Universe(psf, dcd)',
    'k = len(u.trajectory)',
    'with mda.Writer(out, n_atoms=u.atoms.n_atoms) as w:',
    '    for i in range(int(n)):',
    '        u.trajectory[i % k]',
    '        w.write(u.atoms)',
    'print(len(mda.Universe(psf, out).trajectory))'
  ].join('\n');
  const r = spawnSync(py, ['-c', script, path.join(data, 'adk.psf'), path.join(data, 'adk_dims.dcd'), out, String(frames)], { encoding: 'utf8' });
  if (r.status !== 0 || Number(r.stdout.trim()) !== frames) {
    throw new Error(`writing the ${frames}-frame DCD with ${py} failed: ${r.stderr.slice(-2000)} ${r.stdout}`);
  }
  return fs.statSync(out).size;
}
