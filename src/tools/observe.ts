/** `observe`: the widgets of this page, a bounded page of them at a time. */
import { MolspaceError, OBSERVE_TOOL, type WidgetSummary } from '../contract';
import type { WidgetTarget } from '../dispatcher/widgetTarget';
import { cutText, withinBudget } from '../contract/budget';
import { defineTool } from '../dispatcher/pageTool';

/** Characters of a widget's title and summary line in `observe`. */
const TITLE_CHARS = 200;

/** One widget as `observe` lists it. */
export function widgetSummary(target: WidgetTarget): WidgetSummary {
  const s = target.state();
  return {
    id: target.targetId,
    kind: target.kind,
    title: cutText(s.title, TITLE_CHARS),
    ready: s.ready,
    revision: s.revision,
    summary: cutText(target.describe(), TITLE_CHARS),
    notebook: target.notebook,
    error: s.error
  };
}

/** What an agent (MCP only) can do on a page without widgets. */
const EMPTY_PAGE_TEXT =
  'No molspace widgets in this page. Next: open a structure with open {path} or {pdbId: "1cbs"}; ' +
  'a report with render_panel; a chemical editor with ketcher_open; ' +
  'a Story with story_template_list, then story_template_create with open: true.';

export const observe = defineTool(OBSERVE_TOOL, ({ args, context, registry, lastAction }) => {
  const all = registry.list();
  const offset = args.cursor === undefined ? 0 : Number.parseInt(args.cursor, 10);
  if (!Number.isInteger(offset) || offset < 0 || offset > all.length) {
    throw new MolspaceError(
      'INVALID_INPUT',
      `observe: cursor "${args.cursor}" is not a cursor this page returned.`,
      '/cursor',
      'Omit cursor to start over, or pass the nextCursor of the previous observe call.',
      { cursor: args.cursor }
    );
  }
  const result = (widgets: readonly WidgetSummary[]) => ({
    pageId: context?.pageId ?? 'local',
    pages: context?.pages ?? [],
    widgets: [...widgets],
    activeWidget: registry.active?.targetId ?? null,
    lastAction,
    total: all.length,
    nextCursor: offset + widgets.length < all.length ? String(offset + widgets.length) : null
  });
  // At most `limit` widgets, and no more than fit the read budget (8 KiB); nextCursor pages on.
  const widgets = withinBudget(all.slice(offset, offset + args.limit).map(widgetSummary), result);
  const text =
    all.length === 0
      ? EMPTY_PAGE_TEXT
      : cutText(`${all.length} widget(s): ` + widgets.map(w => `${w.id} (${w.kind}: ${w.summary})`).join('; '), 2000);
  return {
    output: result(widgets),
    text
  };
});
