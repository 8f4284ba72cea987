/**
 * The page's registry and Dispatcher, created once per JupyterLab page by
 * {@link Molspace.page}. Loaded lazily: it brings the zod contract and the
 * tool handlers.
 */
import { Dispatcher } from './dispatcher/dispatcher';
import { WidgetRegistry } from './dispatcher/registry';
import type { IMolspacePage } from './tokens';
import type { ResourcePolicy } from './story/resourcePolicy';
import type { ViewerBudget } from './viewer/viewerBudget';

export function createMolspacePage(viewerBudget: ViewerBudget, resourcePolicy: ResourcePolicy): IMolspacePage {
  const registry = new WidgetRegistry();
  return { registry, dispatcher: new Dispatcher(registry), viewerBudget, resourcePolicy };
}
