/**
 * Benchmark — `act` latency on a structure of more than 5,000 atoms in
 * software WebGL (issue 26 item 3), against `status` (answered by the gateway
 * alone) interleaved in the same run.
 *
 * A Viewer of bench/data/7cfn.cif (8,112 atoms, 5 chains, ligands) is shown
 * from a cell; an official MCP client (Streamable HTTP) then calls, in rotated
 * order, N times each: `status`; `act` highlight / clear_highlight; set_color
 * on a chain (two colours in turn); set_representation of the ligands
 * (ball_and_stick / spacefill in turn); focus (a ligand / chain A in turn);
 * set_transparency of chain B (0.5 / 0 in turn). Each `act` answers once the
 * page has drawn the change (the Viewer's draw wait).
 *
 * The trace: the page's user-timing measures `molspace.viewer.*` (written by
 * the Viewer for each step of a view change: loadMVS, transparency,
 * measurements, interactive, draw) are read after each call and summarised
 * per operation, so the table says where each call's time goes. They are the
 * same measures a DevTools performance recording shows.
 *
 * MOLSPACE_BENCH_PROFILE=<call> also records a CPU profile of the page (Chrome
 * DevTools Protocol) over that call's N runs and prints the functions with the
 * most self time; with a development build (`npm run build:labextension:dev`)
 * the names are Mol*'s own.
 *
 *   node bench/act_latency.mjs     (MOLSPACE_BENCH_ACT_N, default 20)
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  BENCH,
  PORTS,
  callTool,
  execCell,
  fmt,
  launchBrowser,
  loadAvg,
  mcpClient,
  newContext,
  openNotebook,
  startServer,
  stopOnExit,
  summary,
  waitSettled,
  writeNotebook,
  writeResult
} from './lib.mjs';

const N = Number(process.env.MOLSPACE_BENCH_ACT_N || 20);
const PROFILE = process.env.MOLSPACE_BENCH_PROFILE || '';

/** The `top` functions by self time (ms) in a CDP `Profiler.Profile`, with their script and line. */
function selfTimes(profile, top = 25) {
  const byId = new Map(profile.nodes.map(n => [n.id, n]));
  const self = new Map();
  const dt = profile.timeDeltas;
  for (let i = 0; i < profile.samples.length; i++) {
    const n = byId.get(profile.samples[i]);
    const f = n.callFrame;
    const key = `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}:${f.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0) / 1000);
  }
  return [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
}

const server = await startServer({ port: PORTS.a, name: 'act' });
const stopAll = stopOnExit([server]);
let exitCode = 0;
try {
  fs.copyFileSync(path.join(BENCH, 'data', '7cfn.cif'), path.join(server.root, 'data', '7cfn.cif'));
  const browser = await launchBrowser();
  try {
    const context = await newContext(browser);
    if (PROFILE) {
      // Time spent inside each WebGL call (SwiftShader's work shows as "(program)" in the CPU profile).
      await context.addInitScript(() => {
        const spent = (window.__molspaceBenchGl = {});
        for (const P of [window.WebGL2RenderingContext?.prototype, window.WebGLRenderingContext?.prototype]) {
          for (const m of Object.getOwnPropertyNames(P ?? {})) {
            const d = Object.getOwnPropertyDescriptor(P, m);
            if (typeof d?.value !== 'function' || m === 'constructor') continue;
            const orig = d.value;
            P[m] = function (...a) {
              const t = performance.now();
              try {
                return orig.apply(this, a);
              } finally {
                const e = (spent[m] ??= [0, 0]);
                e[0] += performance.now() - t;
                e[1]++;
              }
            };
          }
        }
      });
    }
    const page = await context.newPage();
    const cells = ['import molspace', 'v = molspace.Viewer("data/7cfn.cif")\nv'];
    writeNotebook(server.root, 'act.ipynb', cells);
    await openNotebook(page, server, 'act.ipynb');
    await execCell(page, 0, cells[0]);
    await execCell(page, 1, cells[1]);
    await page.waitForSelector('.molspace-viewer[data-molspace-ready="true"]', { timeout: 180_000 });
    await waitSettled(page, 1500, 60_000);
    const renderer = await page.evaluate(() => {
      const gl = document.createElement('canvas').getContext('webgl2');
      const ext = gl?.getExtension('WEBGL_debug_renderer_info');
      return ext ? gl.getParameter(ext.UNMASKED_RENDERER_WEBGL) : 'unknown';
    });
    const client = await mcpClient(server);
    const act = a => callTool(client, 'act', { actions: [a] });
    const observed = await callTool(client, 'viewer_observe', {});
    const calls = {
      status: () => callTool(client, 'status', {}),
      highlight: k => act(k % 2 ? { op: 'clear_highlight' } : { op: 'highlight', selector: { auth_asym_id: 'A' } }),
      set_color: k => act({ op: 'set_color', selector: { auth_asym_id: 'G' }, color: k % 2 ? '#ff0000' : '#00aa00' }),
      set_representation: k =>
        act({ op: 'set_representation', selector: 'ligand', representation: k % 2 ? 'spacefill' : 'ball_and_stick' }),
      focus: k => act({ op: 'focus', selector: k % 2 ? { auth_asym_id: 'A' } : 'ligand' }),
      set_transparency: k => act({ op: 'set_transparency', selector: { auth_asym_id: 'B' }, value: k % 2 ? 0 : 0.5 })
    };
    const names = Object.keys(calls);
    for (let k = 0; k < 2; k++) for (const f of Object.values(calls)) await f(k); // warm-up, not counted
    const times = Object.fromEntries(names.map(n => [n, []]));
    const phases = Object.fromEntries(names.map(n => [n, {}]));
    const loads = [];
    const cdp = PROFILE ? await context.newCDPSession(page) : null;
    if (cdp) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
    }
    let profileMs = 0;
    const profile = [];
    const glSpent = {};
    for (let k = 0; k < N; k++) {
      loads.push(loadAvg().one);
      for (let j = 0; j < names.length; j++) {
        const name = names[(j + k) % names.length];
        await page.evaluate(() => performance.clearMeasures());
        if (cdp && name === PROFILE) {
          await page.evaluate(() => Object.keys(window.__molspaceBenchGl).forEach(k => delete window.__molspaceBenchGl[k]));
          await cdp.send('Profiler.start');
          if (k === 1 && process.env.MOLSPACE_BENCH_TRACE) {
            await browser.startTracing(page, {
              path: process.env.MOLSPACE_BENCH_TRACE,
              categories: [
                'devtools.timeline',
                'gpu',
                'toplevel',
                'disabled-by-default-gpu.service',
                'disabled-by-default-gpu.decoder',
                'gpu.angle',
                'gpu.service'
              ]
            });
          }
        }
        const t0 = performance.now();
        await calls[name](k);
        times[name].push(performance.now() - t0);
        if (cdp && name === PROFILE) {
          if (k === 1 && process.env.MOLSPACE_BENCH_TRACE) await browser.stopTracing();
          profile.push((await cdp.send('Profiler.stop')).profile);
          for (const [m, [ms, n]] of Object.entries(await page.evaluate(() => window.__molspaceBenchGl))) {
            const e = (glSpent[m] ??= [0, 0]);
            e[0] += ms;
            e[1] += n;
          }
          profileMs += performance.now() - t0;
        }
        const measures = await page.evaluate(() =>
          performance
            .getEntriesByType('measure')
            .filter(m => m.name.startsWith('molspace.viewer.'))
            .map(m => [m.name.slice('molspace.viewer.'.length), m.duration])
        );
        const sums = {};
        for (const [p, d] of measures) sums[p] = (sums[p] ?? 0) + d;
        for (const [p, d] of Object.entries(sums)) (phases[name][p] ??= []).push(d);
      }
    }
    await client.close();
    const out = { n: N, renderer, atoms: observed?.viewers?.[0]?.summary?.atoms ?? null, loads, ops: {} };
    console.log(
      `\n7cfn.cif (8,112 atoms), ${renderer}; N=${N} each, rotated order (load ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)})`
    );
    console.log('call                 p50 ms   p95 ms   ×status p50   page phases, p50 ms (count)');
    const base = summary(times.status);
    for (const name of names) {
      const s = summary(times[name]);
      const ph = Object.entries(phases[name]).map(([p, v]) => `${p} ${fmt(summary(v).p50, 0)} (${v.length})`);
      out.ops[name] = { ...s, phases: Object.fromEntries(Object.entries(phases[name]).map(([p, v]) => [p, summary(v)])) };
      console.log(
        `${name.padEnd(20)} ${fmt(s.p50, 0).padStart(6)}   ${fmt(s.p95, 0).padStart(6)}   ${(s.p50 / base.p50).toFixed(1).padStart(11)}×   ${ph.join(', ')}`
      );
    }
    if (profile.length) {
      const merged = new Map();
      for (const p of profile) for (const [k, v] of selfTimes(p, 200)) merged.set(k, (merged.get(k) ?? 0) + v);
      console.log(`\nCPU profile of the page over ${profile.length} × ${PROFILE} (${fmt(profileMs, 0)} ms of calls): self time, ms`);
      for (const [k, v] of [...merged.entries()].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`  ${fmt(v, 0).padStart(7)}  ${k}`);
      console.log('WebGL calls by time inside them, ms (calls):');
      for (const [m, [ms, n]] of Object.entries(glSpent)
        .sort((a, b) => b[1][0] - a[1][0])
        .slice(0, 60))
        console.log(`  ${fmt(ms, 0).padStart(7)}  ${m} (${n})`);
    }
    writeResult('act_latency', out);
    await context.close();
  } finally {
    await browser.close();
  }
} catch (e) {
  console.error(e);
  exitCode = 1;
} finally {
  await stopAll();
}
process.exit(exitCode);
