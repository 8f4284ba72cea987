/**
 * Benchmark — MD trajectories (issue 22): molspace's Viewer playing a PSF + DCD
 * against nglview 3.1.4 (`nglview.show_mdanalysis(u)`) on the same files, in
 * the same run.
 *
 * Data: tests/data/trajectories/adk.psf + adk_dims.dcd (adenylate kinase,
 * 3,341 atoms, 98 frames; MDAnalysisTests), and, for memory, a 1,000-frame
 * DCD of the same system written by MDAnalysis (adk_dims' 98 frames over and
 * over, 40 MB) into the servers' temp roots, never the repository.
 *
 * Measured per subject, each in a NEW browser (Debian's Chromium, SwiftShader
 * WebGL), all times taken in the page (`performance.now()`):
 * - open: just before `notebook:run-cell` on the cell that shows the
 *   trajectory (`molspace.Viewer("adk.psf", coordinates="adk_dims.dcd")` /
 *   `nglview.show_mdanalysis(u)`; `import` and, for nglview, the MDAnalysis
 *   Universe ran before, untimed) → first frame drawn. molspace: the new
 *   `.molspace-viewer` has `data-molspace-ready="true"` and its player
 *   `data-molspace-frames` = 98. nglview (no ready signal of its own): its
 *   NGL stage has a component with representations and no pending task
 *   (`stage.tasks.count === 0`), then NGL's next `viewer.signals.rendered`.
 *   First open in the page (cold: code chunks, WebGL context), then
 *   MOLSPACE_BENCH_TRAJ_OPEN_N - 1 re-runs of the cell (warm).
 * - frame step from a cell (`v.frame = n` / `view.frame = n`) and from the
 *   slider, MOLSPACE_BENCH_TRAJ_STEP_N steps each to a fixed sequence of
 *   frames, the page left to stop drawing before each. Done: molspace, the
 *   player's `data-molspace-frame` is n and the root is ready on a newer
 *   `data-molspace-revision`; nglview, its view applied coordinates while its
 *   model's `frame` was n (`updateCoordinates`, after the kernel answered the
 *   frame change with the coordinates) and NGL rendered after that. Slider:
 *   molspace, the player's `input[type=range]` set to n and an `input` event
 *   dispatched (what a drag does); nglview, its player IntSlider's model set
 *   to n and saved (what its slider view does on a drag: noUiSlider has no
 *   input element to drive), which the page links to the Play widget and the
 *   view's `frame`.
 * - playback at 60 frames/s requested for MOLSPACE_BENCH_TRAJ_PLAY_S
 *   (10) s: molspace `v.play(fps=60)`, counting changes of
 *   `data-molspace-frame` (each one is drawn before the next step is taken);
 *   nglview, its Play widget at `interval` 17 ms with `repeat`, counting
 *   frame changes of its model (what the slider shows), coordinates applied
 *   and NGL renders that followed new coordinates. Counted from the first
 *   change on, per second; intervals p50/p95 between changes. Then a Chrome
 *   trace of 3 s more playback (MOLSPACE_BENCH_TRAJ_TRACE=0: none): busy time
 *   per thread and the main thread's largest items.
 * - page memory, each in its own new browser (one renderer): JupyterLab with
 *   the notebook open and the imports run, then the trajectory shown and
 *   drawn and the page left to stop drawing; after a forced GC: V8's heap
 *   (`Performance.getMetrics` JSHeapUsedSize; `Runtime.getHeapUsage` with
 *   ArrayBuffer backing stores, which the V8 heap does not count),
 *   `performance.measureUserAgentSpecificMemory()` where the page is
 *   cross-origin isolated (JupyterLab is not), the renderer's and GPU
 *   process's RSS (/proc, from CDP `SystemInfo.getProcessInfo`), and
 *   bench/lib.mjs's GPU memory estimate. For molspace with 98 and 1,000
 *   frames, for nglview with 1,000.
 *
 * nglview runs from its own virtual environment (MOLSPACE_BENCH_NGLVIEW_VENV,
 * default /work/nglview-venv: `pip install nglview==3.1.4 MDAnalysis
 * "jupyterlab>=4.6"`), on its own Jupyter server (PORTS.b); without that venv
 * its rows are left out. molspace's server runs from the repository's .venv
 * (or the `jupyter` on PATH). Nothing fails on a time: the script prints
 * figures and ratios and writes bench/results/trajectory.json.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  PORTS,
  RESULTS,
  ROOT,
  execCell,
  fmt,
  instrumentWebgl,
  launchBrowser,
  loadAvg,
  log,
  newContext,
  openNotebook,
  sleep,
  startServer,
  stopOnExit,
  summary,
  waitSettled,
  writeAdkDcd,
  writeNotebook,
  writeResult
} from './lib.mjs';

const OPEN_N = Number(process.env.MOLSPACE_BENCH_TRAJ_OPEN_N || 3);
const STEP_N = Number(process.env.MOLSPACE_BENCH_TRAJ_STEP_N || 20);
const PLAY_S = Number(process.env.MOLSPACE_BENCH_TRAJ_PLAY_S || 10);
const TRACE = process.env.MOLSPACE_BENCH_TRAJ_TRACE !== '0';
const BIG_FRAMES = Number(process.env.MOLSPACE_BENCH_TRAJ_BIG_FRAMES || 1000);
const SUBJECTS = (process.env.MOLSPACE_BENCH_TRAJ_SUBJECTS || 'molspace,nglview').split(',').filter(Boolean);
const NGLVIEW_VENV = process.env.MOLSPACE_BENCH_NGLVIEW_VENV || '/work/nglview-venv';
const DATA = path.join(ROOT, 'tests', 'data', 'trajectories');
const FRAMES = 98;
const ATOMS = 3341;
const FPS = 60;
const NGL_INTERVAL = Math.round(1000 / FPS);
/** Frames stepped to, in order: spread over the trajectory, never the frame already drawn. */
const STEPS = Array.from({ length: STEP_N }, (_, i) => (11 + i * 37) % FRAMES);
const TRACE_CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'toplevel', 'v8.execute', 'blink', 'gpu', '__metadata'];

// ------------------------------------------------------------------ setup

/** PATH with `venv/bin` first, and VIRTUAL_ENV, for a server started from that venv. */
async function withVenv(venv, fn) {
  const saved = { PATH: process.env.PATH, VIRTUAL_ENV: process.env.VIRTUAL_ENV };
  if (venv) {
    process.env.PATH = `${path.join(venv, 'bin')}:${saved.PATH}`;
    process.env.VIRTUAL_ENV = venv;
  }
  try {
    return await fn();
  } finally {
    process.env.PATH = saved.PATH;
    if (saved.VIRTUAL_ENV === undefined) delete process.env.VIRTUAL_ENV;
    else process.env.VIRTUAL_ENV = saved.VIRTUAL_ENV;
  }
}

function python(venv) {
  const p = venv && path.join(venv, 'bin', 'python');
  return p && fs.existsSync(p) ? p : 'python';
}

function copyData(root, bigDcd) {
  for (const f of ['adk.psf', 'adk_dims.dcd']) fs.copyFileSync(path.join(DATA, f), path.join(root, f));
  if (bigDcd && path.dirname(bigDcd) !== root) fs.copyFileSync(bigDcd, path.join(root, path.basename(bigDcd)));
}

/** In-page helpers: wait on a condition, find nglview's views and instrument them. */
async function addPageHelpers(context) {
  await context.addInitScript(() => {
    const bench = {
      /** Resolve with performance.now() the first time `check()` is true (tested on DOM mutations and every 4 ms). */
      until(check, timeoutMs = 120_000, what = 'condition') {
        return new Promise((resolve, reject) => {
          const t0 = performance.now();
          let done = false;
          let obs;
          let iv;
          const finish = (v, err) => {
            if (done) return;
            done = true;
            obs?.disconnect();
            clearInterval(iv);
            if (err) reject(err);
            else resolve(v);
          };
          const test = () => {
            if (done) return;
            try {
              if (check()) finish(performance.now());
              else if (performance.now() - t0 > timeoutMs) finish(null, new Error(`${what}: not within ${timeoutMs} ms`));
            } catch (e) {
              finish(null, e);
            }
          };
          obs = new MutationObserver(test);
          obs.observe(document.body, { subtree: true, attributes: true, childList: true });
          iv = setInterval(test, 4);
          test();
        });
      },
      /** Put `source` in cell `index`, run it without waiting; return performance.now() just before. */
      runCell(index, source) {
        const app = window.jupyterapp;
        const nb = app.shell.currentWidget.content;
        while (nb.widgets.length <= index) nb.model.sharedModel.insertCell(nb.widgets.length, { cell_type: 'code', source: '' });
        nb.activeCellIndex = index;
        nb.deselectAll();
        nb.activeCell.model.sharedModel.setSource(source);
        const t0 = performance.now();
        void app.commands.execute('notebook:run-cell');
        return t0;
      },
      /** nglview's NGLView instances in the current notebook (through the Lumino widgets' `_view`). */
      nglViews() {
        const out = [];
        const seen = new Set();
        const visit = w => {
          if (!w || seen.has(w)) return;
          seen.add(w);
          const v = w._view;
          if (v && typeof v.updateCoordinates === 'function' && v.stage) out.push(v);
          if (typeof w.children === 'function') for (const c of w.children()) visit(c);
        };
        visit(window.jupyterapp.shell.currentWidget);
        return out;
      },
      /** Record, for an NGLView, every coordinates update (with its model's frame then), render and model frame change. */
      instrumentNgl(v) {
        if (v.__bench) return v.__bench;
        const b = { updates: [], renders: [], frames: [] };
        const orig = v.updateCoordinates;
        v.updateCoordinates = function (...a) {
          const r = orig.apply(this, a);
          b.updates.push({ t: performance.now(), frame: this.model.get('frame') });
          return r;
        };
        v.stage.viewer.signals.rendered.add(() => b.renders.push(performance.now()));
        v.model.on('change:frame', () => b.frames.push({ t: performance.now(), frame: v.model.get('frame') }));
        v.__bench = b;
        return b;
      },
      /** The last molspace Viewer root and its player. */
      molspace() {
        const roots = document.querySelectorAll('.molspace-viewer');
        const root = roots[roots.length - 1];
        return { root, player: root?.querySelector('.molspace-viewer-player') };
      }
    };
    window.__trajBench = bench;
    // Set by every WebGL draw call; the playback recorders count animation frames in which the page drew.
    window.__trajDrew = false;
    for (const P of [window.WebGL2RenderingContext?.prototype, window.WebGLRenderingContext?.prototype]) {
      for (const m of ['drawElements', 'drawArrays', 'drawElementsInstanced', 'drawArraysInstanced']) {
        const orig = P?.[m];
        if (!orig) continue;
        P[m] = function (...a) {
          window.__trajDrew = true;
          return orig.apply(this, a);
        };
      }
    }
  });
}

// ------------------------------------------------------------------ memory

async function processRss(browser) {
  const cdp = await browser.newBrowserCDPSession();
  try {
    const { processInfo } = await cdp.send('SystemInfo.getProcessInfo');
    const rss = pid => {
      try {
        const line = fs.readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find(l => l.startsWith('VmRSS:'));
        return Number(line.split(/\s+/)[1]) * 1024;
      } catch {
        return null;
      }
    };
    const out = { renderer: 0, renderers: 0, gpu: 0 };
    for (const p of processInfo) {
      if (p.type === 'renderer') {
        out.renderer += rss(p.id) ?? 0;
        out.renderers++;
      } else if (p.type === 'GPU') {
        out.gpu += rss(p.id) ?? 0;
      }
    }
    return out;
  } finally {
    await cdp.detach();
  }
}

/** Page memory after a forced GC (see the file's comment). */
async function pageMemory(page, browser) {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('HeapProfiler.collectGarbage');
    await cdp.send('Performance.enable');
    const { metrics } = await cdp.send('Performance.getMetrics');
    const m = Object.fromEntries(metrics.map(x => [x.name, x.value]));
    const usage = await cdp.send('Runtime.getHeapUsage');
    const uasm = await page.evaluate(async () => {
      if (!self.crossOriginIsolated || !performance.measureUserAgentSpecificMemory) return null;
      return (await performance.measureUserAgentSpecificMemory()).bytes;
    });
    const gpu = await page.evaluate(() => window.__molspaceBenchGpu?.() ?? null);
    return {
      jsHeapUsed: m.JSHeapUsedSize,
      jsHeapTotal: m.JSHeapTotalSize,
      heapUsage: usage,
      userAgentSpecificMemory: uasm,
      gpuEstimate: gpu?.total ?? null,
      nodes: m.Nodes,
      ...(await processRss(browser))
    };
  } finally {
    await cdp.detach();
  }
}

// ------------------------------------------------------------------ subjects

const molspaceSubject = {
  name: 'molspace',
  setup: 'import molspace',
  show: dcd => `v = molspace.Viewer("adk.psf", coordinates="${dcd}")\nv`,
  async timeOpen(page, index, dcd, frames) {
    return page.evaluate(
      async ({ index, source, frames }) => {
        const B = window.__trajBench;
        const before = new Set(document.querySelectorAll('.molspace-viewer'));
        const t0 = B.runCell(index, source);
        const t1 = await B.until(
          () =>
            [...document.querySelectorAll('.molspace-viewer')].some(
              r =>
                !before.has(r) &&
                r.dataset.molspaceReady === 'true' &&
                r.querySelector('.molspace-viewer-player')?.dataset.molspaceFrames === String(frames)
            ),
          300_000,
          'molspace open'
        );
        return t1 - t0;
      },
      { index, source: this.show(dcd), frames }
    );
  },
  async step(page, index, frame, via) {
    return page.evaluate(
      async ({ index, frame, via }) => {
        const B = window.__trajBench;
        const { root, player } = B.molspace();
        const r0 = Number(root.dataset.molspaceRevision ?? -1);
        let t0;
        if (via === 'cell') {
          t0 = B.runCell(index, `v.frame = ${frame}`);
        } else {
          const slider = player.querySelector('input[type=range]');
          slider.value = String(frame);
          t0 = performance.now();
          slider.dispatchEvent(new Event('input', { bubbles: true }));
        }
        const t1 = await B.until(
          () => player.dataset.molspaceFrame === String(frame) && root.dataset.molspaceReady === 'true' && Number(root.dataset.molspaceRevision) > r0,
          120_000,
          `molspace frame ${frame} by ${via}`
        );
        return t1 - t0;
      },
      { index, frame, via }
    );
  },
  async play(page, index, seconds) {
    // Start recording, then play from a cell; stop after `seconds` from the first change.
    await page.evaluate(() => {
      const { player } = window.__trajBench.molspace();
      const rec = { changes: [], rafs: 0, drawnFrames: 0, stop: false };
      new MutationObserver((_, obs) => {
        if (rec.stop) return obs.disconnect();
        rec.changes.push({ t: performance.now(), frame: Number(player.dataset.molspaceFrame) });
      }).observe(player, { attributes: true, attributeFilter: ['data-molspace-frame'] });
      const raf = () => {
        if (rec.stop) return;
        rec.rafs++;
        if (window.__trajDrew) rec.drawnFrames++;
        window.__trajDrew = false;
        requestAnimationFrame(raf);
      };
      requestAnimationFrame(raf);
      window.__trajPlay = rec;
    });
    const out = await execCell(page, index, `v.play(fps=${FPS})`);
    if (/Error/.test(out)) throw new Error(`v.play: ${out}`);
    await page.waitForFunction(() => window.__trajPlay.changes.length > 0, null, { timeout: 120_000, polling: 50 });
    await page.evaluate(() => Object.assign(window.__trajPlay, { rafs: 0, drawnFrames: 0, t0: performance.now() }));
    await sleep(seconds * 1000 + 200);
    const rec = await page.evaluate(() => {
      const r = window.__trajPlay;
      r.stop = true;
      return { changes: r.changes, rafs: r.rafs, drawnFrames: r.drawnFrames, spanMs: performance.now() - r.t0 };
    });
    await execCell(page, index, 'v.pause()');
    await page.waitForSelector('.molspace-viewer-player[data-molspace-playing="false"]', { timeout: 120_000 });
    return rec;
  },
  async startPlaying(page, index) {
    await execCell(page, index, `v.play(fps=${FPS})`);
  },
  async stopPlaying(page, index) {
    await execCell(page, index, 'v.pause()');
    await page.waitForSelector('.molspace-viewer-player[data-molspace-playing="false"]', { timeout: 120_000 });
  }
};

const nglviewSubject = {
  name: 'nglview',
  setup: 'import nglview, MDAnalysis as mda, sys\nprint(sys.executable, nglview.__version__)',
  show: dcd => `u = mda.Universe("adk.psf", "${dcd}")\nview = nglview.show_mdanalysis(u)\nview`,
  async timeOpen(page, index, dcd, frames) {
    return page.evaluate(
      async ({ index, source, frames }) => {
        const B = window.__trajBench;
        const before = new Set(B.nglViews());
        const t0 = B.runCell(index, source);
        let view;
        await B.until(
          () => {
            view = B.nglViews().find(v => !before.has(v));
            const c = view?.stage.compList[0];
            return !!c && c.reprList.length > 0 && view.stage.tasks.count === 0 && view.model.get('max_frame') === frames - 1;
          },
          300_000,
          'nglview open'
        );
        const tc = performance.now();
        const b = B.instrumentNgl(view);
        view.stage.viewer.requestRender();
        await B.until(() => b.renders.some(t => t >= tc), 120_000, 'nglview first render');
        return b.renders.find(t => t >= tc) - t0;
      },
      { index, source: this.show(dcd), frames }
    );
  },
  async step(page, index, frame, via) {
    return page.evaluate(
      async ({ index, frame, via }) => {
        const B = window.__trajBench;
        const views = B.nglViews();
        const view = views[views.length - 1];
        const b = B.instrumentNgl(view);
        let t0;
        if (via === 'cell') {
          t0 = B.runCell(index, `view.frame = ${frame}`);
        } else {
          const box = await view.getPlayerModel();
          const slider = box.get('children').find(m => m.get('_model_name') === 'IntSliderModel');
          t0 = performance.now();
          slider.set('value', frame);
          slider.save_changes();
        }
        await B.until(
          () => {
            const u = b.updates.find(x => x.t >= t0 && x.frame === frame);
            return !!u && b.renders.some(t => t >= u.t);
          },
          120_000,
          `nglview frame ${frame} by ${via}`
        );
        const u = b.updates.find(x => x.t >= t0 && x.frame === frame);
        return b.renders.find(t => t >= u.t) - t0;
      },
      { index, frame, via }
    );
  },
  async playModel(page, playing) {
    await page.evaluate(
      async ({ playing, interval }) => {
        const B = window.__trajBench;
        const views = B.nglViews();
        const view = views[views.length - 1];
        const box = await view.getPlayerModel();
        const play = box.get('children').find(m => m.get('_model_name') === 'PlayModel');
        if (playing) {
          play.set({ interval, repeat: true, step: 1 });
          play.save_changes();
        }
        play.set('playing', playing);
        play.save_changes();
      },
      { playing, interval: NGL_INTERVAL }
    );
  },
  async play(page, index, seconds) {
    const mark = await page.evaluate(() => {
      const B = window.__trajBench;
      const views = B.nglViews();
      const b = B.instrumentNgl(views[views.length - 1]);
      const rec = { rafs: 0, drawnFrames: 0, stop: false };
      const raf = () => {
        if (rec.stop) return;
        rec.rafs++;
        if (window.__trajDrew) rec.drawnFrames++;
        window.__trajDrew = false;
        requestAnimationFrame(raf);
      };
      requestAnimationFrame(raf);
      window.__trajPlay = rec;
      return { updates: b.updates.length, renders: b.renders.length, frames: b.frames.length };
    });
    await this.playModel(page, true);
    await page.waitForFunction(
      n => {
        const views = window.__trajBench.nglViews();
        return views[views.length - 1].__bench.frames.length > n;
      },
      mark.frames,
      { timeout: 120_000, polling: 50 }
    );
    await page.evaluate(() => Object.assign(window.__trajPlay, { rafs: 0, drawnFrames: 0, t0: performance.now() }));
    await sleep(seconds * 1000 + 200);
    const rec = await page.evaluate(m => {
      const views = window.__trajBench.nglViews();
      const b = views[views.length - 1].__bench;
      window.__trajPlay.stop = true;
      return {
        frames: b.frames.slice(m.frames),
        updates: b.updates.slice(m.updates),
        renders: b.renders.slice(m.renders),
        rafs: window.__trajPlay.rafs,
        drawnFrames: window.__trajPlay.drawnFrames,
        spanMs: performance.now() - window.__trajPlay.t0
      };
    }, mark);
    await this.playModel(page, false);
    await sleep(1000);
    return { changes: rec.frames, updates: rec.updates, renders: rec.renders, rafs: rec.rafs, drawnFrames: rec.drawnFrames, spanMs: rec.spanMs };
  },
  async startPlaying(page) {
    await this.playModel(page, true);
  },
  async stopPlaying(page) {
    await this.playModel(page, false);
    await sleep(1000);
  }
};

/** Per-second rate and interval figures of a list of `{t}` (or numbers), over `seconds` from the first. */
function rate(events, seconds) {
  const ts = events.map(e => (typeof e === 'number' ? e : e.t));
  if (!ts.length) return { count: 0, perSecond: 0, intervals: summary([]) };
  const end = ts[0] + seconds * 1000;
  const inside = ts.filter(t => t <= end);
  const gaps = inside.slice(1).map((t, i) => t - inside[i]);
  return { count: inside.length, perSecond: (inside.length - 1) / seconds, intervals: summary(gaps) };
}

/** NGL renders that followed new coordinates (one per update burst), as timestamps. */
function rendersAfterUpdates(updates, renders) {
  const out = [];
  let last = -Infinity;
  for (const u of updates) {
    if (u.t <= last) continue;
    const r = renders.find(t => t >= u.t);
    if (r === undefined) break;
    out.push(r);
    last = r;
  }
  return out;
}

/**
 * Summarise a Chrome trace: busy time per thread (top-level tasks) and the
 * main renderer thread's largest items (JS by function, layout, paint, GC,
 * waits on the GPU process) over the traced window.
 */
function summariseTrace(file) {
  const raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  const events = raw.traceEvents ?? raw;
  const names = new Map();
  const procs = new Map();
  for (const e of events) {
    if (e.ph === 'M' && e.name === 'thread_name') names.set(`${e.pid}:${e.tid}`, e.args.name);
    if (e.ph === 'M' && e.name === 'process_name') procs.set(e.pid, e.args.name);
  }
  const complete = events.filter(e => e.ph === 'X' && typeof e.dur === 'number');
  const tasks = complete.filter(e => e.name === 'ThreadControllerImpl::RunTask' || e.name === 'ThreadPool_RunTask');
  const t0 = Math.min(...tasks.map(e => e.ts));
  const t1 = Math.max(...tasks.map(e => e.ts + e.dur));
  const ms = us => Math.round(us / 100) / 10;
  const byThread = new Map();
  for (const e of tasks) {
    const k = `${e.pid}:${e.tid}`;
    byThread.set(k, (byThread.get(k) ?? 0) + e.dur);
  }
  const threads = [...byThread.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([k, us]) => ({ thread: `${procs.get(Number(k.split(':')[0])) ?? '?'}/${names.get(k) ?? k}`, busyMs: ms(us) }));
  const mainKey = [...byThread.keys()].find(k => names.get(k) === 'CrRendererMain' && complete.some(e => `${e.pid}:${e.tid}` === k && e.name === 'FireAnimationFrame'));
  const onMain = complete.filter(e => `${e.pid}:${e.tid}` === mainKey);
  // Top-level JS calls only (not nested in another), by function name.
  const calls = onMain.filter(e => e.name === 'FunctionCall' || e.name === 'EventDispatch' || e.name === 'TimerFire' || e.name === 'FireAnimationFrame').sort((a, b) => a.ts - b.ts);
  const js = new Map();
  let until = -Infinity;
  for (const e of calls.filter(e => e.name === 'FunctionCall')) {
    if (e.ts < until) continue;
    until = e.ts + e.dur;
    const d = e.args?.data ?? {};
    const k = `${d.functionName || '(anonymous)'} ${String(d.url ?? '').split('/').pop()}`;
    js.set(k, (js.get(k) ?? 0) + e.dur);
  }
  const sumOf = n => onMain.filter(e => e.name === n).reduce((s, e) => s + e.dur, 0);
  return {
    windowMs: ms(t1 - t0),
    threads,
    main: {
      busyMs: ms(byThread.get(mainKey) ?? 0),
      animationFrames: onMain.filter(e => e.name === 'FireAnimationFrame').length,
      animationFrameMs: ms(sumOf('FireAnimationFrame')),
      jsTopMs: [...js.entries()].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([k, us]) => ({ fn: k, ms: ms(us) })),
      layoutMs: ms(sumOf('Layout') + sumOf('UpdateLayoutTree')),
      paintMs: ms(sumOf('Paint') + sumOf('PrePaint')),
      commitMs: ms(sumOf('Commit')),
      readPixelsMs: ms(sumOf('GLES2::ReadPixels')),
      gcMs: ms(sumOf('MajorGC') + sumOf('MinorGC') + sumOf('V8.GC_SCAVENGER') + sumOf('V8.GC_MARK_COMPACTOR')),
      longestTasksMs: onMain
        .filter(e => e.name === 'ThreadControllerImpl::RunTask')
        .map(e => e.dur)
        .sort((a, b) => b - a)
        .slice(0, 5)
        .map(ms)
    }
  };
}

// ------------------------------------------------------------------ one subject

async function runSubject(subject, server, nb) {
  const browser = await launchBrowser();
  const result = { loadStart: loadAvg().one };
  try {
    const context = await newContext(browser);
    await addPageHelpers(context);
    const page = await context.newPage();
    const consoleErrors = [];
    page.on('console', m => m.type() === 'error' && consoleErrors.length < 20 && consoleErrors.push(m.text().slice(0, 300)));
    page.on('pageerror', e => consoleErrors.length < 20 && consoleErrors.push(String(e).slice(0, 300)));
    result.consoleErrors = consoleErrors;
    await openNotebook(page, server, nb);
    const setupOut = await execCell(page, 0, subject.setup);
    if (/Error/.test(setupOut)) throw new Error(`${subject.name}: setup failed: ${setupOut}`);
    result.setup = setupOut.trim();
    const settle = () => waitSettled(page, 1000, 60_000);

    // open → first frame: cold (first in the page), then warm re-runs replacing the output
    result.open = [];
    for (let i = 0; i < OPEN_N; i++) {
      if (i > 0) await settle();
      const ms = await subject.timeOpen(page, 1, 'adk_dims.dcd', FRAMES);
      result.open.push(ms);
      log(`${subject.name}: open ${i === 0 ? 'cold' : 'warm'} ${fmt(ms, 0)} ms`);
    }
    await settle();

    // frame steps: from a cell, then from the slider
    for (const via of ['cell', 'slider']) {
      const times = [];
      for (const frame of STEPS) {
        await settle();
        times.push(await subject.step(page, 2, frame, via));
      }
      result[`step_${via}`] = { raw: times, ...summary(times) };
      log(`${subject.name}: step by ${via} p50 ${fmt(summary(times).p50, 0)} ms, p95 ${fmt(summary(times).p95, 0)} ms (N=${times.length})`);
    }

    // playback at 60 fps requested
    await settle();
    result.loadPlay = loadAvg().one;
    const rec = await subject.play(page, 2, PLAY_S);
    result.play = {
      requestedFps: FPS,
      seconds: PLAY_S,
      frameChanges: rate(rec.changes, PLAY_S),
      pageAnimationFramesPerSecond: (rec.rafs * 1000) / rec.spanMs,
      // animation frames in which the page issued WebGL draw calls (a full redraw each, on SwiftShader)
      webglFramesPerSecond: (rec.drawnFrames * 1000) / rec.spanMs,
      ...(rec.updates
        ? { coordinatesApplied: rate(rec.updates, PLAY_S), rendersWithNewCoordinates: rate(rendersAfterUpdates(rec.updates, rec.renders), PLAY_S) }
        : {})
    };
    log(
      `${subject.name}: playing at ${FPS} fps requested: ${fmt(result.play.frameChanges.perSecond)} frame changes/s` +
        (rec.updates ? `, ${fmt(result.play.coordinatesApplied.perSecond)} coordinates applied/s, ${fmt(result.play.rendersWithNewCoordinates.perSecond)} renders of new coordinates/s` : '') +
        `, page rAF ${fmt(result.play.pageAnimationFramesPerSecond)}/s, WebGL frames drawn ${fmt(result.play.webglFramesPerSecond)}/s`
    );

    // a Chrome trace of 3 s more playback
    if (TRACE) {
      await settle();
      const file = path.join(RESULTS, `trajectory-${subject.name}.trace.json`);
      fs.mkdirSync(RESULTS, { recursive: true });
      await subject.startPlaying(page, 2);
      await sleep(1500);
      await browser.startTracing(page, { path: file, categories: TRACE_CATEGORIES });
      await sleep(3000);
      await browser.stopTracing();
      await subject.stopPlaying(page, 2);
      result.trace = summariseTrace(file);
      log(`${subject.name}: trace of 3 s playing: ${JSON.stringify(result.trace)}`);
    }
    await page.evaluate(() => window.jupyterapp.serviceManager.sessions.shutdownAll());
    result.loadEnd = loadAvg().one;
  } catch (e) {
    result.error = String(e?.stack ?? e).slice(0, 3000);
    log(`${subject.name} FAILED: ${result.error}`);
  } finally {
    await browser.close();
  }
  return result;
}

/** Page memory before and after showing `dcd` (`frames` frames), in a new browser. */
async function measureMemory(subject, server, nb, dcd, frames) {
  const browser = await launchBrowser();
  const out = { dcd, frames, load: loadAvg().one };
  try {
    const context = await newContext(browser);
    await instrumentWebgl(context);
    await addPageHelpers(context);
    const page = await context.newPage();
    await openNotebook(page, server, nb);
    const setupOut = await execCell(page, 0, subject.setup);
    if (/Error/.test(setupOut)) throw new Error(`${subject.name}: setup failed: ${setupOut}`);
    await waitSettled(page, 1500, 60_000);
    out.before = await pageMemory(page, browser);
    out.openMs = await subject.timeOpen(page, 1, dcd, frames);
    await waitSettled(page, 1500, 120_000);
    out.after = await pageMemory(page, browser);
    out.crossOriginIsolated = await page.evaluate(() => self.crossOriginIsolated);
    await page.evaluate(() => window.jupyterapp.serviceManager.sessions.shutdownAll());
    const mb = b => (b == null ? 'n/a' : `${(b / 1048576).toFixed(1)} MB`);
    const d = k => (out.after[k] ?? 0) - (out.before[k] ?? 0);
    log(
      `${subject.name} memory, ${frames} frames (open ${fmt(out.openMs, 0)} ms): JS heap ${mb(out.after.jsHeapUsed)} (+${mb(d('jsHeapUsed'))}), ` +
        `ArrayBuffers ${mb(out.after.heapUsage.backingStorageSize)} (+${mb((out.after.heapUsage.backingStorageSize ?? 0) - (out.before.heapUsage.backingStorageSize ?? 0))}), ` +
        `renderer RSS ${mb(out.after.renderer)} (+${mb(d('renderer'))}), GPU process RSS ${mb(out.after.gpu)} (+${mb(d('gpu'))}), GPU estimate ${mb(out.after.gpuEstimate)}`
    );
  } catch (e) {
    out.error = String(e?.stack ?? e).slice(0, 3000);
    log(`${subject.name} memory (${frames} frames) FAILED: ${out.error}`);
  } finally {
    await browser.close();
  }
  return out;
}

// ------------------------------------------------------------------ main

const servers = [];
const stopAll = stopOnExit(servers);
let exitCode = 0;
try {
  const mainVenv = fs.existsSync(path.join(ROOT, '.venv', 'bin', 'jupyter')) && !process.env.VIRTUAL_ENV ? path.join(ROOT, '.venv') : null;
  const hasNgl = SUBJECTS.includes('nglview') && fs.existsSync(path.join(NGLVIEW_VENV, 'bin', 'jupyter'));
  if (SUBJECTS.includes('nglview') && !hasNgl) log(`nglview: no ${NGLVIEW_VENV}/bin/jupyter; its rows are left out`);

  const molServer = await withVenv(mainVenv, () => startServer({ port: PORTS.a, name: 'traj-molspace' }));
  servers.push(molServer);
  const bigName = `adk_${BIG_FRAMES}.dcd`;
  const bigPath = path.join(molServer.root, bigName);
  const bigBytes = writeAdkDcd(python(hasNgl ? NGLVIEW_VENV : mainVenv), bigPath, BIG_FRAMES);
  log(`wrote ${BIG_FRAMES}-frame DCD: ${bigBytes} bytes (${bigPath})`);
  copyData(molServer.root, null);
  let nglServer = null;
  if (hasNgl) {
    nglServer = await withVenv(NGLVIEW_VENV, () => startServer({ port: PORTS.b, name: 'traj-nglview' }));
    servers.push(nglServer);
    copyData(nglServer.root, bigPath);
  }
  const pairs = [];
  if (SUBJECTS.includes('molspace')) pairs.push([molspaceSubject, molServer]);
  if (nglServer) pairs.push([nglviewSubject, nglServer]);
  for (const [s, srv] of pairs) writeNotebook(srv.root, `${s.name}.ipynb`);

  const probe = await launchBrowser();
  const chromiumVersion = probe.version();
  await probe.close();
  const results = { chromium: `Chromium ${chromiumVersion} headless`, atoms: ATOMS, frames: FRAMES, bigFrames: BIG_FRAMES, bigBytes, steps: STEPS, subjects: {}, memory: {} };
  for (const [s, srv] of pairs) {
    results.subjects[s.name] = await runSubject(s, srv, `${s.name}.ipynb`);
  }
  for (const [s, srv] of pairs) {
    results.memory[s.name] = {};
    const sizes = s.name === 'molspace' ? [['adk_dims.dcd', FRAMES], [bigName, BIG_FRAMES]] : [[bigName, BIG_FRAMES]];
    for (const [dcd, frames] of sizes) {
      results.memory[s.name][frames] = await measureMemory(s, srv, `${s.name}.ipynb`, dcd, frames);
    }
  }

  // ---- print
  const M = results.subjects.molspace;
  const N = results.subjects.nglview;
  const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}×` : '—');
  const row = (label, m, n) => console.log(`${label.padEnd(44)} ${fmt(m, 1).padStart(10)} ${fmt(n, 1).padStart(10)} ${ratio(m, n).padStart(8)}`);
  console.log(`\nTrajectory adk (${ATOMS} atoms, ${FRAMES} frames), ${results.chromium}, SwiftShader WebGL`);
  console.log(`${''.padEnd(44)} ${'molspace'.padStart(10)} ${'nglview'.padStart(10)} ${'ms/ngl'.padStart(8)}`);
  const p50 = xs => summary(xs ?? []).p50;
  row('open → first frame, cold (ms)', M?.open?.[0], N?.open?.[0]);
  row('open → first frame, warm p50 (ms)', p50(M?.open?.slice(1)), p50(N?.open?.slice(1)));
  for (const via of ['cell', 'slider']) {
    row(`frame step from a ${via}, p50 (ms)`, M?.[`step_${via}`]?.p50, N?.[`step_${via}`]?.p50);
    row(`frame step from a ${via}, p95 (ms)`, M?.[`step_${via}`]?.p95, N?.[`step_${via}`]?.p95);
  }
  row(`playing at ${FPS} requested: frames shown/s`, M?.play?.frameChanges.perSecond, N?.play?.rendersWithNewCoordinates?.perSecond);
  row(`  frame value changes/s`, M?.play?.frameChanges.perSecond, N?.play?.frameChanges.perSecond);
  row(`  interval between frames shown p50 (ms)`, M?.play?.frameChanges.intervals.p50, N?.play?.rendersWithNewCoordinates?.intervals.p50);
  row(`  interval between frames shown p95 (ms)`, M?.play?.frameChanges.intervals.p95, N?.play?.rendersWithNewCoordinates?.intervals.p95);
  row(`  page animation frames/s`, M?.play?.pageAnimationFramesPerSecond, N?.play?.pageAnimationFramesPerSecond);
  row(`  WebGL frames drawn/s`, M?.play?.webglFramesPerSecond, N?.play?.webglFramesPerSecond);
  row(`  WebGL frames drawn per frame shown`, M?.play && M.play.webglFramesPerSecond / M.play.frameChanges.perSecond, N?.play?.rendersWithNewCoordinates && N.play.webglFramesPerSecond / N.play.rendersWithNewCoordinates.perSecond);
  const mem = (s, f, k) => {
    const r = results.memory[s]?.[f];
    if (!r || r.error) return NaN;
    const get = x => (k === 'backing' ? x.heapUsage.backingStorageSize : x[k]);
    return (get(r.after) - get(r.before)) / 1048576;
  };
  for (const [k, label] of [['jsHeapUsed', 'JS heap'], ['backing', 'ArrayBuffer backing stores'], ['renderer', 'renderer RSS'], ['gpu', 'GPU process RSS']]) {
    row(`${label} added, ${BIG_FRAMES} frames (MB)`, mem('molspace', BIG_FRAMES, k), mem('nglview', BIG_FRAMES, k));
    row(`${label} added, ${FRAMES} frames (MB, molspace)`, mem('molspace', FRAMES, k), NaN);
  }
  for (const [name, r] of Object.entries(results.subjects)) {
    if (r.error) console.log(`${name}: FAILED: ${r.error.split('\n')[0]}`);
    if (r.consoleErrors?.length) console.log(`${name}: console errors: ${JSON.stringify(r.consoleErrors.slice(0, 5))}`);
    console.log(`${name}: load (1-min) start ${r.loadStart?.toFixed(1)}, playing ${r.loadPlay?.toFixed(1)}, end ${r.loadEnd?.toFixed(1)}`);
  }
  writeResult('trajectory', results);
} catch (e) {
  console.error(e);
  exitCode = 1;
} finally {
  await stopAll();
}
process.exit(exitCode);
