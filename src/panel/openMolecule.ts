/**
 * A grid molecule clicked by a person opens in a docked Ketcher editor:
 * `ketcher_open` through the page's Dispatcher, source `ui`, like any other
 * operation (docs/architecture.md, "Report panels"). A refusal is logged; the
 * grid stays as it is.
 */
import type { IMolspacePage } from '../tokens';
import type { OpenMolecule } from './moleculeGrid';

export function ketcherOpener(page: Pick<IMolspacePage, 'dispatcher'>): OpenMolecule {
  return (molecule, index) => {
    const title = (molecule.name || `molecule ${index}`).slice(0, 200);
    page.dispatcher
      .execute('ketcher_open', { value: molecule.smiles, format: 'smiles', title }, { source: 'ui' })
      .catch(e => console.warn('molspace: could not open the molecule in Ketcher', e));
  };
}
