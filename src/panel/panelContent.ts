/**
 * The checks a panel's content passes before anything renders it
 * (docs/architecture.md, "Report panels"): the shared bounds (`LIMITS.panel*`,
 * over one: TOO_LARGE naming the limit; nothing is cut), cell types against
 * their column's type, and for charts inline data and the Vega-Lite JSON
 * schema (`./chartSchema.ts`, loaded on first use).
 */
import {
  LIMITS,
  MolspaceError,
  type ChartContent,
  type ColumnType,
  type MoleculesContent,
  type PanelContent,
  type TableCell,
  type TableContent
} from '../contract';
import { checkChartLinks } from './chartLinks';

/**
 * Check one panel content.
 *
 * @param where - JSON pointer of the content in the caller's arguments (e.g. `/content`).
 * @throws MolspaceError `TOO_LARGE` (a bound, named in `details.limit`),
 *   `VALIDATION_FAILED` (a cell of the wrong type, a chart against the
 *   Vega-Lite schema, at the bad property; more links than table rows or
 *   chart data values), `UNSUPPORTED_FORMAT` (a chart that is not Vega-Lite v5).
 */
export async function checkPanelContent(content: PanelContent, where = '/content'): Promise<void> {
  await checkPanelContentWith(content, where, spec => checkChartSchema(spec, `${where}/spec`));
}

/**
 * {@link checkPanelContent} without the chart's Vega-Lite JSON-schema check: for the MCP App,
 * whose CSP refuses the `new Function` that Ajv compiles with (`src/app/appPanel.ts`).
 *
 * @throws MolspaceError as {@link checkPanelContent}, but for the schema.
 */
export function checkPanelBounds(content: PanelContent, where = '/content'): void {
  void checkPanelContentWith(content, where, null);
}

/** Every check, in order; `chartSchema` (or none) between a chart's bounds and its links. */
function checkPanelContentWith(
  content: PanelContent,
  where: string,
  chartSchema: ((spec: ChartContent['spec']) => Promise<void>) | null
): Promise<void> | void {
  switch (content.type) {
    case 'markdown':
      return checkMarkdown(content.markdown, where);
    case 'table':
      return checkTable(content, where);
    case 'chart':
      checkChartBounds(content, where);
      if (chartSchema === null) {
        return checkChartLinks(content, where);
      }
      return chartSchema(content.spec).then(() => checkChartLinks(content, where));
    case 'molecules':
      return checkMolecules(content, where);
  }
}

function tooLarge(what: string, size: number, limit: keyof typeof LIMITS, where: string, fix: string): MolspaceError {
  return new MolspaceError('TOO_LARGE', `${what} is ${size}, over the limit of ${LIMITS[limit]} (${limit}).`, where, fix, {
    limit,
    max: LIMITS[limit],
    size
  });
}

export function checkMarkdown(markdown: string, where: string): void {
  if (markdown.length > LIMITS.panelMarkdownChars) {
    throw tooLarge(
      'The markdown length in characters',
      markdown.length,
      'panelMarkdownChars',
      `${where}/markdown`,
      'Shorten the text, or split it over several panels.'
    );
  }
}

/** True when `cell` fits a column of `type` (null fits every column). */
export function cellFits(cell: TableCell, type: ColumnType): boolean {
  if (cell === null) {
    return true;
  }
  switch (type) {
    case 'string':
      return typeof cell === 'string';
    case 'number':
      return typeof cell === 'number' && Number.isFinite(cell);
    case 'integer':
      return typeof cell === 'number' && Number.isInteger(cell);
    case 'boolean':
      return typeof cell === 'boolean';
  }
}

export function checkTable(table: TableContent, where: string): void {
  const { columns, rows } = table;
  if (columns.length > LIMITS.panelTableColumns) {
    throw tooLarge('The number of columns', columns.length, 'panelTableColumns', `${where}/columns`, 'Pass fewer columns.');
  }
  if (rows.length > LIMITS.panelTableRows) {
    throw tooLarge(
      'The number of rows',
      rows.length,
      'panelTableRows',
      `${where}/rows`,
      `Pass at most ${LIMITS.panelTableRows} rows (e.g. the top ones by your sort key); nothing is cut for you.`
    );
  }
  const cells = rows.length * columns.length;
  if (cells > LIMITS.panelTableCells) {
    throw tooLarge(
      'The number of cells (rows × columns)',
      cells,
      'panelTableCells',
      `${where}/rows`,
      `Pass fewer rows or columns: at most ${LIMITS.panelTableCells} cells.`
    );
  }
  if (table.links !== undefined && table.links.length > rows.length) {
    throw new MolspaceError(
      'VALIDATION_FAILED',
      `The table has ${table.links.length} links but ${rows.length} rows; a link belongs to the row of its index.`,
      `${where}/links/${rows.length}`,
      'Pass at most one link per row, in row order (null for a row without one).',
      { links: table.links.length, rows: rows.length }
    );
  }
  const names = new Set<string>();
  columns.forEach((c, i) => {
    if (names.has(c.name)) {
      throw new MolspaceError(
        'VALIDATION_FAILED',
        `Column name "${c.name}" is used twice.`,
        `${where}/columns/${i}/name`,
        'Give every column a distinct name.',
        { name: c.name }
      );
    }
    names.add(c.name);
  });
  rows.forEach((row, r) => {
    if (row.length !== columns.length) {
      throw new MolspaceError(
        'VALIDATION_FAILED',
        `Row ${r} has ${row.length} cells; the table has ${columns.length} columns.`,
        `${where}/rows/${r}`,
        'Give every row one cell per column, in column order (null for a missing value).',
        { row: r, cells: row.length, columns: columns.length }
      );
    }
    row.forEach((cell, c) => {
      const column = columns[c];
      if (!cellFits(cell, column.type)) {
        throw new MolspaceError(
          'VALIDATION_FAILED',
          `Row ${r}, column "${column.name}": ${JSON.stringify(cell)} is not a ${column.type}.`,
          `${where}/rows/${r}/${c}`,
          `Pass a ${column.type} or null, or declare the column's type as it is.`,
          { row: r, column: column.name, type: column.type }
        );
      }
      if (typeof cell === 'string' && cell.length > LIMITS.panelCellChars) {
        throw tooLarge(
          `The text of row ${r}, column "${column.name}", in characters,`,
          cell.length,
          'panelCellChars',
          `${where}/rows/${r}/${c}`,
          'Shorten the cell text.'
        );
      }
    });
  });
}

/** Size, inline data and count of data values of a chart spec. */
export function checkChartBounds(chart: ChartContent, where: string): void {
  const bytes = new TextEncoder().encode(JSON.stringify(chart.spec)).length;
  if (bytes > LIMITS.panelChartSpecBytes) {
    throw tooLarge(
      'The chart spec in bytes of JSON',
      bytes,
      'panelChartSpecBytes',
      `${where}/spec`,
      'Aggregate the data before charting it.'
    );
  }
  const schemaUrl = chart.spec.$schema;
  if (schemaUrl !== undefined && !(typeof schemaUrl === 'string' && /vega-lite\/v5(\.\d+)*(\.\d+)*\.json$/.test(schemaUrl))) {
    throw new MolspaceError(
      'UNSUPPORTED_FORMAT',
      `The chart's $schema is ${JSON.stringify(schemaUrl)}; panels render Vega-Lite v5.`,
      `${where}/spec/$schema`,
      'Pass a Vega-Lite v5 spec ($schema "https://vega.github.io/schema/vega-lite/v5.json", or omit $schema).',
      { $schema: schemaUrl }
    );
  }
  let values = 0;
  const walk = (node: unknown, path: string): void => {
    if (Array.isArray(node)) {
      node.forEach((v, i) => walk(v, `${path}/${i}`));
      return;
    }
    if (typeof node !== 'object' || node === null) {
      return;
    }
    for (const [key, value] of Object.entries(node)) {
      const at = `${path}/${escapePointer(key)}`;
      if (key === 'data' && typeof value === 'object' && value !== null && 'url' in value) {
        throw new MolspaceError(
          'VALIDATION_FAILED',
          'Chart data must be inline; a panel loads no URL.',
          `${at}/url`,
          'Put the rows in data.values (at most ' + LIMITS.panelChartDataValues + ').',
          { url: (value as { url: unknown }).url }
        );
      }
      if (key === 'values' && Array.isArray(value)) {
        values += value.length;
      }
      if (key === 'datasets' && typeof value === 'object' && value !== null) {
        for (const rows of Object.values(value)) {
          values += Array.isArray(rows) ? rows.length : 0;
        }
      }
      walk(value, at);
    }
  };
  walk(chart.spec, `${where}/spec`);
  if (values > LIMITS.panelChartDataValues) {
    throw tooLarge(
      'The number of inline data values',
      values,
      'panelChartDataValues',
      `${where}/spec/data/values`,
      `Aggregate or sample the data to at most ${LIMITS.panelChartDataValues} values.`
    );
  }
}

/**
 * Validate a spec against Vega-Lite's own JSON schema.
 *
 * @throws MolspaceError `VALIDATION_FAILED` located at the bad property (under `where`).
 */
export async function checkChartSchema(spec: Record<string, unknown>, where: string): Promise<void> {
  const { vegaLiteIssue } = await import('./chartSchema');
  const issue = vegaLiteIssue(spec);
  if (issue !== null) {
    throw new MolspaceError(
      'VALIDATION_FAILED',
      `The Vega-Lite spec is invalid at ${issue.path || 'the top level'}: ${issue.message}.`,
      `${where}${issue.path}`,
      issue.fix,
      { property: issue.property, keyword: issue.keyword, allowed: issue.allowed, vegaLite: issue.schemaVersion }
    );
  }
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Bounds of a molecule grid: molecules, SMILES length, properties per
 * molecule and property text (TOO_LARGE naming the limit). Whether Indigo
 * reads each SMILES is shown per grid cell, not refused here.
 */
export function checkMolecules(grid: MoleculesContent, where: string): void {
  const molecules = grid.molecules ?? [];
  if (molecules.length > LIMITS.panelMolecules) {
    throw tooLarge(
      'The number of molecules',
      molecules.length,
      'panelMolecules',
      `${where}/molecules`,
      `Pass at most ${LIMITS.panelMolecules} molecules (e.g. the top ones by your sort key); nothing is cut for you.`
    );
  }
  molecules.forEach((m, i) => {
    const at = `${where}/molecules/${i}`;
    if (m.smiles.length > LIMITS.panelSmilesChars) {
      throw tooLarge(
        `The SMILES of molecule ${i}, in characters,`,
        m.smiles.length,
        'panelSmilesChars',
        `${at}/smiles`,
        'Pass a shorter SMILES (a small molecule).'
      );
    }
    const properties = Object.entries(m.properties ?? {});
    if (properties.length > LIMITS.panelMoleculeProperties) {
      throw tooLarge(
        `The number of properties of molecule ${i}`,
        properties.length,
        'panelMoleculeProperties',
        `${at}/properties`,
        `Pass at most ${LIMITS.panelMoleculeProperties} properties a molecule; show the rest in a table panel.`
      );
    }
    for (const [key, value] of properties) {
      if (typeof value === 'number' && !Number.isFinite(value)) {
        throw new MolspaceError(
          'VALIDATION_FAILED',
          `Property "${key}" of molecule ${i} is not a finite number.`,
          `${at}/properties/${escapePointer(key)}`,
          'Pass a finite number or a string.',
          { property: key }
        );
      }
      if (typeof value === 'string' && value.length > LIMITS.panelCellChars) {
        throw tooLarge(
          `The text of property "${key}" of molecule ${i}, in characters,`,
          value.length,
          'panelCellChars',
          `${at}/properties/${escapePointer(key)}`,
          'Shorten the property text.'
        );
      }
    }
  });
}
