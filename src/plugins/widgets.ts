/** `molspace:widgets` registers the Story, Panel, Viewer and Ketcher widgets with the ipywidgets manager. */
import type { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { IJupyterWidgetRegistry } from '@jupyter-widgets/base';
import { IMolspace } from '../tokens';
import { MODULE_NAME, MODULE_VERSION } from '../version';

export const widgetsPlugin: JupyterFrontEndPlugin<void> = {
  id: 'molspace:widgets',
  description: 'Registers the molspace Story and Panel widgets.',
  autoStart: true,
  requires: [IJupyterWidgetRegistry, IMolspace],
  activate: (_app: JupyterFrontEnd, widgets: IJupyterWidgetRegistry, molspace: IMolspace) => {
    widgets.registerWidget({
      name: MODULE_NAME,
      version: MODULE_VERSION,
      // Loaded when a notebook first shows a molspace widget: the models bind to this page's services.
      exports: async () => {
        const [
          page,
          { storyModelClass },
          { StoryView },
          { panelModelClass, PanelView },
          { viewerModelClass },
          { ViewerView },
          { ketcherModelClass },
          { KetcherView }
        ] = await Promise.all([
          molspace.page(),
          import('../story/storyModel'),
          import('../story/storyView'),
          import('../panel/panelModel'),
          import('../viewer/viewerModel'),
          import('../viewer/viewerView'),
          import('../ketcher/ketcherModel'),
          import('../ketcher/ketcherView')
        ]);
        return {
          StoryModel: storyModelClass(page),
          StoryView,
          PanelModel: panelModelClass(page),
          PanelView,
          ViewerModel: viewerModelClass(page),
          ViewerView,
          KetcherModel: ketcherModelClass(page),
          KetcherView
        };
      }
    });
  }
};
