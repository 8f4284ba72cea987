/**
 * Sending a widget's pending state to the kernel when several pages write it.
 *
 * ipywidgets keeps a running diff of this page's changes until they are sent.
 * When another page's update (echoed by the kernel to every page) sets an
 * attribute this page changed but has not sent yet, ipywidgets takes the new
 * value but leaves the diff as it was, so `save_changes` would send this
 * page's older value and undo both pages' state (seen with two pages: `ready:
 * false` sent after the step was drawn in both).
 */

/** What {@link saveCurrentState} needs of an ipywidgets model. */
export interface PendingStateModel {
  get(name: string): unknown;
  save_changes(): void;
}

/**
 * Send the attributes this page changed, each with its value now.
 *
 * @throws whatever `save_changes` throws (e.g. a closed comm).
 */
export function saveCurrentState(model: PendingStateModel): void {
  // Refresh the running diff's values in place.
  const diff = runningDiff(model);
  if (diff) {
    for (const key of Object.keys(diff)) {
      diff[key] = model.get(key);
    }
  }
  model.save_changes();
}

/**
 * The attributes this page changed and has not saved yet (ipywidgets' running diff; empty when the
 * model keeps none).
 */
export function unsavedKeys(model: PendingStateModel): string[] {
  return Object.keys(runningDiff(model) ?? {});
}

/** ipywidgets' running diff of unsaved attributes (a private field of WidgetModel), if the model keeps one. */
function runningDiff(model: PendingStateModel): Record<string, unknown> | undefined {
  return (model as unknown as { _buffered_state_diff?: Record<string, unknown> })._buffered_state_diff;
}
