/**
 * Benchmark 1 — MCP round trip with a JupyterLab page connected.
 *
 * Measured: wall time of one `tools/call` made by the official MCP TypeScript
 * SDK client (Streamable HTTP, `Authorization: token`) to the molspace
 * gateway at `{base_url}molspace/mcp`, for four tools:
 *   - `status`        answered by the gateway itself (no page hop) — the BASELINE;
 *   - `observe`       relayed over the websocket to the page's Dispatcher and back;
 *   - `story_observe` the same, reading one Story;
 *   - `story_control` alternating `next` / `previous`, so every call moves the
 *                     Story: it includes applying and rendering the step in Mol*
 *                     (the call returns once the frame is drawn).
 * The page is Debian's Chromium (SwiftShader WebGL) showing examples/demo.ipynb
 * with all cells run and the Story ready. Calls are interleaved in rounds
 * (status, observe, story_observe, story_control) so slow drift of the shared
 * machine hits all four alike. Prints p50/p95 and the ratio to `status`.
 *
 * Aim: observe p50 < 10 ms.
 */
import {
  PORTS,
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
  writeResult
} from './lib.mjs';

const N = Number(process.env.MOLSPACE_BENCH_MCP_N || 200);
const WARMUP = 10;
const TOOLS = ['status', 'observe', 'story_observe', 'story_control'];

const server = await startServer({ port: PORTS.a, name: 'mcp' });
const stopAll = stopOnExit([server]);
let browser;
let exitCode = 0;
try {
  browser = await launchBrowser();
  const context = await newContext(browser);
  const page = await context.newPage();
  await openNotebook(page, server, 'demo.ipynb');
  await runAllAndWaitStory(page);
  log('Story ready in the page');

  const client = await mcpClient(server);
  const status = await callTool(client, 'status');
  if (!status.pageConnected) throw new Error('no page connected to the gateway');
  const obs = await callTool(client, 'observe');
  const target = obs.activeWidget ?? obs.widgets[0]?.target;
  const count = (await callTool(client, 'story_observe', { target })).story.count;
  await callTool(client, 'story_control', { target, action: 'goto', index: 0 });
  log(`target ${target}, ${count} snapshots, version ${status.versions.molspace}`);

  let forward = true;
  let moved = 0;
  const args = () => {
    const a = { target, action: forward ? 'next' : 'previous' };
    forward = !forward;
    return a;
  };
  const timings = Object.fromEntries(TOOLS.map(t => [t, []]));
  for (let round = 0; round < WARMUP + N; round++) {
    for (const tool of TOOLS) {
      const input = tool === 'story_control' ? args() : tool === 'story_observe' ? { target } : {};
      const t0 = performance.now();
      const out = await callTool(client, tool, input);
      const dt = performance.now() - t0;
      if (round >= WARMUP) {
        timings[tool].push(dt);
        if (tool === 'story_control' && out.changed) moved++;
      }
    }
  }
  await client.close();

  const base = summary(timings.status);
  const rows = {};
  console.log(`\nMCP round trip, N=${N} per tool (after ${WARMUP} warm-up rounds), ms:`);
  console.log('tool            p50      p95      min      max   p50/status');
  for (const tool of TOOLS) {
    const s = summary(timings[tool]);
    rows[tool] = { ...s, ratioP50: s.p50 / base.p50, ratioP95: s.p95 / base.p95 };
    console.log(
      `${tool.padEnd(14)} ${fmt(s.p50).padStart(6)} ${fmt(s.p95).padStart(8)} ${fmt(s.min).padStart(8)} ${fmt(s.max).padStart(8)}   ${(s.p50 / base.p50).toFixed(2)}×`
    );
  }
  console.log(`story_control moved the Story in ${moved}/${N} calls`);
  const aimMet = rows.observe.p50 < 10;
  console.log(`aim observe p50 < 10 ms: ${aimMet ? 'MET' : 'MISSED'} (${fmt(rows.observe.p50)} ms)`);
  writeResult('mcp_roundtrip', { n: N, warmup: WARMUP, snapshots: count, moved, tools: rows, aim: { text: 'observe p50 < 10 ms', met: aimMet } });
} catch (e) {
  console.error(e);
  exitCode = 1;
} finally {
  await browser?.close();
  await stopAll();
}
process.exit(exitCode);
