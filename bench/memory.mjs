/**
 * Benchmark — memory with 1, 10 and 20 Stories (issue 9, item 4).
 *
 * For each count N (and N = 0, the baseline: JupyterLab with the notebook
 * open and `import molspace` run), in a new browser context with a new kernel
 * (one notebook per N): a cell creates N `molspace.Story("data/1cbs-story.mvsx")`
 * and displays them; then every Story is scrolled into view in turn and left
 * to draw (a person reading the notebook), so the viewer budget
 * (`maxLiveViewers`, 8) keeps at most 8 live and parks the rest as images.
 * Measured once drawing stopped:
 * - page JS heap after a forced GC (DevTools `Runtime.getHeapUsage`);
 * - GPU memory estimate (bench/lib.mjs `instrumentWebgl`: sizes passed to
 *   WebGL allocation calls in live contexts, plus drawing buffers);
 * - in the kernel: RSS (`/proc/self/status`) and Python allocations traced by
 *   `tracemalloc` since before the Stories, grouped by where they were
 *   allocated; blocks of at least the archive's size are listed (the MVSX
 *   bytes held by the kernel);
 * - the saved widget state: ipywidgets' "Save Widget State Automatically"
 *   turned on (in the server's temp settings dir), the notebook saved, its
 *   `widgets` metadata read — how many base64 characters of it are buffers
 *   (the Stories' archives).
 * Prints a table; ratios are per Story against the N = 0 baseline of the same run.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  PORTS,
  ROOT,
  execCell,
  fmtLoad,
  instrumentWebgl,
  jsHeap,
  keepOffline,
  launchBrowser,
  loadAvg,
  log,
  newContext,
  openNotebook,
  startServer,
  stopOnExit,
  waitSettled,
  writeNotebook,
  writeResult
} from './lib.mjs';

const COUNTS = (process.env.MOLSPACE_BENCH_MEM_COUNTS || '0,1,10,20').split(',').map(Number);
/** Longest wait for each Story to draw once scrolled into view, ms (then the next one is scrolled to). */
const STORY_MS = Number(process.env.MOLSPACE_BENCH_MEM_STORY_MS || 90_000);
const MVSX = path.join(ROOT, 'examples', 'data', '1cbs-story.mvsx');
const MVSX_BYTES = fs.statSync(MVSX).size;
const CIF_BYTES = fs.statSync(path.join(ROOT, 'examples', 'data', '1cbs.cif')).size; // the archive's 1cbs.cif, unpacked

const KERNEL_SETUP = `import gc, json, tracemalloc
import molspace
def _rss():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmRSS:"))
gc.collect()
tracemalloc.start(12)
_base = tracemalloc.take_snapshot()
_rss0 = _rss()`;

const KERNEL_MEASURE = `gc.collect()
_snap = tracemalloc.take_snapshot()
_stats = _snap.compare_to(_base, "traceback")
_here = lambda fr: fr.filename.split("site-packages/")[-1].split("/work/")[-1] + ":" + str(fr.lineno)
print(json.dumps({
    "traced": sum(s.size_diff for s in _stats),
    "rss": _rss() - _rss0,
    "big": [
        {"bytes": s.size_diff, "blocks": s.count_diff, "at": [_here(fr) for fr in list(s.traceback)[-4:]]}
        for s in sorted(_stats, key=lambda s: -s.size_diff)
        if s.size_diff >= ${MVSX_BYTES} and s.count_diff > 0
    ][:8],
    "held": [len(s._mvsx or b"") for s in _stories],
}))`;

const server = await startServer({ port: PORTS.a, name: 'memory' });
const stopAll = stopOnExit([server]);
fs.copyFileSync(MVSX, path.join(server.root, 'data', '1cbs-story.mvsx'));

const results = [];
let exitCode = 0;
const loadStart = loadAvg();
let browser;
try {
  browser = await launchBrowser();
  for (const n of COUNTS) {
    const nb = `memory_${n}.ipynb`;
    writeNotebook(server.root, nb, [KERNEL_SETUP, '', '']);
    const context = await newContext(browser);
    await instrumentWebgl(context);
    const offline = await keepOffline(context);
    const page = await context.newPage();
    try {
      // A new workspace each N: the server would otherwise restore the notebooks of the earlier N
      // beside this one (the N = 1 notebook, saved with widget state, showed its Story: 11 elements at N = 10).
      await openNotebook(page, server, nb, { workspace: `memory-${n}` });
      await execCell(page, 0, KERNEL_SETUP);
      const load = loadAvg();
      await execCell(page, 1, `_stories = [molspace.Story("data/1cbs-story.mvsx") for _ in range(${n})]\nfor _s in _stories:\n    display(_s)`);
      await page
        .waitForFunction(k => document.querySelectorAll('.molspace-story').length >= k, n, { timeout: 60_000, polling: 200 })
        .catch(async () => log(`N=${n}: ${await page.evaluate(() => document.querySelectorAll('.molspace-story').length)} Story elements after 60 s`));
      const shownCount = await page.evaluate(() => document.querySelectorAll('.molspace-story').length);
      // Read the notebook: bring each Story into view and let it draw.
      for (let i = 0; i < shownCount; i++) {
        await page.evaluate(i => document.querySelectorAll('.molspace-story')[i].scrollIntoView({ block: 'center' }), i);
        await page
          .waitForFunction(
            i => {
              const el = document.querySelectorAll('.molspace-story')[i];
              return el.getAttribute('data-molspace-ready') === 'true' || el.classList.contains('molspace-story-has-error');
            },
            i,
            { timeout: STORY_MS, polling: 100 }
          )
          .catch(() => log(`N=${n}: Story ${i} not ready within ${STORY_MS / 1000} s (counted as it is)`));
      }
      await waitSettled(page, 1500, 60_000, '__molspaceBenchInstanced');
      const heap = await jsHeap(page);
      const gpu = await page.evaluate(() => window.__molspaceBenchGpu());
      const views = await page.evaluate(() => {
        const all = [...document.querySelectorAll('.molspace-story')];
        return {
          elements: all.length,
        live: all.filter(e => e.querySelector('canvas')).length,
          parked: all.filter(e => e.getAttribute('data-molspace-parked') === 'true').length,
          parkedImageChars: all.reduce((k, e) => k + [...e.querySelectorAll('img')].reduce((m, i) => m + (i.src?.length ?? 0), 0), 0)
        };
      });
      const kernel = JSON.parse(await execCell(page, 2, KERNEL_MEASURE));
      // Saved widget state: what "Save Widget State Automatically" would write into the .ipynb.
      const saved = await page.evaluate(async () => {
        const app = window.jupyterapp;
        const toggle = '@jupyter-widgets/jupyterlab-manager:saveWidgetState';
        if (!app.commands.hasCommand(toggle)) return null;
        if (!app.commands.isToggled(toggle)) await app.commands.execute(toggle);
        const panel = app.shell.currentWidget;
        await panel.context.save();
        const meta = panel.context.model.getMetadata('widgets');
        const state = meta?.['application/vnd.jupyter.widget-state+json']?.state ?? {};
        let bytes = 0;
        let buffers = 0;
        for (const m of Object.values(state)) {
          for (const b of m.buffers ?? []) {
            buffers++;
            bytes += b.data?.length ?? 0;
          }
        }
        return { models: Object.keys(state).length, buffers, base64Chars: bytes, json: JSON.stringify(meta ?? {}).length };
      });
      const r = {
        n,
        load: load.one,
        heap: heap.used,
        gpu,
        views,
        kernel,
        saved,
        refused: offline.refused
      };
      results.push(r);
      log(`N=${n}: heap ${(heap.used / 1e6).toFixed(1)} MB, GPU est. ${(gpu.total / 1e6).toFixed(1)} MB in ${gpu.liveContexts} live contexts, views ${JSON.stringify(views)}, kernel traced ${(kernel.traced / 1e3).toFixed(0)} kB rss ${(kernel.rss / 1e3).toFixed(0)} kB, saved ${JSON.stringify(saved)}, ${fmtLoad(load)}`);
    } finally {
      await context.close();
    }
  }
  const base = results.find(r => r.n === 0);
  console.log(`\nMemory (archive ${MVSX_BYTES} B, unpacked structure ${CIF_BYTES} B; ${fmtLoad(loadStart)} at start, ${fmtLoad(loadAvg())} at end):`);
  console.log('N    JS heap MB  (+/Story)   GPU est. MB  live/parked   kernel traced kB (/Story)  kernel RSS kB (/Story)  saved state base64 kB');
  for (const r of results) {
    const per = (v, b) => (base && r.n > 0 ? ((v - b) / r.n) : NaN);
    console.log(
      `${String(r.n).padEnd(4)} ${(r.heap / 1e6).toFixed(1).padStart(8)}  (${(per(r.heap, base?.heap) / 1e6).toFixed(2).padStart(6)})   ${(r.gpu.total / 1e6).toFixed(1).padStart(9)}    ${r.views.live}/${r.views.parked}`.padEnd(70) +
        `${(r.kernel.traced / 1e3).toFixed(0).padStart(8)} (${(per(r.kernel.traced, base?.kernel.traced) / 1e3).toFixed(1)})`.padEnd(27) +
        `${(r.kernel.rss / 1e3).toFixed(0).padStart(8)} (${(per(r.kernel.rss, base?.kernel.rss) / 1e3).toFixed(1)})`.padEnd(24) +
        `${r.saved ? (r.saved.base64Chars / 1e3).toFixed(0) : 'n/a'}   load ${r.load.toFixed(1)}`
    );
  }
  for (const r of results.filter(x => x.n > 0)) {
    console.log(`kernel N=${r.n}: blocks ≥ ${MVSX_BYTES} B: ${JSON.stringify(r.kernel.big)}`);
  }
  writeResult('memory', { archiveBytes: MVSX_BYTES, structureBytes: CIF_BYTES, loadStart, loadEnd: loadAvg(), results });
} catch (e) {
  console.error(e);
  exitCode = 1;
} finally {
  await browser?.close();
  await stopAll();
}
process.exit(exitCode);
