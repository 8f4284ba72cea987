/**
 * Fuzz (issue 23): Story documents and .mvsx archives as the page reads them
 * (`parseStory`, the path of Stories, `apply_mvs` and authoring). Documents:
 * real MVSJ files mutated one to three times (near-valid), and their text cut
 * or changed byte by byte. Archives: the real .mvsx files cut and with bytes
 * changed, and zips built here with names that climb out (`../`, absolute),
 * duplicate entries, one entry listed many times, and declared sizes that
 * lie (zip bombs). Property: parsed, or refused with a located error of
 * bounded size, each within the time limit; an archive whose entries declare
 * more than the Story size limit in all is refused TOO_LARGE before anything
 * is inflated.
 */
import fc from 'fast-check';
import { readFileSync } from 'fs';
import { resolve } from 'path';
import { LIMITS } from '../../contract';
import { parseStory } from '../storySource';
import { FUZZ_RUNS, acceptOrRefuse, fuzzParams, fuzzTimeout, mutatedBytes, nearValid } from '../../__tests__/fuzzKit';

const root = resolve(__dirname, '../../..');
const read = (p: string) => new Uint8Array(readFileSync(resolve(root, p)));
const SMALL_MVSJ = read('tests/data/1cbs.mvsj');
const LARGE_MVSJ = read('tests/data/kinase-story.mvsj');
const MVSX = [read('tests/data/1h9t.mvsx'), read('examples/data/1cbs-story.mvsx')];

// ---------------------------------------------------------------------------
// A zip writer that can lie (stored entries, CRC not checked by Mol*'s reader)

interface Entry {
  name: string;
  data: Uint8Array;
  /** The uncompressed size the headers declare (default: the real one). */
  declared?: number;
  /** Deflate (method 8) instead of stored; the data is then whatever bytes are given. */
  deflate?: boolean;
}

function zip(entries: readonly Entry[], listTimes: readonly number[] = []): Uint8Array {
  const enc = new TextEncoder();
  const parts: number[] = [];
  const u16 = (v: number) => parts.push(v & 0xff, (v >>> 8) & 0xff);
  const u32 = (v: number) => parts.push(v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, (v >>> 24) & 0xff);
  const offsets: number[] = [];
  for (const e of entries) {
    offsets.push(parts.length);
    const name = enc.encode(e.name);
    u32(0x04034b50);
    u16(20);
    u16(0);
    u16(e.deflate ? 8 : 0);
    u32(0);
    u32(0);
    u32(e.data.length);
    u32(e.declared ?? e.data.length);
    u16(name.length);
    u16(0);
    parts.push(...name, ...e.data);
  }
  const central = parts.length;
  let count = 0;
  entries.forEach((e, i) => {
    const name = enc.encode(e.name);
    for (let t = 0; t < (listTimes[i] ?? 1); t++) {
      count++;
      u32(0x02014b50);
      u16(20);
      u16(20);
      u16(0);
      u16(e.deflate ? 8 : 0);
      u32(0);
      u32(0);
      u32(e.data.length);
      u32(e.declared ?? e.data.length);
      u16(name.length);
      u16(0);
      u16(0);
      u16(0);
      u16(0);
      u32(0);
      u32(offsets[i]);
      parts.push(...name);
    }
  });
  const size = parts.length - central;
  u32(0x06054b50);
  u16(0);
  u16(0);
  u16(count);
  u16(count);
  u32(size);
  u32(central);
  u16(0);
  return new Uint8Array(parts);
}

const INDEX = new TextDecoder().decode(SMALL_MVSJ);
const entryName = fc.constantFrom(
  'index.mvsj',
  'assets/a.cif',
  '../index.mvsj',
  '../../etc/passwd',
  '/index.mvsj',
  'C:\\x.cif',
  'a/../../b',
  './index.mvsj',
  'dir/',
  ''
);
const entry: fc.Arbitrary<Entry> = fc.record({
  name: entryName,
  data: fc.oneof(fc.constant(new TextEncoder().encode(INDEX)), fc.uint8Array({ maxLength: 64 })),
  declared: fc.option(fc.oneof(fc.nat({ max: 100 }), fc.constantFrom(LIMITS.storySourceBytes + 1, 0xffffffff, 2 ** 31)), {
    nil: undefined
  }),
  deflate: fc.boolean()
});
const craftedZip = fc
  .array(fc.tuple(entry, fc.oneof({ arbitrary: fc.constant(1), weight: 4 }, { arbitrary: fc.integer({ min: 0, max: 50 }), weight: 1 })), {
    minLength: 1,
    maxLength: 4
  })
  .map(list => ({ entries: list.map(([e]) => e), times: list.map(([, t]) => t) }));

/** Every declared size the central directory points at, summed (what the reader would allocate). */
const declaredTotal = (entries: readonly Entry[], times: readonly number[]) =>
  entries.reduce((n, e, i) => n + (e.declared ?? e.data.length) * (times[i] ?? 1), 0);

describe('Story documents (fuzz)', () => {
  const docs = [JSON.parse(new TextDecoder().decode(SMALL_MVSJ)), JSON.parse(new TextDecoder().decode(LARGE_MVSJ))];
  const mvsjText = fc.oneof(
    {
      arbitrary: nearValid(fc.oneof({ arbitrary: fc.constant(docs[0]), weight: 19 }, { arbitrary: fc.constant(docs[1]), weight: 1 })).map(
        d => JSON.stringify(d) ?? ''
      ),
      weight: 6
    },
    { arbitrary: mutatedBytes([SMALL_MVSJ]).map(m => new TextDecoder().decode(m.bytes)), weight: 3 },
    { arbitrary: fc.string({ maxLength: 30 }), weight: 1 }
  );

  it(
    'MVSJ text: parsed, or refused with a located error',
    async () => {
      let parsed = 0;
      await fc.assert(
        fc.asyncProperty(mvsjText, async text => {
          const r = await acceptOrRefuse(() => parseStory({ mvsj: text }));
          parsed += r.ok ? 1 : 0;
        }),
        fuzzParams(FUZZ_RUNS)
      );
      expect(parsed).toBeGreaterThan(FUZZ_RUNS / 50);
    },
    fuzzTimeout(60_000)
  );
});

describe('.mvsx archives (fuzz)', () => {
  it(
    'real archives cut and with bytes changed, and zips with lying headers: parsed, or refused with a located error',
    async () => {
      const archive = fc.oneof(
        mutatedBytes(MVSX).map(m => ({ bytes: m.bytes, declared: null as number | null })),
        craftedZip.map(z => ({ bytes: zip(z.entries, z.times), declared: declaredTotal(z.entries, z.times) }))
      );
      let parsed = 0;
      await fc.assert(
        fc.asyncProperty(archive, async ({ bytes, declared }) => {
          const r = await acceptOrRefuse(() => parseStory({ mvsx: bytes }));
          parsed += r.ok ? 1 : 0;
          if (declared !== null && declared > LIMITS.storySourceBytes) {
            // A zip bomb: refused from what the headers declare, nothing inflated.
            expect(r.ok ? 'parsed' : r.error.code).toBe('TOO_LARGE');
          }
        }),
        fuzzParams(FUZZ_RUNS)
      );
      expect(parsed).toBeGreaterThan(FUZZ_RUNS / 50);
    },
    fuzzTimeout(60_000)
  );

  it('a zip bomb hidden behind a duplicate name, or one entry listed many times, is TOO_LARGE (found by the fuzzer)', async () => {
    const index = new TextEncoder().encode(INDEX);
    const huge = { name: 'assets/a.cif', data: new Uint8Array(8), declared: 0xffffffff, deflate: true };
    const small = { name: 'assets/a.cif', data: new Uint8Array(8) };
    for (const bytes of [
      zip([huge, small, { name: 'index.mvsj', data: index }]),
      zip(
        [
          { name: 'assets/a.cif', data: new Uint8Array(8), declared: 40 * 1024 * 1024, deflate: true },
          { name: 'index.mvsj', data: index }
        ],
        [2, 1]
      )
    ]) {
      const r = await acceptOrRefuse(() => parseStory({ mvsx: bytes }));
      expect(r.ok ? 'parsed' : `${r.error.code} ${r.error.message}`).toMatch(/^TOO_LARGE/);
    }
  });

  it('an archive holding one name twice is refused, naming it', async () => {
    const index = new TextEncoder().encode(INDEX);
    const r = await acceptOrRefuse(() =>
      parseStory({
        mvsx: zip([
          { name: 'index.mvsj', data: index },
          { name: 'index.mvsj', data: new TextEncoder().encode('{}') }
        ])
      })
    );
    expect(r.ok ? 'parsed' : [r.error.code, r.error.details.entry]).toEqual(['UNSUPPORTED_FORMAT', 'index.mvsj']);
  });
});
