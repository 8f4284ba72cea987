/**
 * Fuzz (issue 23): structure files of every format the page reads
 * (`readStructure`, Mol*'s parsers behind the page's own checks). Real files
 * from tests/data, each format, cut at many points, bytes changed, binary
 * inserted into text, slices dropped; sometimes read as another format.
 * Property: read (with atoms), or refused with a located error of bounded
 * size, each within the time limit; a PDB/PDBQT text whose last ATOM/HETATM
 * record was cut inside its coordinates is never read as whole; a cut text is
 * never read without a note that it may be cut short, where the format has a
 * closing record (see `structureCuts.ts`). BCIF (binary MessagePack) whole:
 * a length past its end once hung the page (checked before Mol* reads it).
 */
import fc from 'fast-check';
import { readFileSync } from 'fs';
import { resolve } from 'path';
import type { StructureFormat } from '../../contract';
import { readStructure } from '../structureData';
import { CUT_WARNING } from '../structureCuts';
import { FUZZ_RUNS, acceptOrRefuse, fuzzParams, fuzzTimeout, mutatedBytes } from '../../__tests__/fuzzKit';

const dir = resolve(__dirname, '../../../tests/data/structures');
const file = (name: string) => new Uint8Array(readFileSync(resolve(dir, name)));

/**
 * One real file per format; the large text ones (mmCIF, SDF) as their first
 * records, so 10,000 reads fit the CI time (the bench run reads them whole).
 * BCIF is whole: a slice of it is no longer MessagePack.
 */
const whole = process.env.FUZZ_WHOLE_FILES === '1';
const head = (b: Uint8Array, n: number) => (whole ? b : b.slice(0, n));
const FILES: { format: StructureFormat; bytes: Uint8Array }[] = [
  { format: 'pdb', bytes: file('2c6e_poses.pdb') },
  { format: 'pdbqt', bytes: file('1pgp_lig.pdbqt') },
  { format: 'mmcif', bytes: head(file('1cbs.cif'), 24_000) },
  { format: 'bcif', bytes: file('1cbs.bcif') },
  { format: 'sdf', bytes: head(file('cdk2.sdf'), 12_000) },
  { format: 'mol', bytes: file('small01.mol') },
  { format: 'mol2', bytes: head(file('small03.mol2'), 8_000) },
  { format: 'xyz', bytes: file('small01.xyz') },
  { format: 'xyz', bytes: file('small01.extxyz') },
  { format: 'gro', bytes: head(file('spc216.gro'), 6_000) }
];
const FORMATS = [...new Set(FILES.map(f => f.format))];
/**
 * Formats whose files end with a closing record (PDB/PDBQT END, ENDMDL or
 * TORSDOF; mmCIF '#'; SDF $$$$; MOL M  END): a cut one read is read with a note.
 * (MOL2, XYZ and GRO have none: a cut between molecules or frames is whole
 * records; one inside a record is refused.) Only cuts of whole files: a
 * `head` slice has lost its closing record already.
 */
const CLOSED: StructureFormat[] = whole ? ['pdb', 'pdbqt', 'mmcif', 'sdf', 'mol'] : ['pdb', 'pdbqt', 'mol'];

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
   * Found by this fuzzer: Mol*'s MessagePack decoder trusts the lengths it
   * reads (array32, map32, bin32), so 1cbs.bcif with two bytes put in front
   * of it made the page loop for minutes on the main thread. The page now
   * decodes it with a bounds-checked decoder first.
   */
  it('BCIF with a MessagePack length past its end is refused (1cbs.bcif with 2 bytes inserted at 0 hung)', async () => {
    const bcif = file('1cbs.bcif');
    // array of 1 + array32, array32, bin32 (lengths past the end); map32 of 4 billion entries (a key is not a string)
    for (const [front, truncated] of [
      [[0x91, 0xdd], true],
      [[0xdd, 0xff], true],
      [[0xc6, 0xff], true],
      [[0xdf, 0xff], false]
    ] as const) {
      const bytes = new Uint8Array(bcif.length + 2);
      bytes.set(front, 0);
      bytes.set(bcif, 2);
      await expect(readStructure(bytes, 'bcif', '/bad.bcif')).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        where: '/bad.bcif',
        details: { format: 'bcif', bytes: bcif.length + 2, truncated }
      });
    }
  });

  it(
    'every format, cut, changed and mislabelled: read with atoms, or refused with a located error',
    async () => {
      let read = 0;
      const seen = new Set<string>();
      await fc.assert(
        fc.asyncProperty(input, async ({ file: f, bytes, format, how }) => {
          const r = await acceptOrRefuse(() => readStructure(bytes, format, '/path'));
          seen.add(format);
          if (r.ok) {
            read++;
            expect(r.value.models.length).toBeGreaterThan(0);
            expect(r.value.models[0].atomicHierarchy.atoms._rowCount).toBeGreaterThan(0);
            if (format === 'pdb' || format === 'pdbqt') {
              expect(endsInsideAtomRecord(bytes)).toBe(false);
            }
            if (how.startsWith('cut at') && CLOSED.includes(format) && bytes.length < FILES[f].bytes.length - 8) {
              expect(r.value.composition.dropped.filter(d => d.startsWith(CUT_WARNING))).toHaveLength(1);
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
