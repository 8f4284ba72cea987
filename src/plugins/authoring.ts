/**
 * `molspace:authoring`: files under the Jupyter root go through JupyterLab's
 * contents manager, and Stories that `story_create` / `open` show dock in the
 * main area (the page's `openers.story`).
 */
import type { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { IMolspace } from '../tokens';
import { afterRestore } from './afterRestore';

export const authoringPlugin: JupyterFrontEndPlugin<void> = {
  id: 'molspace:authoring',
  description:
    "Lets story_validate and story_create read and write Story files through JupyterLab's contents manager, " +
    'and dock the Stories they open (open: true) in the main area.',
  autoStart: true,
  requires: [IMolspace],
  optional: [IRenderMimeRegistry],
  activate: (app: JupyterFrontEnd, molspace: IMolspace, rendermime: IRenderMimeRegistry | null) => {
    // The docked Story's code (widget base classes, Mol* later) loads at the first open.
    void afterRestore(
      app,
      molspace,
      () => Promise.resolve(),
      page => {
        page.files.use(app.serviceManager.contents);
        page.dispatcher.openers.story = {
          open: source =>
            import('../story/dockedStory').then(({ dockedStoryOpener }) => dockedStoryOpener(app, page, rendermime).open(source))
        };
      },
      'Story files use a default contents manager and created Stories cannot be docked (open: true).'
    );
  }
};
