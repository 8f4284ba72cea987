#!/usr/bin/env node
/**
 * The page's fuzz specs (issue 23), run longer than CI does: every
 * `*.fuzz.spec.ts` under src/ with FUZZ_RUNS inputs per property
 * (default 200,000; CI runs 10,000), a seed of its own (FUZZ_SEED, default:
 * the time, printed so a failure can be replayed) and the large structure
 * files whole (FUZZ_WHOLE_FILES=1).
 *
 *   node bench/fuzz_page.mjs
 *   FUZZ_RUNS=50000 FUZZ_SEED=7 node bench/fuzz_page.mjs
 *
 * Not part of bench/run.sh (no Jupyter server, no browser); exits with
 * jest's status.
 */
import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const env = {
  ...process.env,
  FUZZ_RUNS: process.env.FUZZ_RUNS ?? '200000',
  FUZZ_SEED: process.env.FUZZ_SEED ?? String(Date.now() % 2 ** 31),
  FUZZ_WHOLE_FILES: process.env.FUZZ_WHOLE_FILES ?? '1'
};
console.log(`fuzz_page: FUZZ_RUNS=${env.FUZZ_RUNS} FUZZ_SEED=${env.FUZZ_SEED} FUZZ_WHOLE_FILES=${env.FUZZ_WHOLE_FILES}`);
const jest = spawnSync('npx', ['jest', '--runInBand', '--testPathPattern', '\\.fuzz\\.spec\\.ts$'], { cwd: root, env, stdio: 'inherit' });
process.exit(jest.status ?? 1);
