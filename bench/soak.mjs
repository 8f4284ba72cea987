/**
 * Soak (issue 23, item 2): one agent loop of 10,000 mixed calls
 * (MOLSPACE_SOAK_N) through the real gateway (official MCP TypeScript SDK)
 * while a Story plays and a cell edits the same widgets; memory sampled along
 * the way. The CI-sized version with assertions is
 * ui-tests/tests/faults.spec.ts ("soak: ..."); this prints figures:
 *
 * - calls, answered, errors by code (each located: code, message, where, fix),
 *   TIMEOUTs with where they were located;
 * - changes: the agent's and the cell's applied changes and Play's steps,
 *   against the page's ledger of applied changes (the Dispatcher's `executed`
 *   records): lost (a change a caller was told was applied that the ledger
 *   lacks), phantom (a revision the ledger has twice, or a gap), and whether
 *   the final revision equals the start plus the ledger's changes;
 * - page JS heap after a forced GC, Jupyter server RSS and kernel RSS,
 *   sampled every MOLSPACE_SOAK_SAMPLE calls.
 *
 *   node bench/soak.mjs            # 10,000 calls
 *   MOLSPACE_SOAK_N=1000 node bench/soak.mjs
 *   MOLSPACE_SOAK_UNTIL=2026-12-06T19:50:00Z node bench/soak.mjs
 *
 * MOLSPACE_SOAK_UNTIL (a time) ends the agent loop there if N calls are not
 * made by then, and tells the cell to stop (a file it looks for): the figures
 * are for the calls made. Each memory sample is logged as it is taken.
 *
 * With MOLSPACE_SOAK_HEAP_DIR=<dir>, the server also loads bench/soak_heap.py
 * (tracemalloc on; its RSS is then not the shipped server's) and each sample
 * sends it SIGUSR1, which writes heap-<n>.json into <dir>: traced memory, the
 * top allocation sites, and the tracebacks and object types grown since the
 * first sample.
 *
 * With MOLSPACE_SOAK_PAGE_SNAPSHOTS=<dir>, each sample also writes the page's V8
 * heap snapshot (CDP `HeapProfiler.takeHeapSnapshot`) as page-<call>.heapsnapshot,
 * to compare what the page holds between two samples; MOLSPACE_SOAK_SNAPSHOT_AT
 * (call numbers, e.g. "8000,10000") limits them to those samples.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  BENCH,
  PORTS,
  ROOT,
  execCell,
  fmtLoad,
  launchBrowser,
  loadAvg,
  log,
  mcpClient,
  newContext,
  openNotebook,
  startCell,
  startServer,
  stopOnExit,
  writeNotebook,
  writeResult
} from './lib.mjs';
import { createRequire } from 'node:module';

const { readToolResult } = createRequire(import.meta.url)('../ui-tests/harness.js');

const N = Number(process.env.MOLSPACE_SOAK_N || 10_000);
const SAMPLE = Number(process.env.MOLSPACE_SOAK_SAMPLE || Math.max(1, Math.floor(N / 40)));
const CELL_EDITS = Math.max(10, Math.round(N / 10));
const STEPS = 12;
const UNTIL = process.env.MOLSPACE_SOAK_UNTIL ? Date.parse(process.env.MOLSPACE_SOAK_UNTIL) : Infinity;

const WORKSPACE = `import molspace
from IPython.display import display
v = molspace.Viewer("1cbs.cif")
empty = {"kind": "root", "children": []}
story = molspace.Story({"kind": "multiple", "metadata": {"version": "1", "timestamp": "2026-01-01T00:00:00Z", "title": "Soak"},
    "snapshots": [{"root": empty, "metadata": {"key": f"s{i}", "title": f"s{i}", "linger_duration_ms": 250}} for i in range(${STEPS})]})
display(v, story)`;

const CELL = `import json, os
_soak = {"viewer": [], "story": [], "errors": {}}
for i in range(${CELL_EDITS}):
    if os.path.exists("soak.stop"):
        break
    for name, edit in (("viewer", lambda: v.set_color({"auth_asym_id": "A", "auth_seq_id": 1 + i % 130}, "#%06x" % (i * 7919 % 0xffffff))),
                       ("story", lambda: story.goto(i % ${STEPS}))):
        try:
            r = edit().wait(120)
            if r.result["changed"]:
                _soak[name].append(r.result[name]["revision"])
        except Exception as e:
            code = getattr(e, "code", type(e).__name__)
            _soak["errors"][code] = _soak["errors"].get(code, 0) + 1
print(json.dumps(_soak))`;

const KERNEL_RSS = `with open("/proc/self/status") as f:
    print(next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmRSS:")))`;

function rss(pid) {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return kb ? Number(kb[1]) * 1024 : null;
  } catch {
    return null;
  }
}

const HEAP_DIR = process.env.MOLSPACE_SOAK_HEAP_DIR;
/** A folder: each memory sample also writes the page's V8 heap snapshot there (page-<call>.heapsnapshot). */
const PAGE_SNAPSHOTS = process.env.MOLSPACE_SOAK_PAGE_SNAPSHOTS;
/** The samples that write a page heap snapshot (call numbers); all when unset. */
const SNAPSHOT_AT = process.env.MOLSPACE_SOAK_SNAPSHOT_AT ? new Set(process.env.MOLSPACE_SOAK_SNAPSHOT_AT.split(',').map(Number)) : null;
const heapConfig = HEAP_DIR
  ? ['import sys', `sys.path.insert(0, ${JSON.stringify(BENCH)})`, 'c.ServerApp.jpserver_extensions = {"molspace": True, "soak_heap": True}']
  : [];
const server = await startServer({ port: PORTS.a, name: 'soak', config: heapConfig });
const stopAll = stopOnExit([server]);
fs.copyFileSync(path.join(ROOT, 'tests', 'data', 'structures', '1cbs.cif'), path.join(server.root, '1cbs.cif'));
writeNotebook(server.root, 'soak.ipynb');
const browser = await launchBrowser();
let exitCode = 0;
try {
  const context = await newContext(browser);
  const page = await context.newPage();
  const pageErrors = [];
  page.on('pageerror', e => pageErrors.push(String(e.stack ?? e).slice(0, 400)));
  await openNotebook(page, server, 'soak.ipynb');
  await startCell(page, 0, WORKSPACE);
  await page.waitForSelector('.molspace-viewer[data-molspace-ready="true"]', { timeout: 180_000 });
  await page.waitForSelector('.molspace-story[data-molspace-ready="true"]', { timeout: 180_000 });
  const ids = await page.evaluate(() => ({
    viewer: document.querySelector('.molspace-viewer').getAttribute('data-molspace-model'),
    story: document.querySelector('.molspace-story').getAttribute('data-molspace-model')
  }));
  await page.waitForFunction(() => window.molspace?.dispatcher && window.molspace.bridge.state === 'connected', null, { timeout: 120_000 });
  // The page's ledger: every call its Dispatcher ran (compact: the soak makes ~20,000).
  await page.evaluate(() => {
    window.__ledger = [];
    window.molspace.dispatcher.executed.connect((_, r) => {
      window.__ledger.push([r.tool, r.source, r.target, r.ok ? 1 : 0, r.revision, /\(replayed actionId /.test(r.summary) ? 1 : 0]);
    });
  });
  const cdp = await context.newCDPSession(page);
  const heap = async () => {
    await cdp.send('HeapProfiler.collectGarbage');
    return (await cdp.send('Runtime.getHeapUsage')).usedSize;
  };
  const kernelPid = Number(await execCell(page, 1, 'import os\nprint(os.getpid())'));
  const client = await mcpClient(server);
  const call = async (name, args) => readToolResult(await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 }));
  const start = {
    viewer: (await call('viewer_observe', { target: ids.viewer }))[0].viewer.revision,
    story: (await call('story_observe', { target: ids.story }))[0].story.revision
  };

  await startCell(page, 2, CELL);
  const t0 = performance.now();
  let x = 0x9e3779b9;
  const rng = () => (x = (x * 1664525 + 1013904223) >>> 0) / 2 ** 32;
  const agentApplied = { viewer: [], story: [] };
  const codes = {};
  const timeouts = [];
  const unlocated = [];
  const samples = [];
  let answered = 0;
  const sample = async i => {
    samples.push({ call: i, heapMB: +((await heap()) / 2 ** 20).toFixed(1), serverMB: +(rss(server.pid) / 2 ** 20).toFixed(1), kernelMB: +(rss(kernelPid) / 2 ** 20).toFixed(1) });
    if (HEAP_DIR) process.kill(server.pid, 'SIGUSR1');
    if (PAGE_SNAPSHOTS && (SNAPSHOT_AT === null || SNAPSHOT_AT.has(i))) {
      const chunks = [];
      const onChunk = e => chunks.push(e.chunk);
      cdp.on('HeapProfiler.addHeapSnapshotChunk', onChunk);
      await cdp.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
      cdp.off('HeapProfiler.addHeapSnapshotChunk', onChunk);
      fs.mkdirSync(PAGE_SNAPSHOTS, { recursive: true });
      fs.writeFileSync(path.join(PAGE_SNAPSHOTS, `page-${i}.heapsnapshot`), chunks.join(''));
    }
    log('sample', JSON.stringify(samples.at(-1)));
  };
  let made = 0;
  for (let i = 0; i < N; i++) {
    if (Date.now() > UNTIL) break;
    made = i + 1;
    const roll = rng();
    let name;
    let args;
    if (roll < 0.2) [name, args] = ['observe', {}];
    else if (roll < 0.3) [name, args] = ['status', {}];
    else if (roll < 0.4) [name, args] = ['story_observe', { target: ids.story }];
    else if (roll < 0.6) {
      const action = ['next', 'previous', 'goto', 'play'][Math.floor(rng() * 4)];
      [name, args] = ['story_control', { target: ids.story, action, ...(action === 'goto' ? { key: `s${Math.floor(rng() * STEPS)}` } : {}), actionId: `soak-${i}` }];
    } else if (roll < 0.8) {
      [name, args] = ['act', { target: ids.viewer, actions: [{ op: 'highlight', selector: { auth_asym_id: 'A', auth_seq_id: 1 + (i % 130) } }], actionId: `soak-${i}` }];
    } else {
      const hex = ((i * 2654435761) >>> 8).toString(16).padStart(6, '0').slice(-6);
      [name, args] = ['act', { target: ids.viewer, actions: [{ op: 'set_color', selector: { auth_asym_id: 'A', auth_seq_id: 1 + (i % 130) }, color: `#${hex}` }], actionId: `soak-${i}` }];
    }
    let value;
    let isError;
    try {
      [value, isError] = await call(name, args);
    } catch (e) {
      unlocated.push({ i, name, error: String(e).slice(0, 300) });
      continue;
    }
    answered++;
    if (isError) {
      codes[value.code] = (codes[value.code] ?? 0) + 1;
      if (!value.code || !value.message || typeof value.where !== 'string' || !value.fix) unlocated.push({ i, name, error: value });
      if (value.code === 'TIMEOUT') timeouts.push({ i, name, where: value.where });
    } else if (name === 'act' && value.changed && !value.replayed) agentApplied.viewer.push(value.viewer.revision);
    else if (name === 'story_control' && value.changed && !value.replayed) agentApplied.story.push(value.story.revision);
    if (i % SAMPLE === 0) await sample(i);
    if (i % 1000 === 999) log(`${i + 1} calls, ${((performance.now() - t0) / 1000).toFixed(0)} s, heap ${samples.at(-1).heapMB} MB, server ${samples.at(-1).serverMB} MB`);
  }
  if (made < N) {
    log(`MOLSPACE_SOAK_UNTIL reached after ${made} calls: the cell is told to stop`);
    fs.writeFileSync(path.join(server.root, 'soak.stop'), '');
  }
  // The cell's output, once it finished (its edits are waited for one by one).
  await page.waitForFunction(() => /"errors"/.test(window.jupyterapp.shell.currentWidget.content.widgets[2].model.outputs.toJSON().map(o => o.text ?? '').join('')), null, { timeout: 1_800_000, polling: 1000 });
  const cell = JSON.parse(await page.evaluate(() => window.jupyterapp.shell.currentWidget.content.widgets[2].model.outputs.toJSON().map(o => o.text ?? '').join('').trim().split('\n').at(-1)));
  // Play stops at the end, or now (a change of the agent's when it was still playing).
  const [paused] = await call('story_control', { target: ids.story, action: 'pause', actionId: 'soak-pause' });
  if (paused.changed && !paused.replayed) agentApplied.story.push(paused.story.revision);
  await sample(made);
  const seconds = (performance.now() - t0) / 1000;
  const ledger = await page.evaluate(() => window.__ledger);
  const final = {
    viewer: (await call('viewer_observe', { target: ids.viewer }))[0].viewer.revision,
    story: (await call('story_observe', { target: ids.story }))[0].story.revision
  };
  const MUTATING = new Set(['act', 'story_control']);
  const check = {};
  for (const kind of ['viewer', 'story']) {
    const entries = ledger.filter(([tool, , target, ok, revision, replayed]) => target === ids[kind] && ok && MUTATING.has(tool) && revision !== null && !replayed);
    // The applied changes: revisions that moved past the one before (a call that changed nothing keeps it).
    const moved = [];
    let last = start[kind];
    for (const e of entries) {
      if (e[4] !== last) {
        moved.push(e);
        last = e[4];
      }
    }
    const revisions = moved.map(e => e[4]);
    const expected = Array.from({ length: final[kind] - start[kind] }, (_, i) => start[kind] + 1 + i);
    const seen = new Set(revisions);
    const fromSource = src => moved.filter(e => e[1] === src).map(e => e[4]);
    const agentSeen = new Set(fromSource('agent'));
    const kernelSeen = new Set(fromSource('kernel'));
    check[kind] = {
      start: start[kind],
      final: final[kind],
      ledgerChanges: moved.length,
      finalEqualsStartPlusChanges: JSON.stringify(revisions) === JSON.stringify(expected),
      // a revision applied twice or out of order, or one the ledger lacks
      phantom: revisions.length - seen.size + expected.filter(r => !seen.has(r)).length,
      // changes a caller was told of that the ledger lacks; changes from a caller it was not told of
      lostAgent: agentApplied[kind].filter(r => !agentSeen.has(r)).length,
      lostCell: cell[kind].filter(r => !kernelSeen.has(r)).length,
      untoldAgent: [...agentSeen].filter(r => !agentApplied[kind].includes(r)).length,
      untoldCell: [...kernelSeen].filter(r => !cell[kind].includes(r)).length,
      agent: agentApplied[kind].length,
      cell: cell[kind].length,
      play: fromSource('play').length
    };
  }
  const figures = {
    calls: made,
    answered,
    unlocated: unlocated.length,
    errors: codes,
    timeouts,
    seconds: +seconds.toFixed(0),
    callsPerSecond: +(made / seconds).toFixed(2),
    cellErrors: cell.errors,
    check,
    samples,
    pageErrors,
    load: fmtLoad(loadAvg())
  };
  console.log(JSON.stringify(figures, null, 1));
  const first = samples.slice(0, Math.ceil(samples.length / 2));
  const last = samples.slice(Math.floor((samples.length * 2) / 3));
  for (const key of ['heapMB', 'serverMB', 'kernelMB']) {
    log(`${key}: first half peak ${Math.max(...first.map(s => s[key]))}, last third peak ${Math.max(...last.map(s => s[key]))}, final ${samples.at(-1)[key]}`);
  }
  if (unlocated.length) log('unlocated:', JSON.stringify(unlocated.slice(0, 5)));
  writeResult('soak', figures);
  if (answered !== made || unlocated.length || Object.values(check).some(c => !c.finalEqualsStartPlusChanges || c.lostAgent || c.lostCell || c.untoldAgent || c.untoldCell)) exitCode = 1;
  await client.close();
} finally {
  await browser.close();
  await stopAll();
}
process.exit(exitCode);
