/**
 * Benchmark — a Story scrolled out of view and back (issue 12, item 8).
 *
 * JupyterLab's notebook setting `windowingMode: "full"` (written into the
 * server's temp settings dir) takes the cells outside the window out of the
 * layout (JupyterLab 4.6 keeps them in the DOM with `display: none`; the
 * Story then has no box, and its canvas area measures 0×0). Measured on this machine's WebGL (software here), in one run:
 *
 * - baseline: the first draw of a Story (cell run to the step drawn in Mol*),
 *   and a plain re-render of it (Next, then Previous: the same step applied again
 *   in the live viewer);
 * - (a) windowing `full`: the Story's cell scrolled out of the window (its
 *   element leaves the DOM), kept there `MOLSPACE_BENCH_SCROLL_AWAY_MS`
 *   (default 7000, more than the budget's old 5 s grace period), then
 *   scrolled back;
 * - (b) a parked viewer brought back: `maxLiveViewers` 1 and a second Story
 *   further down; scrolling to the second parks the first (image, no WebGL);
 *   then the first is scrolled back.
 *
 * For each: from the scroll to
 * - `shown`: the step is on screen (the parked image, or a non-blank live
 *   canvas), sampled every 25 ms in the page (a long task delays the sample,
 *   as it delays what the user sees);
 * - `live`: the Story is `data-molspace-ready="true"` with a live canvas
 *   showing the step (a live viewer again);
 * - `blank`: ms the canvas area showed neither image nor drawn step after it
 *   was first shown;
 * - `longest`: the longest main-thread task (PerformanceObserver `longtask`)
 *   in the interval; `contexts`: WebGL contexts created in it.
 * Prints a table with ratios against the first draw of the same run.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  PORTS,
  ROOT,
  execCell,
  fmt,
  fmtLoad,
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
  writeNotebook,
  writeResult
} from './lib.mjs';

const N = Number(process.env.MOLSPACE_BENCH_SCROLL_N || 3);
const AWAY_MS = Number(process.env.MOLSPACE_BENCH_SCROLL_AWAY_MS || 7000);
const FILLER = 40; // cells between the Stories: enough to push a cell out of the window
const STORY = 'data/1cbs-story.mvsx';

/** Cell sources: Story A, FILLER cells, (optionally) Story B. */
function cells(withB) {
  const filler = Array.from({ length: FILLER }, (_, i) => `print("filler ${i}\\n" * 8)`);
  return [`import molspace\na = molspace.Story("${STORY}")\na`, ...filler, ...(withB ? [`b = molspace.Story("${STORY}")\nb`] : [])];
}

function writeSettings(server, { maxLive }) {
  const dir = path.join(server.tmp, 'settings');
  fs.mkdirSync(path.join(dir, '@jupyterlab', 'notebook-extension'), { recursive: true });
  fs.writeFileSync(path.join(dir, '@jupyterlab', 'notebook-extension', 'tracker.jupyterlab-settings'), JSON.stringify({ windowingMode: 'full' }));
  fs.mkdirSync(path.join(dir, 'molspace'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'molspace', 'plugin.jupyterlab-settings'), JSON.stringify(maxLive ? { maxLiveViewers: maxLive } : {}));
}

/** In the page: long-task recorder, WebGL context counter and a sampler of what Story k shows. */
async function instrument(context) {
  await context.addInitScript(() => {
    window.__benchLong = [];
    try {
      new PerformanceObserver(list => {
        for (const e of list.getEntries()) window.__benchLong.push({ start: e.startTime, duration: e.duration });
      }).observe({ type: 'longtask', buffered: true });
    } catch {
      // no long-task timing in this browser
    }
    window.__benchContexts = 0;
    const orig = HTMLCanvasElement.prototype.getContext;
    const seen = new WeakSet();
    HTMLCanvasElement.prototype.getContext = function (type, ...rest) {
      const ctx = orig.call(this, type, ...rest);
      if (ctx && /webgl/.test(type) && !seen.has(ctx)) {
        seen.add(ctx);
        window.__benchContexts++;
      }
      return ctx;
    };
    /** The Story element of notebook cell `i` (attached or not), or null. */
    window.__benchStory = i => window.jupyterapp?.shell.currentWidget?.content.widgets[i]?.node.querySelector('.molspace-story') ?? null;
    /** What the Story of cell `i` shows: 'hidden' | 'image' | 'drawn' | 'blank'. */
    window.__benchShows = i => {
      const el = window.__benchStory(i);
      if (!el || !el.isConnected || el.getClientRects().length === 0) return 'hidden';
      const img = el.querySelector('.molspace-story-parked img');
      if (img && img.complete && img.naturalWidth > 0) return 'image';
      const canvas = el.querySelector('.molspace-story-viewer canvas');
      if (!canvas || canvas.width === 0 || canvas.height === 0) return 'blank';
      const probe = (window.__benchProbe ??= document.createElement('canvas'));
      probe.width = 24;
      probe.height = 24;
      const g = probe.getContext('2d', { willReadFrequently: true });
      g.clearRect(0, 0, 24, 24);
      g.drawImage(canvas, 0, 0, 24, 24);
      const px = g.getImageData(0, 0, 24, 24).data;
      const [r0, g0, b0] = [px[0], px[1], px[2]];
      for (let i = 0; i < px.length; i += 4) {
        if (px[i + 3] > 0 && (Math.abs(px[i] - r0) > 24 || Math.abs(px[i + 1] - g0) > 24 || Math.abs(px[i + 2] - b0) > 24)) return 'drawn';
      }
      return 'blank';
    };
  });
}

/**
 * Run `action` (a function source evaluated in the page) and follow the Story
 * of cell `id` until it is live with its step drawn (at most `timeoutMs`).
 */
async function follow(page, id, action, timeoutMs = 120_000) {
  return page.evaluate(
    async ({ id, action, timeoutMs }) => {
      const el = () => window.__benchStory(id);
      const contexts0 = window.__benchContexts;
      const t0 = performance.now();
      await new Function(`return (${action})();`)();
      const marks = { shown: null, live: null, blank: 0, states: [] };
      let last = null;
      let lastAt = performance.now();
      await new Promise(resolve => {
        const tick = () => {
          const now = performance.now();
          const state = window.__benchShows(id);
          if (last === 'blank' && marks.shown !== null) marks.blank += now - lastAt;
          if (state !== last) marks.states.push([Math.round(now - t0), state]);
          last = state;
          lastAt = now;
          if (marks.shown === null && (state === 'image' || state === 'drawn')) marks.shown = now - t0;
          if (marks.live === null && state === 'drawn' && el()?.getAttribute('data-molspace-ready') === 'true') {
            marks.live = now - t0;
          }
          if (marks.live !== null || now - t0 > timeoutMs) {
            resolve();
            return;
          }
          setTimeout(tick, 25);
        };
        tick();
      });
      const end = t0 + (marks.live ?? timeoutMs);
      const tasks = window.__benchLong.filter(t => t.start + t.duration >= t0 && t.start <= end);
      marks.longest = tasks.reduce((m, t) => Math.max(m, t.duration), 0);
      marks.contexts = window.__benchContexts - contexts0;
      return marks;
    },
    { id, action, timeoutMs }
  );
}

const scrollTo = index => `async () => {
  // JupyterLab keeps the cell holding the focus rendered: focus the notebook itself, as a click beside the Story would.
  document.activeElement?.blur?.();
  const nb = window.jupyterapp.shell.currentWidget.content;
  nb.mode = 'command';
  nb.activeCellIndex = ${index};
  nb.deselectAll();
  nb.activeCell.node.focus();
  await nb.scrollToItem(${index}, 'start');
}`;

async function waitHidden(page, id) {
  try {
    await page.waitForFunction(id => window.__benchShows(id) === 'hidden', id, { timeout: 30_000, polling: 100 });
  } catch (e) {
    const why = await page.evaluate(id => {
      const nb = window.jupyterapp.shell.currentWidget.content;
      return {
        shows: window.__benchShows(id),
        active: nb.activeCellIndex,
        focus: document.activeElement?.className,
        display: nb.widgets[id].node.style.display,
        shown: [...nb.widgets].map((w, i) => (w.node.style.display === 'none' ? null : i)).filter(i => i !== null)
      };
    }, id);
    throw new Error(`the Story of cell ${id} stayed on screen after scrolling away: ${JSON.stringify(why)}`);
  }
}

const server = await startServer({ port: PORTS.a, name: 'scrollback' });
const stopAll = stopOnExit([server]);
fs.copyFileSync(path.join(ROOT, 'examples', 'data', '1cbs-story.mvsx'), path.join(server.root, STORY));
const runs = { first: [], rerender: [], windowed: [], parked: [] };
let exitCode = 0;
const loadStart = loadAvg();
let browser;
try {
  browser = await launchBrowser();
  for (let round = 0; round < N; round++) {
    // ---------------------------------------------------- baseline and (a)
    writeSettings(server, { maxLive: null });
    let context = await newContext(browser);
    await instrument(context);
    let page = await context.newPage();
    let nb = `scroll_a_${round}.ipynb`;
    writeNotebook(server.root, nb, cells(false));
    await openNotebook(page, server, nb, { workspace: `scroll-a-${round}` });
    const mode = await page.evaluate(() => window.jupyterapp.shell.currentWidget.content.notebookConfig.windowingMode);
    if (mode !== 'full') throw new Error(`windowingMode is ${mode}, not full: the settings file was not read`);
    for (let i = 1; i <= FILLER; i++) await execCell(page, i, cells(false)[i]);
    await page.evaluate(() => window.jupyterapp.shell.currentWidget.content.scrollToItem(0, 'start'));
    await execCell(page, 0, 'import molspace');
    const first = await follow(page, 0, `async () => {
      const nb = window.jupyterapp.shell.currentWidget.content;
      nb.activeCellIndex = 0;
      nb.deselectAll();
      nb.activeCell.model.sharedModel.setSource(${JSON.stringify(cells(false)[0])});
      void window.jupyterapp.commands.execute('notebook:run-cell');
    }`);
    runs.first.push(first);
    await waitSettled(page, 1500);
    const idA = 0;
    const rerender = await follow(page, idA, `async () => {
      const el = window.__benchStory(0);
      el.querySelector('[data-action="next"]').click();
      while (el.getAttribute('data-molspace-ready') !== 'true' || el.getAttribute('data-molspace-index') !== '1') await new Promise(r => setTimeout(r, 5));
      el.querySelector('[data-action="previous"]').click();
      while (el.getAttribute('data-molspace-index') !== '0') await new Promise(r => setTimeout(r, 5));
    }`);
    runs.rerender.push(rerender);
    await waitSettled(page, 1500);
    await page.evaluate(`(${scrollTo(FILLER)})()`);
    await waitHidden(page, idA);
    await sleep(AWAY_MS);
    const windowed = await follow(page, idA, scrollTo(0));
    runs.windowed.push(windowed);
    log(`round ${round}: first ${fmt(first.live, 0)} ms, re-render ${fmt(rerender.live, 0)} ms, windowed back: shown ${fmt(windowed.shown, 0)} live ${fmt(windowed.live, 0)} longest ${fmt(windowed.longest, 0)} contexts ${windowed.contexts} ${JSON.stringify(windowed.states)}`);
    await context.close();

    // ---------------------------------------------------- (b) parked, brought back
    writeSettings(server, { maxLive: 1 });
    context = await newContext(browser);
    await instrument(context);
    page = await context.newPage();
    nb = `scroll_b_${round}.ipynb`;
    writeNotebook(server.root, nb, cells(true));
    await openNotebook(page, server, nb, { workspace: `scroll-b-${round}` });
    for (let i = 0; i <= FILLER + 1; i++) await execCell(page, i, cells(true)[i]);
    const idFirst = 0;
    const idSecond = FILLER + 1;
    await page.evaluate(`(${scrollTo(0)})()`);
    await follow(page, idFirst, 'async () => {}');
    await waitSettled(page, 1500);
    const toSecond = await follow(page, idSecond, scrollTo(FILLER + 1));
    await waitSettled(page, 1500);
    const parkedFirst = await page.evaluate(i => window.__benchStory(i)?.getAttribute('data-molspace-parked') === 'true', idFirst);
    const parked = await follow(page, idFirst, scrollTo(0));
    parked.wasParked = parkedFirst;
    parked.toSecond = toSecond.live;
    runs.parked.push(parked);
    log(`round ${round}: parked (${parkedFirst ? 'was parked' : 'was NOT parked'}) back: shown ${fmt(parked.shown, 0)} live ${fmt(parked.live, 0)} blank ${fmt(parked.blank, 0)} longest ${fmt(parked.longest, 0)} contexts ${parked.contexts} ${JSON.stringify(parked.states)}`);
    await context.close();
  }

  const base = summary(runs.first.map(r => r.live).filter(Number.isFinite)).p50;
  console.log(`\nScrolled out and back, ${N} rounds, software WebGL (${fmtLoad(loadStart)} at start, ${fmtLoad(loadAvg())} at end); p50 ms, ratio of live to the first draw:`);
  console.log('case                              shown      live   blank  longest task  new contexts  live/first');
  for (const [name, label] of [
    ['first', 'first draw (baseline)'],
    ['rerender', 're-render (Next, Previous)'],
    ['windowed', `(a) windowing full, away ${AWAY_MS / 1000} s`],
    ['parked', '(b) parked, brought back']
  ]) {
    const rs = runs[name];
    const p = k => summary(rs.map(r => r[k]).filter(Number.isFinite)).p50;
    console.log(
      `${label.padEnd(32)} ${fmt(p('shown'), 0).padStart(7)} ${fmt(p('live'), 0).padStart(9)} ${fmt(p('blank'), 0).padStart(7)} ${fmt(p('longest'), 0).padStart(13)} ${fmt(p('contexts'), 1).padStart(13)} ${fmt(p('live') / base, 2).padStart(11)}`
    );
  }
  writeResult('scrollback', { awayMs: AWAY_MS, n: N, loadStart, loadEnd: loadAvg(), runs });
} catch (e) {
  console.error(e);
  exitCode = 1;
} finally {
  await browser?.close();
  await stopAll();
}
process.exit(exitCode);
