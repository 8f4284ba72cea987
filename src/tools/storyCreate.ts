/** `story_create`: validate a Story and write it as .mvsj under the Jupyter root. */
import { STORY_CREATE_TOOL } from '../contract';
import { checkStoryPath, storyResourcePolicy, writeStoryFile } from '../authoring/storyFiles';
import { defineTool } from './tool';

export const storyCreate = defineTool(STORY_CREATE_TOOL, async ({ args }) => {
  // Loaded with the first call: Mol* stays off JupyterLab's start path.
  const { checkStory, stepsOf, storyIssuesError } = await import('../authoring/storyDocument');
  const path = checkStoryPath(args.path, ['.mvsj']);
  const checked = await checkStory({ document: args.document as Record<string, unknown> }, storyResourcePolicy());
  const story = checked.story;
  if (story === null) {
    throw storyIssuesError(checked.issues, checked.storyboard, checked.issueCount);
  }
  const text = JSON.stringify(story.data, null, 2) + '\n';
  const replaced = await writeStoryFile(path, text, args.overwrite);
  const bytes = new TextEncoder().encode(text).length;
  return {
    output: {
      path,
      replaced,
      bytes,
      title: story.title,
      snapshotCount: story.snapshots.length,
      steps: stepsOf(story)
    },
    text:
      `${replaced ? 'Replaced' : 'Created'} ${path}: "${story.title}", ${story.snapshots.length} step(s), ${bytes} bytes. ` +
      'Show it in a cell with molspace.Story(<this path, relative to the notebook\'s folder>).'
  };
});
