/**
 * Every page tool's handler. A new page tool adds its handler module here
 * (and its spec to `TOOLS` in `src/contract/tools.ts`).
 */
import { observe } from './observe';
import { renderPanel } from './renderPanel';
import { storyControl } from './storyControl';
import { storyObserve } from './storyObserve';
import { storyValidate } from './storyValidate';
import { storyCreate } from './storyCreate';
import { storyEdit } from './storyEdit';

import { viewerObserve } from './viewerObserve';
import { act } from './act';
import { open } from './open';
import { ketcherControl } from './ketcherControl';
import { ketcherOpen } from './ketcherOpen';
import { Dispatcher, type DispatcherTools } from '../dispatcher/dispatcher';
import type { PageTool } from '../dispatcher/pageTool';
import type { WidgetRegistry } from '../dispatcher/registry';
import { exportWidget } from './export';

export const PAGE_TOOLS: readonly PageTool[] = [
  observe,
  storyObserve,
  storyControl,
  renderPanel,
  storyValidate,
  storyCreate,
  storyEdit,
  viewerObserve,
  act,
  open,
  ketcherControl,
  ketcherOpen,
  exportWidget
];

/**
 * A Dispatcher that answers every page tool: the one a page creates. `tools`
 * replaces the contract or the handlers (tests add a tool this way).
 */
export function pageDispatcher(registry: WidgetRegistry, tools: Partial<DispatcherTools> = {}): Dispatcher {
  return new Dispatcher(registry, { handlers: PAGE_TOOLS, ...tools });
}
