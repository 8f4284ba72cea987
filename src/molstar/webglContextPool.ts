/**
 * Spare Mol* WebGL contexts of the page, handed from a parked viewer to the
 * next viewer that starts (docs/architecture.md, "Viewer budget").
 *
 * A new Mol* plugin on a new WebGL context compiles and links every shader
 * program it draws with; in software WebGL (SwiftShader, llvmpipe) that is one
 * main-thread task of 2–3 s. A `Canvas3DContext` keeps the programs it linked
 * (Mol*'s program cache), its canvas and its render passes, and Mol* lets a
 * plugin start on an existing one. So when the viewer budget parks a viewer to
 * make room for another, the parked viewer's context goes here and the
 * starting viewer takes it: its step is drawn without linking again.
 *
 * At most {@link MAX_SPARE} context waits here, for at most
 * {@link SPARE_KEEP_MS}; then it is disposed (its WebGL context freed). Live
 * viewers plus spares stay within the budget plus one.
 */
import type { Canvas3DContext } from 'molstar/lib/mol-canvas3d/canvas3d';

/** Most spare contexts kept at once. */
export const MAX_SPARE = 1;
/** How long a spare context waits for a viewer before it is disposed, ms. */
export const SPARE_KEEP_MS = 30_000;

interface Spare {
  context: Canvas3DContext;
  timer: ReturnType<typeof setTimeout>;
}

const spares: Spare[] = [];

/** A spare context that is not lost, or null; the caller owns it from now on. */
export function takeSpareContext(): Canvas3DContext | null {
  for (;;) {
    const spare = spares.shift();
    if (!spare) {
      return null;
    }
    clearTimeout(spare.timer);
    if (!spare.context.webgl.isContextLost) {
      return spare.context;
    }
    disposeContext(spare.context);
  }
}

/**
 * Keep `context` (no plugin uses it any more) for the next viewer; disposes it
 * instead when it is lost or {@link MAX_SPARE} are kept already.
 */
export function giveSpareContext(context: Canvas3DContext): void {
  if (context.webgl.isContextLost || spares.length >= MAX_SPARE) {
    disposeContext(context);
    return;
  }
  context.canvas?.parentElement?.remove(); // the canvas stays in its container (see molstarPlugin.ts)
  const spare: Spare = {
    context,
    timer: setTimeout(() => {
      const at = spares.indexOf(spare);
      if (at >= 0) {
        spares.splice(at, 1);
        disposeContext(context);
      }
    }, SPARE_KEEP_MS)
  };
  spares.push(spare);
}

/** How many spare contexts wait (for tests and benchmarks). */
export function spareContextCount(): number {
  return spares.length;
}

function disposeContext(context: Canvas3DContext): void {
  try {
    context.dispose();
  } catch (e) {
    console.warn('molspace: disposing a spare WebGL context failed', e);
  }
}
