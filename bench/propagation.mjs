/**
 * Benchmark 4 — propagation of a Story step change between kernel and page.
 *
 * Both directions use the machine's one wall clock: Python's `time.time()` in
 * the kernel and `Date.now()` in Chromium (ms resolution).
 *
 * kernel → page: a cell runs `t0 = time.time(); story.goto(k)` (k alternates
 *   1, 0). Page side, a MutationObserver stamps `Date.now()` when the widget's
 *   `data-molspace-index` becomes k (the model change reached the view: comm
 *   message kernel → server → websocket → page, Dispatcher applied it) and
 *   when `data-molspace-ready` turns "true" again (the step drawn in Mol*).
 * page → kernel: in the page, `t0 = Date.now(); nextButton.click()` (Next and
 *   Previous alternate). A Python `story.on_change` callback appends
 *   `time.time()`; the list is read back with a cell afterwards. The page
 *   syncs the new state once the step is rendered, so this includes the
 *   Dispatcher, applying and drawing the step, and the comm back to the kernel.
 * Before every trial the page is left to stop drawing (Mol* refines a new
 * step for several frames, ~1 s of main thread each on SwiftShader), so each
 * figure is for an otherwise idle page. The kernel is idle between cells, as
 * a comm message is only handled when no cell runs. There is no separate
 * baseline figure: the MCP benchmark's `status` is the transport floor.
 */
import {
  execCell,
  fmt,
  launchBrowser,
  log,
  newContext,
  openNotebook,
  PORTS,
  startServer,
  stopOnExit,
  summary,
  waitSettled,
  writeNotebook,
  writeResult
} from './lib.mjs';

const N = Number(process.env.MOLSPACE_BENCH_PROP_N || 10);
const SCRATCH = 2;

const server = await startServer({ port: PORTS.a, name: 'prop' });
const stopAll = stopOnExit([server]);
writeNotebook(server.root, 'propagation.ipynb');

let browser;
let exitCode = 0;
try {
  browser = await launchBrowser();
  const context = await newContext(browser);
  const page = await context.newPage();
  await openNotebook(page, server, 'propagation.ipynb');
  await execCell(page, 0, 'import json, time, molspace\nstory = molspace.Story("data/1cbs-story.mvsx")\nstory');
  await page.waitForSelector('.molspace-story[data-molspace-ready="true"]', { timeout: 120_000 });
  await execCell(
    page,
    1,
    '_times = []\nstory.on_change(lambda c: _times.append({"t": time.time() * 1000, "index": c.index, "revision": c.revision, "source": c.source}))'
  );
  // Page-side stamps of every index / ready change of the widget.
  await page.evaluate(() => {
    const el = document.querySelector('.molspace-story');
    window.__events = [];
    new MutationObserver(records => {
      const t = Date.now();
      for (const r of records) {
        window.__events.push({ t, attr: r.attributeName, value: el.getAttribute(r.attributeName) });
      }
    }).observe(el, { attributes: true, attributeFilter: ['data-molspace-index', 'data-molspace-ready'] });
  });
  const snapshots = Number(await execCell(page, SCRATCH, 'print(len(story.snapshots))'));
  log(`Story ready, ${snapshots} snapshots; ${N} trials each way`);

  // ---------------------------------------------------------- kernel → page
  const k2p = { index: [], ready: [] };
  for (let i = 0; i < N; i++) {
    const k = i % 2 === 0 ? 1 : 0;
    await waitSettled(page, 1000, 30_000);
    const from = await page.evaluate(() => window.__events.length);
    const t0 = Number(await execCell(page, SCRATCH, `_t0 = time.time() * 1000\nstory.goto(${k})\nprint(repr(_t0))`));
    await page.waitForFunction(
      ({ from, k }) => {
        const ev = window.__events.slice(from);
        const at = ev.findIndex(e => e.attr === 'data-molspace-index' && e.value === String(k));
        return at >= 0 && ev.slice(at).some(e => e.attr === 'data-molspace-ready' && e.value === 'true');
      },
      { from, k },
      { timeout: 60_000, polling: 50 }
    );
    const ev = await page.evaluate(from => window.__events.slice(from), from);
    const at = ev.findIndex(e => e.attr === 'data-molspace-index' && e.value === String(k));
    const ready = ev.slice(at).find(e => e.attr === 'data-molspace-ready' && e.value === 'true');
    k2p.index.push(ev[at].t - t0);
    k2p.ready.push(ready.t - t0);
    log(`kernel→page ${i + 1}/${N}: index ${fmt(ev[at].t - t0, 0)} ms, ready ${fmt(ready.t - t0, 0)} ms`);
  }

  // ---------------------------------------------------------- page → kernel
  const before = JSON.parse(await execCell(page, SCRATCH, 'print(json.dumps(len(_times)))'));
  const clicks = [];
  for (let i = 0; i < N; i++) {
    await waitSettled(page, 1000, 30_000);
    const action = (await page.evaluate(() => document.querySelector('.molspace-story').getAttribute('data-molspace-index'))) === '0' ? 'next' : 'previous';
    const from = await page.evaluate(() => window.__events.length);
    const t0 = await page.evaluate(action => {
      const button = document.querySelector(`.molspace-story button[data-action="${action}"]`);
      const t = Date.now();
      button.click();
      return t;
    }, action);
    await page.waitForFunction(
      from => window.__events.slice(from).some(e => e.attr === 'data-molspace-ready' && e.value === 'true'),
      from,
      { timeout: 60_000, polling: 50 }
    );
    const ready = (await page.evaluate(from => window.__events.slice(from), from)).find(e => e.attr === 'data-molspace-ready' && e.value === 'true');
    clicks.push({ t0, ready: ready.t - t0 });
  }
  // A little time for the last sync to reach the (idle) kernel before the read-back cell.
  await waitSettled(page, 1000, 30_000);
  const times = JSON.parse(await execCell(page, SCRATCH, 'print(json.dumps(_times))')).slice(before).filter(e => e.source === 'ui');
  if (times.length !== clicks.length) {
    throw new Error(`${clicks.length} clicks but ${times.length} on_change calls from the page: ${JSON.stringify(times)}`);
  }
  const p2k = { kernel: clicks.map((c, i) => times[i].t - c.t0), ready: clicks.map(c => c.ready) };
  p2k.kernel.forEach((ms, i) => log(`page→kernel ${i + 1}/${N}: on_change ${fmt(ms, 0)} ms (page ready ${fmt(clicks[i].ready, 0)} ms)`));

  const out = {
    n: N,
    snapshots,
    kernelToPage: { index: summary(k2p.index), ready: summary(k2p.ready) },
    pageToKernel: { onChange: summary(p2k.kernel), pageReady: summary(p2k.ready) },
    raw: { k2p, p2k }
  };
  console.log(`\nPropagation of a step change, N=${N} each way, ms (p50 / p95):`);
  console.log(`kernel → page: index shown ${fmt(out.kernelToPage.index.p50)} / ${fmt(out.kernelToPage.index.p95)}, step drawn (ready) ${fmt(out.kernelToPage.ready.p50)} / ${fmt(out.kernelToPage.ready.p95)}`);
  console.log(`page → kernel: on_change in Python ${fmt(out.pageToKernel.onChange.p50)} / ${fmt(out.pageToKernel.onChange.p95)} (page ready after the click ${fmt(out.pageToKernel.pageReady.p50)} / ${fmt(out.pageToKernel.pageReady.p95)})`);
  writeResult('propagation', out);
} catch (e) {
  console.error(e);
  exitCode = 1;
} finally {
  await browser?.close();
  await stopAll();
}
process.exit(exitCode);
