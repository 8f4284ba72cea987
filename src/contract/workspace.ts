/**
 * Workspace state returned by `observe`: pages, widgets and the last action.
 */
import { z } from 'zod';
import { ChangeSource } from './story';
import { LocatedError } from './errors';

/** The kinds of molspace widget. */
export const WidgetKind = z.enum(['story', 'panel', 'viewer', 'ketcher']);
export type WidgetKind = z.infer<typeof WidgetKind>;

/** How errors and hints name a widget kind. */
export interface WidgetKindInfo {
  /** The kind's name in messages, e.g. "Story". */
  label: string;
  /** The tool that observes one widget of this kind in full. */
  observeTool: string;
  /** The notebook code that shows one, for fixes. */
  display: string;
  /** The tool call an agent opens one with (MCP only), for fixes. */
  agentOpen: string;
}

export const WIDGET_KIND_INFO: Record<WidgetKind, WidgetKindInfo> = {
  story: {
    label: 'Story',
    observeTool: 'story_observe',
    display: 'molspace.Story(...)',
    agentOpen: 'story_template_create (or story_create) with open: true'
  },
  panel: { label: 'Panel', observeTool: 'observe', display: 'molspace.Panel(...)', agentOpen: 'render_panel' },
  viewer: { label: 'Viewer', observeTool: 'viewer_observe', display: 'molspace.Viewer("file.pdb")', agentOpen: 'open with path or pdbId' },
  ketcher: { label: 'Ketcher editor', observeTool: 'observe', display: 'molspace.Ketcher()', agentOpen: 'ketcher_open' }
};

/** A JupyterLab page (browser tab) connected to the gateway's bridge. */
export const PageInfo = z.object({
  pageId: z.string(),
  focused: z.boolean().describe('True for the page calls are routed to by default.'),
  connectedAt: z.string().describe('ISO 8601 time the page connected.'),
  lastFocusAt: z.string().describe('ISO 8601 time the page was last focused.'),
  widgets: z.number().int().min(0).describe('molspace widgets live in the page.')
});
export type PageInfo = z.infer<typeof PageInfo>;

/** Summary of one molspace widget in a page. */
export const WidgetSummary = z.object({
  id: z.string().describe('Model id; use it as `target`.'),
  kind: WidgetKind,
  title: z.string(),
  ready: z.boolean(),
  revision: z.number().int().min(0),
  summary: z.string().describe('One line: what the widget shows now.'),
  notebook: z.string().nullable().describe('Notebook path that owns the widget, if known.'),
  error: LocatedError.nullable()
});
export type WidgetSummary = z.infer<typeof WidgetSummary>;

/** Result of the last state-changing operation in the page. */
export const LastAction = z.object({
  tool: z.string(),
  target: z.string(),
  source: ChangeSource,
  ok: z.boolean(),
  revision: z.number().int().nullable(),
  summary: z.string(),
  at: z.string()
});
export type LastAction = z.infer<typeof LastAction>;
