/** `molspace:panels` docks report panels (`render_panel`) in the main area. */
import type { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { IMolspace } from '../tokens';
import { afterRestore } from './afterRestore';

export const panelsPlugin: JupyterFrontEndPlugin<void> = {
  id: 'molspace:panels',
  description: "Docks report panels (render_panel) in the main area, rendered by JupyterLab's rendermime.",
  autoStart: true,
  requires: [IMolspace],
  optional: [IRenderMimeRegistry],
  activate: (app: JupyterFrontEnd, molspace: IMolspace, rendermime: IRenderMimeRegistry | null) => {
    void afterRestore(
      app,
      molspace,
      () => import('../panel/startPanels'),
      (page, { startPanels }) => startPanels(page, app.shell, rendermime),
      'docked panels are unavailable.'
    );
  }
};
