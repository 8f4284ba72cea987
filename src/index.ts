/**
 * molspace JupyterLab plugins:
 * - `molspace:plugin` provides the page services ({@link IMolspace}: widget
 *   registry, Dispatcher, viewer budget) and applies the molspace settings
 *   (`schema/plugin.json` is this plugin's settings schema);
 * - `molspace:widgets` registers the Story widget with the ipywidgets manager;
 * - `molspace:activity` shows every call of this page's Dispatcher (side panel,
 *   status bar) and offers the page tools to in-browser agents (WebMCP);
 * - `molspace:bridge` connects this page to the MCP gateway's bridge;
 * - `molspace:panels` docks report panels (`render_panel`) in the main area.
 * - `molspace:open` lets the `open` tool dock Viewers in the main area.
 * - `molspace:ketcher` lets `ketcher_open` dock Ketcher editors in the main area.
 *
 * JupyterLab's start path loads none of the contract (zod), the Dispatcher or
 * Mol*: the Dispatcher loads when the first Story model is created or once
 * JupyterLab has restored (for the bridge); Mol* when a Story view starts a
 * viewer.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { IJupyterWidgetRegistry } from '@jupyter-widgets/base';
import { IStatusBar } from '@jupyterlab/statusbar';
import { listIcon } from '@jupyterlab/ui-components';
import { Panel, Widget } from '@lumino/widgets';
// Molspace is the provided service itself (17 lines); it loads the registry and Dispatcher lazily.
// eslint-disable-next-line jupyter/prefer-lazy-imports
import { Molspace } from './molspace';
import { IMolspace } from './tokens';
import { MODULE_NAME, MODULE_VERSION } from './version';

export { IMolspace } from './tokens';
export type { IMolspacePage } from './tokens';

/** The services plugin; its id names the settings schema `schema/plugin.json`. */
const PLUGIN_ID = 'molspace:plugin';

const servicesPlugin: JupyterFrontEndPlugin<IMolspace> = {
  id: PLUGIN_ID,
  description: 'The molspace page services (widget registry, Dispatcher, viewer budget) and their settings.',
  autoStart: true,
  provides: IMolspace,
  optional: [ISettingRegistry],
  activate: (_app: JupyterFrontEnd, settings: ISettingRegistry | null): IMolspace => {
    const molspace = new Molspace();
    if (settings) {
      settings
        .load(PLUGIN_ID)
        .then(s => {
          const apply = () => {
            const max = s.get('maxLiveViewers').composite;
            if (typeof max === 'number') {
              molspace.viewerBudget.setMaxLive(max);
            }
            const hosts = s.get('resourceHosts').composite;
            if (Array.isArray(hosts)) {
              molspace.resourcePolicy.hosts = hosts.filter((h): h is string => typeof h === 'string');
            }
          };
          apply();
          s.changed.connect(apply);
        })
        .catch(e => console.warn('molspace: settings not loaded; using defaults', e));
    }
    return molspace;
  }
};

const widgetsPlugin: JupyterFrontEndPlugin<void> = {
  id: 'molspace:widgets',
  description: 'Registers the molspace Story and Panel widgets.',
  autoStart: true,
  requires: [IJupyterWidgetRegistry, IMolspace],
  activate: (_app: JupyterFrontEnd, widgets: IJupyterWidgetRegistry, molspace: IMolspace) => {
    widgets.registerWidget({
      name: MODULE_NAME,
      version: MODULE_VERSION,
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
          import('./story/storyModel'),
          import('./story/storyView'),
          import('./panel/panelModel'),
          import('./viewer/viewerModel'),
          import('./viewer/viewerView'),
          import('./ketcher/ketcherModel'),
          import('./ketcher/ketcherView')
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

const activityPlugin: JupyterFrontEndPlugin<void> = {
  id: 'molspace:activity',
  description:
    'Shows what agents, cells and buttons did in this page (side panel and status bar), and offers the tools to in-browser agents (WebMCP).',
  autoStart: true,
  requires: [IMolspace],
  optional: [IStatusBar],
  activate: (app: JupyterFrontEnd, molspace: IMolspace, statusBar: IStatusBar | null) => {
    // Only the sidebar tab is made at start; the log, panel and WebMCP adapter load after restore.
    const holder = new Panel();
    holder.id = 'molspace-activity-panel';
    holder.title.icon = listIcon;
    holder.title.caption = 'molspace activity';
    app.shell.add(holder, 'right', { rank: 900 });
    const count = new Widget();
    count.addClass('molspace-activity-count');
    count.node.textContent = 'molspace: 0 calls';
    statusBar?.registerStatusItem('molspace:activity', { item: count, align: 'left', rank: 900 });
    void app.restored
      .then(() => Promise.all([molspace.page(), import('./activity/startActivity')]))
      .then(([page, { startActivity }]) => startActivity(page, holder, count))
      .catch(e => console.error('molspace: the activity panel could not start.', e));
  }
};

const bridgePlugin: JupyterFrontEndPlugin<void> = {
  id: 'molspace:bridge',
  description: 'Connects this JupyterLab page to the molspace MCP gateway.',
  autoStart: true,
  requires: [IMolspace],
  activate: (app: JupyterFrontEnd, molspace: IMolspace) => {
    // Off the start path: the contract and Dispatcher load once JupyterLab has restored.
    void app.restored
      .then(() => Promise.all([molspace.page(), import('./bridge/startBridge')]))
      .then(([page, { startBridge }]) => startBridge(page))
      .catch(e => console.error('molspace: the MCP bridge could not start; agents cannot reach this page.', e))
      // Then, in idle time, the code an agent's first open / ketcher_open needs (src/warmUp.ts).
      .then(() => import('./warmUp'))
      .then(({ warmUp }) => warmUp())
      .catch(e => console.debug('molspace: warm-up skipped', e));
  }
};

const panelsPlugin: JupyterFrontEndPlugin<void> = {
  id: 'molspace:panels',
  description: "Docks report panels (render_panel) in the main area, rendered by JupyterLab's rendermime.",
  autoStart: true,
  requires: [IMolspace],
  optional: [IRenderMimeRegistry],
  activate: (app: JupyterFrontEnd, molspace: IMolspace, rendermime: IRenderMimeRegistry | null) => {
    void app.restored
      .then(() => Promise.all([molspace.page(), import('./panel/startPanels')]))
      .then(([page, { startPanels }]) => startPanels(page, app.shell, rendermime))
      .catch(e => console.error('molspace: docked panels are unavailable.', e));
  }
};

const authoringPlugin: JupyterFrontEndPlugin<void> = {
  id: 'molspace:authoring',
  description:
    "Lets story_validate and story_create read and write Story files through JupyterLab's contents manager, " +
    'and dock the Stories they open (open: true) in the main area.',
  autoStart: true,
  requires: [IMolspace],
  optional: [IRenderMimeRegistry],
  activate: (app: JupyterFrontEnd, molspace: IMolspace, rendermime: IRenderMimeRegistry | null) => {
    void app.restored
      .then(() => import('./resources/workspaceFiles'))
      .then(({ useContents, useResourcePolicy }) => {
        useContents(app.serviceManager.contents);
        useResourcePolicy(molspace.resourcePolicy);
      })
      .catch(e => console.error('molspace: Story files will use a default contents manager.', e));
    // Off the start path: the docked Story's code (widget base classes, Mol* later) loads at the first open.
    void app.restored
      .then(() => Promise.all([molspace.page(), import('./story/storyOpener')]))
      .then(([page, { setStoryOpener }]) => {
        setStoryOpener({
          open: source =>
            import('./story/dockedStory').then(({ dockedStoryOpener }) => dockedStoryOpener(app, page, rendermime).open(source))
        });
      })
      .catch(e => console.error('molspace: created Stories cannot be docked (open: true).', e));
  }
};

const openPlugin: JupyterFrontEndPlugin<void> = {
  id: 'molspace:open',
  description: 'Lets agents open structures (the `open` tool) in Viewers docked in the main area.',
  autoStart: true,
  requires: [IMolspace],
  activate: (app: JupyterFrontEnd, molspace: IMolspace) => {
    // Off the start path: the opener's code (widget base classes, Mol* later) loads at the first `open`.
    void app.restored
      .then(() => Promise.all([molspace.page(), import('./viewer/structureOpener')]))
      .then(([page, { setStructureOpener }]) => {
        const load = () => import('./viewer/dockedViewer').then(({ dockedViewerOpener }) => dockedViewerOpener(app, page));
        setStructureOpener({
          read: path => load().then(o => o.read(path)),
          open: source => load().then(o => o.open(source))
        });
      })
      .catch(e => console.error('molspace: the open tool could not start; agents cannot dock Viewers.', e));
  }
};

const ketcherPlugin: JupyterFrontEndPlugin<void> = {
  id: 'molspace:ketcher',
  description: 'Lets agents open Ketcher chemical editors (the `ketcher_open` tool) docked in the main area.',
  autoStart: true,
  requires: [IMolspace],
  activate: (app: JupyterFrontEnd, molspace: IMolspace) => {
    // Off the start path: the editor's code loads at the first `ketcher_open`; Ketcher itself when its frame is shown.
    void app.restored
      .then(() => Promise.all([molspace.page(), import('./ketcher/ketcherOpener')]))
      .then(([page, { setKetcherOpener }]) =>
        setKetcherOpener({
          open: options => import('./ketcher/dockedKetcher').then(({ dockedKetcherOpener }) => dockedKetcherOpener(app, page).open(options))
        })
      )
      .catch(e => console.error('molspace: ketcher_open could not start; agents cannot dock Ketcher editors.', e));
  }
};

export default [servicesPlugin, widgetsPlugin, activityPlugin, bridgePlugin, panelsPlugin, authoringPlugin, openPlugin, ketcherPlugin];
