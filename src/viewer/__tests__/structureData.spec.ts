/**
 * structureData: real files read with Mol*'s parsers; the composition checked
 * against counts taken from the files' own records; bad inputs located.
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import { readStructure, requireMatch, defaultLayers, countMatches } from '../structureData';
import { expectFailure } from '../../__tests__/expectFailure';
import type { StructureFormat } from '../../contract';

const DATA = join(__dirname, '..', '..', '..', 'tests', 'data', 'structures');
const file = (name: string) => new Uint8Array(readFileSync(join(DATA, name)));
const text = (name: string) => readFileSync(join(DATA, name), 'utf8');
const read = (name: string, format: StructureFormat) => readStructure(file(name), format, name);

/** ATOM/HETATM records of a PDB-like file. */
const atomRecords = (name: string) =>
  text(name)
    .split('\n')
    .filter(l => /^(ATOM|HETATM)/.test(l));

describe('composition against the files', () => {
  test('1CBS mmCIF: one protein chain, REA 200 and 100 waters', async () => {
    const { composition: c } = await read('1cbs.cif', 'mmcif');
    const rows = text('1cbs.cif')
      .split('\n')
      .filter(l => /^(ATOM|HETATM) /.test(l));
    expect(c.modelCount).toBe(1);
    expect(c.atoms).toBe(rows.length);
    expect(c.polymerTypes).toEqual(['polypeptide(L)']);
    expect(c.chains.filter(ch => ch.entityType === 'polymer').map(ch => [ch.label_asym_id, ch.auth_asym_id])).toEqual([['A', 'A']]);
    expect(c.ligands).toEqual([{ comp_id: 'REA', label_asym_id: 'B', auth_asym_id: 'A', auth_seq_id: 200, atoms: 22 }]);
    expect(c.waters).toBe(100);
    // 137 residues of the protein chain (entity_poly_seq) + 1 ligand + 100 waters
    expect(c.residues).toBe(137 + 1 + 100);
  });

  test('1HPV PDB: two protein chains and the inhibitor', async () => {
    const { composition: c } = await read('1hpv.pdb', 'pdb');
    expect(c.atoms).toBe(atomRecords('1hpv.pdb').length);
    const polymers = c.chains.filter(ch => ch.entityType === 'polymer');
    expect(polymers.map(ch => ch.auth_asym_id)).toEqual(['A', 'B']);
    expect(polymers.map(ch => ch.residues)).toEqual([99, 99]);
    expect(c.ligands.map(l => l.comp_id)).toContain('478');
  });

  test('2C6E poses: a multi-model PDB gives one model per pose, all drawn', async () => {
    const { composition: c } = await read('2c6e_poses.pdb', 'pdb');
    expect(c.modelCount).toBe(5);
    expect(c.models.map(m => m.atoms)).toEqual([36, 43, 24, 35, 32]);
    expect(c.shownModels).toEqual([0, 1, 2, 3, 4]);
  });

  test('1PGP ligand PDBQT: what Mol* reads past is named as dropped', async () => {
    const { composition: c } = await read('1pgp_lig.pdbqt', 'pdbqt');
    expect(c.modelCount).toBe(1);
    expect(c.atoms).toBe(atomRecords('1pgp_lig.pdbqt').length);
    expect(c.dropped).toEqual([
      `PDBQT partial charges of ${c.atoms} atoms per model (read, not drawn)`,
      'PDBQT AutoDock atom types (drawn as their elements)',
      'PDBQT torsion tree (ROOT/BRANCH/TORSDOF records)'
    ]);
    // formats that carry nothing beyond what is drawn drop nothing
    expect((await read('1hpv.pdb', 'pdb')).composition.dropped).toEqual([]);
  });

  test("1CBS BinaryCIF (Mol*'s cif2bcif of 1cbs.cif) reads as the mmCIF does", async () => {
    const bcif = (await read('1cbs.bcif', 'bcif')).composition;
    const cif = (await read('1cbs.cif', 'mmcif')).composition;
    expect(bcif).toEqual({ ...cif, format: 'bcif' });
    expect(bcif.atoms).toBe(1213);
  });

  test('XYZ and extended XYZ (ASE): the atoms of small01.mol; extended properties named as dropped', async () => {
    const lines = text('small01.xyz').split('\n');
    const xyz = (await read('small01.xyz', 'xyz')).composition;
    expect(xyz.atoms).toBe(Number(lines[0]));
    expect(xyz.atoms).toBe((await read('small01.mol', 'mol')).composition.atoms);
    expect(xyz.dropped).toEqual([]);
    const ext = (await read('small01.extxyz', 'xyz')).composition;
    expect(ext.atoms).toBe(xyz.atoms);
    // comment line: Properties=species:S:1:pos:R:3:masses:R:1 source=small01.mol pbc="F F F"
    expect(ext.dropped).toEqual(['extended XYZ per-atom properties: masses (R×1)', 'extended XYZ frame properties: source, pbc']);
  });

  test('CDK2 SDF: one model per record, beyond the drawing limit only model 0 is drawn', async () => {
    const { composition: c } = await read('cdk2.sdf', 'sdf');
    const records = text('cdk2.sdf')
      .split('$$$$')
      .filter(r => r.trim());
    expect(c.modelCount).toBe(records.length);
    expect(c.modelCount).toBe(47);
    // the counts line of the first record: atoms in columns 1-3
    const counts = records[0].split('\n')[3];
    expect(c.models[0].atoms).toBe(Number.parseInt(counts.slice(0, 3), 10));
    expect(c.shownModels).toEqual([0]);
  });

  test('MOL2 with 16 molecules, MOL, GRO water box', async () => {
    const mol2 = (await read('small03.mol2', 'mol2')).composition;
    expect(mol2.modelCount).toBe(text('small03.mol2').split('@<TRIPOS>MOLECULE').length - 1);
    const mol = (await read('small01.mol', 'mol')).composition;
    expect(mol.atoms).toBe(36);
    const gro = await read('spc216.gro', 'gro');
    expect(gro.composition.atoms).toBe(648);
    expect(gro.composition.residues).toBe(216);
    expect(defaultLayers(gro)).toEqual([{ selector: 'all', representation: 'ball_and_stick' }]);
  });
});

describe("selectors through Mol*'s MVS selector code", () => {
  test('a residue, a range and a static selector match; a missing chain is NOT_FOUND with the chains', async () => {
    const data = await read('1cbs.cif', 'mmcif');
    expect(requireMatch(data, { auth_asym_id: 'A', auth_seq_id: 200 }, '/actions/0/selector')).toBe(22);
    expect(requireMatch(data, { auth_asym_id: 'A', beg_auth_seq_id: 1, end_auth_seq_id: 10 }, '/x')).toBeGreaterThan(50);
    expect(requireMatch(data, 'ligand', '/x')).toBe(22);
    const e = await expectFailure(Promise.resolve().then(() => requireMatch(data, { auth_asym_id: 'Z' }, '/actions/1/selector')));
    expect(e.code).toBe('NOT_FOUND');
    expect(e.where).toBe('/actions/1/selector');
    expect(e.details).toMatchObject({ selector: { auth_asym_id: 'Z' }, auth_asym_ids: ['A'] });
    expect(e.fix).toContain('auth_asym_id: "A"');
  });
});

describe('literal fixes: what a NOT_FOUND fix suggests works as written', () => {
  test('1HPV: chain ids as JSON, the blank chain as " " (which matches), ligands as comp_id chain seq', async () => {
    const data = await read('1hpv.pdb', 'pdb');
    const e = await expectFailure(Promise.resolve().then(() => requireMatch(data, { auth_asym_id: 'Z' }, '/actions/0/selector')));
    expect(e.fix).toContain('auth_asym_id: "A", "B", " ";');
    // every chain id the fix names, parsed as JSON, matches atoms when pasted into a selector
    const listed = /auth_asym_id: ([^;]+);/.exec(e.fix)![1];
    const ids: string[] = JSON.parse(`[${listed}]`);
    expect(ids).toEqual(['A', 'B', ' ']);
    for (const id of ids) {
      expect(countMatches(data.structures, { auth_asym_id: id })).toBeGreaterThan(0);
    }
    expect(countMatches(data.structures, { auth_asym_id: '' })).toBe(0); // what the old fix suggested
    // the ligand selector the fix gives selects the inhibitor
    const hint = JSON.parse(/as a selector: (\{[^}]*\})/.exec(e.fix)![1]);
    expect(hint).toEqual({ auth_asym_id: ' ', auth_seq_id: 200 });
    expect(countMatches(data.structures, hint)).toBe(35);
    // ligands in details read as viewer_observe lists them, with the summary's `comp_id chain seq`
    expect((e.details.ligands as unknown[])[0]).toEqual({ comp_id: '478', auth_asym_id: ' ', auth_seq_id: 200, text: '478 " " 200' });
    // the fix names only what viewer_observe lists (chains and ligands; no residue lists)
    expect(e.fix).toContain('viewer_observe lists the chains and the ligands');
    expect(e.fix).not.toMatch(/lists residues/);
  });

  test('summaries read ligands as comp_id chain seq, a blank chain as " "', async () => {
    const { viewerSummary } = await import('../viewerText');
    const data = await read('1hpv.pdb', 'pdb');
    const state = { target: 'v', kind: 'viewer' as const, title: '1hpv.pdb', ready: true, revision: 0, error: null, undo: 0, redo: 0 };
    expect(viewerSummary(state, data.composition, { layers: [] } as never)).toContain('1 ligand (478 " " 200)');
  });
});

describe('bad inputs', () => {
  test('empty, binary, text in the wrong format, truncated mmCIF', async () => {
    await expect(readStructure(new Uint8Array(), 'pdb', '/x')).rejects.toMatchObject({ code: 'VALIDATION_FAILED', where: '/x' });
    await expect(readStructure(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]), 'pdb', '/x')).rejects.toMatchObject({
      code: 'UNSUPPORTED_FORMAT'
    });
    await expect(readStructure(new TextEncoder().encode('hello\nworld\n'), 'pdb', 'a.pdb')).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      where: 'a.pdb'
    });
    await expect(readStructure(file('1hpv.pdb'), 'mmcif', 'x.cif')).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    const cif = text('1cbs.cif');
    const truncated = cif.slice(0, cif.indexOf('_atom_site.') + 200);
    await expect(readStructure(new TextEncoder().encode(truncated), 'mmcif', 't.cif')).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  test('a PDB cut inside an ATOM record is refused at its line, not drawn with a half-written atom', async () => {
    const pdb = text('1hpv.pdb');
    const lines = pdb.split('\n');
    const atom = lines.findIndex((l, i) => i > 100 && l.startsWith('ATOM'));
    // Cut in the middle of the coordinates of an atom: the last line is 40 of its 80 characters.
    const cut = lines.slice(0, atom).join('\n') + '\n' + lines[atom].slice(0, 40);
    await expect(readStructure(new TextEncoder().encode(cut), 'pdb', 'cut.pdb')).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      where: 'cut.pdb',
      details: { line: atom + 1, length: 40, truncated: true }
    });
    // The same short record in the middle of the file, with Windows line ends.
    const middle = [...lines.slice(0, atom), lines[atom].slice(0, 30), ...lines.slice(atom + 1)].join('\r\n');
    await expect(readStructure(new TextEncoder().encode(middle), 'pdb', 'mid.pdb')).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { line: atom + 1, length: 30, truncated: false }
    });
    // A whole file still opens (its TER, END and short non-atom records are fine).
    await expect(readStructure(new TextEncoder().encode(pdb), 'pdb', '1hpv.pdb')).resolves.toBeTruthy();
  });

  test('a NUL byte far into a text file is refused with its offset (Mol* would drop the record holding it)', async () => {
    const bytes = new TextEncoder().encode(text('1hpv.pdb'));
    const at = bytes.length - 5000;
    bytes[at] = 0;
    await expect(readStructure(bytes, 'pdb', 'nul.pdb')).rejects.toMatchObject({ code: 'UNSUPPORTED_FORMAT', details: { offset: at } });
  });
});
