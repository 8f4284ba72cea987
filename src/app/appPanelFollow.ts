/**
 * The read the Panel App follows its panel by (docs/architecture.md, "MCP App"): the gateway keeps
 * the latest `render_panel` of each `panelId` it answered for a chat App, at the panel's
 * `follow.uri` (`ui://molspace/panels/<panelId>`, JSON: an `AppPanel`), and `AppFollower`
 * reads it through the host (`resources/read`) while the App is visible, rendering again when
 * `follow.seq` moved. So the model's later `render_panel` of the same `panelId` reaches the chat.
 */
import type { CallToolResult, ReadResourceResult } from '@modelcontextprotocol/client';

import { APP_PANEL_META } from '../contract/app';
import { MolspaceError } from '../contract/errors';
import type { FollowRead } from './appFollow';

/**
 * Whether `e` is "resource not found" for `uri`: MCP's -32002, which SDK 2.x clients and
 * hosts re-code as -32602 (invalid params) with `data.uri`.
 */
function notFound(e: unknown, uri: string): boolean {
  const err = e as { code?: unknown; data?: { uri?: unknown } } | null;
  return err?.code === -32002 || (err?.code === -32602 && err.data?.uri === uri);
}

/**
 * A {@link FollowRead} of the panel at `uri`: a tool-result-shaped answer whose
 * `structuredContent.panel.revision` is the kept panel's `follow.seq` and whose
 * `_meta["molspace/panel"]` is the panel (read by `appPanelOf`, which checks it).
 *
 * @throws MolspaceError `NOT_FOUND` at `uri` when the gateway no longer keeps the panel (its
 * last 16, until it restarts), which ends the following; `INTERNAL` for an answer that is not
 * a panel's JSON. The host's own failures are thrown as they come (`AppFollower` retries them).
 */
export function panelRead(read: (uri: string) => Promise<ReadResourceResult>, uri: string): FollowRead {
  return async (): Promise<CallToolResult> => {
    let answer: ReadResourceResult;
    try {
      answer = await read(uri);
    } catch (e) {
      if (notFound(e, uri)) {
        throw new MolspaceError(
          'NOT_FOUND',
          `The gateway no longer keeps this panel, so later render_panel calls of it do not reach this App: ${(e as Error).message}`,
          uri,
          'Call render_panel again to show it in a new App.',
          { uri }
        );
      }
      throw e;
    }
    const first = answer.contents[0];
    let panel: unknown;
    try {
      panel = JSON.parse(first && 'text' in first ? first.text : '');
    } catch {
      panel = null;
    }
    const seq = (panel as { follow?: { seq?: unknown } } | null)?.follow?.seq;
    if (!Number.isSafeInteger(seq)) {
      throw new MolspaceError('INTERNAL', "The host's answer for the panel is not a kept panel's JSON.", uri, 'Reload the App.', { uri });
    }
    return { content: [], structuredContent: { panel: { revision: seq } }, _meta: { [APP_PANEL_META]: panel } };
  };
}
