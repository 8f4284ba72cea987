/**
 * Whether a text structure file looks cut short (issue 23), from what the file
 * itself says: light line checks beside Mol*'s parsers, which read the file.
 *
 * - **Certain** ({@link refuseCutRecord}): the last record ends before the lines
 *   its own header promises — an SDF/MOL counts line, an XYZ or GRO atom count,
 *   a MOL2 `MOLECULE` record's atom and bond counts — or its last line stops
 *   short of the columns that record needs. Mol* would read the missing lines
 *   as empty atoms (at the origin, no element) and say nothing. A located
 *   `VALIDATION_FAILED` naming the format and the line, `details.truncated`.
 * - **Possible** ({@link cutWarning}): the file ends without the record that
 *   closes it — PDB `END`/`ENDMDL` (PDBQT also `TORSDOF`), the `#` line that
 *   closes the last mmCIF category in a file whose categories are closed so,
 *   SDF `$$$$`, MOL `M  END`. A file cut between lines looks so, and so do some
 *   whole files written without it: the structure opens, with a note in
 *   `composition.dropped`.
 *
 * (A PDB/PDBQT ATOM or HETATM record cut inside its coordinates is refused by
 * `refuseShortAtomRecord` in `structureData.ts`; an mmCIF loop cut inside a row
 * by Mol*'s CIF reader; a BCIF cut or malformed by `checkBinaryCif`.)
 */
import { MolspaceError, type StructureFormat } from '../contract';

/** Start of every {@link cutWarning}, so a summary can tell it from what a file carries that is not drawn. */
export const CUT_WARNING = 'may be cut short:';

/** Lines of `text` without their line ends; no empty last line for a final newline. */
function linesOf(text: string): string[] {
  const lines = text.split('\n').map(l => (l.endsWith('\r') ? l.slice(0, -1) : l));
  if (lines.length && lines[lines.length - 1] === '') {
    lines.pop();
  }
  return lines;
}

/** Index of the last line that is not blank, or -1. */
function lastFilled(lines: readonly string[]): number {
  let i = lines.length - 1;
  while (i >= 0 && lines[i].trim() === '') {
    i--;
  }
  return i;
}

/** The located refusal of a file whose last record ends early. */
function cut(format: StructureFormat, where: string, line: number, what: string, details: Record<string, unknown>): MolspaceError {
  return new MolspaceError(
    'VALIDATION_FAILED',
    `The ${format} data ends inside a record (line ${line}): ${what}.`,
    where,
    'Pass the whole file: it looks truncated (cut while copying, writing or downloading).',
    { format, line, truncated: true, ...details }
  );
}

/**
 * Refuse a text whose last record ends before its header's counts (SDF, MOL,
 * MOL2, XYZ, GRO); other formats pass.
 *
 * @param where - where the data came from, for the error.
 * @throws MolspaceError `VALIDATION_FAILED` with `details: {format, line, truncated: true, …}`,
 *   `line` the file's last line (1-based).
 */
export function refuseCutRecord(text: string, format: StructureFormat, where: string): void {
  switch (format) {
    case 'sdf':
    case 'mol':
      return refuseCutMolRecord(text, format, where);
    case 'xyz':
      return refuseCutXyz(linesOf(text), where);
    case 'gro':
      return refuseCutGro(linesOf(text), where);
    case 'mol2':
      return refuseCutMol2(linesOf(text), where);
    default:
      return;
  }
}

/** 1-based number of the line holding `offset` (found with indexOf: no split of a large text). */
function lineAt(text: string, offset: number): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    n++;
  }
  return n;
}

/** Offset of the start of the last line of `text` that starts with one of `starts`, or -1. */
function lastLineStarting(text: string, starts: readonly string[]): number {
  let best = -1;
  for (const start of starts) {
    const at = text.startsWith(start) ? 0 : -1;
    const inner = text.lastIndexOf('\n' + start);
    best = Math.max(best, inner >= 0 ? inner + 1 : at);
  }
  return best;
}

/** Columns of a V2000 atom line up to its element symbol, and of a bond line up to its order. */
const V2000_ATOM_WIDTH = 34;
const V2000_BOND_WIDTH = 9;

/**
 * SDF: the record after the last `$$$$` (when not blank); MOL: the first
 * record, when no `$$$$` closes it. A V2000 record needs 4 header lines, then
 * as many atom and bond lines as its counts line says.
 */
function refuseCutMolRecord(text: string, format: StructureFormat, where: string): void {
  // An SDF library can be large: only the text after its last $$$$ line is split.
  const closer = lastLineStarting(text, ['$$$$']);
  if (format === 'mol' && closer >= 0) {
    return;
  }
  const from = closer < 0 ? 0 : text.indexOf('\n', closer) + 1;
  if (closer >= 0 && from === 0) {
    return; // the $$$$ line is the last
  }
  const lines = linesOf(text.slice(from));
  const before = from === 0 ? 0 : lineAt(text, from) - 1;
  const last = lastFilled(lines);
  if (last < 0) {
    return; // closed by $$$$ (or empty: Mol* finds no atoms)
  }
  const record = format === 'sdf' ? countClosers(text) + 1 : 1;
  const length = last + 1;
  if (length < 4) {
    throw cut(
      format,
      where,
      before + last + 1,
      `record ${record} stops after ${length} of the 4 lines before its atoms (header and counts line)`,
      {
        record
      }
    );
  }
  const counts = lines[3];
  if (/V3000/i.test(counts)) {
    return; // its counts are inside the CTAB block; the END CTAB / M  END it lacks is a warning
  }
  const atoms = parseInt(counts.slice(0, 3), 10);
  const bonds = parseInt(counts.slice(3, 6), 10);
  if (!Number.isInteger(atoms) || !Number.isInteger(bonds)) {
    return; // Mol* skips such a record
  }
  const have = length - 4;
  if (have < atoms + bonds) {
    throw cut(
      format,
      where,
      before + last + 1,
      `record ${record}'s counts line (line ${before + 4}) says ${atoms} atoms and ${bonds} bonds, and ${have} of those ${atoms + bonds} lines follow`,
      { record, atoms, bonds, lines: have }
    );
  }
  if (have === atoms + bonds && atoms + bonds > 0) {
    const width = bonds > 0 ? V2000_BOND_WIDTH : V2000_ATOM_WIDTH;
    if (lines[last].trimEnd().length < width) {
      throw cut(
        format,
        where,
        before + last + 1,
        `the last ${bonds > 0 ? 'bond' : 'atom'} line of record ${record} has ${lines[last].trimEnd().length} of its ${width} columns`,
        { record, length: lines[last].trimEnd().length }
      );
    }
  }
}

/** Lines of `text` that start with `$$$$` (SDF records closed). */
function countClosers(text: string): number {
  let n = text.startsWith('$$$$') ? 1 : 0;
  for (let i = text.indexOf('\n$$$$'); i >= 0; i = text.indexOf('\n$$$$', i + 1)) {
    n++;
  }
  return n;
}

/** Fields of an XYZ atom line: element, x, y, z. */
const XYZ_ATOM_FIELDS = 4;

/** XYZ frames as Mol* reads them: a count line, a comment line, then that many atom lines (blank ones too). */
function refuseCutXyz(lines: readonly string[], where: string): void {
  let i = 0;
  for (let frame = 1; i < lines.length; frame++) {
    const count = Number(lines[i]);
    if (!Number.isInteger(count) || count <= 0) {
      return; // where Mol* stops reading frames
    }
    const have = Math.max(0, lines.length - (i + 2));
    if (have < count) {
      throw cut('xyz', where, lines.length, `frame ${frame} (line ${i + 1}) says ${count} atoms, and ${have} atom lines follow`, {
        frame,
        atoms: count,
        lines: have
      });
    }
    const lastAtom = lines[i + 1 + count].trim().split(/\s+/);
    if (i + 2 + count === lines.length && lastAtom.length < XYZ_ATOM_FIELDS) {
      throw cut(
        'xyz',
        where,
        lines.length,
        `the last atom line of frame ${frame} has ${lastAtom.length} of its ${XYZ_ATOM_FIELDS} fields`,
        {
          frame,
          fields: lastAtom.length
        }
      );
    }
    i += count + 2;
  }
}

/** GRO frames as Mol* reads them: a title line (one blank line before it skipped), the atom count, the atoms, the box line. */
function refuseCutGro(lines: readonly string[], where: string): void {
  let i = 0;
  for (let frame = 1; i <= lastFilled(lines); frame++) {
    if (lines[i].trim() === '') {
      i++;
    }
    if (i + 1 >= lines.length) {
      throw cut('gro', where, lines.length, `frame ${frame} stops after its title line, before its atom count`, { frame });
    }
    const count = parseInt(lines[i + 1], 10);
    if (!Number.isInteger(count) || count < 0) {
      return; // not a count: Mol*'s reading decides
    }
    const have = lines.length - (i + 2);
    if (have < count + 1) {
      const atoms = Math.min(have, count);
      throw cut(
        'gro',
        where,
        lines.length,
        `frame ${frame} (line ${i + 2}) says ${count} atoms, and ${atoms} atom lines follow${have <= count ? ', without the box line' : ''}`,
        { frame, atoms: count, lines: atoms }
      );
    }
    i += count + 3;
  }
}

/** Fields a MOL2 line needs, by section: atom (id, name, x, y, z, type), bond (id, origin, target, type), substructure (id, name, root atom). */
const MOL2_FIELDS = { ATOM: 6, BOND: 4, SUBSTRUCTURE: 3 } as const;

/** The last MOL2 molecule: where its record starts, its counts and the sections after it. */
interface Mol2Tail {
  /** 1-based number of the molecule. */
  molecule: number;
  /** Line index of its `@<TRIPOS>MOLECULE`. */
  at: number;
  /** num_atoms, num_bonds, num_subst of its counts line (NaN when absent), or null when the file ends before it. */
  counts: Record<keyof typeof MOL2_FIELDS, number> | null;
  /** Sections from the molecule on: name and line index. */
  sections: { name: string; at: number }[];
  /** Index of the last line that is not blank. */
  last: number;
}

function mol2Tail(lines: readonly string[]): Mol2Tail | null {
  const sections: { name: string; at: number }[] = [];
  lines.forEach((l, at) => {
    if (l.startsWith('@<TRIPOS>')) {
      sections.push({ name: l.trim().slice(9), at });
    }
  });
  const m = sections.map(x => x.name).lastIndexOf('MOLECULE');
  if (m < 0) {
    return null;
  }
  const at = sections[m].at;
  const last = lastFilled(lines);
  const fields = at + 2 <= last ? lines[at + 2].trim().split(/\s+/) : null;
  return {
    molecule: sections.filter(x => x.name === 'MOLECULE').length,
    at,
    counts: fields && {
      ATOM: parseInt(fields[0], 10),
      BOND: parseInt(fields[1], 10),
      SUBSTRUCTURE: parseInt(fields[2], 10)
    },
    sections: sections.slice(m),
    last
  };
}

/**
 * The last `@<TRIPOS>MOLECULE`: its counts line (num_atoms num_bonds
 * num_subst), then its ATOM, BOND and SUBSTRUCTURE sections, which Mol* reads
 * by those counts. The section the file ends in with fewer lines than counted,
 * or whose last line lacks fields, is cut; so is a file that ends after the
 * ATOM section when bonds are counted. (One that ends before a counted
 * SUBSTRUCTURE section is a warning: some writers leave it out.)
 */
function refuseCutMol2(lines: readonly string[], where: string): void {
  const tail = mol2Tail(lines);
  if (!tail) {
    return;
  }
  const { molecule, at, counts, sections, last } = tail;
  if (!counts) {
    throw cut('mol2', where, last + 1, `molecule ${molecule}'s MOLECULE record (line ${at + 1}) stops before its counts line`, {
      molecule
    });
  }
  const end = sections[sections.length - 1];
  const names = Object.keys(MOL2_FIELDS) as (keyof typeof MOL2_FIELDS)[];
  for (const [k, name] of names.entries()) {
    const count = counts[name];
    if (!Number.isInteger(count) || count <= 0) {
      continue;
    }
    const section = sections.find(x => x.name === name);
    const endsBefore = !section && (end.name === 'MOLECULE' || (k > 0 && end.name === names[k - 1]));
    if (endsBefore && name !== 'SUBSTRUCTURE') {
      throw cut(
        'mol2',
        where,
        last + 1,
        `molecule ${molecule} (line ${at + 1}) counts ${count} ${name} lines, and the file ends before its ${name} section`,
        {
          molecule,
          section: name,
          count,
          lines: 0
        }
      );
    }
    if (section !== end) {
      continue; // absent (Mol*'s reading decides) or followed by another section: not where the file ends
    }
    const filled = lines.slice(section.at + 1, last + 1).filter(l => l.trim() !== '');
    const short = filled.length === count && filled[count - 1].trim().split(/\s+/).length < MOL2_FIELDS[name];
    if (filled.length < count || short) {
      throw cut(
        'mol2',
        where,
        last + 1,
        `molecule ${molecule} (line ${at + 1}) counts ${count} ${name} lines, and its ${name} section has ${filled.length}${short ? ', the last cut short' : ''}`,
        { molecule, section: name, count, lines: filled.length }
      );
    }
  }
}

/**
 * Where an mmCIF that Mol*'s CIF reader refused was cut: its reason names a
 * loop whose values are not a whole number of rows, and the text ends inside
 * that loop (no `#` line or new category after it). Null otherwise.
 *
 * @param reason - Mol*'s message.
 * @returns the file's last line (1-based) and the loop's first.
 */
export function cifLoopCut(text: string, reason: string): { line: number; loop: number } | null {
  const m = /loop starting at line (\d+) is not a multiple/.exec(reason);
  if (!m) {
    return null;
  }
  const loop = Number(m[1]);
  const lines = linesOf(text);
  const last = lastFilled(lines);
  let values = false;
  for (let i = loop; i <= last; i++) {
    const l = lines[i].trim();
    if (l === '#' || l.startsWith('loop_') || l.startsWith('data_') || (values && l.startsWith('_'))) {
      return null; // the loop ends before the file does: malformed, not cut
    }
    values ||= l !== '' && !l.startsWith('_');
  }
  return { line: last + 1, loop };
}

/**
 * A note for `composition.dropped` when the text ends without the record that
 * closes its format (see the module comment), else null. Starts with {@link CUT_WARNING}.
 */
export function cutWarning(text: string, format: StructureFormat): string | null {
  // PDB, mmCIF and SDF files can be large: their checks read the text's tail and search it, never split it whole.
  if (format === 'pdb' || format === 'pdbqt') {
    const atom = lastLineStarting(text, ['ATOM', 'HETATM']);
    if (atom < 0) {
      return null;
    }
    const after = linesOf(text.slice(atom)).slice(1);
    const closer = format === 'pdbqt' ? /^(END|ENDMDL|TORSDOF)(\s|$)/ : /^(END|ENDMDL)(\s|$)/;
    if (!after.some(l => closer.test(l))) {
      const records = format === 'pdbqt' ? 'END, ENDMDL or TORSDOF' : 'END or ENDMDL';
      return `${CUT_WARNING} no ${records} record after the last atom (line ${lineAt(text, atom)}); some files are written without one`;
    }
    // PDB (not Vina's PDBQT poses, which end at ENDMDL): models, then END; a cut between models ends at an ENDMDL.
    const last = lastFilled(after);
    if (format === 'pdb' && /^ENDMDL(\s|$)/.test(after[last])) {
      return `${CUT_WARNING} no END record after the last model (line ${lineAt(text, atom) + 1 + last} is its ENDMDL); some files are written without one`;
    }
    return null;
  }
  if (format === 'mmcif') {
    // wwPDB files close every category with a `#` line; a file that closes some so but not its last was cut between lines.
    const end = text.trimEnd();
    const lastLine = end.slice(end.lastIndexOf('\n') + 1).trim();
    if (end && lastLine !== '#' && /^#[ \t]*\r?$/m.test(end)) {
      return `${CUT_WARNING} the last category is not closed by a '#' line as the others are (line ${lineAt(end, end.length)} is the last)`;
    }
    return null;
  }
  if (format === 'sdf' || format === 'mol') {
    const end = text.trimEnd();
    const lastLine = end.slice(end.lastIndexOf('\n') + 1);
    if (!end) {
      return null;
    }
    if (format === 'sdf' && !lastLine.startsWith('$$$$')) {
      return `${CUT_WARNING} the last record has no $$$$ line (line ${lineAt(end, end.length)} is the last); some files are written without one`;
    }
    if (format === 'mol' && !/^M {2}END/m.test(end)) {
      return `${CUT_WARNING} no 'M  END' line (line ${lineAt(end, end.length)} is the last)`;
    }
    return null;
  }
  if (format !== 'mol2') {
    return null;
  }
  const tail = mol2Tail(linesOf(text));
  const subst = tail?.counts?.SUBSTRUCTURE ?? 0;
  const end = tail?.sections[tail.sections.length - 1].name;
  if (tail && subst > 0 && !tail.sections.some(x => x.name === 'SUBSTRUCTURE') && (end === 'ATOM' || end === 'BOND')) {
    return `${CUT_WARNING} molecule ${tail.molecule} counts ${subst} SUBSTRUCTURE lines, and the file ends before that section; some files are written without it`;
  }
  return null;
}
