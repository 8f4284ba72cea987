/**
 * Benchmark — Story authoring round trips with a JupyterLab page connected.
 *
 * Measured: wall time of one `tools/call` by the official MCP TypeScript SDK
 * client to the molspace gateway for
 *   - `status` (answered by the gateway) — the BASELINE, in the same run;
 *   - `story_validate` and `story_create` (relayed to the page, validated with
 *     the bundled Mol*; create also writes the .mvsj through JupyterLab's
 *     contents manager) for two documents: the 11-step kinase Story
 *     (tests/data/kinase-story.mvsj) and a generated 100-step storyboard.
 * Calls interleave (status, validate, create per round), N rounds after a
 * warm-up. Prints p50/p95 and the ratio to status's p50.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PORTS, ROOT, callTool, fmt, launchBrowser, log, mcpClient, newContext, openNotebook, startServer, stopOnExit, summary, writeResult } from './lib.mjs';

const N = Number(process.env.MOLSPACE_BENCH_AUTHORING_N || 30);
const WARMUP = 3;

const kinase = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'data', 'kinase-story.mvsj'), 'utf8'));
const root = {
  kind: 'root',
  children: [
    {
      kind: 'download',
      params: { url: 'https://files.rcsb.org/molspace-test/1hpv.pdb' },
      children: [
        {
          kind: 'parse',
          params: { format: 'pdb' },
          children: [
            {
              kind: 'structure',
              params: { type: 'model' },
              children: [
                { kind: 'component', params: { selector: 'polymer' }, children: [{ kind: 'representation', params: { type: 'cartoon' } }] },
                { kind: 'component', params: { selector: 'ligand' }, children: [{ kind: 'representation', params: { type: 'ball_and_stick' } }, { kind: 'focus', params: {} }] }
              ]
            }
          ]
        }
      ]
    }
  ]
};
const generated = {
  title: 'Generated 100-step Story',
  steps: Array.from({ length: 100 }, (_, i) => ({ key: `step-${i}`, title: `Step ${i + 1}`, description: `Step **${i + 1}** of 100.`, root }))
};
const DOCS = { kinase11: kinase, generated100: generated };

const server = await startServer({ port: PORTS.a, name: 'authoring' });
const stopAll = stopOnExit([server]);
let browser;
let exitCode = 0;
try {
  browser = await launchBrowser();
  const page = await (await newContext(browser)).newPage();
  await openNotebook(page, server, 'demo.ipynb');
  const client = await mcpClient(server);
  await client.listTools();
  for (let i = 0; !(await callTool(client, 'status')).pageConnected; i++) {
    if (i > 300) throw new Error('no page connected to the gateway');
    await new Promise(r => setTimeout(r, 100));
  }
  const timings = { status: [] };
  for (const name of Object.keys(DOCS)) {
    timings[`story_validate ${name}`] = [];
    timings[`story_create ${name}`] = [];
  }
  log(`${N} rounds (after ${WARMUP} warm-up) of status, story_validate and story_create for ${Object.keys(DOCS).join(', ')}`);
  for (let round = 0; round < WARMUP + N; round++) {
    const time = async (label, tool, args) => {
      const t0 = performance.now();
      const out = await callTool(client, tool, args);
      if (round >= WARMUP) timings[label].push(performance.now() - t0);
      return out;
    };
    await time('status', 'status', {});
    for (const [name, document] of Object.entries(DOCS)) {
      const v = await time(`story_validate ${name}`, 'story_validate', { document });
      if (!v.valid) throw new Error(`${name} does not validate: ${JSON.stringify(v.issues.slice(0, 3))}`);
      await time(`story_create ${name}`, 'story_create', { document, path: `bench/${name}.mvsj`, overwrite: true });
    }
  }
  await client.close();
  const base = summary(timings.status);
  const rows = {};
  console.log(`\nStory authoring round trip, ms (N=${N}):`);
  console.log('call                          p50      p95   p50/status');
  for (const [label, values] of Object.entries(timings)) {
    const s = summary(values);
    rows[label] = { ...s, ratioP50: s.p50 / base.p50 };
    console.log(`${label.padEnd(28)} ${fmt(s.p50).padStart(6)} ${fmt(s.p95).padStart(8)}   ${(s.p50 / base.p50).toFixed(1)}×`);
  }
  writeResult('authoring', { n: N, warmup: WARMUP, calls: rows });
} catch (e) {
  console.error(e);
  exitCode = 1;
} finally {
  await browser?.close();
  await stopAll();
}
process.exit(exitCode);
