/**
 * Benchmark — the MCP App (issue 21): tool call → first frame in the App,
 * against the same structure docked in JupyterLab; and the resource bytes a
 * host must load to show the App.
 *
 * Why a `.mjs` script and not a Playwright spec reusing ui-tests/tests/appHost.ts:
 * the figures need the benchmarks' own Jupyter server (bench/lib.mjs: port 8899,
 * bench token, temp root, stopped at the end) with a JupyterLab page for the
 * baseline in the same run, and the timed segment must start at the tool call
 * with the host page already loaded, whereas `openAppHost` reads the App's HTML
 * before it opens a host page and starts new host servers and a new browser
 * context per App, and tests/helpers.ts is bound to the UI tests' server and
 * token. So this script reuses the test host's pieces as they are —
 * ui-tests/apphost/server.js (the host page with the SDK's `AppBridge`, and the
 * sandbox proxy on another origin under the resource's CSP) and the official
 * MCP client 2.x (`@modelcontextprotocol/client`, from ui-tests/node_modules),
 * declaring the MCP Apps extension as a host that renders Apps does — and
 * answers the View's `resources/read` / `tools/call` from Node through the
 * binding the host page calls (`molspaceHostCall`), as appHost.ts does. It
 * needs ui-tests' node_modules (bench/run.sh installs them). Not part of CI or
 * of bench/run.sh: run it on its own.
 *
 * For each structure file (MOLSPACE_BENCH_APP_FILES, default the committed
 * tests/data/structures/1cbs.cif and 1hpv.pdb, copied into the server's root as
 * data/<name>), N rounds (MOLSPACE_BENCH_APP_N, default 5); in each round the
 * App and the docked Viewer run in turn (order rotated), each in a NEW browser
 * (no shader or HTTP cache carried from the other). One MCP client (one
 * session, as a chat host keeps) makes every call; before the rounds it
 * makes one untimed `open` and reads the App's resources once (the server
 * computes its parts once per process).
 *
 * App (no JupyterLab page connected: `status.pageConnected` is false):
 * - cold: the host page is loaded and idle (a chat open, no App yet). Timer
 *   from just before `tools/call open {path}` is sent; then, as a host does,
 *   `resources/read ui://molspace/viewer`, the sandbox proxy loaded with the
 *   resource's CSP, the HTML handed over, `ui/initialize`, the tool input and
 *   result sent; the View reads its script parts through the host
 *   (`resources/read ui://molspace/app/…`), runs them, reads the structure from
 *   the result's `_meta["molspace/structure"]` and draws. Stop: the View's
 *   `document.documentElement.dataset.molspaceApp` becomes `drawn` (set once
 *   Mol* drew), stamped in the View by a MutationObserver with
 *   `performance.timeOrigin + performance.now()` (the same wall clock as Node's;
 *   the offset between the two is checked on the idle host page and printed).
 *   Milestones on the way: result in hand, HTML read, View initialised (the
 *   host's wire log), last part read.
 * - again, same View: once the cold View stopped drawing, the same call again
 *   and its result sent to the same View (`ui/notifications/tool-result`),
 *   whose Mol* viewer exists: → `drawn` again.
 * - loaded: a new host page in the same browser shows the App with the tool
 *   input only (a host that shows the App while the tool runs); once the App's
 *   code runs ("Waiting for the tool result…") and nothing draws, the timer
 *   starts: `tools/call open` → result sent → `drawn` (the View's first frame:
 *   its Mol* viewer is created then).
 * Docked (baseline): a JupyterLab page (new browser, empty HTTP cache, a
 * workspace of its own) restored, its bridge welcomed by the gateway, its
 * idle-time warm-up done and nothing drawing; `tools/call open {path}` → the
 * result (the page answers once the docked Viewer has drawn): cold = the
 * page's first (Mol*'s chunks load then), warm = the same call again once
 * drawing stopped (a second docked Viewer). The same App-rendering client, so
 * the answer also carries the file in `_meta` for the chat's App, as it would.
 *
 * Bytes: the HTML resource (UTF-8 of its text), its script parts (count and
 * sum), the `resources/read` calls one App costs (1 + parts), and what those
 * and the `open` results weigh on the wire (HTTP response bodies as the
 * client's fetch received them: JSON-RPC envelopes, JSON string escapes).
 *
 * Prints p50 / p95 and ratios against the docked baseline measured in the same
 * run; writes bench/results/app_first_frame.json. Nothing fails on a time.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  PORTS,
  ROOT,
  TOKEN,
  fmt,
  fmtLoad,
  launchBrowser,
  loadAvg,
  log,
  newContext,
  sleep,
  startServer,
  stopOnExit,
  summary,
  waitRestored,
  waitSettled,
  writeResult
} from './lib.mjs';

const RUNS = Number(process.env.MOLSPACE_BENCH_APP_N || 5);
const FILES = (process.env.MOLSPACE_BENCH_APP_FILES || 'tests/data/structures/1cbs.cif,tests/data/structures/1hpv.pdb')
  .split(',')
  .filter(Boolean);
const MODES = (process.env.MOLSPACE_BENCH_APP_SUBJECTS || 'app,docked').split(',').filter(Boolean);
const UI_EXTENSION = 'io.modelcontextprotocol/ui';
const APP_MIME_TYPE = 'text/html;profile=mcp-app';
const APP_URI = 'ui://molspace/viewer';
const PART_PREFIX = 'ui://molspace/app/';

const uiRequire = createRequire(path.join(ROOT, 'ui-tests', 'package.json'));
const { Client, StreamableHTTPClientTransport } = uiRequire('@modelcontextprotocol/client');
const { startAppHostServers } = uiRequire('./apphost/server.js');

/** Wall-clock ms with sub-ms resolution, comparable with a page's `performance.timeOrigin + performance.now()`. */
const now = () => performance.timeOrigin + performance.now();

// ------------------------------------------------------------ MCP client (a host that renders Apps)

/** Every POST of the client: its JSON-RPC method and the bytes of the request and of the response body. */
const wire = [];
async function countingFetch(url, init) {
  let method = null;
  if (typeof init?.body === 'string') {
    try {
      const m = JSON.parse(init.body);
      method = Array.isArray(m) ? m.map(x => x.method).join(',') : (m.method ?? null);
    } catch {
      // not JSON
    }
  }
  const res = await fetch(url, init);
  if (method !== null) {
    const rec = { method, reqBytes: Buffer.byteLength(init.body), resBytes: null };
    wire.push(rec);
    res
      .clone()
      .arrayBuffer()
      .then(
        b => (rec.resBytes = b.byteLength),
        () => undefined
      );
  }
  return res;
}

async function connectHostClient(server) {
  const client = new Client(
    { name: 'molspace-bench-app-host', version: '0.1.0' },
    { capabilities: { extensions: { [UI_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } } } }
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/molspace/mcp`), {
      requestInit: { headers: { Authorization: `token ${TOKEN}` } },
      fetch: countingFetch
    })
  );
  const { tools } = await client.listTools();
  return { client, tools };
}

async function callOpen(client, file) {
  const result = await client.callTool({ name: 'open', arguments: { path: file } });
  if (result.isError) {
    throw new Error(`open ${file} failed: ${JSON.stringify(result.content).slice(0, 1000)}`);
  }
  return result;
}

async function pageConnected(client) {
  const r = await client.callTool({ name: 'status', arguments: {} });
  return Boolean(r.structuredContent?.pageConnected);
}

async function waitPageConnected(client, want, timeoutMs = 60_000) {
  const t0 = performance.now();
  while ((await pageConnected(client)) !== want) {
    if (performance.now() - t0 > timeoutMs) throw new Error(`status.pageConnected stayed ${!want} for ${timeoutMs} ms`);
    await sleep(200);
  }
}

/** The App's HTML resource, checked as a host checks it. */
async function readAppResource(client) {
  const { contents } = await client.readResource({ uri: APP_URI });
  const c = contents[0];
  if (contents.length !== 1 || c.mimeType !== APP_MIME_TYPE || typeof c.text !== 'string') {
    throw new Error(`${APP_URI}: not one ${APP_MIME_TYPE} text content: ${JSON.stringify(contents).slice(0, 300)}`);
  }
  return { html: c.text, csp: c._meta?.ui?.csp, permissions: c._meta?.ui?.permissions };
}

/** Bytes of the responses of the wire records from `from` on whose method is `method` (waits for the body counts). */
async function wireBytes(from, method) {
  const recs = wire.slice(from).filter(w => w.method === method);
  for (let i = 0; i < 100 && recs.some(r => r.resBytes === null); i++) await sleep(20);
  return { calls: recs.length, bytes: recs.reduce((n, r) => n + (r.resBytes ?? 0), 0) };
}

// ------------------------------------------------------------ the test host

/**
 * A host page (a chat with no App yet) in `context`: the View's MCP requests answered by `client`,
 * each `resources/read` recorded with its Node time and text bytes.
 */
async function hostPage(context, servers, client) {
  const page = await context.newPage();
  const rec = { reads: [], pageErrors: [], errors: [] };
  page.on('pageerror', e => rec.pageErrors.push(String(e).slice(0, 500)));
  page.on('console', m => {
    if (m.type() === 'error') rec.errors.push(m.text().slice(0, 500));
  });
  await page.exposeBinding('molspaceHostCall', async (source, kind, payload) => {
    if (source.frame !== page.mainFrame()) return { error: { code: -32600, message: 'not the host page' } };
    try {
      switch (kind) {
        case 'tools/call':
          return { result: await client.callTool(payload) };
        case 'resources/read': {
          const start = now();
          const result = await client.readResource(payload);
          const text = result.contents?.[0]?.text;
          rec.reads.push({ uri: payload?.uri, start, end: now(), bytes: typeof text === 'string' ? Buffer.byteLength(text) : 0 });
          return { result };
        }
        case 'resources/list':
          return { result: await client.listResources(payload) };
        case 'record':
          return { result: {} };
        default:
          return { error: { code: -32601, message: `Method not found: ${kind}` } };
      }
    } catch (e) {
      return { error: { code: Number.isSafeInteger(e?.code) ? e.code : -32603, message: String(e?.message ?? e) } };
    }
  });
  await page.goto(servers.hostUrl);
  await page.waitForFunction(() => !!window.molspaceAppHost, null, { timeout: 60_000 });
  return { page, rec };
}

/** The host page's start() config for the App `resource`, as tests/appHost.ts builds it. */
function startConfig(servers, resource, tool, { toolInput, toolResult }) {
  return {
    sandboxUrl: servers.sandboxUrl(resource.csp),
    html: resource.html,
    csp: resource.csp,
    permissions: resource.permissions,
    hostContext: {
      toolInfo: { tool },
      theme: 'light',
      displayMode: 'inline',
      availableDisplayModes: ['inline'],
      containerDimensions: { width: 720, height: 480 },
      locale: 'en-US',
      timeZone: 'UTC',
      platform: 'web',
      userAgent: 'molspace-bench-host',
      deviceCapabilities: { touch: false, hover: true }
    },
    width: 720,
    height: 480,
    toolInput,
    toolResult
  };
}

/**
 * The View's frame once the proxy wrote it, with a watcher: every change of
 * `data-molspace-app` stamped (`__benchAppMarks`) and WebGL draw calls counted
 * (`__benchAppDraws`). Retried when the frame's context is replaced under us.
 */
async function watchApp(page, timeoutMs = 60_000) {
  const t0 = performance.now();
  for (;;) {
    const sandbox = page.frames().find(f => f.url().includes('/sandbox.html'));
    const app = sandbox?.childFrames()[0];
    if (app) {
      try {
        await app.evaluate(() => {
          if (window.__benchAppMarks) return;
          window.__benchAppMarks = [];
          window.__benchAppDraws = 0;
          const stamp = () =>
            window.__benchAppMarks.push({
              state: document.documentElement?.dataset.molspaceApp ?? null,
              note: document.getElementById('molspace-app-status')?.textContent ?? '',
              at: performance.timeOrigin + performance.now()
            });
          stamp();
          new MutationObserver(stamp).observe(document, { attributes: true, subtree: true, attributeFilter: ['data-molspace-app'] });
          for (const P of [window.WebGL2RenderingContext?.prototype, window.WebGLRenderingContext?.prototype]) {
            for (const m of ['drawElements', 'drawArrays', 'drawElementsInstanced', 'drawArraysInstanced']) {
              const orig = P?.[m];
              if (!orig) continue;
              P[m] = function (...args) {
                window.__benchAppDraws++;
                return orig.apply(this, args);
              };
            }
          }
        });
        if (await app.evaluate(() => Array.isArray(window.__benchAppMarks))) return app;
      } catch {
        // the frame's document was still being written: try again
      }
    }
    if (performance.now() - t0 > timeoutMs) throw new Error('the View frame did not appear');
    await sleep(5);
  }
}

/** The first `drawn` mark after `since` (wall ms), or throw with the App's error text when it shows one. */
async function waitDrawn(app, since, timeoutMs = 180_000) {
  const t0 = performance.now();
  for (;;) {
    const { marks, error } = await app.evaluate(() => ({
      marks: window.__benchAppMarks ?? null,
      error: document.documentElement.dataset.molspaceApp === 'error' ? document.getElementById('molspace-app-error')?.textContent : null
    }));
    if (marks === null) throw new Error("the View's document was replaced: its marks are gone");
    const drawn = marks.find(m => m.state === 'drawn' && m.at > since);
    if (drawn) return { drawn: drawn.at, marks };
    if (error) throw new Error(`the App shows an error: ${error}`);
    if (performance.now() - t0 > timeoutMs) throw new Error(`the App did not draw within ${timeoutMs} ms (marks ${JSON.stringify(marks)})`);
    await sleep(20);
  }
}

/** Until the View issued no WebGL draw for `quietMs`. */
async function appSettled(app, quietMs = 1500, timeoutMs = 90_000) {
  const t0 = performance.now();
  const read = () => app.evaluate(() => window.__benchAppDraws ?? 0);
  let last = await read();
  let quietSince = performance.now();
  while (performance.now() - t0 < timeoutMs) {
    await sleep(250);
    const n = await read();
    if (n !== last) {
      last = n;
      quietSince = performance.now();
    } else if (performance.now() - quietSince >= quietMs) {
      break;
    }
  }
  return performance.now() - t0;
}

/** Offset of the page's wall clock against Node's (ms; page − Node), from one evaluate's midpoint. */
async function clockOffset(page) {
  const a = now();
  const p = await page.evaluate(() => performance.timeOrigin + performance.now());
  const b = now();
  return p - (a + b) / 2;
}

/** The host's wire time (`Date.now()`) of the first incoming message with `method`. */
async function wireAt(page, method) {
  const w = await page.evaluate(
    m => window.molspaceAppHost.state.wire.find(x => x.dir === 'in' && x.message?.method === m)?.at ?? null,
    method
  );
  return w;
}

// ------------------------------------------------------------ subjects

/** The App in a new browser: cold, again in the same View, then loaded in a new host page. */
async function runApp(ctx, file) {
  const { client, servers, tool } = ctx;
  const browser = await launchBrowser();
  const out = { load: loadAvg().one };
  try {
    const context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
    // ---- cold
    const cold = await hostPage(context, servers, client);
    out.clockOffsetMs = await clockOffset(cold.page);
    await sleep(500);
    const w0 = wire.length;
    const t0 = now();
    const result = await callOpen(client, file);
    const tResult = now();
    const resource = await readAppResource(client);
    const tHtml = now();
    const started = cold.page.evaluate(
      cfg => window.molspaceAppHost.start(cfg),
      startConfig(servers, resource, tool, { toolInput: { path: file }, toolResult: result })
    );
    const app = await watchApp(cold.page);
    await started;
    const { drawn, marks } = await waitDrawn(app, t0);
    const initializedAt = await wireAt(cold.page, 'ui/notifications/initialized');
    const parts = cold.rec.reads.filter(r => r.uri?.startsWith(PART_PREFIX));
    out.cold = {
      total: drawn - t0,
      result: tResult - t0,
      html: tHtml - t0,
      initialized: initializedAt === null ? undefined : initializedAt - t0,
      partsRead: parts.length ? Math.max(...parts.map(r => r.end)) - t0 : undefined,
      // The App's code ran and took the result: ViewerApp.show marks `loading` "Reading <file>…".
      reading: (marks.find(m => m.state === 'loading' && m.note.startsWith('Reading') && m.at > t0)?.at ?? NaN) - t0,
      drawnAfterParts: parts.length ? drawn - Math.max(...parts.map(r => r.end)) : undefined
    };
    out.bytes = {
      html: Buffer.byteLength(resource.html),
      parts: parts.length,
      partBytes: parts.reduce((n, r) => n + r.bytes, 0),
      reads: 1 + cold.rec.reads.length,
      readsWire: await wireBytes(w0, 'resources/read'),
      openResult: Buffer.byteLength(JSON.stringify(result)),
      openWire: await wireBytes(w0, 'tools/call')
    };
    out.coldMarks = marks.map(m => `${m.state}@${Math.round(m.at - t0)}`).join(' ');
    // ---- again, the same View
    await appSettled(app);
    const t1 = now();
    const again = await callOpen(client, file);
    await cold.page.evaluate(r => window.molspaceAppHost.sendToolResult(r), again);
    out.again = { total: (await waitDrawn(app, t1)).drawn - t1 };
    await appSettled(app);
    // ---- loaded: a new host page shows the App with the input only, then the call
    const loaded = await hostPage(context, servers, client);
    const res2 = await readAppResource(client);
    const l0 = now();
    const started2 = loaded.page.evaluate(
      cfg => window.molspaceAppHost.start(cfg),
      startConfig(servers, res2, tool, { toolInput: { path: file } })
    );
    const app2 = await watchApp(loaded.page);
    await started2;
    await app2.waitForFunction(
      () => window.__molspaceAppStarted === true && document.documentElement.dataset.molspaceApp === 'loading',
      null,
      {
        timeout: 120_000
      }
    );
    out.appLoad = now() - l0;
    await appSettled(app2, 1000);
    await sleep(500);
    const t2 = now();
    const r2 = await callOpen(client, file);
    const tr2 = now();
    await loaded.page.evaluate(r => window.molspaceAppHost.sendToolResult(r), r2);
    out.loaded = { total: (await waitDrawn(app2, t2)).drawn - t2, result: tr2 - t2 };
    out.pageErrors = [...cold.rec.pageErrors, ...loaded.rec.pageErrors];
    out.consoleErrors = [...cold.rec.errors, ...loaded.rec.errors].filter(e => !/favicon/.test(e)).slice(0, 10);
    await context.close();
  } finally {
    await browser.close();
  }
  return out;
}

/** The docked Viewer in a new browser: a JupyterLab page connected, `open` twice. */
async function runDocked(ctx, file, round) {
  const { client, server } = ctx;
  const browser = await launchBrowser();
  const out = { load: loadAvg().one };
  try {
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(`${server.url}/lab/workspaces/bench-app-${round}-${path.basename(file).replace(/\W/g, '_')}`);
    await waitRestored(page);
    await page.waitForFunction(() => window.molspace?.bridge?.connected === true, null, { timeout: 120_000, polling: 50 });
    await page
      .waitForFunction(() => ['done', 'off'].includes(document.body.dataset.molspaceWarm), null, { timeout: 60_000, polling: 100 })
      .catch(() => log('docked: the warm-up did not finish within 60 s; timing anyway'));
    await waitPageConnected(client, true);
    await waitSettled(page, 1500, 60_000);
    for (const phase of ['cold', 'warm']) {
      const w0 = wire.length;
      const t0 = now();
      const result = await callOpen(client, file);
      out[phase] = { total: now() - t0 };
      if (phase === 'cold') {
        out.bytes = { openResult: Buffer.byteLength(JSON.stringify(result)), openWire: await wireBytes(w0, 'tools/call') };
      }
      await waitSettled(page, 1500, 90_000);
    }
    out.viewers = await page.evaluate(() => document.querySelectorAll('.molspace-docked-viewer').length);
    await context.close();
  } finally {
    await browser.close();
  }
  await waitPageConnected(client, false);
  return out;
}

// ------------------------------------------------------------ run

for (const f of FILES) {
  if (!fs.existsSync(path.join(ROOT, f))) throw new Error(`no file ${f} (MOLSPACE_BENCH_APP_FILES: paths relative to the repository)`);
}
const server = await startServer({ port: PORTS.a, name: 'app' });
const stopAll = stopOnExit([server]);
const servers = await startAppHostServers();
let exitCode = 0;
const loadStart = loadAvg();
try {
  const files = FILES.map(f => {
    const dest = `data/${path.basename(f)}`;
    fs.copyFileSync(path.join(ROOT, f), path.join(server.root, dest));
    return { src: f, path: dest, bytes: fs.statSync(path.join(ROOT, f)).size };
  });
  const { client, tools } = await connectHostClient(server);
  const tool = tools.find(t => t.name === 'open');
  const uri = tool?._meta?.ui?.resourceUri ?? tool?._meta?.['ui/resourceUri'];
  if (uri !== APP_URI) throw new Error(`open's _meta.ui.resourceUri is ${JSON.stringify(uri)}, not ${APP_URI}`);
  await waitPageConnected(client, false);
  // Untimed: the first `open` of the session and the server's first read of the App (it cuts the parts once).
  const first = await callOpen(client, files[0].path);
  if (!first._meta?.['molspace/structure'])
    throw new Error("open with no page carries no _meta['molspace/structure']: the gateway does not see an App host");
  const warmRes = await readAppResource(client);
  const partUris = (/<meta name="molspace-app-parts" content="([^"]*)"/.exec(warmRes.html)?.[1] ?? '').split(/\s+/).filter(Boolean);
  for (const u of partUris) await client.readResource({ uri: u });
  const ctx = { client, tool, server, servers };
  const raw = Object.fromEntries(files.map(f => [f.path, { app: [], docked: [] }]));
  for (let i = 0; i < RUNS; i++) {
    for (const f of files) {
      const order = i % 2 ? [...MODES].reverse() : MODES;
      for (const mode of order) {
        try {
          const r = mode === 'app' ? await runApp(ctx, f.path) : await runDocked(ctx, f.path, i);
          raw[f.path][mode].push(r);
          log(
            `run ${i + 1}/${RUNS} ${f.path} ${mode}: ` +
              (mode === 'app'
                ? `cold ${fmt(r.cold.total, 0)} (result ${fmt(r.cold.result, 0)}, html ${fmt(r.cold.html, 0)}, init ${fmt(r.cold.initialized, 0)}, parts ${fmt(r.cold.partsRead, 0)}) again ${fmt(r.again.total, 0)} loaded ${fmt(r.loaded.total, 0)} (app load ${fmt(r.appLoad, 0)}) clock offset ${fmt(r.clockOffsetMs, 2)} ms; marks ${r.coldMarks}${r.pageErrors.length ? `; page errors ${r.pageErrors.join(' | ')}` : ''}`
                : `cold ${fmt(r.cold.total, 0)} warm ${fmt(r.warm.total, 0)} (${r.viewers} docked)`) +
              ` ms, load ${r.load.toFixed(2)}`
          );
        } catch (e) {
          log(`run ${i + 1}/${RUNS} ${f.path} ${mode} FAILED: ${String(e?.stack ?? e).slice(0, 1500)}`);
          raw[f.path][mode].push({ error: String(e?.message ?? e).slice(0, 2000) });
          await waitPageConnected(client, false).catch(() => undefined);
        }
      }
    }
  }
  await client.close();
  const loadEnd = loadAvg();

  // ---------------------------------------------------------- report
  const table = {};
  const s = (recs, pick) => summary(recs.map(pick).filter(Number.isFinite));
  const ms = x => `${fmt(x.p50, 0)} / ${fmt(x.p95, 0)}`;
  const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}×` : '—');
  console.log(
    `\nMCP App vs docked Viewer: tools/call open → first frame, ms p50 / p95 (N=${RUNS} per file; ${fmtLoad(loadStart)} at start, ${fmtLoad(loadEnd)} at end)`
  );
  for (const f of files) {
    const app = raw[f.path].app.filter(r => !r.error);
    const docked = raw[f.path].docked.filter(r => !r.error);
    const t = {
      dockedCold: s(docked, r => r.cold.total),
      dockedWarm: s(docked, r => r.warm.total),
      appCold: s(app, r => r.cold.total),
      appLoaded: s(app, r => r.loaded.total),
      appAgain: s(app, r => r.again.total),
      appColdResult: s(app, r => r.cold.result),
      appColdHtml: s(app, r => r.cold.html),
      appColdInitialized: s(app, r => r.cold.initialized),
      appColdPartsRead: s(app, r => r.cold.partsRead),
      appColdReading: s(app, r => r.cold.reading),
      appColdDrawnAfterParts: s(app, r => r.cold.drawnAfterParts),
      appLoadedResult: s(app, r => r.loaded.result),
      appLoad: s(app, r => r.appLoad),
      clockOffsetMs: s(app, r => r.clockOffsetMs),
      bytes: app[0]?.bytes ?? null,
      dockedBytes: docked[0]?.bytes ?? null,
      errors: [...raw[f.path].app, ...raw[f.path].docked].filter(r => r.error).map(r => r.error)
    };
    table[f.path] = t;
    console.log(`\n${f.src} (${f.bytes} B)${t.errors.length ? `, ${t.errors.length} failed runs` : ''}`);
    console.log(`  docked, cold (page's first open) — baseline   ${ms(t.dockedCold).padStart(13)}   1.00×`);
    console.log(`  docked, warm (second open) — baseline         ${ms(t.dockedWarm).padStart(13)}   1.00×`);
    console.log(
      `  App cold (HTML + parts in the timing)         ${ms(t.appCold).padStart(13)}   ${ratio(t.appCold.p50, t.dockedCold.p50)} docked cold`
    );
    console.log(
      `  App loaded (View waiting for the result)      ${ms(t.appLoaded).padStart(13)}   ${ratio(t.appLoaded.p50, t.dockedWarm.p50)} docked warm, ${ratio(t.appLoaded.p50, t.dockedCold.p50)} docked cold`
    );
    console.log(
      `  App again (same View, its viewer exists)      ${ms(t.appAgain).padStart(13)}   ${ratio(t.appAgain.p50, t.dockedWarm.p50)} docked warm`
    );
    console.log(
      `  App cold milestones, p50: result ${fmt(t.appColdResult.p50, 0)}, HTML read ${fmt(t.appColdHtml.p50, 0)}, View initialised ${fmt(t.appColdInitialized.p50, 0)}, last part read ${fmt(t.appColdPartsRead.p50, 0)}, App code ran and reads the structure ${fmt(t.appColdReading.p50, 0)}, drawn ${fmt(t.appCold.p50, 0)} (${fmt(t.appColdDrawnAfterParts.p50, 0)} after the parts); App loaded: result ${fmt(t.appLoadedResult.p50, 0)}; App load alone (start → code running) ${ms(t.appLoad)}; clock offset page − Node p50 ${fmt(t.clockOffsetMs.p50, 2)} ms`
    );
    if (t.bytes) {
      const b = t.bytes;
      console.log(
        `  bytes a host loads per App: HTML ${b.html} B + ${b.parts} parts ${b.partBytes} B = ${b.html + b.partBytes} B in ${b.reads} resources/read (${b.readsWire.calls} on the wire here, ${b.readsWire.bytes} B of responses)`
      );
      console.log(
        `  open result: App (no page) ${b.openResult} B JSON (${b.openWire.bytes} B on the wire); docked ${t.dockedBytes?.openResult ?? 'n/a'} B (${t.dockedBytes?.openWire?.bytes ?? 'n/a'} B on the wire)`
      );
    }
  }
  const chromium = await (async () => {
    const b = await launchBrowser();
    const v = b.version();
    await b.close();
    return v;
  })();
  const git = (() => {
    try {
      const head = execFileSync('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD']).toString().trim();
      const dirty = execFileSync('git', ['-C', ROOT, 'status', '--porcelain', '--untracked-files=no']).toString().trim() !== '';
      return `${head}${dirty ? ' (with uncommitted changes)' : ''}`;
    } catch {
      return 'unknown';
    }
  })();
  console.log(
    `\nChromium ${chromium}; molspace ${git}; App parts ${partUris[0]?.replace(/-\d+\.js$/, '') ?? '?'}; ${os.cpus().length} cores`
  );
  writeResult('app_first_frame', { runs: RUNS, files, chromium, git, partUris, loadStart, loadEnd, table, raw });
} catch (e) {
  console.error(e);
  exitCode = 1;
} finally {
  await servers.close();
  await stopAll();
}
process.exit(exitCode);
