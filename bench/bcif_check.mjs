#!/usr/bin/env node
/**
 * What the page's BCIF check costs (issue 23): `readStructure` decodes a BCIF's
 * MessagePack with `@msgpack/msgpack` (bounds-checked) before Mol* reads it.
 * The page's `readStructure` is bundled twice with esbuild: as it is (after),
 * and with `@msgpack/msgpack` replaced by a decoder that does nothing (before:
 * Mol* alone). Both read tests/data/structures/1cbs.bcif in turn, RUNS times
 * each (default 100, after 5 to warm up), so the shared machine's noise falls
 * on both alike; medians. Then the check alone, and how long the malformed
 * file that hung the page (0x91 0xdd put in front) takes to be refused.
 *
 *   node bench/bcif_check.mjs
 *
 * Not part of bench/run.sh (no server, no browser).
 */
import { build } from 'esbuild';
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const stub = join(tmpdir(), `molspace-msgpack-stub-${process.pid}.js`);
writeFileSync(stub, 'export function decode() { return undefined; }\n');

/** `readStructure` and `decode` of a bundle of the page's code (`alias`: modules replaced). */
async function bundle(name, alias) {
  const outfile = join(tmpdir(), `molspace-bcif-check-${name}-${process.pid}.cjs`);
  await build({
    stdin: {
      contents: "export { readStructure } from './src/viewer/structureData';\nexport { decode } from '@msgpack/msgpack';",
      resolveDir: root,
      loader: 'ts'
    },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile,
    alias,
    logLevel: 'error'
  });
  const m = require(outfile);
  unlinkSync(outfile);
  return m;
}

const after = await bundle('after', {});
const before = await bundle('before', { '@msgpack/msgpack': stub });
unlinkSync(stub);

const RUNS = Number(process.env.RUNS ?? 100);
const bytes = new Uint8Array(readFileSync(join(root, 'tests/data/structures/1cbs.bcif')));

/** Medians of `fs`' times, each timed in turn every round. */
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

const [withoutCheck, withCheck, check] = await medians(
  () => before.readStructure(bytes, 'bcif', '1cbs.bcif'),
  () => after.readStructure(bytes, 'bcif', '1cbs.bcif'),
  () => after.decode(bytes)
);
const bad = new Uint8Array(bytes.length + 2);
bad.set([0x91, 0xdd], 0);
bad.set(bytes, 2);
const s = performance.now();
const refused = await after.readStructure(bad, 'bcif', 'bad.bcif').then(
  () => 'read (!)',
  e => `refused ${e.code}`
);
const badMs = performance.now() - s;
const f = ms => `${ms.toFixed(2)} ms`;
console.log(`1cbs.bcif, ${bytes.length} bytes, medians of ${RUNS} (node ${process.version}):`);
console.log(`  readStructure, Mol* alone (before):      ${f(withoutCheck)}`);
console.log(`  readStructure with the check (after):    ${f(withCheck)}`);
console.log(`  the check alone (@msgpack/msgpack):      ${f(check)}`);
console.log(`  0x91 0xdd put in front: ${refused} in ${f(badMs)}`);
