/**
 * Which docked widgets are open in the main area, by the widget id
 * `observe` lists, and the placement check `open`, `ketcher_open` and
 * `render_panel` run before they make anything (`./dockedTab.ts` docks).
 * No Lumino values here, so the tools stay loadable without a DOM.
 */
import { MolspaceError } from './contract/errors';
import type { DockPlacement } from './contract/toolArgs';
import type { Widget } from '@lumino/widgets';

/** Docked widgets by their widget id (as `observe` lists it), oldest first. */
const dockedWidgets = new Map<string, Widget>();

/**
 * Check a placement before anything is made.
 *
 * @throws MolspaceError `NOT_FOUND` at `/dock/beside` when it names no open docked widget.
 */
export function checkPlacement(placement: DockPlacement | undefined): void {
  const beside = placement?.beside;
  if (beside === undefined || dockedWidgets.get(beside)?.isAttached) {
    return;
  }
  const open = [...dockedWidgets].filter(([, w]) => w.isAttached).map(([id]) => id);
  throw new MolspaceError(
    'NOT_FOUND',
    `No docked widget "${beside}" is open in this page.`,
    '/dock/beside',
    open.length
      ? `Pass one of the docked widget ids: ${open.map(id => JSON.stringify(id)).join(', ')}; or omit dock.beside.`
      : 'Omit dock.beside: no widget is docked yet.',
    { beside, docked: open }
  );
}

/** Remember `widget` as the docked widget `targetId` until it is disposed. */
export function rememberDocked(targetId: string, widget: Widget): void {
  dockedWidgets.set(targetId, widget);
  widget.disposed.connect(() => {
    if (dockedWidgets.get(targetId) === widget) {
      dockedWidgets.delete(targetId);
    }
  });
}

/** The main-area widget id of the docked widget `targetId` (a panel's tab id differs from its panelId). */
export function widgetIdOf(targetId: string): string {
  return dockedWidgets.get(targetId)?.id ?? targetId;
}

/** The widget id of the most recently docked widget still open, or null. */
export function lastOpen(): string | null {
  const open = [...dockedWidgets].filter(([, w]) => w.isAttached);
  return open.length ? open[open.length - 1][0] : null;
}

/**
 * Show the docked widget `targetId` if it sits in a hidden tab (its tab is
 * selected; the person's focus stays where it is): a panel link the person
 * clicked acts on a widget they can see. Other ids: nothing.
 */
export function revealDocked(targetId: string): void {
  const widget = dockedWidgets.get(targetId);
  const dock = widget?.parent as unknown as { selectWidget?: (w: Widget) => void } | null | undefined;
  if (widget && widget.isHidden && typeof dock?.selectWidget === 'function') {
    dock.selectWidget(widget);
  }
}

/** Whether `targetId` is a docked widget open in the main area. */
export function isDocked(targetId: string): boolean {
  return dockedWidgets.get(targetId)?.isAttached === true;
}
