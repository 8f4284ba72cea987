/** `molspace:open` lets the `open` tool dock Viewers in the main area (the page's `openers.structure`). */
import type { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { IMolspace } from '../tokens';
import { afterRestore } from './afterRestore';

export const openPlugin: JupyterFrontEndPlugin<void> = {
  id: 'molspace:open',
  description: 'Lets agents open structures (the `open` tool) in Viewers docked in the main area.',
  autoStart: true,
  requires: [IMolspace],
  activate: (app: JupyterFrontEnd, molspace: IMolspace) => {
    // The opener's code (widget base classes, Mol* later) loads at the first `open`.
    void afterRestore(
      app,
      molspace,
      () => Promise.resolve(),
      page => {
        const load = () => import('../viewer/dockedViewer').then(({ dockedViewerOpener }) => dockedViewerOpener(app, page));
        page.dispatcher.openers.structure = {
          read: (path, where) => load().then(o => o.read(path, where)),
          readCoordinates: (path, format, where) => load().then(o => o.readCoordinates(path, format, where)),
          open: source => load().then(o => o.open(source))
        };
      },
      'the open tool could not start; agents cannot dock Viewers.'
    );
  }
};
