/**
 * `viewer_observe`: one Viewer's state, bounded composition, view and camera,
 * within the read budget (`LIMITS.observeOutputBytes`, `./budget.ts`): the
 * composition's lists (models, chains, ligands) start at `offset` and are cut
 * to what fits; `nextOffset` pages on. Counts (`modelCount`, `chainCount`,
 * `ligandCount`) always describe the whole structure.
 */
import { VIEWER_OBSERVE_TOOL, type ViewerComposition } from '../contract';
import { withinBudget } from '../contract/budget';
import { defineWidgetTool } from '../dispatcher/pageTool';

/** The composition with each list from `offset`, `n` entries long. */
function page(c: ViewerComposition, offset: number, n: number): ViewerComposition {
  return {
    ...c,
    models: c.models.slice(offset, offset + n),
    chains: c.chains.slice(offset, offset + n),
    ligands: c.ligands.slice(offset, offset + n)
  };
}

export const viewerObserve = defineWidgetTool(VIEWER_OBSERVE_TOOL, ({ args, target }) => {
  const base = { viewer: target.state(), view: target.view(), camera: target.camera() };
  const composition = target.composition();
  let listed = composition;
  let nextOffset: number | null = null;
  if (composition) {
    const longest = Math.max(composition.models.length, composition.chains.length, composition.ligands.length);
    const sizes = Array.from({ length: Math.max(0, longest - args.offset) }, (_, i) => i + 1);
    const n = withinBudget(sizes, p => ({ ...base, composition: page(composition, args.offset, p.length), nextOffset: 0 })).length;
    listed = page(composition, args.offset, n);
    nextOffset = args.offset + n < longest ? args.offset + n : null;
  }
  const more = nextOffset === null ? '' : ` Lists cut to fit: call again with offset ${nextOffset} for the rest.`;
  return {
    output: { ...base, composition: listed, nextOffset },
    text: `Viewer ${target.targetId}: ${target.describe()}, revision ${target.state().revision}.${more}`
  };
});
