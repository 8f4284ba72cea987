/**
 * `act`: typed operations on a Viewer. The Dispatcher has queued the call
 * behind earlier ones on this Viewer, waited for it to load and checked
 * `expectedRevision`; this validates the whole batch (`planActions`), then
 * applies it as one revision, or reports it (`dryRun`).
 */
import { ACT_TOOL, type ActOutput, type ChangeEntry, type ResultImage } from '../contract';
import { defineWidgetTool, type ToolAnswer } from '../dispatcher/pageTool';
import type { ViewerTarget } from '../viewer/viewerTarget';

/** A retry of a batch a page applied without answering (reloaded meanwhile): the Viewer as it is now. */
function replayed(target: ViewerTarget): ToolAnswer<typeof ACT_TOOL.output> {
  const now = target.state();
  const output: ActOutput = {
    viewer: now,
    view: target.view(),
    changed: false,
    dryRun: false,
    previousRevision: now.revision,
    applied: [],
    changes: [],
    screenshot: null,
    replayed: true
  };
  return {
    output,
    text: `Viewer ${target.targetId}: this batch was applied by a page that was reloaded before it answered. Revision ${now.revision}.`
  };
}

export const act = defineWidgetTool(
  ACT_TOOL,
  async ({ args, target, source }) => {
    // Loaded here, not with the Dispatcher: selector checks bring Mol*'s structure code.
    const { planActions } = await import('../viewer/viewerActions');
    const { checkMvsState } = await import('../viewer/viewerMvsCheck');
    const data = await target.structureData();
    const before = target.state();
    const plan = await planActions(
      target.view(),
      args.actions,
      data,
      target.history(),
      (state, where) => checkMvsState(state, where, target.resourcePolicy()),
      (state, where) => target.mvsStructureData(state, where)
    );
    const summary = plan.applied.map(a => a.summary).join('; ');
    let changes: ChangeEntry[] = [];
    let screenshot = null;
    const images: ResultImage[] = [];
    if (!args.dryRun) {
      if (plan.changed) {
        changes = [await target.applyView(plan.view, source, summary, plan.step)];
      }
      if (plan.screenshot) {
        const shot = await target.screenshot(plan.screenshot);
        images.push({ mimeType: shot.mimeType, data: shot.data });
        screenshot = { mimeType: shot.mimeType, width: shot.width, height: shot.height, bytes: Math.floor((shot.data.length * 3) / 4) };
      }
    }
    const after = target.state();
    const verb = args.dryRun ? 'would' : 'did';
    return {
      output: {
        viewer: after,
        view: args.dryRun ? plan.view : target.view(),
        changed: !args.dryRun && plan.changed,
        dryRun: args.dryRun,
        previousRevision: before.revision,
        applied: plan.applied,
        changes,
        screenshot,
        replayed: false
      },
      text: `Viewer ${target.targetId} ${verb}: ${summary}. Revision ${after.revision}.`,
      changes,
      summary,
      images
    };
  },
  { replayed }
);
