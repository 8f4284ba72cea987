/**
 * The page's registry and Dispatcher, created once per JupyterLab page by
 * {@link Molspace.page}. Loaded lazily: it brings the zod contract and the
 * tool handlers.
 */
import { WidgetRegistry } from './dispatcher/registry';
import type { IMolspacePage } from './tokens';
import type { ResourcePolicy } from './resources/resourcePolicy';
import type { ViewerBudget } from './molstar/viewerBudget';
import { pageDispatcher } from './tools';

export function createMolspacePage(viewerBudget: ViewerBudget, resourcePolicy: ResourcePolicy): IMolspacePage {
  const registry = new WidgetRegistry();
  const dispatcher = pageDispatcher(registry, { resourcePolicy });
  return { registry, dispatcher, files: dispatcher.files, viewerBudget, resourcePolicy };
}
