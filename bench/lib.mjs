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
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export const BENCH = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(BENCH, '..');
export const RESULTS = path.join(BENCH, 'results');
export const TOKEN = 'molspace-bench-token';
export const CHROMIUM = process.env.MOLSPACE_BENCH_CHROMIUM || '/usr/bin/chromium';
/** Ports of the benchmark servers (8888 is left to the tests / CI). */
export const PORTS = { a: Number(process.env.MOLSPACE_BENCH_PORT_A || 8899), b: Number(process.env.MOLSPACE_BENCH_PORT_B || 8898) };

/** Chromium flags shared with the Galata tests (ui-tests/chromium.js). */
export const CHROMIUM_ARGS = createRequire(import.meta.url)('../ui-tests/chromium.js').args;

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
  const started = performance.now();
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`jupyter lab on ${port} exited (${child.exitCode}); see ${logFile}:\n${fs.readFileSync(logFile, 'utf8').slice(-3000)}`);
    }
    try {
      const r = await fetch(`${url}/api/status`, { headers: { Authorization: `token ${TOKEN}` } });
      if (r.ok) break;
    } catch {
      // not up yet
    }
    if (performance.now() - started > 120_000) {
      await stopProcess(child);
      throw new Error(`jupyter lab on ${port} did not answer within 120 s; see ${logFile}`);
    }
    await sleep(200);
  }
  log(`jupyter lab (${molspace ? 'with' : 'without'} molspace) up on ${url} after ${fmt(performance.now() - started, 0)} ms, pid ${child.pid}`);
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
 * blocks the page's main thread). Returns the ms waited.
 */
export async function waitSettled(page, quietMs = 1500, timeoutMs = 90_000) {
  const t0 = performance.now();
  let last = await page.evaluate(() => window.__molspaceBenchDraws);
  let quietSince = performance.now();
  while (performance.now() - t0 < timeoutMs) {
    await sleep(250);
    const now = await page.evaluate(() => window.__molspaceBenchDraws);
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

/** Open `nbPath` in JupyterLab and wait for its kernel to be idle. */
export async function openNotebook(page, server, nbPath) {
  await page.goto(`${server.url}/lab/tree/${nbPath}`);
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

/** A connected MCP client (official SDK, Streamable HTTP) with the Jupyter token. */
export async function mcpClient(server) {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/molspace/mcp`), {
    requestInit: { headers: { Authorization: `token ${TOKEN}` } }
  });
  const client = new Client({ name: 'molspace-bench', version: '0.1.0' });
  await client.connect(transport);
  return client;
}

/** Call a tool; throw on a tool error; return structuredContent. */
export async function callTool(client, name, args = {}) {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) {
    throw new Error(`${name} failed: ${JSON.stringify(result.structuredContent ?? result.content)}`);
  }
  return result.structuredContent;
}
