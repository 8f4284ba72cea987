/** `viewer_observe`: one Viewer's state, bounded composition, view and camera. */
import { VIEWER_OBSERVE_TOOL } from '../contract';
import { defineWidgetTool } from './tool';

export const viewerObserve = defineWidgetTool(VIEWER_OBSERVE_TOOL, ({ target }) => ({
  output: { viewer: target.state(), composition: target.composition(), view: target.view(), camera: target.camera() },
  text: `Viewer ${target.targetId}: ${target.describe()}, revision ${target.state().revision}.`
}));
