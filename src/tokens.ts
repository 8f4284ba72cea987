/**
 * The molspace page services, as a JupyterLab token: provided by the
 * `molspace:plugin` plugin, required by the widget and bridge plugins (and by
 * any other extension that drives molspace widgets).
 */
import { Token } from '@lumino/coreutils';
import type { Dispatcher } from './dispatcher/dispatcher';
import type { WidgetRegistry } from './dispatcher/registry';
import type { ResourcePolicy } from './resources/resourcePolicy';
import type { WorkspaceFiles } from './resources/workspaceFiles';
import type { ViewerBudget } from './molstar/viewerBudget';

/** The page's widget registry and Dispatcher. */
export interface IMolspacePage {
  /** Every live molspace widget of this page. */
  readonly registry: WidgetRegistry;
  /** The one Dispatcher: buttons, kernel messages and agents run their operations through it. */
  readonly dispatcher: Dispatcher;
  /** Files under the Jupyter root, through JupyterLab's contents manager (set once restored). */
  readonly files: WorkspaceFiles;
  /** The page-wide budget of live WebGL viewers. */
  readonly viewerBudget: ViewerBudget;
  /** Where Stories may fetch from (the `resourceHosts` setting; docs/security.md). */
  readonly resourcePolicy: ResourcePolicy;
}

/** The molspace services of this JupyterLab page. */
export interface IMolspace {
  /** The page-wide budget of live WebGL viewers (available at once; settings apply to it). */
  readonly viewerBudget: ViewerBudget;
  /** Where Stories may fetch from; the `resourceHosts` setting updates `hosts`. */
  readonly resourcePolicy: ResourcePolicy;
  /**
   * The registry and Dispatcher. The first call loads the contract (zod) and
   * the Dispatcher, which are kept off JupyterLab's start path; later calls
   * return the same objects.
   */
  page(): Promise<IMolspacePage>;
}

export const IMolspace = new Token<IMolspace>(
  'molspace:IMolspace',
  'The molspace page services: widget registry, Dispatcher, viewer budget.'
);
