/**
 * The located error of a Story step that was applied but never drawn: Mol*
 * drew no frame of it (a hidden page draws nothing, or the wait expired), so
 * `ready` is false and the step is not reported as shown.
 */
import { MolspaceError } from '../contract/errors';
import { DRAW_WAIT_MS, type DrawOutcome } from '../molstar/frameWait';

/** `details.reason` of a step applied without a frame. */
export const NO_FRAME_REASON = 'no-frame-drawn';

/**
 * The error for step `index` of Story `target` after a wait for a frame
 * ended with `outcome`; null when the frame was drawn.
 *
 * @returns MolspaceError `TIMEOUT` at the widget id, `details: {target, index,
 *   key, reason: 'no-frame-drawn', outcome}`, whose fix says how to get the
 *   frame drawn; or null for `'drawn'`.
 */
export function noFrameError(target: string, index: number, key: string, outcome: DrawOutcome): MolspaceError | null {
  if (outcome === 'drawn') {
    return null;
  }
  const step = `step ${index + 1} ("${key}")`;
  const why =
    outcome === 'page-hidden'
      ? 'the page is hidden (a background tab or a minimised window), and browsers draw nothing there'
      : outcome === 'timed-out'
        ? `Mol* drew no frame of it within ${DRAW_WAIT_MS / 1000} s`
        : 'the 3D view has no canvas to draw on';
  const fix =
    outcome === 'page-hidden'
      ? 'Show the page (bring its browser tab or window to the front): the step is drawn then and ready turns true; then call story_observe.'
      : outcome === 'timed-out'
        ? 'Make sure the page is shown and not busy (close other 3D views or tabs), then call story_observe or retry the step.'
        : 'Click "Restart the 3D view" or reload the page, then retry.';
  return new MolspaceError('TIMEOUT', `Story ${target}: ${step} was applied but not drawn: ${why}.`, target, fix, {
    target,
    index,
    key,
    reason: NO_FRAME_REASON,
    outcome
  });
}
