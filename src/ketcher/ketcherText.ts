/** The one-line summary of a Ketcher editor (`observe`'s `summary`). */
import type { KetcherState } from '../contract';

export function ketcherSummary(s: KetcherState): string {
  if (s.error) {
    return `Ketcher editor: ${s.error.code}: ${s.error.message}`;
  }
  if (!s.ready) {
    return 'Ketcher editor: loading';
  }
  const what =
    s.atoms === 0
      ? 'empty'
      : `${s.formula ?? 'formula unknown'}, ${s.atoms} atoms, ${s.bonds} bonds${s.smiles ? `, SMILES ${s.smiles}` : ''}`;
  const marks = [
    `structure rev ${s.structureRevision}`,
    `interaction rev ${s.interactionRevision}`,
    s.dirty ? 'unsaved changes' : 'saved',
    s.highlighted.length ? `${s.highlighted.length} atoms highlighted` : '',
    s.persist?.status === 'awaiting' ? `asking the person to save to ${s.persist.path}` : ''
  ].filter(Boolean);
  return `Ketcher editor: ${what}; ${marks.join(', ')}`;
}
