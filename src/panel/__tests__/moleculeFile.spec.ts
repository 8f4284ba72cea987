/**
 * Molecule grids from SDF, CSV and TSV text: sdf-parser and papaparse read
 * them, data fields / columns become properties, every bound and every bad
 * record is refused, located and named. Indigo's molfile → SMILES step is
 * replaced by a stand-in here; Galata runs the real one
 * (ui-tests/tests/panelLinks.spec.ts).
 */
import * as fs from 'fs';
import * as path from 'path';
import { LIMITS, MolspaceError, PanelContent, type MoleculesContent } from '../../contract';
import type { Conversion } from '../../ketcher/depictMessages';
import { resolveMoleculeFile } from '../moleculeFile';

const CDK2 = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'tests', 'data', 'structures', 'cdk2.sdf'), 'utf8');

/** Stand-in for Indigo: the molfile's atom count as a chain of carbons; "BAD" in the title fails. */
async function toSmiles(molfiles: string[]): Promise<Conversion[]> {
  return molfiles.map(m => {
    if (m.startsWith('BAD')) {
      return { smiles: null, error: 'bad molfile' };
    }
    const atoms = Number(m.split('\n')[3].slice(0, 3));
    return { smiles: 'C'.repeat(Math.max(1, Math.min(atoms, 50))), error: null };
  });
}

function grid(file: Record<string, unknown>, extra: Record<string, unknown> = {}): MoleculesContent {
  return PanelContent.parse({ type: 'molecules', file, ...extra }) as MoleculesContent;
}

async function refused(p: Promise<unknown>): Promise<ReturnType<MolspaceError['toJSON']>> {
  try {
    await p;
  } catch (e) {
    if (e instanceof MolspaceError) {
      return e.toJSON();
    }
    throw e;
  }
  throw new Error('expected a refusal');
}

/** One small SDF record with a title and data fields. */
function record(title: string, fields: Record<string, string>): string {
  const molfile = [
    title,
    '  test',
    '',
    '  1  0  0  0  0  0  0  0  0  0999 V2000',
    '    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0',
    'M  END'
  ];
  const data = Object.entries(fields).flatMap(([k, v]) => [`> <${k}>`, v, '']);
  return [...molfile, ...data, '$$$$'].join('\n');
}

describe('SDF', () => {
  it('reads every cdk2.sdf record: title → name, data fields → properties (numbers as numbers)', async () => {
    const out = await resolveMoleculeFile(grid({ format: 'sdf', text: CDK2 }, { pageSize: 12 }), '/content', toSmiles);
    expect(out.molecules).toHaveLength(47);
    expect(out.pageSize).toBe(12);
    expect(out.file).toBeUndefined();
    const first = out.molecules![0];
    expect(first.name).toBe('ZINC03814457');
    expect(first.properties).toMatchObject({ id: expect.anything(), Cluster: expect.any(Number) });
    expect(first.smiles).toMatch(/^C+$/);
  });

  it('reads CRLF files and multi-line fields', async () => {
    const text = record('m1', { note: 'line one\nline two', score: '-7.5' }).replace(/\n/g, '\r\n');
    const out = await resolveMoleculeFile(grid({ format: 'sdf', text }), '/content', toSmiles);
    expect(out.molecules![0]).toMatchObject({ name: 'm1', properties: { note: 'line one\nline two', score: -7.5 } });
  });

  it('takes the name from a data field with nameColumn', async () => {
    const out = await resolveMoleculeFile(
      grid({ format: 'sdf', text: record('title', { id: 'L1' }), nameColumn: 'id' }),
      '/content',
      toSmiles
    );
    expect(out.molecules![0]).toMatchObject({ name: 'L1', properties: {} });
  });

  it('keeps hostile field text as text', async () => {
    const hostile = '<img src=x onerror="alert(1)">';
    const out = await resolveMoleculeFile(
      grid({ format: 'sdf', text: record(hostile, { [hostile.slice(0, 10)]: hostile }) }),
      '/content',
      toSmiles
    );
    expect(out.molecules![0].name).toBe(hostile);
    expect(Object.values(out.molecules![0].properties!)).toEqual([hostile]);
  });

  it('names the record and its first line that Indigo cannot read', async () => {
    const text = [record('ok', {}), record('also ok', { a: '1' }), record('BAD one', {})].join('\n');
    const e = await refused(resolveMoleculeFile(grid({ format: 'sdf', text }), '/content', toSmiles));
    expect(e).toMatchObject({ code: 'VALIDATION_FAILED', where: '/content/file/text', details: { record: 3, error: 'bad molfile' } });
    expect(e.message).toContain('SDF record 3 (line 18)');
  });

  it('refuses text with no record', async () => {
    const e = await refused(resolveMoleculeFile(grid({ format: 'sdf', text: 'not an sdf' }), '/content', toSmiles));
    expect(e).toMatchObject({ code: 'VALIDATION_FAILED', where: '/content/file/text' });
  });

  it('bounds records, properties per record and field text, naming the record', async () => {
    const many = Array.from({ length: LIMITS.panelMolecules + 1 }, (_, i) => record(`m${i}`, {})).join('\n');
    expect(await refused(resolveMoleculeFile(grid({ format: 'sdf', text: many }), '/content', toSmiles))).toMatchObject({
      code: 'TOO_LARGE',
      where: '/content/file/text',
      details: { limit: 'panelMolecules', size: LIMITS.panelMolecules + 1 }
    });
    const fields = Object.fromEntries(Array.from({ length: LIMITS.panelMoleculeProperties + 1 }, (_, i) => [`f${i}`, 'x']));
    const wide = await refused(
      resolveMoleculeFile(grid({ format: 'sdf', text: record('a', {}) + '\n' + record('b', fields) }), '/content', toSmiles)
    );
    expect(wide).toMatchObject({
      code: 'TOO_LARGE',
      where: '/content/file/text',
      details: { limit: 'panelMoleculeProperties', record: 2 }
    });
    expect(wide.message).toContain('SDF record 2 (line 8)');
    const long = await refused(
      resolveMoleculeFile(grid({ format: 'sdf', text: record('a', { f: 'x'.repeat(LIMITS.panelCellChars + 1) }) }), '/content', toSmiles)
    );
    expect(long).toMatchObject({ code: 'TOO_LARGE', details: { limit: 'panelCellChars', record: 1 } });
  });

  it('bounds the text in bytes', async () => {
    const text = 'x'.repeat(LIMITS.panelMoleculeFileBytes + 1);
    expect(await refused(resolveMoleculeFile(grid({ format: 'sdf', text }), '/content', toSmiles))).toMatchObject({
      code: 'TOO_LARGE',
      where: '/content/file/text',
      details: { limit: 'panelMoleculeFileBytes' }
    });
  });
});

describe('CSV and TSV', () => {
  it('reads a SMILES column (any case), a name column and the rest as properties; quoted delimiters stay', async () => {
    const text = 'Name,SMILES,score,note\nethanol,CCO,-7.5,"a, b"\nbenzene,c1ccccc1,,plain\n';
    const out = await resolveMoleculeFile(grid({ format: 'csv', text }), '/content', toSmiles);
    expect(out.molecules).toEqual([
      { smiles: 'CCO', name: 'ethanol', properties: { score: -7.5, note: 'a, b' } },
      { smiles: 'c1ccccc1', name: 'benzene', properties: { note: 'plain' } }
    ]);
  });

  it('reads TSV with named columns', async () => {
    const text = 'id\tstructure\tmw\nL1\tCCO\t46.07\n';
    const out = await resolveMoleculeFile(grid({ format: 'tsv', text, smilesColumn: 'structure', nameColumn: 'id' }), '/content', toSmiles);
    expect(out.molecules).toEqual([{ smiles: 'CCO', name: 'L1', properties: { mw: 46.07 } }]);
  });

  it('keeps hostile cells as text', async () => {
    const hostile = '<script>alert(1)</script>';
    const out = await resolveMoleculeFile(grid({ format: 'csv', text: `smiles,${hostile}\nC,"${hostile}"\n` }), '/content', toSmiles);
    expect(out.molecules![0].properties).toEqual({ [hostile]: hostile });
  });

  it('refuses a missing or unknown SMILES column, an unknown name column, an empty SMILES, a ragged row', async () => {
    const cases: [Record<string, unknown>, Record<string, unknown>][] = [
      [{ format: 'csv', text: 'a,b\n1,2\n' }, { where: '/content/file/smilesColumn' }],
      [{ format: 'csv', text: 'smiles\nC\n', smilesColumn: 'smi' }, { where: '/content/file/smilesColumn' }],
      [{ format: 'csv', text: 'smiles\nC\n', nameColumn: 'id' }, { where: '/content/file/nameColumn' }],
      [
        { format: 'csv', text: 'smiles,name\nC,a\n,b\n' },
        { where: '/content/file/text', details: { row: 2 } }
      ],
      [
        { format: 'csv', text: 'smiles,name\nC,a\nCC,b,extra\n' },
        { where: '/content/file/text', details: { row: 2 } }
      ]
    ];
    for (const [file, expected] of cases) {
      expect(await refused(resolveMoleculeFile(grid(file), '/content', toSmiles))).toMatchObject({
        code: 'VALIDATION_FAILED',
        ...expected
      });
    }
  });

  it('bounds rows', async () => {
    const text = 'smiles\n' + 'C\n'.repeat(LIMITS.panelMolecules + 1);
    expect(await refused(resolveMoleculeFile(grid({ format: 'csv', text }), '/content', toSmiles))).toMatchObject({
      code: 'TOO_LARGE',
      details: { limit: 'panelMolecules', size: LIMITS.panelMolecules + 1 }
    });
  });
});

describe('molecules or file', () => {
  it('takes exactly one', async () => {
    const none = PanelContent.parse({ type: 'molecules' }) as MoleculesContent;
    expect(await refused(resolveMoleculeFile(none, '/content', toSmiles))).toMatchObject({
      code: 'VALIDATION_FAILED',
      where: '/content/molecules'
    });
    const both = PanelContent.parse({
      type: 'molecules',
      molecules: [{ smiles: 'C' }],
      file: { format: 'csv', text: 'smiles\nC' }
    }) as MoleculesContent;
    expect(await refused(resolveMoleculeFile(both, '/content', toSmiles))).toMatchObject({
      code: 'VALIDATION_FAILED',
      where: '/content/file'
    });
    const plain = PanelContent.parse({ type: 'molecules', molecules: [{ smiles: 'C' }] }) as MoleculesContent;
    expect(await resolveMoleculeFile(plain, '/content', toSmiles)).toBe(plain);
  });
});
