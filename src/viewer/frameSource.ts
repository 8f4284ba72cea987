/**
 * Who serves an on-demand trajectory's frames, as its errors name it: a cell's kernel
 * (`molspace/viewer/frames.py`), or the Jupyter server for a Viewer an agent opened
 * (`./serverFrames.ts`). Each message names the source and a fix the person or agent can apply
 * there (a cell's Viewer is fixed in its cell; an agent's has no cell, so its fix is the file, the
 * page's setting or the server).
 */
import { MolspaceError } from '../contract/errors';
import { LIMITS } from '../contract/limits';

export type FrameSource = 'kernel' | 'server';

/** The source as a sentence names it, and the fixes for a late and for a malformed block. */
export const FRAME_SOURCE_TEXT: Record<FrameSource, { name: string; late: string; malformed: string }> = {
  kernel: {
    name: 'the kernel',
    late: 'Check the kernel is running and idle (a long cell holds the frames back), then step again.',
    malformed: 'Restart the kernel and run the cell again (the kernel and the page may run different molspace versions).'
  },
  server: {
    name: 'the Jupyter server',
    late: 'Check that the Jupyter server is running and reachable (a busy server or a slow disk holds the frames back), then step again.',
    malformed:
      'Check that the coordinates file was not changed while open and that the Jupyter server runs the molspace version of this page (restart the server after upgrading), then open the file again.'
  }
};

/**
 * The located `TOO_LARGE` at `/target` for exporting a Viewer whose frames stay with `source`
 * (one file would carry every frame), with a fix for that source.
 *
 * @param frameBudget - the page's `trajectoryFrameBudget` now (named in the server's fix).
 */
export function onDemandExportRefusal(source: FrameSource, target: string, frames: unknown, frameBudget: number): MolspaceError {
  const count = String(frames ?? 'many');
  const details = { target, frames: frames ?? null, source };
  if (source === 'server') {
    return new MolspaceError(
      'TOO_LARGE',
      `This Viewer's ${count} frames stay on the Jupyter server (frames on demand): one file would carry every frame.`,
      '/target',
      `Open a coordinates file of fewer frames than the page's frame budget (the JupyterLab setting trajectoryFrameBudget, ${frameBudget} now) and under ${LIMITS.viewerSourceBytes} bytes, so the page holds it whole, then export that Viewer.`,
      details
    );
  }
  return new MolspaceError(
    'TOO_LARGE',
    `This Viewer's ${count} frames stay in the kernel (frames on demand): one file would carry every frame.`,
    '/target',
    'Show fewer frames in the cell (frames= a slice) so they are sent whole, then export that Viewer.',
    details
  );
}
