/**
 * Test double: a Viewer target in memory (no Mol*, no kernel), for Dispatcher and tool tests:
 * loaded and ready, in no notebook; `parts` gives what a spec needs (its file, view, data,
 * screenshot...), `state` what its `ViewerState` says beyond the defaults. A method neither
 * gives refuses with "not in this test".
 */
import type { ViewerState } from '../contract';
import type { ViewerTarget } from '../viewer/viewerTarget';

export function memoryViewer(
  id: string,
  parts: Partial<Record<keyof ViewerTarget, unknown>> = {},
  state: Partial<ViewerState> = {}
): ViewerTarget {
  const notHere = () => Promise.reject(new Error('not in this test'));
  return {
    targetId: id,
    kind: 'viewer',
    notebook: null,
    whenLoaded: () => Promise.resolve(),
    state: (): ViewerState => ({
      target: id,
      kind: 'viewer',
      title: id,
      ready: true,
      revision: 0,
      error: null,
      undo: 0,
      redo: 0,
      ...state
    }),
    describe: () => id,
    sourceFile: () => null,
    camera: () => null,
    applyView: notHere,
    mvsStructureData: notHere,
    screenshot: notHere,
    ...parts
  } as unknown as ViewerTarget;
}
