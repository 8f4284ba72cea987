/**
 * Benchmark — trajectory frames on demand (issue 22, item 3): page memory of a Viewer whose
 * frames the kernel serves (`Viewer(..., frame_budget=)`, molspace/viewer/frames.py) against the
 * whole-file path on the same data, in the same run.
 *
 * Data (written by MDAnalysis into the server's temp root, never the repository): adk.psf with
 * DCDs of adk_dims' 98 frames over and over (3,341 atoms, 40,148 bytes a frame):
 * - MOLSPACE_BENCH_FRAMES_UNDER (2,500) frames: 100.4 MB, just under `viewerSourceBytes`
 *   (100 MiB), so the whole-file path can open it: opened whole (frame_budget above its frames)
 *   and on demand (frame_budget MOLSPACE_BENCH_FRAMES_BUDGET, 100);
 * - MOLSPACE_BENCH_FRAMES_OVER (3,000) frames: 120.4 MB, over the old bound (the whole-file path
 *   refuses it, TOO_LARGE): on demand with the default budget (1,000 frames).
 * and a baseline: the notebook with `import molspace` run and no Viewer.
 * Then the server path (an agent's `open {path: "adk.psf", coordinates}` over MCP: a docked Viewer
 * whose frames the Jupyter server serves, GET {base_url}molspace/frames, molspace/gateway/
 * frames_handler.py), on the same UNDER-frame DCD: whole (page setting `trajectoryFrameBudget`
 * above its frames) and on demand (`trajectoryFrameBudget` MOLSPACE_BENCH_FRAMES_BUDGET), the
 * setting PUT through the server's settings API before the case's browser starts; stepped with
 * `act {op: "goto_frame"}` (each answers once drawn) to the same 12 frames.
 *
 * Each case in a NEW browser (Debian's Chromium) with its own notebook and kernel (shut down after it,
 * so no later page restores its widgets): open the notebook, `import molspace`, measure;
 * run the cell that shows the Viewer, wait until it is ready with every frame counted, step with
 * `v.goto_frame(k).wait()` to 12 frames spread over the trajectory (each returns once drawn; the
 * player then shows it),
 * measure again. Measured after a forced GC (DevTools `HeapProfiler.collectGarbage`): V8's heap
 * used (`Runtime.getHeapUsage` usedSize), ArrayBuffer backing stores (its backingStorageSize: the
 * coordinates live there, outside V8's heap), and the renderer process's RSS (/proc, pid from CDP
 * `SystemInfo.getProcessInfo`). Prints a table and each case's growth against the baseline's.
 *
 *   cd /work/main && . .venv/bin/activate && node bench/frames_on_demand.mjs
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  PORTS,
  ROOT,
  TOKEN,
  callTool,
  execCell,
  launchBrowser,
  mcpClient,
  loadAvg,
  log,
  newContext,
  openNotebook,
  startServer,
  stopOnExit,
  writeAdkDcd,
  writeNotebook,
  writeResult
} from './lib.mjs';

const DATA = path.join(ROOT, 'tests', 'data', 'trajectories');
const UNDER = Number(process.env.MOLSPACE_BENCH_FRAMES_UNDER || 2500);
const OVER = Number(process.env.MOLSPACE_BENCH_FRAMES_OVER || 3000);
const BUDGET = Number(process.env.MOLSPACE_BENCH_FRAMES_BUDGET || 100);
const STEPS = 12;

async function rendererRss(browser) {
  const cdp = await browser.newBrowserCDPSession();
  try {
    const { processInfo } = await cdp.send('SystemInfo.getProcessInfo');
    let rss = 0;
    for (const p of processInfo.filter(x => x.type === 'renderer')) {
      try {
        const line = fs.readFileSync(`/proc/${p.id}/status`, 'utf8').split('\n').find(l => l.startsWith('VmRSS:'));
        rss += Number(line.split(/\s+/)[1]) * 1024;
      } catch {
        // a renderer gone meanwhile
      }
    }
    return rss;
  } finally {
    await cdp.detach();
  }
}

async function pageMemory(page, browser) {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('HeapProfiler.collectGarbage');
    const usage = await cdp.send('Runtime.getHeapUsage');
    return { heapUsed: usage.usedSize, arrayBuffers: usage.backingStorageSize ?? null, rendererRss: await rendererRss(browser) };
  } finally {
    await cdp.detach();
  }
}

/** The page setting `trajectoryFrameBudget`, PUT through the server's settings API (read by the next page). */
async function setFrameBudget(server, frames) {
  const r = await fetch(`${server.url}/lab/api/settings/molspace:plugin`, {
    method: 'PUT',
    headers: { Authorization: `token ${TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ raw: JSON.stringify({ trajectoryFrameBudget: frames }) })
  });
  if (!r.ok) throw new Error(`settings PUT ${r.status}: ${await r.text()}`);
}

async function measure(server, c) {
  const browser = await launchBrowser();
  const out = { ...c, load: loadAvg().one };
  let page = null;
  try {
    page = await (await newContext(browser)).newPage();
    await openNotebook(page, server, c.notebook);
    const setup = await execCell(page, 0, 'import molspace');
    if (/Error/.test(setup)) throw new Error(setup);
    out.before = await pageMemory(page, browser);
    if (c.agent) {
      const client = await mcpClient(server);
      try {
        const t0 = Date.now();
        const opened = await callTool(client, 'open', { path: 'adk.psf', coordinates: c.dcd });
        if (opened.composition?.trajectory?.frames !== c.frames) throw new Error(`open: ${JSON.stringify(opened.composition)}`);
        out.openMs = Date.now() - t0;
        const target = opened.viewer.target;
        const host = '.molspace-docked-viewer [data-molspace-frames-held]';
        out.onDemand = (await page.locator(host).count()) > 0 && Number(await page.getAttribute(host, 'data-molspace-frames-held')) < c.frames;
        const s0 = Date.now();
        for (let i = 1; i <= STEPS; i++) {
          const k = Math.floor((i * (c.frames - 1)) / STEPS);
          const r = await callTool(client, 'act', { target, actions: [{ op: 'goto_frame', frame: k }] });
          if (r.view?.frame !== k) throw new Error(`goto_frame(${k}): ${JSON.stringify(r).slice(0, 500)}`);
        }
        out.stepMs = (Date.now() - s0) / STEPS;
        out.held = out.onDemand ? await page.getAttribute(host, 'data-molspace-frames-held') : null;
        out.requests = out.onDemand ? await page.getAttribute(host, 'data-molspace-frame-requests') : null;
      } finally {
        await client.close();
      }
    } else if (c.dcd) {
      const t0 = Date.now();
      const shown = await execCell(
        page,
        1,
        `v = molspace.Viewer("adk.psf", coordinates="${c.dcd}"${c.budget ? `, frame_budget=${c.budget}` : ''})\nv`
      );
      if (/Error/.test(shown)) throw new Error(shown);
      await page.waitForSelector(`.molspace-viewer[data-molspace-ready="true"] .molspace-viewer-player[data-molspace-frames="${c.frames}"]`, {
        timeout: 600_000
      });
      out.openMs = Date.now() - t0;
      out.onDemand = (await execCell(page, 2, 'print(v._coordinates is None)')).trim() === 'True';
      const s0 = Date.now();
      for (let i = 1; i <= STEPS; i++) {
        const k = Math.floor((i * (c.frames - 1)) / STEPS);
        const r = await execCell(page, 3, `_ = v.goto_frame(${k}).wait(timeout=120)`);
        if (r.trim()) throw new Error(`goto_frame(${k}): ${r}`);
        await page.waitForSelector(`.molspace-viewer-player[data-molspace-frame="${k}"]`, { timeout: 120_000 });
      }
      out.stepMs = (Date.now() - s0) / STEPS;
      out.held = await page.getAttribute('[data-molspace-frames-held]', 'data-molspace-frames-held', { timeout: 1000 }).catch(() => null);
    }
    out.after = await pageMemory(page, browser);
  } catch (e) {
    out.error = String(e?.stack ?? e).slice(0, 3000);
    log(`${c.name} FAILED: ${out.error}`);
  } finally {
    // each case its own notebook and kernel, shut down after it: a later page restores no widget of it
    await page?.evaluate(() => window.jupyterapp.serviceManager.sessions.shutdownAll()).catch(() => undefined);
    await browser.close();
  }
  return out;
}

const servers = [];
stopOnExit(servers);
const mb = b => (b == null ? 'n/a' : `${(b / 1048576).toFixed(1)} MB`);
try {
  // an agent's open of the whole 100 MB file reads it through the contents API: longer than the default 30 s
  const server = await startServer({ port: PORTS.a, name: 'frames', config: ['c.MolspaceGateway.call_timeout = 300'] });
  servers.push(server);
  fs.copyFileSync(path.join(DATA, 'adk.psf'), path.join(server.root, 'adk.psf'));
  const under = `adk_${UNDER}.dcd`;
  const over = `adk_${OVER}.dcd`;
  const sizes = { [under]: writeAdkDcd('python', path.join(server.root, under), UNDER), [over]: writeAdkDcd('python', path.join(server.root, over), OVER) };
  log(`DCDs: ${under} ${sizes[under]} bytes, ${over} ${sizes[over]} bytes`);
  const cases = [
    { name: 'baseline (import molspace)' },
    { name: `whole file, ${UNDER} frames`, dcd: under, frames: UNDER, budget: UNDER + 1 },
    { name: `on demand, ${UNDER} frames, budget ${BUDGET}`, dcd: under, frames: UNDER, budget: BUDGET },
    { name: `on demand, ${OVER} frames (over the old bound), default budget`, dcd: over, frames: OVER, budget: null },
    { name: `agent open (server), whole file, ${UNDER} frames`, agent: true, dcd: under, frames: UNDER, pageBudget: UNDER + 1 },
    { name: `agent open (server frames), ${UNDER} frames, trajectoryFrameBudget ${BUDGET}`, agent: true, dcd: under, frames: UNDER, pageBudget: BUDGET }
  ];
  const only = process.env.MOLSPACE_BENCH_FRAMES_CASES?.split(',').map(Number);
  const results = [];
  for (const [i, c] of cases.entries()) {
    if (only && !only.includes(i)) continue;
    if (c.pageBudget) await setFrameBudget(server, c.pageBudget);
    c.notebook = `frames-${i}.ipynb`;
    writeNotebook(server.root, c.notebook, []);
    results.push(await measure(server, c));
  }
  const base = results[0].after;
  const whole = { kernel: results.find(r => r.dcd && !r.agent && !r.error && !r.onDemand), agent: results.find(r => r.agent && !r.error && !r.onDemand) };
  log('case | open ms | step ms | frames held | V8 heap (+ vs baseline) | ArrayBuffers (+) | renderer RSS (+) | ratios vs the kernel whole file (ArrayBuffers, RSS, step)');
  for (const r of results) {
    if (r.error) {
      log(`${r.name} | FAILED`);
      continue;
    }
    const d = k => (r.after[k] ?? 0) - (base[k] ?? 0);
    log(
      `${r.name} | ${r.openMs ?? '-'} | ${r.stepMs?.toFixed(0) ?? '-'} | ${r.held ?? (r.dcd ? 'all' : '-')} | ` +
        `${mb(r.after.heapUsed)} (+${mb(d('heapUsed'))}) | ${mb(r.after.arrayBuffers)} (+${mb(d('arrayBuffers'))}) | ` +
        `${mb(r.after.rendererRss)} (+${mb(d('rendererRss'))})` +
        (whole.kernel && r.dcd
          ? ` | ${(d('arrayBuffers') / (whole.kernel.after.arrayBuffers - base.arrayBuffers)).toFixed(3)}x, ` +
            `${(d('rendererRss') / (whole.kernel.after.rendererRss - base.rendererRss)).toFixed(3)}x, ${(r.stepMs / whole.kernel.stepMs).toFixed(2)}x`
          : '')
    );
  }
  writeResult('frames_on_demand', { date: new Date().toISOString(), sizes, results });
} finally {
  for (const s of servers) await s.stop?.();
}
process.exit(0);
