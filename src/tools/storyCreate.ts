/**
 * `story_create`: validate a Story and write it under the Jupyter root, as
 * `.mvsj` or as an `.mvsx` archive with its assets packed in
 * (`../authoring/storyArchive.ts`); `open` shows it docked in the main area.
 */
import { MolspaceError, STORY_CREATE_TOOL } from '../contract';
import { checkStoryPath } from '../resources/workspaceFiles';
import { storyOpener } from '../story/storyOpener';
import { readyDeadline, whenReady } from '../dispatcher/whenReady';
import { defineTool } from '../dispatcher/pageTool';

export const storyCreate = defineTool(STORY_CREATE_TOOL, async ({ args, openers, files: workspace, resourcePolicy, deadline }) => {
  // Loaded with the first call: Mol* stays off JupyterLab's start path.
  const { checkStory, stepsOf, storyIssuesError } = await import('../authoring/storyDocument');
  const path = checkStoryPath(args.path, ['.mvsj', '.mvsx']);
  const mvsx = path.toLowerCase().endsWith('.mvsx');
  const assetArgs = args.assets ?? [];
  if (!mvsx && assetArgs.length > 0) {
    throw new MolspaceError(
      'UNSUPPORTED_FORMAT',
      `An .mvsj file cannot hold assets; "${path}" would reference ${assetArgs.length} file(s) it does not contain.`,
      '/assets',
      `Name the file .mvsx (e.g. "${path.replace(/\.mvsj$/i, '.mvsx')}") to pack the assets, or reference them by https URL.`,
      { path }
    );
  }
  const opener = args.open ? storyOpener(openers) : null;
  let document = args.document as Record<string, unknown>;
  let files: Record<string, Uint8Array> | undefined;
  let assets: { path: string; entry: string; bytes: number }[] = [];
  let unused: string[] = [];
  if (mvsx) {
    const { planAssets, readAssets, rewriteReferences } = await import('../authoring/storyArchive');
    const planned = planAssets(assetArgs);
    await workspace.checkOverwrite(path, args.overwrite); // before reading any asset
    const rewritten = rewriteReferences(document, planned);
    document = rewritten.document;
    const read = await readAssets(workspace, planned);
    files = read.files;
    assets = planned.map((a, i) => ({ path: a.path, entry: a.entry, bytes: read.sizes[i] }));
    unused = planned.filter((_, i) => rewritten.uses[i] === 0).map(a => a.path);
  }
  const checked = await checkStory({ document, archive: files }, resourcePolicy);
  const story = checked.story;
  if (story === null) {
    throw storyIssuesError(
      checked.issues.map(i => ({ ...i, fix: createFix(i.message, i.fix) })),
      checked.storyboard,
      checked.issueCount
    );
  }
  const content = story.mvsx ?? JSON.stringify(story.data, null, 2) + '\n';
  const replaced = await workspace.writeStoryFile(path, content, args.overwrite);
  const bytes = typeof content === 'string' ? new TextEncoder().encode(content).length : content.length;
  const shown = opener ? await opener.open({ path, story }) : null;
  if (shown) {
    // Success only once its first step is drawn: a load failure is this call's error (the file stays written).
    await whenReady(shown, readyDeadline(deadline)).catch(e => {
      const err = MolspaceError.from(e, 'story_create');
      throw new MolspaceError(
        err.code,
        `${path} was written, but its Story ${shown.targetId} failed to show: ${err.message}`,
        err.where,
        err.fix,
        {
          ...err.details,
          path,
          written: true
        }
      );
    });
  }
  const packed = assets.length ? ` with ${assets.length} asset(s)` : '';
  const notUsed = unused.length ? ` Not referenced by any node (packed anyway): ${unused.slice(0, 10).join(', ')}.` : '';
  return {
    output: {
      path,
      format: story.format,
      replaced,
      bytes,
      title: story.title,
      snapshotCount: story.snapshots.length,
      steps: stepsOf(story),
      assets,
      story: shown ? shown.state() : null
    },
    text:
      `${replaced ? 'Replaced' : 'Created'} ${path}${packed}: "${story.title}", ${story.snapshots.length} step(s), ${bytes} bytes.${notUsed} ` +
      (shown
        ? `Shown docked as Story ${shown.targetId}: drive it with story_control {target: "${shown.targetId}"}.`
        : "Show it with open: true, or in a cell with molspace.Story(<this path, relative to the notebook's folder>).")
  };
});

/** A resource issue's fix in story_create's terms: the file goes in `assets`. */
function createFix(message: string, fix: string): string {
  if (/not in the MVSX archive/.test(message)) {
    return 'List the file in assets (a path under the Jupyter root), use that path or assets/<name> as the URL, or use an https URL.';
  }
  if (/needs an \.mvsx archive/.test(message)) {
    return 'Write an .mvsx (path ending .mvsx) and list the file in assets, or use an https URL.';
  }
  return fix;
}
