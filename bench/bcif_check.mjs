#!/usr/bin/env node
/**
 * What the page's BCIF check costs (issue 23): `readStructure` decodes a BCIF's
 * MessagePack with `@msgpack/msgpack` (bounds-checked) before Mol* reads it.
 * Times, on tests/data/structures/1cbs.bcif, the check alone, Mol*'s own
 * reading (CIF.parse + trajectory + first frame, what `readStructure` did
 * before the check) and `readStructure` whole; and how long the malformed file
 * that hung the page (0x91 0xdd inserted at the start) takes to be refused.
 * Medians of RUNS reads (default 50) after 5 to warm up, timed in turn.
 *
 *   node bench/bcif_check.mjs
 *
 * The page's TypeScript is bundled with esbuild first. Not part of
 * bench/run.sh (no server, no browser).
 */
import { build } from 'esbuild';
import { readFileSync, unlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outfile = join(tmpdir(), `molspace-bcif-check-${process.pid}.cjs`);
await build({
  stdin: {
    contents: [
      "export { readStructure } from './src/viewer/structureData';",
      "export { decode } from '@msgpack/msgpack';",
      "export { CIF } from 'molstar/lib/mol-io/reader/cif';",
      "export { trajectoryFromMmCIF } from 'molstar/lib/mol-model-formats/structure/mmcif';"
    ].join('\n'),
    resolveDir: root,
    loader: 'ts'
  },
  bundle: true,
  platform: 'node',
  format: 'cjs',
  outfile,
  logLevel: 'error'
});
const { readStructure, decode, CIF, trajectoryFromMmCIF } = createRequire(import.meta.url)(outfile);
unlinkSync(outfile);

const RUNS = Number(process.env.RUNS ?? 50);
const bytes = new Uint8Array(readFileSync(join(root, 'tests/data/structures/1cbs.bcif')));

/** Medians of `fs`' times, each timed in turn every round (so the shared machine's noise falls on all alike). */
async function medians(...fs) {
  const t = fs.map(() => []);
  for (let i = 0; i < RUNS + 5; i++) {
    for (const [k, f] of fs.entries()) {
      const s = performance.now();
      await f();
      if (i >= 5) {
        t[k].push(performance.now() - s);
      }
    }
  }
  return t.map(x => x.sort((a, b) => a - b)[Math.floor(x.length / 2)]);
}

async function molstarRead() {
  const cif = await CIF.parse(bytes).run();
  if (cif.isError) {
    throw new Error(cif.message);
  }
  const t = await trajectoryFromMmCIF(cif.result.blocks[0], cif.result).run();
  return t.getFrameAtIndex(0);
}

const [check, before, after, whole] = await medians(
  () => decode(bytes),
  molstarRead,
  async () => {
    decode(bytes);
    return molstarRead();
  },
  () => readStructure(bytes, 'bcif', '1cbs.bcif')
);
const bad = new Uint8Array(bytes.length + 2);
bad.set([0x91, 0xdd], 0);
bad.set(bytes, 2);
const s = performance.now();
const refused = await readStructure(bad, 'bcif', 'bad.bcif').then(
  () => 'read (!)',
  e => `refused ${e.code}`
);
const badMs = performance.now() - s;
const f = ms => `${ms.toFixed(2)} ms`;
console.log(`1cbs.bcif, ${bytes.length} bytes, medians of ${RUNS} (node ${process.version}):`);
console.log(`  @msgpack/msgpack decode (the check):         ${f(check)}`);
console.log(`  Mol* CIF.parse + trajectory (before):        ${f(before)}`);
console.log(`  the check, then Mol*'s read (after):         ${f(after)}`);
console.log(`  readStructure whole (with the composition):  ${f(whole)}`);
console.log(`  0x91 0xdd inserted at 0: ${refused} in ${f(badMs)}`);
