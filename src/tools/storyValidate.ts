/** `story_validate`: every issue of a Story, located, from the bundled Mol* and molspace's checks. */
import { LIMITS, STORY_VALIDATE_TOOL } from '../contract';
import { checkStoryPath } from '../resources/workspaceFiles';
import { readyDeadline } from '../dispatcher/whenReady';
import { defineTool } from '../dispatcher/pageTool';

export const storyValidate = defineTool(STORY_VALIDATE_TOOL, async ({ args, files, resourcePolicy, deadline }) => {
  // Loaded with the first call: Mol* stays off JupyterLab's start path.
  const { checkStory, stepsOf } = await import('../authoring/storyDocument');
  const src =
    args.path !== undefined
      ? await files.readStoryFile(checkStoryPath(args.path, ['.mvsj', '.mvsx']))
      : { document: args.document as Record<string, unknown> };
  const policy = resourcePolicy;
  const checked = await checkStory(src, policy);
  const { checkStoryResources } = await import('../authoring/storyResources');
  const mvsSnapshots = Array.isArray(checked.mvs.snapshots) ? (checked.mvs.snapshots as { metadata?: { key?: unknown } }[]) : [];
  const snapshotKey = (i: number) =>
    checked.story?.snapshots[i]?.key ?? (typeof mvsSnapshots[i]?.metadata?.key === 'string' ? String(mvsSnapshots[i].metadata!.key) : null);
  const found = await checkStoryResources(checked.mvs, {
    format: checked.format,
    valid: checked.story !== null,
    check: args.checkResources,
    policy,
    until: readyDeadline(deadline),
    keys: snapshotKey
  });
  // A resource this page cannot fetch is an issue: the Story would not show.
  checked.issues.push(...found.issues);
  checked.issueCount += found.issues.length;
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
      issues: checked.issues.slice(0, LIMITS.authoringIssuesListed),
      resourceCount: found.resources.length,
      resources: found.resources.slice(0, LIMITS.storyResourcesListed)
    },
    text:
      n === 0
        ? `Valid Story "${title}": ${count} step(s); ${resourceText(found.resources)}.`
        : `${n} issue(s); first: ${first.snapshotIndex === null ? '' : `step ${first.snapshotIndex} `}` +
          `${first.path ? `at ${first.path}` : ''}: ${first.message} Resources: ${resourceText(found.resources)}.`
  };
});

/** E.g. `resources: 2 reachable, 1 not-checked` or `no resources`. */
function resourceText(resources: { status: string }[]): string {
  if (!resources.length) {
    return 'no resources';
  }
  const counts = new Map<string, number>();
  resources.forEach(r => counts.set(r.status, (counts.get(r.status) ?? 0) + 1));
  return `resources: ${[...counts].map(([s, k]) => `${k} ${s}`).join(', ')}`;
}
