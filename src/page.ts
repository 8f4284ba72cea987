/**
 * The page-wide singletons: one widget registry and one Dispatcher per
 * JupyterLab page, shared by every widget model, the bridge and the plugin.
 */
import { Dispatcher } from './dispatcher/dispatcher';
import { WidgetRegistry } from './dispatcher/registry';

export const registry = new WidgetRegistry();
export const dispatcher = new Dispatcher(registry);
