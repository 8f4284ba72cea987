/**
 * Truncated structure files (issue 23): real files cut at several points.
 * Where the cut can be seen (a record ends before its header's counts, an
 * mmCIF loop row, a BCIF length) it is a located VALIDATION_FAILED with
 * `details.truncated`; where it cannot (cut between lines, no closing record)
 * the file opens with a note in `composition.dropped` and its summary. Every
 * real structure file committed opens without such a note.
 */
import { readdirSync, readFileSync, statSync } from 'fs';
import { extname, join, relative } from 'path';
import { readStructure } from '../structureData';
import { CUT_WARNING } from '../structureCuts';
import { viewerSummary } from '../viewerText';
import { STRUCTURE_EXTENSIONS, TOPOLOGY_FORMATS, type StructureFormat } from '../../contract';

const ROOT = join(__dirname, '..', '..', '..');
const DATA = join(ROOT, 'tests', 'data', 'structures');
const text = (name: string) => readFileSync(join(DATA, name), 'utf8');
const bytes = (s: string) => new TextEncoder().encode(s);
/** The first `n` lines of `name`, each with its line end. */
const firstLines = (name: string, n: number) =>
  text(name)
    .split('\n')
    .slice(0, n)
    .map(l => l + '\n')
    .join('');
const lineCount = (name: string) => text(name).split('\n').length - 1;
const warnings = (dropped: string[]) => dropped.filter(d => d.startsWith(CUT_WARNING));

/** Files with a structure extension under `dir`, recursively. */
function structureFiles(dir: string): string[] {
  return readdirSync(dir).flatMap(name => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      return structureFiles(path);
    }
    return extname(name).slice(1).toLowerCase() in STRUCTURE_EXTENSIONS ? [path] : [];
  });
}

describe('every real structure file committed opens whole, without a cut note', () => {
  // topologies (PSF, PRMTOP) open only with their coordinates: trajectoryData.spec reads them
  const files = [...structureFiles(join(ROOT, 'tests', 'data')), ...structureFiles(join(ROOT, 'examples', 'data'))].filter(
    f => !TOPOLOGY_FORMATS.includes(STRUCTURE_EXTENSIONS[extname(f).slice(1).toLowerCase()])
  );

  test('there are files of every format the Viewer reads', () => {
    const formats = new Set(files.map(f => STRUCTURE_EXTENSIONS[extname(f).slice(1).toLowerCase()]));
    expect([...formats].sort()).toEqual(['bcif', 'gro', 'lammpstrj', 'mmcif', 'mol', 'mol2', 'pdb', 'pdbqt', 'sdf', 'xyz']);
  });

  test.each(files.map(f => [relative(ROOT, f), f]))('%s', async (_, path) => {
    const format = STRUCTURE_EXTENSIONS[extname(path).slice(1).toLowerCase()];
    const data = await readStructure(new Uint8Array(readFileSync(path)), format, path);
    expect(warnings(data.composition.dropped)).toEqual([]);
  });
});

/** Read `s` as `format`: the located error thrown, or the cut notes of what opened. */
async function outcome(s: string | Uint8Array, format: StructureFormat) {
  try {
    const data = await readStructure(typeof s === 'string' ? bytes(s) : s, format, '/cut');
    return { notes: warnings(data.composition.dropped), atoms: data.composition.atoms, data };
  } catch (e) {
    return { error: e as { code: string; where: string; message: string; details: Record<string, unknown> } };
  }
}

describe('a cut that can be seen is a located error naming format and line', () => {
  test.each([
    // SDF: record 3 of cdk2.sdf cut in its atom block, its bond block, and just after its counts line
    ['cdk2.sdf', 'sdf'],
    ['small01.mol', 'mol'],
    ['small03.mol2', 'mol2'],
    ['small01.xyz', 'xyz'],
    ['small01.extxyz', 'xyz'],
    ['spc216.gro', 'gro']
  ] as [string, StructureFormat][])('%s cut between lines at 5 points inside a record', async (name, format) => {
    const n = lineCount(name);
    // 5 points inside the first record's atoms and bonds (every one of these files has its first record over 20 lines)
    for (const cut of [6, 9, 14, 19, Math.min(n - 2, 35)]) {
      const r = await outcome(firstLines(name, cut), format);
      expect({ cut, ...r.error }).toMatchObject({
        cut,
        code: 'VALIDATION_FAILED',
        where: '/cut',
        details: { format, line: cut, truncated: true }
      });
      expect(r.error?.message).toContain(`The ${format} data ends inside a record (line ${cut})`);
    }
  });

  test('SDF: the record the data ends in is named with its counts', async () => {
    const sdf = text('cdk2.sdf');
    const lines = sdf.split('\n');
    const third = lines.findIndex(
      (l, i) => i > 0 && lines[i - 1].startsWith('$$$$') && lines.slice(0, i).filter(x => x.startsWith('$$$$')).length === 2
    );
    const counts = lines[third + 3];
    const atoms = parseInt(counts.slice(0, 3), 10);
    const cut = third + 4 + 10; // the counts line, then 10 of its atoms
    const r = await outcome(firstLines('cdk2.sdf', cut), 'sdf');
    expect(r.error).toMatchObject({ details: { format: 'sdf', line: cut, truncated: true, record: 3, atoms, lines: 10 } });
  });

  test('a last line cut inside its columns (MOL bond, XYZ atom, MOL2 atom)', async () => {
    const mol = text('small01.mol');
    const bond = mol.lastIndexOf('\nM  END');
    // the last bond line ` 34 36  1  0  0  0  0` cut to ` 34 36 `: no bond order
    await expect(readStructure(bytes(mol.slice(0, bond - 14)), 'mol', '/m')).rejects.toMatchObject({
      details: { format: 'mol', truncated: true, length: 6 }
    });
    const xyz = text('small01.xyz').trimEnd();
    await expect(readStructure(bytes(xyz.slice(0, xyz.length - 20)), 'xyz', '/x')).rejects.toMatchObject({
      details: { format: 'xyz', truncated: true, fields: 3 }
    });
    const mol2 = text('small03.mol2');
    const atoms = mol2.indexOf('@<TRIPOS>ATOM');
    const end = mol2.indexOf('\n@<TRIPOS>BOND', atoms);
    await expect(readStructure(bytes(mol2.slice(0, end - 40)), 'mol2', '/m2')).rejects.toMatchObject({
      details: { format: 'mol2', truncated: true, section: 'ATOM' }
    });
    // the whole ATOM section, the file ending before the BOND section its counts promise
    await expect(readStructure(bytes(mol2.slice(0, end + 1)), 'mol2', '/m2')).rejects.toMatchObject({
      details: { format: 'mol2', truncated: true, section: 'BOND', lines: 0 }
    });
  });

  test('at the boundary: the last atom or bond line alone missing', async () => {
    // small01.xyz: its count (36), a comment, 36 atoms
    await expect(readStructure(bytes(firstLines('small01.xyz', 37)), 'xyz', '/x')).rejects.toMatchObject({
      details: { format: 'xyz', line: 37, truncated: true, frame: 1, atoms: 36, lines: 35 }
    });
    const molLines = text('small01.mol').split('\n');
    const end = molLines.findIndex(l => l.startsWith('M  END'));
    await expect(readStructure(bytes(firstLines('small01.mol', end - 1)), 'mol', '/m')).rejects.toMatchObject({
      details: { format: 'mol', line: end - 1, truncated: true, record: 1, lines: end - 5 }
    });
    await expect(readStructure(bytes(firstLines('small01.mol', end)), 'mol', '/m')).resolves.toBeTruthy();
  });

  test('GRO: all atoms but no box line', async () => {
    const n = lineCount('spc216.gro');
    await expect(readStructure(bytes(firstLines('spc216.gro', n - 1)), 'gro', '/g')).rejects.toMatchObject({
      details: { format: 'gro', truncated: true, atoms: 648, lines: 648, line: n - 1 }
    });
  });

  test('mmCIF: a loop row cut (Mol* refuses it) is marked truncated, at the last line', async () => {
    const cif = text('1cbs.cif');
    for (const f of [0.2, 0.45, 0.6, 0.95]) {
      const cut = cif.slice(0, Math.floor(cif.length * f));
      const at = cut.lastIndexOf('\n');
      if (cut.length === at + 1) {
        continue;
      }
      const r = await outcome(cut, 'mmcif');
      expect(r.error).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: { format: 'mmcif', truncated: true, line: cut.split('\n').length }
      });
    }
  });

  test('BCIF cut at 5 points: a length past the end', async () => {
    const bcif = new Uint8Array(readFileSync(join(DATA, '1cbs.bcif')));
    for (const f of [0.01, 0.3, 0.5, 0.8, 0.999]) {
      const n = Math.floor(bcif.length * f);
      await expect(readStructure(bcif.slice(0, n), 'bcif', '/b')).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        where: '/b',
        details: { format: 'bcif', bytes: n, truncated: true }
      });
    }
  });
});

describe('a cut that cannot be seen opens with a note in dropped and the summary', () => {
  const state = { target: 'v', kind: 'viewer' as const, title: 'cut', ready: true, revision: 0, error: null, undo: 0, redo: 0 };

  test('PDB cut between lines: in its atoms, its CONECT records, before END', async () => {
    const n = lineCount('1hpv.pdb');
    const lines = text('1hpv.pdb').split('\n');
    const lastAtom = lines.map(l => /^(ATOM|HETATM)/.test(l)).lastIndexOf(true);
    for (const cut of [400, 900, 1500, lastAtom + 1, n - 1]) {
      const r = await outcome(firstLines('1hpv.pdb', cut), 'pdb');
      const atomLine =
        lines
          .slice(0, cut)
          .map(l => /^(ATOM|HETATM)/.test(l))
          .lastIndexOf(true) + 1;
      expect({ cut, notes: r.notes }).toEqual({
        cut,
        notes: [`${CUT_WARNING} no END or ENDMDL record after the last atom (line ${atomLine}); some files are written without one`]
      });
      expect(viewerSummary(state, r.data!.composition, { layers: [] } as never)).toContain(`; ${CUT_WARNING} no END or ENDMDL record`);
    }
  });

  test('multi-model PDB cut after a model: no END after its ENDMDL', async () => {
    const lines = text('2c6e_poses.pdb').split('\n');
    const second = lines.findIndex((l, i) => l.startsWith('ENDMDL') && lines.slice(0, i).some(x => x.startsWith('ENDMDL')));
    const r = await outcome(firstLines('2c6e_poses.pdb', second + 1), 'pdb');
    expect(r.data?.composition.modelCount).toBe(2);
    expect(r.notes).toEqual([
      `${CUT_WARNING} no END record after the last model (line ${second + 1} is its ENDMDL); some files are written without one`
    ]);
  });

  test('PDBQT ligand cut in its torsion tree: no TORSDOF', async () => {
    const n = lineCount('1pgp_lig.pdbqt');
    for (const cut of [n - 1, n - 3]) {
      const r = await outcome(firstLines('1pgp_lig.pdbqt', cut), 'pdbqt');
      expect(r.notes).toHaveLength(1);
      expect(r.notes?.[0]).toMatch(/^may be cut short: no END, ENDMDL or TORSDOF record after the last atom/);
    }
  });

  test('mmCIF cut between lines: in atom_site (1a8o-like: a few of its atoms) and after it', async () => {
    const cif = text('1cbs.cif');
    const lines = cif.split('\n');
    const atomSite = lines.findIndex(l => l.startsWith('ATOM '));
    for (const cut of [atomSite + 8, atomSite + 600, lines.length - 3]) {
      const r = await outcome(firstLines('1cbs.cif', cut), 'mmcif');
      expect({ cut, notes: r.notes }).toEqual({
        cut,
        notes: [`${CUT_WARNING} the last category is not closed by a '#' line as the others are (line ${cut} is the last)`]
      });
    }
    expect((await outcome(firstLines('1cbs.cif', atomSite + 8), 'mmcif')).atoms).toBe(8);
  });

  test('SDF cut between a record and its $$$$, MOL without M  END', async () => {
    const lines = text('cdk2.sdf').split('\n');
    const closer = lines.findIndex(l => l.startsWith('$$$$'));
    const r = await outcome(firstLines('cdk2.sdf', closer), 'sdf');
    const last =
      lines
        .slice(0, closer)
        .map(l => l.trim() !== '')
        .lastIndexOf(true) + 1;
    expect(r.notes).toEqual([
      `${CUT_WARNING} the last record has no $$$$ line (line ${last} is the last); some files are written without one`
    ]);
    const end = lines.findIndex(l => l.startsWith('M  END'));
    expect((await outcome(firstLines('cdk2.sdf', end + 1), 'sdf')).notes).toHaveLength(1);
    const mol = text('small01.mol').replace(/M {2}END\s*$/, '');
    expect((await outcome(mol, 'mol')).notes).toEqual([
      `${CUT_WARNING} no 'M  END' line (line ${mol.trimEnd().split('\n').length} is the last)`
    ]);
  });

  test('what cannot be told from a whole file opens as it is (SDF cut just after a $$$$)', async () => {
    const lines = text('cdk2.sdf').split('\n');
    const closer = lines.findIndex(l => l.startsWith('$$$$'));
    const r = await outcome(firstLines('cdk2.sdf', closer + 1), 'sdf');
    expect(r.notes).toEqual([]);
    expect(r.data?.composition.modelCount).toBe(1);
  });
});
