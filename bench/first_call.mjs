/**
 * First calls after a page connected (issue 19 item 7).
 *
 * Measured: wall time of MCP calls by the official TS SDK client, each tool
 * called twice in a row ("first", "second"), starting the moment the page's
 * bridge is welcomed by the gateway (`window.molspace.bridge.connected`),
 * on a fresh JupyterLab page (empty HTTP cache) with no widgets:
 *   connect (initialize + initialized), tools/list, status, observe,
 *   open (a 3-atom inline PDB, docked), ketcher_open (benzene, docked).
 * With the timeline: when the page restored, was welcomed, and when its
 * idle-time warm-up (`window.molspace.warm`, when the build has one) ended.
 * `MOLSPACE_BENCH_FIRST_DELAY_MS` waits that long after the welcome before the
 * first call (a control: work the page does right after connecting).
 * Writes results/first_call.json; prints one line per call.
 */
import { PORTS, callTool, mcpClient, fmt, launchBrowser, log, newContext, startServer, stopOnExit, waitRestored, writeResult, loadAvg, fmtLoad, sleep } from './lib.mjs';

const DELAY = Number(process.env.MOLSPACE_BENCH_FIRST_DELAY_MS || 0);
/** `off`: the page skips its idle-time warm-up (src/warmUp.ts), the "before" of the comparison. */
const WARM = process.env.MOLSPACE_BENCH_WARM || 'on';
const PDB = [
  'ATOM      1  N   GLY A   1       0.000   0.000   0.000  1.00  0.00           N',
  'ATOM      2  CA  GLY A   1       1.458   0.000   0.000  1.00  0.00           C',
  'ATOM      3  C   GLY A   1       2.009   1.420   0.000  1.00  0.00           C',
  'END'
].join('\n');

const server = await startServer({ port: PORTS.a, name: 'first' });
const stopAll = stopOnExit([server]);
let exitCode = 0;
try {
  const browser = await launchBrowser();
  const context = await newContext(browser);
  const page = await context.newPage();
  if (WARM === 'off') {
    await page.addInitScript(() => window.localStorage.setItem('molspace.warmUp', 'off'));
  }
  const t0 = Date.now();
  await page.goto(`${server.url}/lab`);
  const restoredAt = await waitRestored(page);
  await page.waitForFunction(() => window.molspace?.bridge?.connected === true, null, { timeout: 120_000, polling: 10 });
  const welcomedAt = Date.now() - t0;
  log(`restored at ${fmt(restoredAt, 0)} ms, welcomed at ${welcomedAt} ms after navigation; ${fmtLoad(loadAvg())}`);
  if (DELAY) {
    await sleep(DELAY);
  }
  const warmState = await page.evaluate(() => document.body.dataset.molspaceWarm ?? null);
  log(`warm-up ${WARM}: state ${warmState} at the first call (${Date.now() - t0} ms after navigation)`);
  const rows = [];
  // The Python SDK first, as issue 19's agent (it lists tools again before its first call_tool).
  const { execFileSync } = await import('node:child_process');
  const py = JSON.parse(execFileSync('python', [new URL('./first_call_py.py', import.meta.url).pathname, `${server.url}/molspace/mcp`, 'molspace-bench-token']).toString());
  for (const [name, ms] of Object.entries(py)) {
    rows.push({ name, ms });
    log(`${name.padEnd(22)} ${fmt(ms).padStart(8)} ms`);
  }
  const time = async (name, fn) => {
    const s = performance.now();
    const r = await fn();
    const ms = performance.now() - s;
    rows.push({ name, ms, atMs: Date.now() - t0 });
    log(`${name.padEnd(22)} ${fmt(ms).padStart(8)} ms  (at ${Date.now() - t0} ms)`);
    return r;
  };
  const client = await time('connect', () => mcpClient(server, { listTools: false }));
  await time('tools/list', () => client.listTools());
  await time('tools/list second', () => client.listTools());
  for (const round of ['first', 'second']) {
    await time(`status ${round}`, () => callTool(client, 'status'));
  }
  for (const round of ['first', 'second']) {
    await time(`observe ${round}`, () => callTool(client, 'observe'));
  }
  for (const round of ['first', 'second']) {
    await time(`open ${round}`, () => callTool(client, 'open', { text: PDB, format: 'pdb', title: `gly ${round}` }));
  }
  for (const round of ['first', 'second']) {
    await time(`ketcher_open ${round}`, () => callTool(client, 'ketcher_open', { value: 'c1ccccc1', title: `benzene ${round}` }));
  }
  const warm = { setting: WARM, atFirstCall: warmState };
  await client.close();
  await browser.close();
  writeResult(`first_call-warm-${WARM}-delay-${DELAY}`, { restoredAtMs: restoredAt, welcomedAtMs: welcomedAt, delayMs: DELAY, warm, rows, load: loadAvg() });
} catch (e) {
  console.error(e);
  exitCode = 1;
} finally {
  await stopAll();
  process.exit(exitCode);
}
