/** `story_validate`: every issue of a Story, located, from the bundled Mol* and molspace's checks. */
import { LIMITS, STORY_VALIDATE_TOOL } from '../contract';
import { checkStoryPath, storyResourcePolicy, readStoryFile } from '../authoring/storyFiles';
import { defineTool } from './tool';

export const storyValidate = defineTool(STORY_VALIDATE_TOOL, async ({ args }) => {
  // Loaded with the first call: Mol* stays off JupyterLab's start path.
  const { checkStory, stepsOf } = await import('../authoring/storyDocument');
  const src =
    args.path !== undefined
      ? await readStoryFile(checkStoryPath(args.path, ['.mvsj', '.mvsx']))
      : { document: args.document as Record<string, unknown> };
  const checked = await checkStory(src, storyResourcePolicy());
  const story = checked.story;
  const title = story?.title ?? String((checked.mvs.metadata as { title?: unknown } | undefined)?.title ?? '');
  const count = story ? story.snapshots.length : Array.isArray(checked.mvs.snapshots) ? checked.mvs.snapshots.length : 0;
  const n = checked.issueCount;
  const first = checked.issues[0];
  return {
    output: {
      valid: n === 0,
      format: checked.format,
      title,
      snapshotCount: count,
      steps: story ? stepsOf(story) : [],
      issueCount: n,
      issues: checked.issues.slice(0, LIMITS.authoringIssuesListed)
    },
    text:
      n === 0
        ? `Valid Story "${title}": ${count} step(s).`
        : `${n} issue(s); first: ${first.snapshotIndex === null ? '' : `step ${first.snapshotIndex} `}` +
          `${first.path ? `at ${first.path}` : ''}: ${first.message}`
  };
});
