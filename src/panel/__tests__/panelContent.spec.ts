/** Panel content checks: table bounds and cell types, chart bounds and Vega-Lite schema → located errors. */
import { LIMITS, MolspaceError, type PanelContent, type TableContent } from '../../contract';
import { checkPanelContent } from '../panelContent';

async function failure(content: PanelContent): Promise<MolspaceError> {
  try {
    await checkPanelContent(content, '/content');
  } catch (e) {
    if (e instanceof MolspaceError) {
      return e;
    }
    throw e;
  }
  throw new Error('expected the content to be refused');
}

function table(rows: number, columns = 2): TableContent {
  return {
    type: 'table',
    columns: Array.from({ length: columns }, (_, i) => ({ name: `c${i}`, type: 'number' as const })),
    rows: Array.from({ length: rows }, (_, r) => Array.from({ length: columns }, (_, c) => r * columns + c))
  };
}

const bar = {
  $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
  data: {
    values: [
      { a: 'A', b: 1 },
      { a: 'B', b: 2 }
    ]
  },
  mark: 'bar',
  encoding: { x: { field: 'a', type: 'nominal' }, y: { field: 'b', type: 'quantitative' } }
};

describe('table bounds and types', () => {
  it('accepts a table at the row bound', async () => {
    await expect(checkPanelContent(table(LIMITS.panelTableRows), '/content')).resolves.toBeUndefined();
  });

  it('refuses one row over the bound with TOO_LARGE naming the limit', async () => {
    const err = await failure(table(LIMITS.panelTableRows + 1));
    expect(err.code).toBe('TOO_LARGE');
    expect(err.where).toBe('/content/rows');
    expect(err.details).toMatchObject({ limit: 'panelTableRows', max: LIMITS.panelTableRows, size: LIMITS.panelTableRows + 1 });
    expect(err.message).toContain('panelTableRows');
  });

  it('refuses too many cells with TOO_LARGE', async () => {
    const columns = 50;
    const rows = Math.floor(LIMITS.panelTableCells / columns) + 1;
    const err = await failure(table(rows, columns));
    expect(err.code).toBe('TOO_LARGE');
    expect(err.details.limit).toBe('panelTableCells');
  });

  it('refuses too many columns, and a long cell', async () => {
    expect((await failure(table(1, LIMITS.panelTableColumns + 1))).details.limit).toBe('panelTableColumns');
    const long: TableContent = { type: 'table', columns: [{ name: 's', type: 'string' }], rows: [['x'.repeat(LIMITS.panelCellChars + 1)]] };
    const err = await failure(long);
    expect(err).toMatchObject({ code: 'TOO_LARGE', where: '/content/rows/0/0' });
  });

  it('locates a cell of the wrong type and a short row', async () => {
    const t: TableContent = {
      type: 'table',
      columns: [
        { name: 'id', type: 'string' },
        { name: 'score', type: 'number', unit: 'kcal/mol' }
      ],
      rows: [
        ['a', -7.1],
        ['b', 'high']
      ]
    };
    expect(await failure(t)).toMatchObject({ code: 'VALIDATION_FAILED', where: '/content/rows/1/1' });
    expect(await failure({ ...t, rows: [['a']] })).toMatchObject({ code: 'VALIDATION_FAILED', where: '/content/rows/0' });
    const ints: TableContent = { type: 'table', columns: [{ name: 'n', type: 'integer' }], rows: [[1], [1.5]] };
    expect(await failure(ints)).toMatchObject({ where: '/content/rows/1/0' });
  });

  it('accepts nulls in every column type', async () => {
    const t: TableContent = {
      type: 'table',
      columns: [
        { name: 's', type: 'string' },
        { name: 'n', type: 'number' },
        { name: 'b', type: 'boolean' }
      ],
      rows: [
        [null, null, null],
        ['x', 1.5, true]
      ]
    };
    await expect(checkPanelContent(t, '/content')).resolves.toBeUndefined();
  });
});

describe('markdown bounds', () => {
  it('refuses markdown over the character bound', async () => {
    const err = await failure({ type: 'markdown', markdown: 'x'.repeat(LIMITS.panelMarkdownChars + 1) });
    expect(err).toMatchObject({ code: 'TOO_LARGE', where: '/content/markdown', details: { limit: 'panelMarkdownChars' } });
  });
});

describe('Vega-Lite charts', () => {
  it('accepts a valid bar chart', async () => {
    await expect(checkPanelContent({ type: 'chart', spec: bar }, '/content')).resolves.toBeUndefined();
  });

  it('names an unknown encoding property', async () => {
    const spec = { ...bar, encoding: { ...bar.encoding, x: { field: 'a', type: 'nominal', colour: 'red' } } };
    const err = await failure({ type: 'chart', spec });
    expect(err.code).toBe('VALIDATION_FAILED');
    expect(err.where).toBe('/content/spec/encoding/x/colour');
    expect(err.details.property).toBe('colour');
  });

  it('names a bad mark and lists the allowed marks', async () => {
    const err = await failure({ type: 'chart', spec: { ...bar, mark: 'barr' } });
    expect(err.code).toBe('VALIDATION_FAILED');
    expect(err.where).toBe('/content/spec/mark');
    expect(err.details.allowed).toEqual(expect.arrayContaining(['bar', 'line', 'point']));
  });

  it('names a bad encoding type', async () => {
    const spec = { ...bar, encoding: { ...bar.encoding, y: { field: 'b', type: 'quantity' } } };
    const err = await failure({ type: 'chart', spec });
    expect(err.where).toBe('/content/spec/encoding/y/type');
  });

  it('refuses data by URL and too many inline values', async () => {
    const byUrl = await failure({ type: 'chart', spec: { ...bar, data: { url: 'https://example.org/d.csv' } } });
    expect(byUrl).toMatchObject({ code: 'VALIDATION_FAILED', where: '/content/spec/data/url' });
    const values = Array.from({ length: LIMITS.panelChartDataValues + 1 }, (_, i) => ({ a: String(i), b: i }));
    const many = await failure({ type: 'chart', spec: { ...bar, data: { values } } });
    expect(many).toMatchObject({ code: 'TOO_LARGE', details: { limit: 'panelChartDataValues' } });
  });

  it('refuses a Vega (not Vega-Lite) or v4 $schema as UNSUPPORTED_FORMAT', async () => {
    const vega = await failure({ type: 'chart', spec: { ...bar, $schema: 'https://vega.github.io/schema/vega/v5.json' } });
    expect(vega).toMatchObject({ code: 'UNSUPPORTED_FORMAT', where: '/content/spec/$schema' });
    const v4 = await failure({ type: 'chart', spec: { ...bar, $schema: 'https://vega.github.io/schema/vega-lite/v4.json' } });
    expect(v4.code).toBe('UNSUPPORTED_FORMAT');
  });
});

describe('molecule grid bounds and types', () => {
  const grid = (n: number, extra: Partial<{ smiles: string; properties: Record<string, string | number> }> = {}): PanelContent => ({
    type: 'molecules',
    molecules: Array.from({ length: n }, () => ({ smiles: 'CCO', ...extra }))
  });

  it('accepts a grid at the molecule bound', async () => {
    await expect(checkPanelContent(grid(LIMITS.panelMolecules), '/content')).resolves.toBeUndefined();
  });

  it('refuses one molecule over the bound with TOO_LARGE naming the limit', async () => {
    const err = await failure(grid(LIMITS.panelMolecules + 1));
    expect(err).toMatchObject({ code: 'TOO_LARGE', where: '/content/molecules' });
    expect(err.details).toMatchObject({ limit: 'panelMolecules', max: LIMITS.panelMolecules, size: LIMITS.panelMolecules + 1 });
  });

  it('refuses a long SMILES, too many properties and a long property, located', async () => {
    const long = await failure(grid(2, { smiles: 'C'.repeat(LIMITS.panelSmilesChars + 1) }));
    expect(long).toMatchObject({ code: 'TOO_LARGE', where: '/content/molecules/0/smiles', details: { limit: 'panelSmilesChars' } });
    const props = Object.fromEntries(Array.from({ length: LIMITS.panelMoleculeProperties + 1 }, (_, i) => [`p${i}`, i]));
    const many = await failure(grid(1, { properties: props }));
    expect(many).toMatchObject({
      code: 'TOO_LARGE',
      where: '/content/molecules/0/properties',
      details: { limit: 'panelMoleculeProperties' }
    });
    const text = await failure(grid(1, { properties: { 'a/b': 'x'.repeat(LIMITS.panelCellChars + 1) } }));
    expect(text).toMatchObject({ code: 'TOO_LARGE', where: '/content/molecules/0/properties/a~1b', details: { limit: 'panelCellChars' } });
  });

  it('refuses a property that is not a finite number', async () => {
    const err = await failure(grid(1, { properties: { score: Number.NaN } }));
    expect(err).toMatchObject({ code: 'VALIDATION_FAILED', where: '/content/molecules/0/properties/score' });
  });
});
