/**
 * Panel links in the Panel App (`../appPanelLinks.ts`): only a page's answer turns them on; a
 * click is the link's own tool call through the host with a fresh actionId, and a refusal comes
 * back located at the link.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';

import { errorResultText, MolspaceError } from '../../contract/errors';
import type { PanelLink } from '../../contract/panel';
import { appLinkFollower, dockedByPage } from '../appPanelLinks';

const ok: CallToolResult = { content: [{ type: 'text', text: 'ok' }], structuredContent: { viewer: { revision: 3 } } };

describe('panel links in the App', () => {
  it("are followed only for a page's answer (it names the docked panel)", () => {
    expect(dockedByPage({ content: [], structuredContent: { panel: { target: 'contacts', revision: 1 } } })).toBe(true);
    expect(dockedByPage({ content: [], structuredContent: { app: { panelId: 'notes' } } })).toBe(false);
    expect(dockedByPage({ content: [], structuredContent: { panel: { target: '' } } })).toBe(false);
    expect(dockedByPage({ content: [] })).toBe(false);
  });

  it("make the link's own call through the host, each with a fresh actionId", async () => {
    const calls: Array<[string, Record<string, unknown>]> = [];
    const follow = appLinkFollower(async (name, args) => {
      calls.push([name, args]);
      return ok;
    });
    const focus: PanelLink = { op: 'focus', viewer: 'v1', selector: { auth_seq_id: 10 } };
    const goto: PanelLink = { op: 'goto', story: 's1', key: 'binding-site' };
    expect(await follow(focus, '/content/links/0')).toBeNull();
    expect(await follow(goto, '/content/links/1')).toBeNull();
    expect(await follow({ op: 'goto_frame', viewer: 'v1', frame: 4 }, '/content/links/2')).toBeNull();
    expect(calls.map(([name, { actionId, ...args }]) => [name, args])).toEqual([
      ['act', { target: 'v1', actions: [{ op: 'focus', selector: { auth_seq_id: 10 } }] }],
      ['story_control', { target: 's1', action: 'goto', key: 'binding-site' }],
      ['act', { target: 'v1', actions: [{ op: 'goto_frame', frame: 4 }] }]
    ]);
    const ids = calls.map(([, args]) => args.actionId);
    expect(ids.every(id => typeof id === 'string' && id.startsWith('app-'))).toBe(true);
    expect(new Set(ids).size).toBe(3);
  });

  it('a refusal is located at the link, the tool and its own pointer kept in details', async () => {
    const refused: CallToolResult = {
      isError: true,
      content: [
        { type: 'text', text: errorResultText(new MolspaceError('NOT_FOUND', 'No widget v9.', '/target', 'Call observe.', {}).toJSON()) }
      ]
    };
    const follow = appLinkFollower(async () => refused);
    const error = await follow({ op: 'focus', viewer: 'v9', selector: 'all' }, '/content/links/1');
    expect(error).toMatchObject({
      code: 'NOT_FOUND',
      where: '/content/links/1/viewer',
      fix: 'Call observe.',
      details: { toolWhere: '/target', tool: 'act' }
    });
    expect(error!.message).toContain('Viewer v9');
  });

  it("an error result with no located error, or the host's own failure, is a located INTERNAL at the link", async () => {
    const bare = appLinkFollower(async () => ({ isError: true, content: [{ type: 'text', text: 'boom' }] }));
    expect(await bare({ op: 'goto', story: 's1', key: 'k' }, '/content/molecules/0/link')).toMatchObject({
      code: 'INTERNAL',
      where: '/content/molecules/0/link/story'
    });
    const thrown = appLinkFollower(async () => {
      throw new Error('socket closed');
    });
    expect(await thrown({ op: 'goto', story: 's1', key: 'k' }, '/content/links/0')).toMatchObject({
      code: 'INTERNAL',
      where: '/content/links/0/story'
    });
  });
});
