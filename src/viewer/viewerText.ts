/** How a Viewer reads in one line, for tool answers and `observe`. */
import {
  chainIdText,
  ligandText,
  type ComponentSelector,
  type ViewerComposition,
  type ViewerState,
  type ViewerViewState
} from '../contract';
import { CUT_WARNING } from './structureCuts';

/** How a selector reads in a summary. */
export function selectorText(s: ComponentSelector): string {
  return typeof s === 'string' ? s : JSON.stringify(s);
}

/**
 * E.g. `1cbs.cif (mmcif): 1 model, 1 polymer chain (A), 1 ligand (REA A 200), 100 waters, 1213 atoms; focus {...}`,
 * `loading`, or `error VALIDATION_FAILED: ...` (the `summary` of `observe`). A file that may be cut
 * short says so, from its note in `composition.dropped` (`; may be cut short: no END …`).
 */
export function viewerSummary(state: ViewerState, c: ViewerComposition | null, view: ViewerViewState): string {
  if (state.error) {
    return `error ${state.error.code}: ${state.error.message}`;
  }
  if (!c) {
    return 'loading';
  }
  const polymers = c.chains.filter(ch => ch.entityType === 'polymer');
  const t = c.trajectory;
  const parts = [
    t
      ? `frame ${view.frame} of ${t.frames}${t.timePs ? ` (${frameTimePs(t.timePs, view.frame)} ps)` : ''}${view.play ? ', playing' : ''}`
      : `${c.modelCount} model${c.modelCount === 1 ? '' : 's'}`,
    `${polymers.length} polymer chain${polymers.length === 1 ? '' : 's'}${
      polymers.length
        ? ` (${polymers
            .slice(0, 8)
            .map(ch => chainIdText(ch.auth_asym_id))
            .join(', ')}${polymers.length > 8 ? ', …' : ''})`
        : ''
    }`,
    `${c.ligandCount} ligand${c.ligandCount === 1 ? '' : 's'}${c.ligandCount ? ` (${c.ligands.slice(0, 3).map(ligandText).join(', ')}${c.ligandCount > 3 ? ', …' : ''})` : ''}`,
    `${c.waters} water${c.waters === 1 ? '' : 's'}`,
    `${c.atoms} atoms`
  ];
  const focus = view.focus ? `; focus ${selectorText(view.focus)}` : '';
  const selection = view.selection ? `; selected ${selectorText(view.selection)}` : '';
  const cut = c.dropped.find(d => d.startsWith(CUT_WARNING));
  const format = t?.coordinates ? `${c.format} + ${t.coordinates}` : c.format;
  return `${state.title} (${format}): ${parts.join(', ')}${cut ? `; ${cut}` : ''}${focus}${selection}`;
}

/** Time of frame `frame`, ps, to 3 decimals. */
export function frameTimePs(t: { start: number; step: number }, frame: number): number {
  return Math.round((t.start + t.step * frame) * 1000) / 1000;
}
