/** `story_edit`: replace or insert one step of a shown Story by key (docs/architecture.md, "Story authoring"). */
import { LIMITS, MolspaceError, STORY_EDIT_TOOL } from '../contract';
import { defineWidgetTool, type ToolAnswer } from '../dispatcher/pageTool';
import type { StoryTarget } from '../story/storyTarget';

/** A retry of an edit a page applied without answering (reloaded meanwhile): the Story as it is now. */
function replayed(target: StoryTarget): ToolAnswer<typeof STORY_EDIT_TOOL.output> {
  const now = target.state();
  const snapshots = target.snapshots();
  const steps = snapshots.slice(0, LIMITS.authoringStepsListed).map(({ index, key, title }) => ({ index, key, title }));
  return {
    output: { story: now, steps, previousRevision: now.revision, changes: [], replayed: true },
    text: `Story ${target.targetId}: this edit was applied by a page that was reloaded before it answered; now ${snapshots.length} step(s), revision ${now.revision}.`
  };
}

export const storyEdit = defineWidgetTool(
  STORY_EDIT_TOOL,
  async ({ args, target, source, resourcePolicy }) => {
    // Loaded with the first call: Mol* stays off JupyterLab's start path.
    const { checkStory, stepsOf, storyIssuesError, storyboardToMvs } = await import('../authoring/storyDocument');
    const before = target.state();
    const story = await target.storyData();
    if (story.format !== 'mvsj') {
      throw new MolspaceError(
        'UNSUPPORTED_FORMAT',
        `Story ${target.targetId} comes from an .mvsx archive; story_edit edits .mvsj Stories only.`,
        '/target',
        "Edit the archive's index.mvsj and show it again, or create an .mvsj Story with story_create.",
        { target: target.targetId }
      );
    }
    const snapshots = [...story.data.snapshots];
    const keys = snapshots.map(s => s.metadata.key ?? '');
    const at = args.key === undefined ? snapshots.length - 1 : keys.indexOf(args.key);
    if (at < 0) {
      throw new MolspaceError(
        'NOT_FOUND',
        `Story ${target.targetId} has no step "${args.key}".`,
        '/key',
        `Use one of: ${keys.slice(0, 50).join(', ')}.`,
        {
          key: args.key,
          keys: keys.slice(0, 200)
        }
      );
    }
    const index = args.edit === 'replace' ? at : at + 1;
    const converted = storyboardToMvs({ steps: [args.step] });
    const [snapshot] = (converted.mvs as { snapshots: (typeof snapshots)[number][] }).snapshots;
    snapshots.splice(index, args.edit === 'replace' ? 1 : 0, snapshot);
    const checked = await checkStory({ document: { ...story.data, snapshots } as unknown as Record<string, unknown> }, resourcePolicy);
    const issues = [...converted.issues.map(i => ({ ...i, snapshotIndex: index })), ...checked.issues];
    if (issues.length > 0 || checked.story === null) {
      const err = storyIssuesError(issues, false, converted.issues.length + checked.issueCount);
      const first = issues[0];
      const where = first.snapshotIndex === index ? `/step${first.path ? '/' + first.path.replace(/^metadata\//, '') : ''}` : err.where;
      throw new MolspaceError(err.code, err.message, where, err.fix, err.details);
    }
    const key = checked.story.snapshots[index].key;
    const summary = `${args.edit} step ${index + 1} ("${key}")`;
    const entry = await target.replaceStory(JSON.stringify(checked.story.data), index, source, summary);
    return {
      output: {
        story: target.state(),
        steps: stepsOf(checked.story),
        previousRevision: before.revision,
        changes: [entry],
        replayed: false
      },
      text: `${summary}: now ${checked.story.snapshots.length} step(s), showing step ${index + 1}.`,
      changes: [entry],
      summary
    };
  },
  { replayed }
);
