/** `story_observe`: one Story's state and a bounded page of its snapshot metadata. */
import { STORY_OBSERVE_TOOL } from '../contract';
import { describeStory } from '../story/storyText';
import { withinBudget } from '../contract/budget';
import { defineWidgetTool } from '../dispatcher/pageTool';

export const storyObserve = defineWidgetTool(STORY_OBSERVE_TOOL, ({ args, target }) => {
  const state = target.state();
  const all = target.snapshots();
  const output = (snapshots: readonly (typeof all)[number][]) => {
    const end = args.offset + snapshots.length;
    return {
      story: state,
      current: all[state.index] ?? null,
      snapshots: [...snapshots],
      nextOffset: end < all.length ? end : null
    };
  };
  // At most `limit` snapshots, and no more than fit the read budget (8 KiB); nextOffset pages on.
  const page = withinBudget(all.slice(args.offset, args.offset + args.limit), output);
  return {
    output: output(page),
    text: describeStory(state, all[state.index])
  };
});
