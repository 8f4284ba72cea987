/**
 * A panel's content as the text of a file (docs/architecture.md, "Report
 * panels"; written by `export`): markdown as it is; a table as CSV
 * (papaparse's `unparse`; a header of column names, `null` as an empty
 * field; links are not exported); a chart as its Vega-Lite JSON; a molecule
 * grid as CSV with `name`, `smiles` and one column per property.
 */
import Papa from 'papaparse';
import type { PanelContent } from '../contract';

export function panelFileText(content: PanelContent): string {
  switch (content.type) {
    case 'markdown':
      return content.markdown;
    case 'chart':
      return JSON.stringify(content.spec, null, 2) + '\n';
    case 'table':
      return (
        Papa.unparse({
          fields: content.columns.map(c => c.name),
          data: content.rows.map(r => r.map(cell => (cell === null ? '' : cell)))
        }) + '\n'
      );
    case 'molecules': {
      const molecules = content.molecules ?? [];
      const keys = [...new Set(molecules.flatMap(m => Object.keys(m.properties ?? {})))];
      const fields = ['name', 'smiles', ...keys.filter(k => k !== 'name' && k !== 'smiles')];
      const data = molecules.map(m => [m.name ?? '', m.smiles, ...fields.slice(2).map(k => m.properties?.[k] ?? '')]);
      return Papa.unparse({ fields, data }) + '\n';
    }
  }
}
