/** `observe`: the widgets of this page, a bounded page of them at a time. */
import { MolspaceError, OBSERVE_TOOL, type WidgetSummary } from '../contract';
import type { WidgetTarget } from '../dispatcher/widgetTarget';
import { defineTool } from './tool';

/** One widget as `observe` lists it. */
export function widgetSummary(target: WidgetTarget): WidgetSummary {
  const s = target.state();
  return {
    id: target.targetId,
    kind: target.kind,
    title: s.title,
    ready: s.ready,
    revision: s.revision,
    summary: target.describe(),
    notebook: target.notebook,
    error: s.error
  };
}

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
  const page = all.slice(offset, offset + args.limit);
  const widgets = page.map(widgetSummary);
  const text =
    all.length === 0
      ? 'No molspace widgets in this page. Run a notebook cell that displays molspace.Story(...).'
      : `${all.length} widget(s): ` + widgets.map(w => `${w.id} (${w.kind}: ${w.summary})`).join('; ');
  return {
    output: {
      pageId: context?.pageId ?? 'local',
      pages: context?.pages ?? [],
      widgets,
      activeWidget: registry.active?.targetId ?? null,
      lastAction,
      total: all.length,
      nextCursor: offset + page.length < all.length ? String(offset + page.length) : null
    },
    text
  };
});
