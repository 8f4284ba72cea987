/**
 * A main-area tab holding one page-owned widget view (a Viewer from `open`,
 * a Story from `story_create` with `open`, an editor from `ketcher_open`, a
 * report panel from `render_panel`): made without a kernel, listed by
 * `observe` while the tab is open.
 *
 * Placement: the first docked widget splits the main area to the right of
 * the current document; later ones open as tabs after the most recently
 * docked one that is still open, so they share one tab stack and each keeps
 * the stack's full width (ten docked widgets stay usable). The agent may
 * dock one beside another instead (`dock: {mode: 'split-right', beside}`).
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import type { DOMWidgetModel, DOMWidgetView } from '@jupyter-widgets/base';
import { MessageLoop, type Message } from '@lumino/messaging';
import { DockPanel, Panel, type Widget } from '@lumino/widgets';
import type { DockPlacement } from './contract/toolArgs';
import { checkPlacement, lastOpen, rememberDocked, widgetIdOf } from './dockPlacement';

export { checkPlacement } from './dockPlacement';

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
 * Add `widget` to the main area by `placement` (see the module comment) and
 * remember it as docked under `targetId` until it is disposed.
 *
 * @param options.activate - focus it (default); false only selects its tab.
 * @throws MolspaceError `NOT_FOUND` at `/dock/beside` (see {@link checkPlacement}).
 */
export function addDocked(
  shell: JupyterFrontEnd.IShell,
  targetId: string,
  widget: Widget,
  placement: DockPlacement | undefined,
  options: { activate?: boolean } = {}
): void {
  checkPlacement(placement);
  const ref = placement?.beside ?? lastOpen();
  const mode = placement?.mode ?? 'tab';
  const shellMode = mode === 'tab' ? (ref ? 'tab-after' : 'split-right') : mode;
  rememberDocked(targetId, widget);
  shell.add(widget, 'main', { mode: shellMode, ...(ref ? { ref: widgetIdOf(ref) } : {}), activate: options.activate !== false });
  if (options.activate === false && widget.parent instanceof DockPanel) {
    widget.parent.selectWidget(widget); // its tab shows, the person's focus stays where it is
  }
}

/**
 * Render `view` of `model` in a new main-area tab (placed by `placement`,
 * see the module comment) and activate it. Disposing the tab (closing it)
 * removes the view and closes the model, so the widget leaves the page.
 *
 * @param options.className - the tab's CSS class, e.g. `molspace-docked-viewer`.
 * @returns the tab; dispose it to take the widget away.
 * @throws MolspaceError `NOT_FOUND` at `/dock/beside` before anything is made.
 */
export function dockView(
  app: JupyterFrontEnd,
  model: DOMWidgetModel,
  view: DOMWidgetView,
  options: { id: string; label: string; caption?: string; className: string; placement?: DockPlacement }
): Panel {
  checkPlacement(options.placement);
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
  addDocked(app.shell, options.id, tab, options.placement);
  return tab;
}

/** The main-area tab (a DockPanel child) that holds `widget` and is hidden behind another tab, or null. */
export function hiddenTabOf(widget: Widget | undefined): Widget | null {
  for (let w: Widget | null = widget ?? null; w; w = w.parent) {
    if (w.parent instanceof DockPanel) {
      return w.isHidden ? w : null;
    }
  }
  return null;
}

/**
 * Select the hidden main-area tab holding `widget` (the person's focus stays
 * where it is) and lay it out now, so a 3D view that must draw (a screenshot,
 * a Story step) starts with its size. Nothing when it is not in a hidden tab.
 */
export function showHiddenTab(widget: Widget | undefined): void {
  const tab = hiddenTabOf(widget);
  if (tab) {
    (tab.parent as DockPanel).selectWidget(tab);
    MessageLoop.flush();
  }
}
