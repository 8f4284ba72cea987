/** `molspace:ketcher` lets `ketcher_open` dock Ketcher editors in the main area (the page's `openers.ketcher`). */
import type { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { IMolspace } from '../tokens';
import { afterRestore } from './afterRestore';

export const ketcherPlugin: JupyterFrontEndPlugin<void> = {
  id: 'molspace:ketcher',
  description: 'Lets agents open Ketcher chemical editors (the `ketcher_open` tool) docked in the main area.',
  autoStart: true,
  requires: [IMolspace],
  activate: (app: JupyterFrontEnd, molspace: IMolspace) => {
    // The editor's code loads at the first `ketcher_open`; Ketcher itself when its frame is shown.
    void afterRestore(
      app,
      molspace,
      () => Promise.resolve(),
      page => {
        page.dispatcher.openers.ketcher = {
          open: options =>
            import('../ketcher/dockedKetcher').then(({ dockedKetcherOpener }) => dockedKetcherOpener(app, page).open(options))
        };
      },
      'ketcher_open could not start; agents cannot dock Ketcher editors.'
    );
  }
};
