/**
 * A main-area tab holding one page-owned widget view (a Viewer from `open`,
 * a Story from `story_create` with `open`, an editor from `ketcher_open`):
 * made without a kernel, listed by `observe` while the tab is open.
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import type { DOMWidgetModel, DOMWidgetView } from '@jupyter-widgets/base';
import type { Message } from '@lumino/messaging';
import { Panel } from '@lumino/widgets';

/** Closing the tab disposes it (a plain Lumino widget would only be detached, and stay in `observe`). */
class DockedTab extends Panel {
  protected onCloseRequest(msg: Message): void {
    super.onCloseRequest(msg);
    this.dispose();
  }
}

let docked = 0;

/** A fresh widget id for a docked widget of `kind`, e.g. `molspace-ketcher-3-x1y2z3`. */
export function dockedId(kind: string): string {
  return `molspace-${kind}-${++docked}-${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * Render `view` of `model` in a new tab split to the right of the main area
 * and activate it. Disposing the tab (closing it) removes the view and closes
 * the model, so the widget leaves the page.
 *
 * @param options.className - the tab's CSS class, e.g. `molspace-docked-viewer`.
 * @returns the tab; dispose it to take the widget away.
 */
export function dockView(
  app: JupyterFrontEnd,
  model: DOMWidgetModel,
  view: DOMWidgetView,
  options: { id: string; label: string; caption?: string; className: string }
): Panel {
  const tab = new DockedTab();
  tab.id = options.id;
  tab.title.label = options.label;
  tab.title.caption = options.caption ?? options.label;
  tab.title.closable = true;
  tab.addClass(options.className);
  tab.addWidget(view.luminoWidget);
  view.render();
  tab.disposed.connect(() => {
    view.remove();
    model.close();
  });
  app.shell.add(tab, 'main', { mode: 'split-right' });
  app.shell.activateById(options.id);
  return tab;
}
