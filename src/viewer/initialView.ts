/**
 * The view state of a newly loaded structure. Kept apart from `./viewerActions.ts`
 * (which brings Mol*'s structure code) so the Viewer model can use it at load.
 */
import type { ViewerViewState } from '../contract';

/** The view of a newly loaded structure. */
export function initialView(layers: ViewerViewState['layers']): ViewerViewState {
  return {
    layers,
    colors: [],
    transparency: [],
    labels: [],
    measurements: [],
    mvs: null,
    focus: null,
    selection: null,
    highlight: null,
    background: null,
    cameraResets: 0,
    frame: 0,
    play: null
  };
}
