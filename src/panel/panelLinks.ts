/**
 * Links of report panels (docs/architecture.md, "Report panels"): a table
 * row or grid cell carrying a `PanelLink` gets a button; a click runs
 * `act` `{op: "focus", selector}` on the named Viewer or `story_control`
 * `goto` on the named Story through the page's Dispatcher, source `ui`, like
 * any other operation (so the activity panel, the change log and the kernel
 * see it). A refusal (the widget is gone: STALE_TARGET / NOT_FOUND; a
 * selector that matches nothing; an unknown step) comes back as a located
 * error for the panel to show, re-located under the link's pointer.
 */
import { MolspaceError, type LocatedError, type PanelLink } from '../contract';
import type { IMolspacePage } from '../tokens';
import { revealDocked } from '../dockPlacement';

/**
 * Follow `link` (at JSON pointer `where` of the panel content).
 *
 * @returns null once the Dispatcher applied it, else the located error to show.
 */
export type FollowLink = (link: PanelLink, where: string) => Promise<LocatedError | null>;

/** Make the button of the link at `where` (null: links are not followed here). */
export type LinkButton = (link: PanelLink, where: string) => HTMLElement | null;

/** The tool call a link makes: the Dispatcher's arguments. */
export function linkCall(link: PanelLink): { tool: 'act' | 'story_control'; args: Record<string, unknown> } {
  return link.op === 'focus'
    ? { tool: 'act', args: { target: link.viewer, actions: [{ op: 'focus', selector: link.selector }] } }
    : { tool: 'story_control', args: { target: link.story, action: 'goto', key: link.key } };
}

/** A one-line label of the button of `link`. */
export function linkLabel(link: PanelLink): string {
  return link.op === 'focus' ? 'Focus' : `Go to ${link.key}`;
}

/** The button's tooltip: what a click does, and where. */
export function linkTitle(link: PanelLink): string {
  return link.op === 'focus'
    ? `Focus ${JSON.stringify(link.selector)} in Viewer ${link.viewer}`
    : `Go to step "${link.key}" of Story ${link.story}`;
}

/**
 * A dispatcher error re-located for the panel: `where` becomes the link's
 * pointer plus the field the error names (`/target` → `/viewer` or `/story`,
 * `/actions/0/selector` → `/selector`, `/key`); the tool's own location stays
 * in `details.toolWhere`.
 */
export function linkError(e: unknown, link: PanelLink, where: string): LocatedError {
  const error = MolspaceError.from(e, 'panel link').toJSON();
  const field = error.where.endsWith('/selector') ? 'selector' : error.where === '/key' ? 'key' : link.op === 'focus' ? 'viewer' : 'story';
  const what = link.op === 'focus' ? `Viewer ${link.viewer}` : `Story ${link.story}`;
  return {
    ...error,
    message: `This link's ${what}: ${error.message}`,
    where: `${where}/${field}`,
    details: { ...error.details, toolWhere: error.where, tool: linkCall(link).tool }
  };
}

/** The page's link follower: every click is one Dispatcher call, source `ui`. */
export function linkFollower(page: Pick<IMolspacePage, 'dispatcher'>): FollowLink {
  return async (link, where) => {
    const { tool, args } = linkCall(link);
    revealDocked(String(args.target)); // a docked target behind another tab comes to the front
    try {
      await page.dispatcher.execute(tool, args, { source: 'ui' });
      return null;
    } catch (e) {
      return linkError(e, link, where);
    }
  };
}
