/**
 * Plan an `act` batch without touching the viewer: validate every operation
 * (each selector must match the loaded structure), then compute the new view
 * state. The batch applies as one revision or not at all (docs/architecture.md).
 */
import { MolspaceError, type ComponentSelector, type ViewerAction, type ViewerViewState } from '../contract';
import { requireMatch, type StructureData } from './structureData';
import { selectorText } from './viewerText';

/** What one `act` batch would do. */
export interface ViewerPlan {
  /** The view after the batch. */
  view: ViewerViewState;
  /** One line per operation, in order. */
  applied: { op: string; summary: string }[];
  /** True when `view` differs from the view before. */
  changed: boolean;
  /** The screenshot asked for (the last one of the batch), or null. */
  screenshot: { width?: number; height?: number } | null;
  /** How the batch enters the undo history: a new step, or a step taken back or applied again. */
  step: HistoryStep;
}

export type HistoryStep = 'push' | 'undo' | 'redo';

/** The views `undo` and `redo` would go back to, or null. */
export interface ViewerHistory {
  undo: ViewerViewState | null;
  redo: ViewerViewState | null;
}

/** The view of a newly loaded structure. */
export function initialView(layers: ViewerViewState['layers']): ViewerViewState {
  return { layers, colors: [], focus: null, selection: null, highlight: null, background: null, cameraResets: 0 };
}

/** `JSON.stringify` with sorted keys: selectors equal as data compare equal. */
export function selectorKey(s: ComponentSelector): string {
  const norm = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(norm)
      : v && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)).map(([k, x]) => [k, norm(x)]))
        : v;
  return JSON.stringify(norm(s));
}


/**
 * Validate and plan a batch.
 *
 * @throws MolspaceError `NOT_FOUND` at `/actions/<i>/selector` for a selector that matches nothing,
 *   at `/actions/0/op` for an undo or redo with no step to take; `INVALID_INPUT` at `/actions/<i>/op`
 *   for an undo or redo that is not alone in its batch.
 */
export function planActions(
  before: ViewerViewState,
  actions: readonly ViewerAction[],
  data: StructureData,
  history: ViewerHistory = { undo: null, redo: null }
): ViewerPlan {
  const stepAt = actions.findIndex(a => a.op === 'undo' || a.op === 'redo');
  if (stepAt >= 0) {
    const op = actions[stepAt].op as 'undo' | 'redo';
    if (actions.length > 1) {
      throw new MolspaceError('INVALID_INPUT', `${op} must be alone in its batch.`, `/actions/${stepAt}/op`, `Send ${op} as its own act call.`, { op });
    }
    const to = history[op];
    if (!to) {
      throw new MolspaceError('NOT_FOUND', `There is no step to ${op}.`, '/actions/0/op', `Check viewer_observe: viewer.${op} is 0.`, { op });
    }
    return { view: structuredClone(to), applied: [{ op, summary: op }], changed: true, screenshot: null, step: op };
  }
  const view: ViewerViewState = structuredClone(before);
  const applied: ViewerPlan['applied'] = [];
  let screenshot: ViewerPlan['screenshot'] = null;
  actions.forEach((a, i) => {
    const where = `/actions/${i}/selector`;
    const atoms = 'selector' in a ? requireMatch(data, a.selector, where) : 0;
    const on = 'selector' in a ? `${selectorText(a.selector)} (${atoms} atoms)` : '';
    switch (a.op) {
      case 'focus':
        view.focus = a.selector;
        applied.push({ op: a.op, summary: `focus ${on}` });
        break;
      case 'highlight':
        view.highlight = a.selector;
        applied.push({ op: a.op, summary: `highlight ${on}` });
        break;
      case 'clear_highlight':
        view.highlight = null;
        applied.push({ op: a.op, summary: 'clear the highlight' });
        break;
      case 'select':
        view.selection = a.selector;
        applied.push({ op: a.op, summary: `select ${on}` });
        break;
      case 'clear_selection':
        view.selection = null;
        applied.push({ op: a.op, summary: 'clear the selection' });
        break;
      case 'set_representation': {
        const key = selectorKey(a.selector);
        const layer = view.layers.find(l => selectorKey(l.selector) === key);
        if (layer) {
          layer.representation = a.representation;
        } else {
          view.layers.push({ selector: a.selector, representation: a.representation });
        }
        applied.push({ op: a.op, summary: `show ${on} as ${a.representation}` });
        break;
      }
      case 'set_color': {
        const key = selectorKey(a.selector);
        view.colors = view.colors.filter(c => selectorKey(c.selector) !== key);
        view.colors.push({ selector: a.selector, color: a.color.toLowerCase() });
        applied.push({ op: a.op, summary: `colour ${on} ${a.color.toLowerCase()}` });
        break;
      }
      case 'reset_camera':
        view.focus = null;
        view.cameraResets += 1;
        applied.push({ op: a.op, summary: 'reset the camera' });
        break;
      case 'set_background':
        view.background = a.color.toLowerCase();
        applied.push({ op: a.op, summary: `background ${a.color.toLowerCase()}` });
        break;
      case 'undo':
      case 'redo':
        break; // planned above
      case 'screenshot':
        screenshot = { width: a.width, height: a.height };
        applied.push({ op: a.op, summary: `screenshot${a.width ? ` ${a.width}×${a.height ?? a.width}` : ''}` });
        break;
    }
  });
  return { view, applied, changed: JSON.stringify(view) !== JSON.stringify(before), screenshot, step: 'push' };
}
