/**
 * Mol*'s MVS loader resets the canvas before each load (`resetCanvasProps`, molstar 5.11
 * `extensions/mvs/camera.ts`) with `postprocessing: { ...old, ... }`: the whole canvas props
 * spread where only `old.postprocessing` belongs. `Canvas3D.setProps` then `Object.assign`s that
 * into its live postprocessing props, so they gain every canvas key, `postprocessing` included,
 * and nest one level deeper with every MVS load: a Viewer or Story that runs for hours holds a
 * chain of thousands of canvas props (the 10,000-call soak's heap, docs/benchmarks.md).
 * {@link keepPostprocessingFlat} passes on only postprocessing's own keys
 * (`PostprocessingParams`); nothing else of the call changes.
 */
import type { Canvas3D } from 'molstar/lib/mol-canvas3d/canvas3d';
import { PostprocessingParams } from 'molstar/lib/mol-canvas3d/passes/postprocessing';

/** Postprocessing's own keys. */
const OWN: ReadonlySet<string> = new Set(Object.keys(PostprocessingParams));

/** `postprocessing` with only its own keys (the same object when it has no other). */
export function flatPostprocessing<T extends object>(postprocessing: T): T {
  const keys = Object.keys(postprocessing);
  if (keys.every(k => OWN.has(k))) {
    return postprocessing;
  }
  return Object.fromEntries(keys.filter(k => OWN.has(k)).map(k => [k, (postprocessing as Record<string, unknown>)[k]])) as T;
}

/**
 * Make `canvas3d.setProps` drop the keys that are not postprocessing's from a `postprocessing`
 * it is given (the object form; the function form edits Mol*'s own copy of the props, which
 * stays flat). Install it before the first MVS load.
 */
export function keepPostprocessingFlat(canvas3d: Pick<Canvas3D, 'setProps'>): void {
  const setProps = canvas3d.setProps.bind(canvas3d);
  canvas3d.setProps = (props, doNotRequestDraw) => {
    if (typeof props === 'object' && props !== null && props.postprocessing) {
      props = { ...props, postprocessing: flatPostprocessing(props.postprocessing) };
    }
    setProps(props, doNotRequestDraw);
  };
}
