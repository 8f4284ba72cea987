/**
 * Waiting for Mol* to draw a frame of what was just applied: the one signal
 * that a step is on screen (`ready: true` means drawn, docs/architecture.md
 * "Story lifecycle").
 */

/**
 * Longest wait for Mol* to draw a frame after an apply, ms. A visible page
 * draws within a frame or two; a hidden page draws nothing (no animation
 * frames), so the wait ends at once there.
 */
export const DRAW_WAIT_MS = 10_000;

/** How a wait for a frame ended. */
export type DrawOutcome =
  /** Mol* drew a frame of the fully committed scene (`canvas3d.didDraw`). */
  | 'drawn'
  /** The page is (or became) hidden: the browser runs no animation frames, so Mol* draws nothing. */
  | 'page-hidden'
  /** The page was visible but no frame came within the wait. */
  | 'timed-out'
  /** The viewer has no 3D canvas (Mol* could not create one). */
  | 'no-canvas';

/** What the wait needs of Mol*'s `Canvas3D`. */
export interface FrameSource {
  /** A BehaviorSubject: emits its current value at once on subscribe, then once per frame drawn. */
  didDraw: { subscribe(next: () => void): { unsubscribe(): void } };
  /** Scene updates not yet on the GPU; 0 once the whole scene is committed. */
  commitQueueSize: { value: number };
  requestDraw(): void;
}

/** What the wait needs of the document. */
export type VisibilitySource = Pick<Document, 'visibilityState' | 'addEventListener' | 'removeEventListener'>;

/**
 * Request a frame and wait for Mol*'s `didDraw` of a fully committed scene.
 *
 * @param canvas3d - Mol*'s canvas, or undefined when there is none.
 * @param timeoutMs - longest wait for the frame, ms.
 * @returns `'drawn'` on such a frame; `'page-hidden'` at once when the page is
 *   hidden or when it becomes hidden while waiting; `'timed-out'` after
 *   `timeoutMs` without a frame; `'no-canvas'` when there is no canvas.
 */
export function waitForFrame(canvas3d: FrameSource | undefined, timeoutMs: number, doc: VisibilitySource = document): Promise<DrawOutcome> {
  if (!canvas3d) {
    return Promise.resolve('no-canvas');
  }
  if (doc.visibilityState === 'hidden') {
    return Promise.resolve('page-hidden');
  }
  return new Promise<DrawOutcome>(resolve => {
    let done = false;
    let first = true;
    let sub: { unsubscribe(): void } | null = null;
    const finish = (outcome: DrawOutcome) => {
      if (!done) {
        done = true;
        sub?.unsubscribe();
        clearTimeout(timer);
        doc.removeEventListener('visibilitychange', onHidden);
        resolve(outcome);
      }
    };
    const onHidden = () => {
      if (doc.visibilityState === 'hidden') {
        finish('page-hidden');
      }
    };
    const timer = setTimeout(() => finish('timed-out'), timeoutMs);
    doc.addEventListener('visibilitychange', onHidden);
    // didDraw is a BehaviorSubject: skip its current value, wait for the next frame
    // drawn once the whole scene of the step is committed to the GPU.
    sub = canvas3d.didDraw.subscribe(() => {
      if (first) {
        first = false;
        return;
      }
      if (canvas3d.commitQueueSize.value === 0) {
        finish('drawn');
      }
    });
    if (done) {
      sub.unsubscribe();
      return;
    }
    canvas3d.requestDraw();
  });
}
