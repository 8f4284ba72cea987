/**
 * What `open: true` of `story_create` / `story_template_create`, and `open` of
 * a `.mvsj`/`.mvsx` path, need from the page: dock a page-owned Story in the
 * main area. The `molspace:authoring`
 * plugin provides it (`./dockedStory.ts`); a page without it (e.g. a test
 * Dispatcher) answers with a located error before anything is written.
 */
import { MolspaceError } from '../contract';
import type { ParsedStory } from '../molstar/storySource';
import type { DockPlacement } from '../contract/toolArgs';
import type { StoryTarget } from './storyTarget';
import type { OpenerSlots } from '../dispatcher/pageOpeners';

export interface StoryOpener {
  /**
   * Dock a Story of a checked file in the main area (tab label: `title`, else
   * the Story's title, else `path`); resolves once docked. The caller waits
   * for its first step with `whenReady` (`../dispatcher/whenReady.ts`): drawn,
   * or the target's located error.
   */
  open(source: { path: string; story: ParsedStory; title?: string; placement?: DockPlacement }): Promise<StoryTarget>;
}

/** @throws MolspaceError `INTERNAL` at `/open` when this page cannot dock Stories. */
export function storyOpener(openers: OpenerSlots): StoryOpener {
  const opener = openers.story;
  if (!opener) {
    throw new MolspaceError(
      'INTERNAL',
      'This page cannot show Stories in the main area (the molspace:authoring plugin is not running).',
      '/open',
      'Reload the JupyterLab page, or create without open and show the file with molspace.Story(path) in a cell.'
    );
  }
  return opener;
}

declare module '../dispatcher/pageOpeners' {
  interface PageOpeners {
    story: StoryOpener;
  }
}
