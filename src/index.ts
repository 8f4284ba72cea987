/**
 * molspace JupyterLab plugins, one per file in `plugins/`:
 * - `molspace:plugin` (`services.ts`) provides the page services ({@link IMolspace})
 *   and applies the settings (`schema/plugin.json`);
 * - `molspace:widgets` registers the notebook widgets with the ipywidgets manager;
 * - `molspace:activity` shows every Dispatcher call and offers the page tools to in-browser agents;
 * - `molspace:bridge` connects this page to the MCP gateway's bridge;
 * - `molspace:panels`, `molspace:authoring`, `molspace:open`, `molspace:ketcher` dock
 *   panels, Stories, Viewers and Ketcher editors in the main area.
 *
 * JupyterLab's start path loads none of the contract (zod), the Dispatcher or
 * Mol*: the Dispatcher loads when the first widget model is created or once
 * JupyterLab has restored (`plugins/afterRestore.ts`); Mol* when a view starts
 * a viewer.
 */
import { activityPlugin } from './plugins/activity';
import { authoringPlugin } from './plugins/authoring';
import { bridgePlugin } from './plugins/bridge';
import { ketcherPlugin } from './plugins/ketcher';
import { openPlugin } from './plugins/open';
import { panelsPlugin } from './plugins/panels';
import { servicesPlugin } from './plugins/services';
import { widgetsPlugin } from './plugins/widgets';

export { IMolspace } from './tokens';
export type { IMolspacePage } from './tokens';

export default [servicesPlugin, widgetsPlugin, activityPlugin, bridgePlugin, panelsPlugin, authoringPlugin, openPlugin, ketcherPlugin];
