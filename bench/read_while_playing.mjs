/**
 * Read tools while a Story plays (issue 9 item 1).
 *
 * Measured: wall time of one `tools/call` by the official MCP TypeScript SDK
 * client for `status` (answered by the gateway: the baseline), `observe` and
 * `story_observe`, interleaved, N rounds, while the demo Story *plays*
 * (`story_control play`; replayed from step 0 whenever it pauses at its end),
 * so reads arrive while Mol* loads and draws steps. Page: Debian's Chromium,
 * SwiftShader WebGL (no GPU), examples/demo.ipynb.
 *
 * First, one Chromium performance trace (CDP `Tracing` through Playwright's
 * `browser.startTracing`) of one Story step (`story_control next` from step 0,
 * the first time step 1 is drawn, with 10 `observe` calls right after it,
 * until the page has drawn nothing for 1.5 s), summarised by
 * {@link summariseTrace}; shader compile/link time is measured in the page by
 * wrapping `compileShader`, `linkProgram`, `getShaderParameter` and
 * `getProgramParameter`.
 *
 * Modes: MOLSPACE_BENCH_READ_MODES=relay,mirror (default both; `relay` sets
 * `c.MolspaceGateway.read_mirror = False`, the path before the read mirror;
 * a build without that setting ignores it). Each mode starts its own server.
 *
 * Aim: observe and story_observe p95 <= 30 ms while a Story plays.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  PORTS,
  RESULTS,
  callTool,
  fmt,
  launchBrowser,
  log,
  mcpClient,
  newContext,
  openNotebook,
  runAllAndWaitStory,
  startServer,
  stopOnExit,
  summary,
  waitSettled,
  writeResult
} from './lib.mjs';

const N = Number(process.env.MOLSPACE_BENCH_READ_N || 200);
const WARMUP = 5;
const MODES = (process.env.MOLSPACE_BENCH_READ_MODES || 'relay,mirror').split(',').filter(Boolean);
const TOOLS = ['status', 'observe', 'story_observe'];
const TRACE_CATEGORIES = [
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'toplevel',
  'v8.execute',
  'blink',
  'gpu'
];

/** Time WebGL shader compile/link calls (main-thread ms), next to lib.mjs's draw counter. */
async function addShaderTimer(context) {
  await context.addInitScript(() => {
    window.__molspaceBenchShaderMs = 0;
    window.__molspaceBenchShaderCalls = 0;
    for (const P of [window.WebGL2RenderingContext?.prototype, window.WebGLRenderingContext?.prototype]) {
      for (const m of ['compileShader', 'linkProgram', 'getShaderParameter', 'getProgramParameter']) {
        const orig = P?.[m];
        if (!orig) continue;
        P[m] = function (...args) {
          const t0 = performance.now();
          try {
            return orig.apply(this, args);
          } finally {
            window.__molspaceBenchShaderMs += performance.now() - t0;
            window.__molspaceBenchShaderCalls++;
          }
        };
      }
    }
  });
}

/** Keep the Story playing: from step 0 again when it paused at its end. */
async function keepPlaying(client, target, story) {
  if (story.playing) return false;
  await callTool(client, 'story_control', { target, action: 'goto', index: 0 });
  await callTool(client, 'story_control', { target, action: 'play' });
  return true;
}

/**
 * Summarise a Chrome trace of the page's main thread (the renderer thread that
 * ran the most animation frames): its tasks, and where their time went —
 * waiting in the compositor's commit for the GPU process to finish WebGL work
 * (`GLES2::ReadPixels`: with software compositing the WebGL canvas is read
 * back each frame, and SwiftShader renders during that wait), Mol*'s own
 * animation-frame JavaScript (`PluginAnimationLoop.frame`), the bridge's
 * websocket handler (`socket.onmessage`), and shader compile/link (timed in
 * the page).
 */
function summariseTrace(trace, shaderMs, shaderCalls) {
  const events = trace.traceEvents ?? trace;
  const frames = new Map();
  for (const e of events) {
    if (e.name === 'FireAnimationFrame' && e.ph === 'X') frames.set(`${e.pid}:${e.tid}`, (frames.get(`${e.pid}:${e.tid}`) ?? 0) + 1);
  }
  const main = [...frames.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  if (!main) return { error: 'no animation frames in the trace' };
  const onMain = events.filter(e => `${e.pid}:${e.tid}` === main && e.ph === 'X' && typeof e.dur === 'number');
  const tasks = onMain.filter(e => e.name === 'ThreadControllerImpl::RunTask');
  const ms = us => Math.round(us / 100) / 10;
  const sum = list => list.reduce((s, e) => s + e.dur, 0);
  const fn = name => onMain.filter(e => e.name === 'FunctionCall' && e.args?.data?.functionName === name);
  const within = (outer, name) =>
    onMain.filter(e => e.name === name && e.ts >= outer.ts && e.ts + e.dur <= outer.ts + outer.dur).reduce((s, e) => s + e.dur, 0);
  const readback = onMain.filter(e => e.name === 'GLES2::ReadPixels');
  const molstar = fn('PluginAnimationLoop.frame');
  const bridge = fn('socket.onmessage');
  const t0 = Math.min(...tasks.map(e => e.ts));
  const t1 = Math.max(...tasks.map(e => e.ts + e.dur));
  return {
    windowMs: ms(t1 - t0),
    busyMs: ms(sum(tasks)),
    tasks: tasks.length,
    tasksOver50ms: tasks.filter(e => e.dur > 50_000).length,
    longestTasks: [...tasks]
      .sort((a, b) => b.dur - a.dur)
      .slice(0, 5)
      .map(e => ({ ms: ms(e.dur), readbackMs: ms(within(e, 'GLES2::ReadPixels')), molstarJsMs: ms(within(e, 'FunctionCall')) })),
    readbackWaitMs: ms(sum(readback)),
    readbacks: readback.length,
    longestReadbackMs: ms(Math.max(0, ...readback.map(e => e.dur))),
    commits: onMain.filter(e => e.name === 'Commit').length,
    molstarFrameJsMs: ms(sum(molstar)),
    molstarFrames: molstar.length,
    longestMolstarFrameJsMs: ms(Math.max(0, ...molstar.map(e => e.dur))),
    bridgeHandlerMs: ms(sum(bridge)),
    bridgeMessages: bridge.length,
    longestBridgeHandlerMs: ms(Math.max(0, ...bridge.map(e => e.dur))),
    shaderCompileLinkMs: Math.round(shaderMs * 10) / 10,
    shaderCalls,
    gcMs: ms(sum(onMain.filter(e => e.name === 'MajorGC' || e.name === 'MinorGC')))
  };
}

async function runMode(browser, mode, port) {
  const server = await startServer({ port, name: `read-${mode}`, config: mode === 'relay' ? ['c.MolspaceGateway.read_mirror = False'] : [] });
  const stop = stopOnExit([server]);
  try {
    const context = await newContext(browser);
    await addShaderTimer(context);
    const page = await context.newPage();
    await openNotebook(page, server, 'demo.ipynb');
    await runAllAndWaitStory(page);
    const client = await mcpClient(server);
    await client.listTools();
    const obs = await callTool(client, 'observe');
    const target = obs.activeWidget ?? obs.widgets[0]?.id;
    let story = (await callTool(client, 'story_observe', { target })).story;
    log(`${mode}: target ${target}, ${story.count} snapshots`);
    // One traced step, the first time step 1 is drawn (so its shaders compile in it).
    await waitSettled(page, 1500, 60_000);
    let trace;
    const shader0 = await page.evaluate(() => [window.__molspaceBenchShaderMs, window.__molspaceBenchShaderCalls]);
    const traceFile = path.join(RESULTS, `read_while_playing-${mode}.trace.json`);
    fs.mkdirSync(RESULTS, { recursive: true });
    await browser.startTracing(page, { path: traceFile, categories: TRACE_CATEGORIES });
    const tStep = performance.now();
    await callTool(client, 'story_control', { target, action: 'next' });
    const stepMs = performance.now() - tStep;
    // Reads during the refinement frames after the step returned.
    const during = [];
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      await callTool(client, 'observe');
      during.push(performance.now() - t0);
    }
    await waitSettled(page, 1500, 60_000);
    await browser.stopTracing();
    const shader1 = await page.evaluate(() => [window.__molspaceBenchShaderMs, window.__molspaceBenchShaderCalls]);
    trace = summariseTrace(JSON.parse(fs.readFileSync(traceFile, 'utf8')), shader1[0] - shader0[0], shader1[1] - shader0[1]);
    trace.storyControlNextMs = stepMs;
    trace.observeDuringTraceMs = during;
    await callTool(client, 'story_control', { target, action: 'goto', index: 0 });
    await callTool(client, 'story_control', { target, action: 'play' });

    const timings = Object.fromEntries(TOOLS.map(t => [t, []]));
    const drawsBefore = await page.evaluate(() => window.__molspaceBenchDraws);
    let restarts = 0;
    let playingRounds = 0;
    const started = performance.now();
    for (let round = 0; round < WARMUP + N; round++) {
      for (const tool of TOOLS) {
        const t0 = performance.now();
        const out = await callTool(client, tool, tool === 'story_observe' ? { target } : {});
        const dt = performance.now() - t0;
        if (round >= WARMUP) timings[tool].push(dt);
        if (tool === 'story_observe') story = out.story;
      }
      if (story.playing) playingRounds++;
      if (await keepPlaying(client, target, story)) restarts++;
    }
    const wallMs = performance.now() - started;
    const draws = (await page.evaluate(() => window.__molspaceBenchDraws)) - drawsBefore;
    await callTool(client, 'story_control', { target, action: 'pause' });

    await client.close();
    await context.close();
    const rows = Object.fromEntries(TOOLS.map(t => [t, summary(timings[t])]));
    return { rows, restarts, playingRounds, draws, wallMs, trace };
  } finally {
    await stop();
  }
}

let browser;
let exitCode = 0;
const stopAll = stopOnExit([]);
try {
  browser = await launchBrowser();
  const results = {};
  for (const mode of MODES) {
    results[mode] = await runMode(browser, mode, PORTS.a); // one after the other, one port
  }
  for (const [mode, r] of Object.entries(results)) {
    console.log(`\n${mode}: reads while a Story plays, ms (N=${N}, ${r.playingRounds}/${N + WARMUP} rounds playing, ${r.restarts} replays, ${r.draws} WebGL draws)`);
    console.log('tool              p50      p95      max');
    for (const [tool, s] of Object.entries(r.rows)) {
      console.log(`${tool.padEnd(14)} ${fmt(s.p50).padStart(6)} ${fmt(s.p95).padStart(8)} ${fmt(s.max).padStart(8)}`);
    }
    console.log(`trace of one step (${mode}):`, JSON.stringify(r.trace, null, 1));
  }
  writeResult('read_while_playing', { n: N, warmup: WARMUP, modes: results });
} catch (e) {
  console.error(e);
  exitCode = 1;
} finally {
  await browser?.close();
  await stopAll();
}
process.exit(exitCode);
