/**
 * Molecule grids from a file's text (docs/architecture.md, "Report panels"):
 * SDF records (cheminfo's `sdf-parser`; each molfile converted to SMILES by
 * the page's Indigo depiction frame; data fields → properties, the title
 * line → name) or CSV/TSV (`papaparse`; a SMILES column, an optional name
 * column, the other columns → properties). The result is the plain
 * `molecules` form every grid has; bounds are the grid's (`LIMITS.panel*`)
 * plus `panelMoleculeFileBytes` for the text; every refusal is located and
 * names the record (SDF: its 1-based number and first line) or data row.
 */
import Papa from 'papaparse';
import { parse as parseSdf } from 'sdf-parser';
import { GridMolecule, LIMITS, MolspaceError, type MoleculeFile, type MoleculesContent } from '../contract';
import type { ToSmiles } from './depictor';
import { checkMolecules } from './panelContent';

/** A molecule read from the file, before its SMILES is known (SDF). */
interface Read {
  smiles: string | null;
  molfile: string | null;
  name: string | undefined;
  properties: Record<string, string | number>;
  /** How to name it in an error: "SDF record 3 (line 41)", "CSV data row 2 (line 3)". */
  label: string;
}

/** A property value: a finite number when the text is one, else the text. */
function value(text: string): string | number {
  const t = text.trim();
  if (t !== '' && /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t)) {
    const n = Number(t);
    if (Number.isFinite(n)) {
      return n;
    }
  }
  return text;
}

function refuse(message: string, where: string, fix: string, details: Record<string, unknown>): MolspaceError {
  return new MolspaceError('VALIDATION_FAILED', message, where, fix, details);
}

function tooMany(count: number, where: string, unit: string): MolspaceError {
  return new MolspaceError(
    'TOO_LARGE',
    `The file has ${count} ${unit}, over the limit of ${LIMITS.panelMolecules} (panelMolecules).`,
    where,
    `Pass at most ${LIMITS.panelMolecules} molecules (e.g. the top ones by your sort key); nothing is cut for you.`,
    { limit: 'panelMolecules', max: LIMITS.panelMolecules, size: count }
  );
}

/** CSV or TSV rows with a header line. */
function readTable(file: MoleculeFile, where: string): Read[] {
  const kind = file.format.toUpperCase();
  const parsed = Papa.parse<Record<string, string>>(file.text, {
    header: true,
    delimiter: file.format === 'tsv' ? '\t' : ',',
    skipEmptyLines: 'greedy',
    dynamicTyping: false
  });
  const fields = parsed.meta.fields ?? [];
  if (parsed.errors.length) {
    const e = parsed.errors[0];
    const row = e.row ?? 0;
    throw refuse(
      `${kind} data row ${row + 1}: ${e.message} (papaparse ${e.code}).`,
      `${where}/text`,
      `Give every row of the ${kind} one value per header column (quote values that hold the delimiter).`,
      { row: row + 1, code: e.code, count: parsed.errors.length }
    );
  }
  const pick = (arg: 'smilesColumn' | 'nameColumn', pattern: RegExp): string | undefined => {
    const named = file[arg];
    if (named !== undefined) {
      if (!fields.includes(named)) {
        throw refuse(
          `${arg} "${named}" is not a column of the ${kind}.`,
          `${where}/${arg}`,
          `Use one of: ${fields.slice(0, 20).join(', ')}.`,
          {
            columns: fields.slice(0, 50)
          }
        );
      }
      return named;
    }
    return fields.find(f => pattern.test(f.trim()));
  };
  const smilesColumn = pick('smilesColumn', /^smiles$/i);
  if (smilesColumn === undefined) {
    throw refuse(`The ${kind} has no SMILES column.`, `${where}/smilesColumn`, 'Name it with smilesColumn, or call the column "smiles".', {
      columns: fields.slice(0, 50)
    });
  }
  const nameColumn = pick('nameColumn', /^name$/i);
  if (parsed.data.length > LIMITS.panelMolecules) {
    throw tooMany(parsed.data.length, `${where}/text`, 'data rows');
  }
  return parsed.data.map((row, i) => {
    const properties: Record<string, string | number> = {};
    for (const f of fields) {
      const text = row[f];
      if (f !== smilesColumn && f !== nameColumn && text !== undefined && text !== '') {
        properties[f] = value(text);
      }
    }
    const name = nameColumn !== undefined ? row[nameColumn] || undefined : undefined;
    return { smiles: (row[smilesColumn] ?? '').trim(), molfile: null, name, properties, label: `${kind} data row ${i + 1}` };
  });
}

/** SDF records: molfile, title line, data fields. */
function readSdf(file: MoleculeFile, where: string): Read[] {
  const text = file.text.replace(/\r\n/g, '\n');
  const { molecules } = parseSdf(text, { dynamicTyping: false, eol: '\n' });
  if (molecules.length === 0) {
    throw refuse(
      'The SDF has no record with a molfile.',
      `${where}/text`,
      'Pass SDF text: molfile, data fields, "$$$$" after each record.',
      {}
    );
  }
  if (molecules.length > LIMITS.panelMolecules) {
    throw tooMany(molecules.length, `${where}/text`, 'records');
  }
  let cursor = 0;
  let line = 1;
  return molecules.map((record, i) => {
    const { molfile, ...data } = record as { molfile: string } & Record<string, unknown>;
    // The record's first line: sdf-parser's molfile is a slice of the text; count the lines up to it.
    const at = text.indexOf(molfile, cursor);
    if (at >= 0) {
      for (let c = text.indexOf('\n', cursor); c !== -1 && c < at; c = text.indexOf('\n', c + 1)) {
        line += 1;
      }
      cursor = at;
    }
    const first = line;
    const properties: Record<string, string | number> = {};
    let name: string | undefined = molfile.split(/\r\n|\r|\n/, 1)[0].trim() || undefined;
    for (const [key, raw] of Object.entries(data)) {
      const text = Array.isArray(raw) ? raw.join('\n') : String(raw ?? '');
      if (file.nameColumn !== undefined && key === file.nameColumn) {
        name = text || undefined;
      } else if (text !== '') {
        properties[key] = value(text);
      }
    }
    return { smiles: null, molfile, name, properties, label: `SDF record ${i + 1} (line ${first})` };
  });
}

/**
 * The `molecules` form of a grid given as `file`; a grid given as
 * `molecules` is returned as it is.
 *
 * @param where - JSON pointer of the content (e.g. `/content`).
 * @param toSmiles - SDF molfiles → SMILES (the page's Indigo frame).
 * @throws MolspaceError `VALIDATION_FAILED` (neither or both of `molecules`
 *   and `file`; a row or record that cannot be read, named in the message and
 *   `details.record` / `details.row`), `TOO_LARGE` (`panelMoleculeFileBytes`,
 *   `panelMolecules`).
 */
export async function resolveMoleculeFile(grid: MoleculesContent, where: string, toSmiles: ToSmiles): Promise<MoleculesContent> {
  const { file } = grid;
  if ((grid.molecules === undefined) === (file === undefined)) {
    throw refuse(
      grid.molecules === undefined ? 'A molecule grid needs molecules or file.' : 'A molecule grid takes molecules or file, not both.',
      `${where}/${grid.molecules === undefined ? 'molecules' : 'file'}`,
      'Pass molecules: [{smiles, name, properties}], or file: {format: "sdf" | "csv" | "tsv", text}.',
      {}
    );
  }
  if (file === undefined) {
    return grid;
  }
  const at = `${where}/file`;
  const bytes = new TextEncoder().encode(file.text).length;
  if (bytes > LIMITS.panelMoleculeFileBytes) {
    throw new MolspaceError(
      'TOO_LARGE',
      `The ${file.format.toUpperCase()} text is ${bytes} bytes, over the limit of ${LIMITS.panelMoleculeFileBytes} (panelMoleculeFileBytes).`,
      `${at}/text`,
      'Pass fewer molecules (at most ' + LIMITS.panelMolecules + ') or fewer data fields.',
      { limit: 'panelMoleculeFileBytes', max: LIMITS.panelMoleculeFileBytes, size: bytes }
    );
  }
  const read = file.format === 'sdf' ? readSdf(file, at) : readTable(file, at);
  if (file.format === 'sdf') {
    const converted = await toSmiles(read.map(r => r.molfile!));
    read.forEach((r, i) => {
      const c = converted[i];
      if (!c || c.smiles === null) {
        throw refuse(
          `${r.label}: Indigo cannot read its molfile (${c?.error ?? 'no answer'}).`,
          `${at}/text`,
          'Fix or remove that record.',
          {
            record: i + 1,
            error: c?.error ?? null
          }
        );
      }
      r.smiles = c.smiles;
    });
  }
  const molecules = read.map((r, i) => {
    if (!r.smiles) {
      throw refuse(`${r.label} has no SMILES.`, `${at}/text`, 'Give every row a SMILES, or leave the row out.', { row: i + 1 });
    }
    const molecule = { smiles: r.smiles, ...(r.name !== undefined ? { name: r.name.slice(0, 200) } : {}), properties: r.properties };
    const checked = GridMolecule.safeParse(molecule);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      throw refuse(
        `${r.label}: ${issue.path.join('/')}: ${issue.message}.`,
        `${at}/text`,
        'Use field names of at most 200 characters and text or number values.',
        {
          record: i + 1,
          path: issue.path.map(String)
        }
      );
    }
    return checked.data;
  });
  const resolved: MoleculesContent = { type: 'molecules', molecules, ...(grid.pageSize !== undefined ? { pageSize: grid.pageSize } : {}) };
  try {
    checkMolecules(resolved, where);
  } catch (e) {
    // A bound of one molecule: named by its record / row, located at the text the agent sent.
    const error = MolspaceError.from(e, 'molecule file');
    const index = /\/molecules\/(\d+)/.exec(error.where)?.[1];
    if (index === undefined) {
      throw error;
    }
    const label = read[Number(index)].label;
    throw new MolspaceError(error.code, `${label}: ${error.message}`, `${at}/text`, error.fix, {
      ...error.details,
      record: Number(index) + 1,
      molecule: error.where
    });
  }
  return resolved;
}
