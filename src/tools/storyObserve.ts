/** `story_observe`: one Story's state and a bounded page of its snapshot metadata. */
import { STORY_OBSERVE_TOOL } from '../contract';
import { describeStory } from '../story/storyText';
import { defineWidgetTool } from './tool';

export const storyObserve = defineWidgetTool(STORY_OBSERVE_TOOL, ({ args, target }) => {
  const state = target.state();
  const all = target.snapshots();
  const snapshots = all.slice(args.offset, args.offset + args.limit);
  const end = args.offset + snapshots.length;
  return {
    output: {
      story: state,
      current: all[state.index] ?? null,
      snapshots,
      nextOffset: end < all.length ? end : null
    },
    text: describeStory(state, all[state.index])
  };
});
