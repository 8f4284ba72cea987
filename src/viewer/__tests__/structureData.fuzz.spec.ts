/**
 * Fuzz (issue 23): structure files of every format the page reads
 * (`readStructure`, Mol*'s parsers behind the page's own checks). Real files
 * from tests/data, each format, cut at many points, bytes changed, binary
 * inserted into text, slices dropped; sometimes read as another format.
 * Property: read (with atoms), or refused with a located error of bounded
 * size, each within the time limit; a PDB/PDBQT text whose last ATOM/HETATM
 * record was cut inside its coordinates is never read as whole.
 */
import fc from 'fast-check';
import { readFileSync } from 'fs';
import { resolve } from 'path';
import type { StructureFormat } from '../../contract';
import { readStructure } from '../structureData';
import { FUZZ_RUNS, acceptOrRefuse, fuzzParams, fuzzTimeout, mutatedBytes } from '../../__tests__/fuzzKit';

const dir = resolve(__dirname, '../../../tests/data/structures');
const file = (name: string) => new Uint8Array(readFileSync(resolve(dir, name)));

/**
 * One real file per format; the large ones (mmCIF, BCIF, SDF) as their first
 * records, so 10,000 reads fit the CI time (the bench run reads them whole).
 */
const whole = process.env.FUZZ_WHOLE_FILES === '1';
const head = (b: Uint8Array, n: number) => (whole ? b : b.slice(0, n));
const FILES: { format: StructureFormat; bytes: Uint8Array }[] = [
  { format: 'pdb', bytes: file('2c6e_poses.pdb') },
  { format: 'pdbqt', bytes: file('1pgp_lig.pdbqt') },
  { format: 'mmcif', bytes: head(file('1cbs.cif'), 24_000) },
  { format: 'sdf', bytes: head(file('cdk2.sdf'), 12_000) },
  { format: 'mol', bytes: file('small01.mol') },
  { format: 'mol2', bytes: head(file('small03.mol2'), 8_000) },
  { format: 'xyz', bytes: file('small01.xyz') },
  { format: 'xyz', bytes: file('small01.extxyz') },
  { format: 'gro', bytes: head(file('spc216.gro'), 6_000) }
];
const FORMATS = [...new Set(FILES.map(f => f.format))];

const input = fc.oneof(
  { arbitrary: mutatedBytes(FILES.map(f => f.bytes)).map(m => ({ ...m, format: FILES[m.file].format })), weight: 9 },
  // Read as another format than it is.
  {
    arbitrary: fc
      .tuple(fc.nat({ max: FILES.length - 1 }), fc.constantFrom(...FORMATS))
      .map(([f, format]) => ({ file: f, bytes: FILES[f].bytes, how: 'as ' + format, format })),
    weight: 1
  }
);

/** True when the text's last ATOM/HETATM line is shorter than its z coordinate (column 54). */
function endsInsideAtomRecord(bytes: Uint8Array): boolean {
  const lines = new TextDecoder().decode(bytes).split('\n');
  while (lines.length && lines[lines.length - 1].trim() === '') {
    lines.pop();
  }
  const last = (lines[lines.length - 1] ?? '').replace(/\r$/, '');
  return /^(ATOM|HETATM)/.test(last) && last.length < 54;
}

describe('structure files (fuzz)', () => {
  // Mol*'s parsers log what they skip (thousands of lines here); the property reads the outcome.
  beforeAll(() => {
    jest.spyOn(console, 'log').mockImplementation(() => undefined);
    jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  });
  afterAll(() => jest.restoreAllMocks());

  /**
   * Found by this fuzzer, not fixed yet: Mol*'s MessagePack decoder trusts the
   * lengths it reads (array32, map32, bin32), so 1cbs.bcif with two bytes put
   * in front of it makes the page loop for minutes on the main thread. BCIF is
   * left out of the property above until the page checks those lengths
   * against the bytes left before decoding.
   */
  it.todo('BCIF with a MessagePack length past its end is refused at once (1cbs.bcif with 2 bytes inserted at 0 hangs)');

  it(
    'every format, cut, changed and mislabelled: read with atoms, or refused with a located error',
    async () => {
      let read = 0;
      const seen = new Set<string>();
      await fc.assert(
        fc.asyncProperty(input, async ({ bytes, format }) => {
          const r = await acceptOrRefuse(() => readStructure(bytes, format, '/path'));
          seen.add(format);
          if (r.ok) {
            read++;
            expect(r.value.models.length).toBeGreaterThan(0);
            expect(r.value.models[0].atomicHierarchy.atoms._rowCount).toBeGreaterThan(0);
            if (format === 'pdb' || format === 'pdbqt') {
              expect(endsInsideAtomRecord(bytes)).toBe(false);
            }
          } else {
            expect(r.error.where).toBe('/path');
          }
        }),
        fuzzParams(FUZZ_RUNS)
      );
      expect([...seen].sort()).toEqual([...FORMATS].sort());
      expect(read).toBeGreaterThan(FUZZ_RUNS / 10);
    },
    fuzzTimeout(80_000)
  );
});
