/**
 * Panel links in the Panel App (docs/architecture.md, "MCP App"): a panel a JupyterLab page
 * docked (its result names the page's panel) keeps its link buttons and linked chart marks in
 * the chat. A click makes the link's own call (`linkCall`: `act` focus or `goto_frame` on a
 * Viewer, `story_control` `goto` on a Story) through the host (`tools/call`, a fresh `actionId`),
 * so the docked widget moves in JupyterLab and an App that follows it; a refusal is shown in
 * the panel, located at the link (`linkError`). A panel shown with no page has no link buttons:
 * the widgets its links name are a page's.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';

import { MolspaceError } from '../contract/errors';
import { linkCall, linkError, type FollowLink } from '../panel/panelLinks';
import { newActionId } from './appActionId';
import type { CallTool } from './appFollow';
import { errorOfResult } from './appResult';

/** Whether `result` is a page's answer: it names the panel the page docked (`structuredContent.panel.target`). */
export function dockedByPage(result: CallToolResult): boolean {
  const panel = (result.structuredContent as { panel?: { target?: unknown } } | undefined)?.panel;
  return typeof panel?.target === 'string' && panel.target !== '';
}

/**
 * The App's link follower: each click is one call through the host.
 *
 * @returns null once the call was applied; else its located error, `where` the link's pointer
 * plus the field the error names (e.g. `/content/links/1/viewer`).
 */
export function appLinkFollower(call: CallTool): FollowLink {
  return async (link, where) => {
    const { tool, args } = linkCall(link);
    try {
      const result = await call(tool, { ...args, actionId: newActionId() });
      const failed = errorOfResult(result);
      if (failed) {
        return linkError(new MolspaceError(failed.code, failed.message, failed.where, failed.fix, failed.details), link, where);
      }
      if (result.isError) {
        return linkError(new MolspaceError('INTERNAL', `${tool} failed without a located error.`, '', 'Call it again.', {}), link, where);
      }
      return null;
    } catch (e) {
      return linkError(e, link, where);
    }
  };
}
