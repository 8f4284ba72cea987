/**
 * Fuzz (issue 23): panel contents as the page checks them before anything
 * renders them: `render_panel`'s argument check (the contract's
 * `PanelContent`), a molecule file read into a grid (`resolveMoleculeFile`:
 * SDF, CSV, TSV), the content checks (`checkPanelContent`: bounds, cell
 * types, the Vega-Lite schema) and the link checks (`checkPanelLinks`).
 * Contents come from the contract's examples and its JSON Schema, near-valid
 * (one to three mutations), markdown of any text and size, molecule files
 * (the real `cdk2.sdf` records and CSV/TSV) cut and damaged.
 *
 * Property: a content passes every check or is refused with a located error
 * of bounded size; one that passes can be exported (`panelFileText`) and its
 * table sorted by any column (a permutation of its rows).
 */
import fc from 'fast-check';
import { readFileSync } from 'fs';
import { resolve } from 'path';
import { z } from 'zod';
import { LIMITS, PanelContent, RENDER_PANEL_TOOL, type RenderPanelInput } from '../../contract';
import { WidgetRegistry } from '../../dispatcher/registry';
import type { Conversion } from '../../ketcher/depictMessages';
import { PAGE_TOOLS } from '../../tools';
import { checkPanelContent } from '../panelContent';
import { checkPanelLinks } from '../panelLinkCheck';
import { panelFileText } from '../panelFile';
import { resolveMoleculeFile } from '../moleculeFile';
import { sortedOrder } from '../tableSort';
import { FUZZ_RUNS, acceptOrRefuse, anyJson, fromSchema, fuzzParams, fuzzTimeout, mutatedBytes, nearValid } from '../../__tests__/fuzzKit';

const renderPanel = PAGE_TOOLS.find(t => t.spec.name === 'render_panel')!;
const registry = new WidgetRegistry();

/** Stand-in for Indigo's molfile → SMILES: a chain of the molfile's atom count, its error for what it cannot read. */
async function toSmiles(molfiles: string[]): Promise<Conversion[]> {
  return molfiles.map(m => {
    const atoms = Number(m.split('\n')[3]?.slice(0, 3));
    return Number.isInteger(atoms) && atoms > 0 && /M {2}END/.test(m)
      ? { smiles: 'C'.repeat(Math.min(atoms, 60)), error: null }
      : { smiles: null, error: `cannot read molfile (${m.length} characters)` };
  });
}

// ---------------------------------------------------------------- contents
const SDF =
  readFileSync(resolve(__dirname, '../../../tests/data/structures/cdk2.sdf'), 'utf8').split('$$$$\n').slice(0, 6).join('$$$$\n') + '$$$$\n';
const CSV =
  'smiles,name,score,active\nCCO,ethanol,-1.5,true\nc1ccccc1O,phenol,-7.1,false\nCC(=O)Oc1ccccc1C(=O)O,"aspirin, the drug",,true\n';
const TSV = CSV.replace(/,/g, '\t');
const FILES = [SDF, CSV, TSV].map(t => new TextEncoder().encode(t));
const FORMATS = ['sdf', 'csv', 'tsv'] as const;

const moleculeFile = fc.oneof(
  fc.constantFrom(0, 1, 2).map(i => ({ file: i, text: new TextDecoder().decode(FILES[i]) })),
  mutatedBytes(FILES).map(m => ({ file: m.file, text: new TextDecoder().decode(m.bytes) }))
);
const fileGrid = fc
  .tuple(moleculeFile, fc.boolean(), fc.option(fc.constantFrom('smiles', 'SMILES', 'name', 'x'), { nil: undefined }))
  .map(([m, sameFormat, smilesColumn]) => ({
    type: 'molecules',
    file: {
      format: sameFormat ? FORMATS[m.file] : FORMATS[(m.file + 1) % 3],
      text: m.text,
      ...(smilesColumn === undefined ? {} : { smilesColumn })
    }
  }));

const examples = RENDER_PANEL_TOOL.examples!.map(e => (e as { content: unknown }).content);
const generated = fromSchema(z.toJSONSchema(PanelContent, { io: 'input', unrepresentable: 'any' }));
const valid = fc.oneof(fc.constantFrom(...examples), generated, fileGrid);
const markdown = fc
  .oneof(
    fc.string({ maxLength: 200 }),
    fc.string({ maxLength: 40, unit: 'grapheme' }),
    fc.constantFrom('<script>alert(1)</script>', '[x](javascript:alert(1))', '\ud800', '#'.repeat(LIMITS.panelMarkdownChars + 1))
  )
  .map(m => ({ type: 'markdown', markdown: m }));

const content = fc.oneof(
  { arbitrary: valid, weight: 3 },
  { arbitrary: nearValid(valid), weight: 6 },
  { arbitrary: markdown, weight: 1 },
  { arbitrary: anyJson, weight: 1 }
);

describe('panel contents (fuzz)', () => {
  it(
    'every content passes the checks or is refused located; what passes exports and sorts',
    async () => {
      let passed = 0;
      let refused = 0;
      await fc.assert(
        fc.asyncProperty(content, async c => {
          const outcome = await acceptOrRefuse(async () => {
            const { args } = renderPanel.parse({ panelId: 'fuzz', content: c }, 'agent') as unknown as { args: RenderPanelInput };
            const checked =
              args.content.type === 'molecules' && args.content.file !== undefined
                ? await resolveMoleculeFile(args.content, '/content', toSmiles)
                : args.content;
            await checkPanelContent(checked, '/content');
            await checkPanelLinks(checked, registry);
            return checked;
          });
          if (!outcome.ok) {
            refused++;
            return;
          }
          passed++;
          const checked = outcome.value;
          expect(PanelContent.safeParse(checked).success).toBe(true);
          expect(typeof panelFileText(checked)).toBe('string');
          if (checked.type === 'table') {
            checked.columns.forEach((column, i) => {
              for (const direction of ['ascending', 'descending'] as const) {
                const order = sortedOrder(checked.rows, i, column.type ?? 'string', direction);
                expect([...order].sort((a, b) => a - b)).toEqual(checked.rows.map((_, r) => r));
              }
            });
          }
        }),
        fuzzParams(FUZZ_RUNS)
      );
      expect(passed).toBeGreaterThan(FUZZ_RUNS / 20);
      expect(refused).toBeGreaterThan(FUZZ_RUNS / 5);
    },
    fuzzTimeout(60_000)
  );
});
