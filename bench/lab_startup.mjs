/**
 * Benchmark 3 — JupyterLab start to ready, with and without molspace.
 *
 * Two Jupyter servers run side by side with the same config: one with
 * molspace (labextension + gateway server extension), one WITHOUT it — the
 * BASELINE: its `labextensions_path` is a temp dir holding every other
 * installed labextension (so ipywidgets' manager etc. stay) and the molspace
 * server extension is off. (Disabling the plugin with `disabledExtensions`
 * would still download molspace's remoteEntry and main chunk; here the
 * extension is absent, which is what "without" should cost.)
 *
 * Timer: navigation start (performance.timeOrigin) → `window.jupyterapp.restored`
 * resolved (`expose_app_in_browser` is on), on `/lab` with no notebook open.
 * "cold": a new browser context (empty HTTP cache); "warm": a reload in that
 * context. Runs alternate with / without (order swapped every run); medians.
 *
 * Also recorded: bytes of molspace JS downloaded at start (responses under
 * `/lab/extensions/molspace/`, body bytes as received) and a check that no
 * Mol* chunk (a URL containing "molstar") is requested while no widget is shown.
 *
 * Aim: with / without ≤ 1.05 (cold median).
 */
import {
  PORTS,
  fmt,
  launchBrowser,
  log,
  newContext,
  sleep,
  startServer,
  stopOnExit,
  summary,
  waitRestored,
  writeResult
} from './lib.mjs';

const N = Number(process.env.MOLSPACE_BENCH_STARTUP_N || 5);

const servers = await Promise.all([
  startServer({ port: PORTS.a, name: 'with', molspace: true }),
  startServer({ port: PORTS.b, name: 'without', molspace: false })
]);
const stopAll = stopOnExit(servers);
const [withMs, withoutMs] = servers;

async function loadOnce(browser, server) {
  const context = await newContext(browser);
  const page = await context.newPage();
  const requests = [];
  page.on('requestfinished', async req => {
    const sizes = await req.sizes().catch(() => null);
    requests.push({ url: req.url(), body: sizes?.responseBodySize ?? 0, headers: sizes?.responseHeadersSize ?? 0 });
  });
  await page.goto(`${server.url}/lab`, { waitUntil: 'commit' });
  const cold = await waitRestored(page);
  await page.waitForLoadState('networkidle', { timeout: 15_000 }).catch(() => undefined);
  await sleep(500);
  const coldRequests = [...requests];
  requests.length = 0;
  await page.reload({ waitUntil: 'commit' });
  const warm = await waitRestored(page);
  await page.waitForLoadState('networkidle', { timeout: 15_000 }).catch(() => undefined);
  await context.close();
  const molspace = coldRequests.filter(r => r.url.includes('/lab/extensions/molspace/'));
  return {
    cold,
    warm,
    requests: coldRequests.length,
    bytes: coldRequests.reduce((s, r) => s + r.body, 0),
    molspaceBytes: molspace.reduce((s, r) => s + r.body, 0),
    molspaceFiles: molspace.map(r => `${r.url.replace(/.*\/lab\/extensions\/molspace\//, '')} ${r.body}`),
    molstarRequests: [...coldRequests, ...requests].filter(r => /molstar/i.test(r.url)).map(r => r.url)
  };
}

let browser;
let exitCode = 0;
try {
  browser = await launchBrowser();
  // One unmeasured load each: server-side caches (settings, templates) warm up.
  await loadOnce(browser, withMs);
  await loadOnce(browser, withoutMs);
  const runs = { with: [], without: [] };
  for (let i = 0; i < N; i++) {
    const order = i % 2 === 0 ? [withMs, withoutMs] : [withoutMs, withMs];
    for (const server of order) {
      const r = await loadOnce(browser, server);
      runs[server.molspace ? 'with' : 'without'].push(r);
      log(`run ${i + 1}/${N} ${server.molspace ? 'with   ' : 'without'} cold ${fmt(r.cold, 0)} ms, warm ${fmt(r.warm, 0)} ms, ${r.requests} requests, ${(r.bytes / 1e6).toFixed(2)} MB`);
    }
  }
  const agg = list => ({
    cold: summary(list.map(r => r.cold)),
    warm: summary(list.map(r => r.warm)),
    bytes: summary(list.map(r => r.bytes)),
    requests: summary(list.map(r => r.requests))
  });
  const w = agg(runs.with);
  const wo = agg(runs.without);
  const molstarRequests = [...runs.with, ...runs.without].flatMap(r => r.molstarRequests);
  const out = {
    n: N,
    with: w,
    without: wo,
    ratioCold: w.cold.p50 / wo.cold.p50,
    ratioWarm: w.warm.p50 / wo.warm.p50,
    molspaceBytes: summary(runs.with.map(r => r.molspaceBytes)),
    molspaceFiles: runs.with[0].molspaceFiles,
    molstarRequests,
    aim: { text: 'with / without ≤ 1.05 (cold median)', met: w.cold.p50 / wo.cold.p50 <= 1.05 }
  };
  console.log(`\nJupyterLab navigation → restored, medians of N=${N} each, ms:`);
  console.log(`           with molspace   without   ratio`);
  console.log(`cold       ${fmt(w.cold.p50, 0).padStart(10)}   ${fmt(wo.cold.p50, 0).padStart(8)}   ${out.ratioCold.toFixed(3)}×   (p95 ${fmt(w.cold.p95, 0)} / ${fmt(wo.cold.p95, 0)})`);
  console.log(`warm       ${fmt(w.warm.p50, 0).padStart(10)}   ${fmt(wo.warm.p50, 0).padStart(8)}   ${out.ratioWarm.toFixed(3)}×   (p95 ${fmt(w.warm.p95, 0)} / ${fmt(wo.warm.p95, 0)})`);
  console.log(`bytes at start (cold): ${(w.bytes.p50 / 1e6).toFixed(2)} MB vs ${(wo.bytes.p50 / 1e6).toFixed(2)} MB; molspace JS ${(out.molspaceBytes.p50 / 1e3).toFixed(1)} kB:`);
  for (const f of out.molspaceFiles) console.log(`   ${f}`);
  console.log(`Mol* chunks requested without a widget: ${molstarRequests.length ? molstarRequests.join(', ') : 'none (OK)'}`);
  console.log(`aim with/without ≤ 1.05 (cold): ${out.aim.met ? 'MET' : 'MISSED'}`);
  writeResult('lab_startup', out);
} catch (e) {
  console.error(e);
  exitCode = 1;
} finally {
  await browser?.close();
  await stopAll();
}
process.exit(exitCode);
