/**
 * Honest results of calls that show a widget (`open`, `ketcher_open`,
 * `story_create` / `story_template_create` with `open`): the call succeeds
 * only once the widget is drawn and ready; a load or draw failure is the
 * call's error, the widget's own located error with its id in
 * `details.target`; neither before the caller's deadline is a located
 * TIMEOUT (docs/architecture.md, "Invariants": Completion). Every opener
 * calls {@link whenReady} on the widget it docked.
 */
import { MolspaceError, WIDGET_KIND_INFO } from '../contract';
import type { WidgetTarget } from './widgetTarget';

/** How long a call without a caller deadline (a cell, a button) waits, ms. */
export const READY_WAIT_MS = 25_000;
/** Answer this long before the caller's deadline, so the located TIMEOUT reaches it, ms. */
const DEADLINE_MARGIN_MS = 1_500;
/** How often the widget's state is read while waiting, ms. */
const POLL_MS = 50;

/** The moment a wait gives up: the caller's deadline less a margin, else {@link READY_WAIT_MS} from now. */
export function readyDeadline(deadline: number | undefined, now: number = Date.now()): number {
  return deadline === undefined ? now + READY_WAIT_MS : Math.max(now, deadline - DEADLINE_MARGIN_MS);
}

/** The widget's located error, carrying its id (`details.target`). */
export function widgetError(target: WidgetTarget): MolspaceError | null {
  const e = target.state().error;
  return e ? new MolspaceError(e.code, e.message, e.where, e.fix, { ...e.details, target: target.targetId }) : null;
}

/**
 * Resolve once `target` is ready with no error.
 *
 * @param until - ms since the epoch (see {@link readyDeadline}).
 * @throws MolspaceError the widget's own located error (`details.target` its
 *   id) as soon as it has one; `TIMEOUT` at `/target` when it is neither ready
 *   nor failed by `until` (it stays open: `details.target`, `details.ready`).
 */
export async function whenReady(target: WidgetTarget, until: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([target.whenLoaded(), new Promise(r => (timer = setTimeout(r, Math.max(0, until - Date.now()))))]);
  clearTimeout(timer);
  for (;;) {
    const error = widgetError(target);
    if (error) {
      throw error;
    }
    if (target.state().ready) {
      return;
    }
    if (Date.now() >= until) {
      const { label, observeTool } = WIDGET_KIND_INFO[target.kind];
      throw new MolspaceError(
        'TIMEOUT',
        `${label} ${target.targetId} is open but was not drawn in time (not ready, no error yet).`,
        '/target',
        `Keep the JupyterLab tab visible (a hidden tab draws nothing), then call ${observeTool} with target "${target.targetId}".`,
        { target: target.targetId, ready: false }
      );
    }
    await new Promise(r => setTimeout(r, Math.min(POLL_MS, Math.max(1, until - Date.now()))));
  }
}
