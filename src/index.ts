/**
 * molspace JupyterLab plugins:
 * - `molspace:widgets` registers the Story widget with the ipywidgets manager;
 * - `molspace:bridge` connects this page to the MCP gateway's bridge.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { IJupyterWidgetRegistry } from '@jupyter-widgets/base';
import { setRenderMime } from './services';
import { MODULE_NAME, MODULE_VERSION } from './version';
import { ViewerBudget } from './viewer/viewerBudget';

const PLUGIN_ID = 'molspace:plugin';

const widgetsPlugin: JupyterFrontEndPlugin<void> = {
  id: PLUGIN_ID,
  description: 'Registers the molspace Story widget.',
  autoStart: true,
  requires: [IJupyterWidgetRegistry, IRenderMimeRegistry],
  optional: [ISettingRegistry],
  activate: (
    _app: JupyterFrontEnd,
    widgets: IJupyterWidgetRegistry,
    rendermime: IRenderMimeRegistry,
    settings: ISettingRegistry | null
  ) => {
    setRenderMime(rendermime);
    widgets.registerWidget({
      name: MODULE_NAME,
      version: MODULE_VERSION,
      exports: async () => {
        const [{ StoryModel }, { StoryView }] = await Promise.all([
          import('./story/storyModel'),
          import('./story/storyView')
        ]);
        return { StoryModel, StoryView };
      }
    });
    if (settings) {
      settings
        .load(PLUGIN_ID)
        .then(s => {
          const apply = () => ViewerBudget.instance.setMaxLive(s.get('maxLiveViewers').composite as number);
          apply();
          s.changed.connect(apply);
        })
        .catch(e => console.warn('molspace: settings not loaded; using defaults', e));
    }
  }
};

const bridgePlugin: JupyterFrontEndPlugin<void> = {
  id: 'molspace:bridge',
  description: 'Connects this JupyterLab page to the molspace MCP gateway.',
  autoStart: true,
  activate: (app: JupyterFrontEnd) => {
    // Off the start path: the contract and Dispatcher load once JupyterLab has restored.
    void app.restored
      .then(() => import('./bridge/startBridge'))
      .then(({ startBridge }) => startBridge())
      .catch(e => console.error('molspace: the MCP bridge could not start; agents cannot reach this page.', e));
  }
};

export default [widgetsPlugin, bridgePlugin];
