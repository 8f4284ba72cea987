/**
 * Plan an `act` batch without touching the viewer: validate every operation
 * (each selector must match the structure drawn: the Viewer's own, or while an
 * MVS state is drawn the structure that state loads), then compute the new
 * view state. The batch applies as one revision or not at all (docs/architecture.md).
 */
import { LIMITS, MolspaceError, type ComponentSelector, type ViewerAction, type ViewerViewState } from '../contract';
import { countMatches, lociDistance, requireFrame, requireMatch, requireOneAtom, structuresAt, type StructureData } from './structureData';
import { StructureElement } from 'molstar/lib/mol-model/structure';
import { frameTimePs, selectorText } from './viewerText';
import { initialView } from './initialView';
import type { ShotOptions } from './screenshot';

export { initialView };

/** What one `act` batch would do. */
export interface ViewerPlan {
  /** The view after the batch. */
  view: ViewerViewState;
  /** One line per operation, in order. */
  applied: { op: string; summary: string; distance?: number }[];
  /** True when `view` differs from the view before. */
  changed: boolean;
  /** The screenshot asked for (the last one of the batch), or null. */
  screenshot: ShotOptions | null;
  /** How the batch enters the undo history: a new step, or a step taken back or applied again. */
  step: HistoryStep;
}

/**
 * Check an MVS state before it is planned (`apply_mvs`): the same validation
 * as a Story's (Mol*'s MVS tree checks, the page's resource allow-list).
 * Resolves, or rejects with a MolspaceError located under `where`.
 */
export type MvsCheck = (state: Record<string, unknown>, where: string) => Promise<void>;

/**
 * The structure an MVS state loads, to check selectors against while it is drawn.
 * Rejects with a MolspaceError located at `where` (the selector) saying why it cannot.
 */
export type MvsData = (state: Record<string, unknown>, where: string) => Promise<StructureData>;

/** A new undo step, a step taken back or applied again, or none (frame navigation and playback). */
export type HistoryStep = 'push' | 'undo' | 'redo' | 'none';

/** Operations that move through a trajectory's frames: not edits, so no undo step. */
const FRAME_OPS: ReadonlySet<string> = new Set(['goto_frame', 'play', 'pause']);

/** The views `undo` and `redo` would go back to, or null. */
export interface ViewerHistory {
  undo: ViewerViewState | null;
  redo: ViewerViewState | null;
}

/** Nodes of an MVS state's tree. */
function mvsNodeCount(state: Record<string, unknown>): number {
  const count = (n: unknown): number =>
    n && typeof n === 'object' ? 1 + ((n as { children?: unknown[] }).children ?? []).reduce<number>((k, c) => k + count(c), 0) : 0;
  return count(state.root);
}

/** `JSON.stringify` with sorted keys: selectors equal as data compare equal. */
export function selectorKey(s: ComponentSelector): string {
  const norm = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(norm)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.entries(v)
              .sort(([a], [b]) => a.localeCompare(b))
              .map(([k, x]) => [k, norm(x)])
          )
        : v;
  return JSON.stringify(norm(s));
}

/**
 * Validate and plan a batch.
 *
 * @param checkMvs - validates `apply_mvs` states (without it, `apply_mvs` is refused).
 * @param mvsData - the structure of a drawn MVS state; selectors given while one is drawn (before
 *   the batch, or after an `apply_mvs` earlier in it) are checked against it, and without it refused.
 * @throws MolspaceError `NOT_FOUND` at `/actions/<i>/selector` (or `start`, `end`) for a selector that matches nothing,
 *   what `mvsData` throws there (the MVS state's structure cannot be read: none or several, fetch failed),
 *   `VALIDATION_FAILED` at `/actions/<i>/start` or `end` for a distance side that is not one atom,
 *   `TOO_LARGE` at `/actions/<i>/state` for an MVS state over `LIMITS.viewerMvsBytes`, and what `checkMvs` throws;
 *   `VALIDATION_FAILED` there when a held distance is not one atom a side of the structure the `apply_mvs` draws;
 *   at `/actions/0/op` for an undo or redo with no step to take; `INVALID_INPUT` at `/actions/<i>/op`
 *   for an undo or redo that is not alone in its batch; `TOO_LARGE` at `/actions/<i>` when the view
 *   would be over `LIMITS.viewerViewBytes` of JSON or hold over `LIMITS.viewerAnnotations` of a list.
 */
export async function planActions(
  before: ViewerViewState,
  actions: readonly ViewerAction[],
  data: StructureData,
  history: ViewerHistory = { undo: null, redo: null },
  checkMvs: MvsCheck | null = null,
  mvsData: MvsData | null = null
): Promise<ViewerPlan> {
  const stepAt = actions.findIndex(a => a.op === 'undo' || a.op === 'redo');
  if (stepAt >= 0) {
    const op = actions[stepAt].op as 'undo' | 'redo';
    if (actions.length > 1) {
      throw new MolspaceError(
        'INVALID_INPUT',
        `${op} must be alone in its batch.`,
        `/actions/${stepAt}/op`,
        `Send ${op} as its own act call.`,
        { op }
      );
    }
    const to = history[op];
    if (!to) {
      throw new MolspaceError('NOT_FOUND', `There is no step to ${op}.`, '/actions/0/op', `Check viewer_observe: viewer.${op} is 0.`, {
        op
      });
    }
    return { view: structuredClone(to), applied: [{ op, summary: op }], changed: true, screenshot: null, step: op };
  }
  const view: ViewerViewState = structuredClone(before);
  const applied: ViewerPlan['applied'] = [];
  let screenshot: ViewerPlan['screenshot'] = null;
  /** What selectors at `where` are checked against: the Viewer's structure, or the drawn MVS state's. */
  const drawn = async (where: string): Promise<StructureData> => {
    if (!view.mvs) {
      return data;
    }
    if (!mvsData) {
      throw new MolspaceError(
        'VALIDATION_FAILED',
        'An MVS state is drawn and its structure cannot be read here, so the selector cannot be checked against it.',
        where,
        "Send apply_mvs with state null to go back to the Viewer's own structure."
      );
    }
    return mvsData(view.mvs, where);
  };
  for (const [i, a] of actions.entries()) {
    const where = `/actions/${i}/selector`;
    const checked = 'selector' in a ? await drawn(where) : a.op === 'measure_distance' ? await drawn(`/actions/${i}/start`) : data;
    const atoms = 'selector' in a ? requireMatch(checked, a.selector, where) : 0;
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
      case 'goto_frame':
        requireFrame(data, a.frame, `/actions/${i}/frame`);
        view.frame = a.frame;
        applied.push({ op: a.op, summary: `frame ${a.frame}${frameTime(data, a.frame)}` });
        break;
      case 'play':
        requireFrames(data, `/actions/${i}/op`);
        view.play = { fps: a.fps, loop: a.loop };
        applied.push({ op: a.op, summary: `play at ${a.fps} frames/s${a.loop ? ', looping' : ''}` });
        break;
      case 'pause':
        view.play = null;
        applied.push({ op: a.op, summary: `pause at frame ${view.frame}` });
        break;
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
        screenshot = {
          width: a.width,
          height: a.height,
          defaultWidth: LIMITS.screenshotDefaultWidth,
          format: a.format,
          quality: a.quality
        };
        applied.push({ op: a.op, summary: `screenshot ${a.format}${a.width || a.height ? ` ${a.width ?? '?'}×${a.height ?? '?'}` : ''}` });
        break;
      case 'set_transparency': {
        const key = selectorKey(a.selector);
        view.transparency = view.transparency.filter(t => selectorKey(t.selector) !== key);
        view.transparency.push({ selector: a.selector, value: a.value });
        applied.push({ op: a.op, summary: `transparency of ${on} ${a.value}` });
        break;
      }
      case 'label': {
        const key = selectorKey(a.selector);
        view.labels = view.labels.filter(l => selectorKey(l.selector) !== key);
        view.labels.push({ selector: a.selector, text: a.text });
        applied.push({ op: a.op, summary: `label ${on} ${JSON.stringify(a.text)}` });
        break;
      }
      case 'measure_distance': {
        const start = requireOneAtom(checked, a.start, `/actions/${i}/start`, 'start');
        const end = requireOneAtom(checked, a.end, `/actions/${i}/end`, 'end');
        // on a trajectory: between the atoms as the drawn frame places them
        const distance =
          view.frame > 0 && !view.mvs
            ? lociDistance(...(await atFrame(data, view.frame, [start, end], `/actions/${i}/start`)))
            : lociDistance(start, end);
        const key = selectorKey([a.start, a.end] as never);
        view.measurements = view.measurements.filter(m => selectorKey([m.start, m.end] as never) !== key);
        view.measurements.push({ start: a.start, end: a.end, distance });
        applied.push({ op: a.op, summary: `distance ${selectorText(a.start)} – ${selectorText(a.end)} ${distance} Å`, distance });
        break;
      }
      case 'clear_labels':
        applied.push({ op: a.op, summary: `clear ${view.labels.length} label${view.labels.length === 1 ? '' : 's'}` });
        view.labels = [];
        break;
      case 'clear_measurements':
        applied.push({ op: a.op, summary: `clear ${view.measurements.length} distance${view.measurements.length === 1 ? '' : 's'}` });
        view.measurements = [];
        break;
      case 'apply_mvs': {
        if (a.state !== null) {
          const bytes = new TextEncoder().encode(JSON.stringify(a.state)).length;
          if (bytes > LIMITS.viewerMvsBytes) {
            throw new MolspaceError(
              'TOO_LARGE',
              `The MVS state is ${bytes} bytes of JSON; apply_mvs takes at most ${LIMITS.viewerMvsBytes}.`,
              `/actions/${i}/state`,
              'Reference structures by URL instead of inline data, or open the state as a Story (molspace.Story).',
              { bytes, limit: LIMITS.viewerMvsBytes }
            );
          }
          if (!checkMvs) {
            throw new MolspaceError(
              'INTERNAL',
              'apply_mvs has no MVS validation here.',
              `/actions/${i}/state`,
              'Report this as a molspace bug.'
            );
          }
          await checkMvs(a.state, `/actions/${i}/state`);
        }
        view.mvs = a.state === null ? null : structuredClone(a.state);
        if (view.measurements.length) {
          // Mol* draws distances on the structure drawn: each must still be one atom a side there
          const now = await drawn(`/actions/${i}/state`);
          for (const [k, m] of view.measurements.entries()) {
            for (const side of ['start', 'end'] as const) {
              if (countMatches(now.structures, m[side]) !== 1) {
                throw new MolspaceError(
                  'VALIDATION_FAILED',
                  `The Viewer holds distance ${k} (${selectorText(m.start)} – ${selectorText(m.end)}), whose ${side} is not one atom of the structure this apply_mvs draws.`,
                  `/actions/${i}/state`,
                  'Put {"op": "clear_measurements"} before apply_mvs in the same batch, or measure again after it.',
                  { measurement: k, side, selector: m[side] }
                );
              }
            }
          }
        }
        applied.push({
          op: a.op,
          summary: a.state === null ? 'draw the layers again (no MVS state)' : `draw an MVS state (${mvsNodeCount(a.state)} nodes)`
        });
        break;
      }
    }
    const viewBytes = new TextEncoder().encode(JSON.stringify(view)).length;
    if (viewBytes > LIMITS.viewerViewBytes) {
      // what viewer_observe returns whole: kept within its read budget
      throw new MolspaceError(
        'TOO_LARGE',
        `The Viewer's view would be ${viewBytes} bytes of JSON; it holds at most ${LIMITS.viewerViewBytes}.`,
        `/actions/${i}`,
        'Use fewer or shorter selectors (a static one such as "protein", or one expression per chain or residue range), ' +
          'reuse a selector (the same selector replaces its entry), or undo earlier steps.',
        { bytes: viewBytes, limit: LIMITS.viewerViewBytes }
      );
    }
    for (const list of ['labels', 'measurements', 'transparency'] as const) {
      if (view[list].length > LIMITS.viewerAnnotations) {
        throw new MolspaceError(
          'TOO_LARGE',
          `The Viewer would hold ${view[list].length} ${list}; it holds at most ${LIMITS.viewerAnnotations}.`,
          `/actions/${i}`,
          `${list === 'transparency' ? 'Undo earlier steps (op "undo")' : `Clear them (op "clear_${list}"), undo earlier steps`} to remove some ${list}, or reuse a selector (the same selector replaces its entry).`,
          { list, count: view[list].length, limit: LIMITS.viewerAnnotations }
        );
      }
    }
  }
  const navigation = actions.every(a => FRAME_OPS.has(a.op) || a.op === 'screenshot');
  return { view, applied, changed: JSON.stringify(view) !== JSON.stringify(before), screenshot, step: navigation ? 'none' : 'push' };
}

/** `, 1200 ps` when the trajectory carries time. */
function frameTime(data: StructureData, frame: number): string {
  const t = data.composition.trajectory?.timePs;
  return t ? `, ${frameTimePs(t, frame)} ps` : '';
}

/** @throws MolspaceError `VALIDATION_FAILED` at `where` when the Viewer shows one frame. */
function requireFrames(data: StructureData, where: string): void {
  if (!data.composition.trajectory || data.composition.trajectory.frames < 2) {
    requireFrame(data, 1, where);
  }
}

/** The loci of `loci` (frame-0 atoms) in frame `frame`. */
async function atFrame(
  data: StructureData,
  frame: number,
  loci: [StructureElement.Loci, StructureElement.Loci],
  where: string
): Promise<[StructureElement.Loci, StructureElement.Loci]> {
  const [structure] = await structuresAt(data, frame, where);
  return [StructureElement.Loci.remap(loci[0], structure), StructureElement.Loci.remap(loci[1], structure)];
}
