/**
 * `act`: typed operations on a Viewer. The Dispatcher has queued the call
 * behind earlier ones on this Viewer, waited for it to load and checked
 * `expectedRevision`; this validates the whole batch (`planActions`), then
 * applies it as one revision, or reports it (`dryRun`).
 */
import { ACT_TOOL, type ChangeEntry, type ResultImage } from '../contract';
import { defineWidgetTool } from '../dispatcher/pageTool';

export const act = defineWidgetTool(ACT_TOOL, async ({ args, target, source }) => {
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
});
