/**
 * A report panel as the Dispatcher and `render_panel` see it, docked
 * (`DockedPanel`, page-owned) or inline (`PanelModel`, a cell's widget).
 */
import type { ChangeEntry, ChangeSource, PanelContent, PanelPlacement, PanelState } from '../contract';
import type { WidgetTarget } from '../dispatcher/widgetTarget';
import type { GivenDepictions } from './givenDepictions';

/** A new content (and optionally title) for a panel. */
export interface PanelUpdate {
  content: PanelContent;
  title?: string;
  /** A grid's first page the gateway drew with RDKit for an agent's call (`CallContext.depictions`, read). */
  depictions?: GivenDepictions;
}

/** A panel: a {@link WidgetTarget} of kind `panel`. */
export interface PanelTarget extends WidgetTarget {
  readonly kind: 'panel';
  /** The id `render_panel` addresses it by (`panelId`). */
  readonly panelId: string;
  readonly placement: PanelPlacement;
  state(): PanelState;
  /** The content shown now, or null while none is valid. */
  content(): PanelContent | null;
  /**
   * Replace the content (already checked by `checkPanelContent`): advance the
   * revision by one and resolve once it is rendered (at once when no view
   * shows the panel).
   *
   * @throws MolspaceError when rendering fails (the state then carries the error).
   */
  applyContent(update: PanelUpdate, source: ChangeSource, summary: string): Promise<ChangeEntry>;
}

/** The panel's one-line summary for `observe`. */
export function panelSummary(state: PanelState, content: PanelContent | null, stale: readonly string[] = []): string {
  const what =
    content === null
      ? 'no content'
      : content.type === 'table'
        ? `table, ${content.rows.length} rows × ${content.columns.length} columns`
        : content.type === 'chart'
          ? `Vega-Lite chart${typeof content.spec.mark === 'string' ? ` (${content.spec.mark})` : ''}`
          : content.type === 'molecules'
            ? `molecule grid, ${(content.molecules ?? []).length} molecules`
            : `markdown, ${content.markdown.length} characters`;
  const error = state.error ? `; error ${state.error.code}: ${state.error.message}` : '';
  const gone = stale.length
    ? `; stale links to ${stale.slice(0, 5).join(', ')}${stale.length > 5 ? ', …' : ''} (no longer in the page)`
    : '';
  return `${state.placement} panel "${state.panelId}": ${what}${error}${gone}`;
}

/** A short title for content without one. */
export function defaultTitle(content: PanelContent): string {
  return content.type === 'markdown' ? 'Notes' : content.type === 'table' ? 'Table' : content.type === 'molecules' ? 'Molecules' : 'Chart';
}

declare module '../dispatcher/widgetTarget' {
  /** `panel` widgets are {@link PanelTarget}s. */
  interface WidgetTargets {
    panel: PanelTarget;
  }
}
