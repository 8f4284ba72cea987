/**
 * Turn bench/results/*.json (written by the benchmark scripts of the same run)
 * into docs/benchmarks.md: a table of figures, baselines, ratios, aims and N,
 * the machine, the date, how to run, and what each number includes.
 */
import { execSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CHROMIUM, RESULTS, ROOT, fmt } from './lib.mjs';

const read = name => {
  const file = path.join(RESULTS, `${name}.json`);
  return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : null;
};
const sh = cmd => {
  try {
    return execSync(cmd, { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  } catch {
    return 'unknown';
  }
};

const mcp = read('mcp_roundtrip');
const frame = read('first_frame');
const startup = read('lab_startup');
const prop = read('propagation');

const machine = {
  nproc: sh('nproc'),
  cpu: os.cpus()[0]?.model ?? 'unknown',
  memGB: (os.totalmem() / 2 ** 30).toFixed(0),
  chromium: sh(`${CHROMIUM} --version 2>/dev/null`),
  node: process.version,
  jupyterlab: sh('jupyter lab --version'),
  python: sh('python --version'),
  molstar: JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', 'molstar', 'package.json'), 'utf8')).version,
  commit: sh(`git -C ${ROOT} rev-parse --short HEAD`) + (sh(`git -C ${ROOT} status --porcelain`) ? ' (with uncommitted changes)' : '')
};
const dates = [mcp, frame, startup, prop].filter(Boolean).map(r => r.date).sort();
const ms = v => `${fmt(v, v < 100 ? 1 : 0)} ms`;
const x = v => `${v.toFixed(2)}×`;
const met = ok => (ok ? '**met**' : '**missed**');
const rows = [];
const row = (...cells) => rows.push(`| ${cells.join(' | ')} |`);

if (mcp) {
  const t = mcp.tools;
  row('1 MCP round trip', '`status` (gateway only) — baseline', `${ms(t.status.p50)} / ${ms(t.status.p95)}`, '—', '1.00×', '', `${mcp.n}`);
  row('', '`observe` (page settled)', `${ms(t.observe.p50)} / ${ms(t.observe.p95)}`, '`status`', x(t.observe.ratioP50), `p50 < 10 ms: ${met(mcp.aim.met)}`, `${mcp.n}`);
  row('', '`story_observe` (page settled)', `${ms(t.story_observe.p50)} / ${ms(t.story_observe.p95)}`, '`status`', x(t.story_observe.ratioP50), '', `${mcp.n}`);
  row('', '`story_control` next/previous (renders the step)', `${ms(t.story_control.p50)} / ${ms(t.story_control.p95)}`, '`status`', x(t.story_control.ratioP50), '', `${mcp.nControl}`);
  row('', '`observe` right after a `story_control`', `${ms(t.observe_after_step.p50)} / ${ms(t.observe_after_step.p95)}`, '`status`', x(t.observe_after_step.ratioP50), '', `${mcp.nControl}`);
} else {
  row('1 MCP round trip', 'not run', '', '', '', '', '');
}
if (frame?.table) {
  const f = frame.table.floor;
  const m = frame.table.molspace;
  const r = (phase, name = 'molspace') => frame.table[name]?.[phase]?.ready?.p50 / f[phase].ready.p50;
  row('2 first frame, cold', 'floor: the same Mol* work in a plain page, step 0 drawn — baseline', ms(f.cold.ready.p50), '—', '1.00×', '', `${frame.runs}`);
  row('', 'molspace: run cell → `data-molspace-ready`', ms(m.cold.ready.p50), 'floor cold', x(r('cold')), `≤ 1.3×: ${met(r('cold') <= 1.3)}`, `${frame.runs}`);
  row('2 first frame, warm', 'floor: new viewer in the loaded page — baseline', ms(f.warm.ready.p50), '—', '1.00×', '', `${frame.runs}`);
  row('', 'molspace: cell re-run → `data-molspace-ready`', ms(m.warm.ready.p50), 'floor warm', x(r('warm')), `≤ 1.3×: ${met(r('warm') <= 1.3)}`, `${frame.runs}`);
} else {
  row('2 first frame', 'not run', '', '', '', '', '');
}
if (startup) {
  row('3 JupyterLab start, cold', 'without molspace — baseline', `${ms(startup.without.cold.p50)} / ${ms(startup.without.cold.p95)}`, '—', '1.00×', '', `${startup.n}`);
  row('', 'with molspace', `${ms(startup.with.cold.p50)} / ${ms(startup.with.cold.p95)}`, 'without', `${startup.ratioCold.toFixed(3)}×`, `≤ 1.05×: ${met(startup.aim.met)}`, `${startup.n}`);
  row('3 JupyterLab start, warm', 'without molspace (reload) — baseline', `${ms(startup.without.warm.p50)} / ${ms(startup.without.warm.p95)}`, '—', '1.00×', '', `${startup.n}`);
  row('', 'with molspace (reload)', `${ms(startup.with.warm.p50)} / ${ms(startup.with.warm.p95)}`, 'without', `${startup.ratioWarm.toFixed(3)}×`, '', `${startup.n}`);
  row('', 'molspace JS downloaded at start', `${(startup.molspaceBytes.p50 / 1e3).toFixed(1)} kB`, `all: ${(startup.with.bytes.p50 / 1e6).toFixed(2)} MB vs ${(startup.without.bytes.p50 / 1e6).toFixed(2)} MB`, '', `no Mol* chunk: ${met(startup.molstarRequests.length === 0)}`, `${startup.n}`);
} else {
  row('3 JupyterLab start', 'not run', '', '', '', '', '');
}
if (prop) {
  row('4 kernel → page', '`story.goto(k)` → `data-molspace-index` = k', `${ms(prop.kernelToPage.index.p50)} / ${ms(prop.kernelToPage.index.p95)}`, '', '', '', `${prop.n}`);
  row('', '`story.goto(k)` → step drawn (`ready`)', `${ms(prop.kernelToPage.ready.p50)} / ${ms(prop.kernelToPage.ready.p95)}`, '', '', '', `${prop.n}`);
  row('4 page → kernel', 'click Next/Previous → Python `on_change` runs', `${ms(prop.pageToKernel.onChange.p50)} / ${ms(prop.pageToKernel.onChange.p95)}`, '', '', '', `${prop.n}`);
  row('', 'click → step drawn in the page (`ready`)', `${ms(prop.pageToKernel.pageReady.p50)} / ${ms(prop.pageToKernel.pageReady.p95)}`, '', '', '', `${prop.n}`);
} else {
  row('4 propagation', 'not run', '', '', '', '', '');
}

const parts = [];
if (frame?.table) {
  const f = frame.table.floor;
  const m = frame.table.molspace;
  parts.push(
    `- First frame, where the time goes (p50): floor cold = import parser chunk ${ms(f.cold.importParser.p50)} + fetch .mvsx ${ms(f.cold.fetch.p50)} + parse ${ms(f.cold.parse.p50)} + import viewer chunk ${ms(f.cold.importViewer.p50)} + create viewer ${ms(f.cold.create.p50)} + load and draw step 0 ${ms(f.cold.load.p50)}; ` +
      `molspace cold: widget element at ${ms(m.cold.shown.p50)}, kernel execute reply at ${ms(m.cold.reply.p50)}, first geometry drawn at ${ms(m.cold.geometry.p50)}, ready at ${ms(m.cold.ready.p50)}. Other subjects of the same run: \`bench/results/first_frame.json\`.`
  );
}
if (startup) {
  parts.push(`- molspace files fetched at JupyterLab start (first run, body bytes): ${startup.molspaceFiles.map(f => '`' + f.replace(/ (\d+)$/, '` $1 B')).join(', ')}.`);
  parts.push(`- Mol* chunks requested with no widget shown (URLs containing "molstar", ${startup.n * 2} loads with molspace incl. reloads): ${startup.molstarRequests.length ? startup.molstarRequests.join(', ') : 'none'}.`);
}
if (mcp) {
  parts.push(
    `- MCP phase A waited ${ms(mcp.settledWaitMs)} for the page to stop drawing after the Story became ready; ${mcp.drawsDuringA} WebGL draw calls happened during phase A. \`story_control\` moved the Story in ${mcp.moved}/${mcp.nControl} calls.`
  );
}

const doc = `# Benchmarks

Figures from one run of \`bash bench/run.sh\` on ${dates[0]?.slice(0, 10) ?? 'unknown date'} (results written ${dates[0]?.slice(11, 16) ?? ''}–${dates.at(-1)?.slice(11, 16) ?? ''} UTC).
Every ratio is against a baseline measured in the same run. These are measurements, not tests:
nothing fails on a time. Times are p50 / p95 in ms where two are given, else medians.

Machine: ${machine.nproc} cores (${machine.cpu}), ${machine.memGB} GB, shared and noisy; no GPU — Chromium
renders WebGL with SwiftShader (software). ${machine.chromium}; Node ${machine.node}; JupyterLab
${machine.jupyterlab}; ${machine.python}; Mol* ${machine.molstar}; molspace at ${machine.commit}, labextension
as built in the work tree (molspace/labextension; scripts/test.sh installs the production build).

| benchmark | what | figure | baseline | ratio | aim | N |
| --- | --- | --- | --- | --- | --- | --- |
${rows.join('\n')}

${parts.join('\n')}

## What the figures say

${fs.readFileSync(path.join(path.dirname(new URL(import.meta.url).pathname), 'findings.md'), 'utf8').trim()}

## How to run

\`\`\`bash
bash scripts/test.sh     # once: installs molspace, builds the labextension, Debian's chromium
bash bench/run.sh        # all four (~20–30 min here); or e.g. bash bench/run.sh mcp_roundtrip
node bench/memory.mjs    # run directly, figures in the dated sections below (also structure.mjs, ketcher.mjs)
\`\`\`

\`bench/\` is its own npm package (\`playwright\` used as a library with \`/usr/bin/chromium\`, the official
\`@modelcontextprotocol/sdk\` client, \`esbuild\` for the floor page); \`run.sh\` installs it. Each script
starts its own Jupyter server(s) on ports 8899 / 8898 (never 8888, used by the tests) with token auth,
a temp root dir and \`allow_root\`, and stops them. Raw figures land in \`bench/results/*.json\` and
\`*.log\` (not committed); \`bench/report.mjs\` rewrites this file from them. Sizes can be changed with
\`MOLSPACE_BENCH_MCP_N\` (200), \`MOLSPACE_BENCH_CONTROL_N\` (10), \`MOLSPACE_BENCH_FRAME_N\` (3),
\`MOLSPACE_BENCH_STARTUP_N\` (5), \`MOLSPACE_BENCH_PROP_N\` (10). None of this is part of the test suite.

## What each number includes

1. **MCP round trip** (\`bench/mcp_roundtrip.mjs\`): wall time in Node around \`client.callTool\` of the
   official SDK client (Streamable HTTP POST, JSON-RPC, token auth) to \`/molspace/mcp\`. \`status\` is
   answered by the server extension alone (baseline: HTTP + MCP framing + the gateway). \`observe\` and
   \`story_observe\` add the relay: server → websocket → the page's Dispatcher → back. The page shows
   \`examples/demo.ipynb\` with all cells run (so its \`on_change\` printer is active). Phase A
   (status/observe/story_observe interleaved in rounds) starts once the page has drawn nothing for 1.5 s.
   Phase B alternates \`story_control\` next/previous with an \`observe\` right after: \`story_control\`
   returns once Mol* has applied the step and drawn its first frame; that \`observe\` lands while Mol*
   is still refining the step. Ten warm-up rounds (phase A) / two (phase B) are not counted.
2. **First frame** (\`bench/first_frame.mjs\`): molspace = \`performance.now()\` in the page just before
   \`notebook:run-cell\` on \`story = molspace.Story("data/1cbs-story.mvsx"); story\` → the new widget root
   has \`data-molspace-ready="true"\` (MutationObserver). Includes kernel execution (reading the .mvsx and
   sending its bytes over the comm), model and view creation, lazy chunks, parsing/validating the Story,
   creating the Mol* plugin (WebGL context) and loading and drawing step 0. \`import molspace\` ran before
   and is not counted. Floor = a plain page (no JupyterLab) with molspace's own \`parseStory\` and
   \`MolstarStoryViewer\` bundled by esbuild against the same molstar as production code and loaded as
   lazy chunks, as the widget loads them: \`firstFrame()\` called in the loaded page → \`viewer.load(story, 0)\`
   resolved, the moment the widget sets \`data-molspace-ready\`; same canvas size (834×420). Every subject
   runs in a new browser process (nothing shared in the GPU process), in a rotated order each round.
   Cold = the first of its kind in that browser (Mol* code not loaded); warm = again in the same page
   after it stopped drawing (a new viewer; for molspace the cell re-run replacing the widget).
3. **JupyterLab start** (\`bench/lab_startup.mjs\`): navigation start → \`window.jupyterapp.restored\`
   resolved on \`/lab\`, no notebook open, a new browser context per cold load and a reload for warm.
   Without molspace = the same installed labextensions minus molspace (a temp \`labextensions_path\`)
   and the molspace server extension off; an unmeasured load of each goes first. Byte counts are
   response bodies as received by Chromium (\`request.sizes()\`), until the network is idle.
4. **Propagation** (\`bench/propagation.mjs\`): one wall clock (Python \`time.time()\`, Chromium
   \`Date.now()\`; ms resolution). Kernel → page: \`t0\` taken in the cell just before \`story.goto(k)\`,
   then page stamps when \`data-molspace-index\` becomes k (model change applied in the page) and when
   \`data-molspace-ready\` is "true" (step drawn). Page → kernel: \`t0 = Date.now()\` then \`button.click()\`
   in the page; a Python \`on_change\` callback records \`time.time()\`. The page syncs state to the kernel
   once the step is drawn, so this includes the render. The page is left to stop drawing before every
   trial and the kernel is idle (a comm message is handled only between cells).

## What was not measured

${fs.readFileSync(path.join(path.dirname(new URL(import.meta.url).pathname), 'not_measured.md'), 'utf8').trim()}
`;
// Replace only this script's own section: hand-written sections (below the end marker) stay.
const BEGIN = '<!-- bench/report.mjs: begin (this section is rewritten by bench/report.mjs; hand-written sections go after the end marker) -->';
const END = '<!-- bench/report.mjs: end -->';
const target = path.join(ROOT, 'docs', 'benchmarks.md');
fs.mkdirSync(path.dirname(target), { recursive: true });
const old = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : '';
const block = `${BEGIN}\n${doc.trimEnd()}\n${END}`;
const at = old.indexOf(BEGIN);
const end = old.indexOf(END);
fs.writeFileSync(target, at >= 0 && end > at ? old.slice(0, at) + block + old.slice(end + END.length) : `${block}\n\n${old}`);
console.log(`wrote docs/benchmarks.md (${[mcp, frame, startup, prop].filter(Boolean).length}/4 benchmarks)`);
