/**
 * The Panel App following its kept panel (`../appPanelFollow.ts` through `../appFollow.ts`): it
 * reads only the panel's `follow.uri` (`resources/read`), renders a moved `seq` with the panel
 * whole, ends when the gateway keeps the panel no longer, and refuses an answer that is not a
 * kept panel. Jest's fake timers stand for the period; the panel is read with the contract's
 * `AppPanel`, as `appPanelOf` reads it (its renderer needs JupyterLab's ES modules).
 */
import type { ReadResourceResult } from '@modelcontextprotocol/client';

import { APP_PANEL_META, AppPanel } from '../../contract/app';
import { AppFollower } from '../appFollow';
import { panelRead } from '../appPanelFollow';

const URI = 'ui://molspace/panels/notes';

function kept(seq: number, markdown = `v${seq}`): ReadResourceResult {
  const panel = { panelId: 'notes', title: 'Notes', content: { type: 'markdown', markdown }, follow: { uri: URI, seq } };
  return { contents: [{ uri: URI, mimeType: 'application/json', text: JSON.stringify(panel) }] };
}

describe('the Panel App follows its kept panel', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function follow(answers: Array<ReadResourceResult | Error>) {
    const reads: string[] = [];
    const shown: string[] = [];
    const lost: Array<[string, string, boolean]> = [];
    const read = async (uri: string): Promise<ReadResourceResult> => {
      reads.push(uri);
      const next = answers.shift() ?? kept(1);
      if (next instanceof Error) {
        throw next;
      }
      return next;
    };
    const follower = new AppFollower({
      read: { what: `resources/read ${URI}`, read: panelRead(read, URI) },
      widget: { kind: 'panel', target: URI, revision: 1 },
      changed: async (_s, result) => {
        const panel = AppPanel.parse((result._meta as Record<string, unknown>)[APP_PANEL_META]);
        shown.push((panel.content as { markdown: string }).markdown);
      },
      lost: (e, ended) => void lost.push([e.code, e.where, ended]),
      hidden: () => false
    });
    return { follower, reads, shown, lost };
  }

  it('reads only its resource and renders the panel whole when seq moved', async () => {
    const { reads, shown } = follow([kept(1), kept(4, 'updated'), kept(4, 'updated'), kept(9, 'again')]);
    for (let i = 0; i < 4; i++) {
      await jest.advanceTimersToNextTimerAsync();
    }
    expect(reads).toEqual(Array(4).fill(URI));
    expect(shown).toEqual(['updated', 'again']);
  });

  it.each([
    ['MCP -32002', { code: -32002, data: { where: '/uri' } }],
    ['SDK 2.x -32602 with data.uri', { code: -32602, data: { uri: URI } }]
  ])('a panel the gateway keeps no longer (resource not found: %s) ends the following, located', async (_, error) => {
    const gone = Object.assign(new Error('No panel kept (at /uri)'), error);
    const { follower, reads, lost } = follow([gone, kept(5)]);
    await jest.advanceTimersToNextTimerAsync();
    await jest.advanceTimersToNextTimerAsync();
    expect(lost).toEqual([['NOT_FOUND', URI, true]]);
    expect(follower.following).toBe(false);
    expect(reads).toHaveLength(1);
  });

  it('invalid params about something else is not taken for a dropped panel: the following goes on', async () => {
    const other = Object.assign(new Error('Invalid params'), { code: -32602, data: { uri: 'ui://molspace/panels/other' } });
    const { follower, lost } = follow([other]);
    await jest.advanceTimersToNextTimerAsync();
    expect(lost).toEqual([['INTERNAL', `App resources/read ${URI}`, false]]);
    expect(follower.following).toBe(true);
    follower.stop();
  });

  it('an answer that is not a kept panel is a located INTERNAL error and the following goes on', async () => {
    const notJson: ReadResourceResult = { contents: [{ uri: URI, mimeType: 'application/json', text: '<html>' }] };
    const noSeq: ReadResourceResult = { contents: [{ uri: URI, text: JSON.stringify({ panelId: 'notes' }) }] };
    const { follower, shown, lost } = follow([notJson, noSeq, kept(2, 'fine')]);
    for (let i = 0; i < 3; i++) {
      await jest.advanceTimersToNextTimerAsync();
    }
    expect(lost).toEqual([
      ['INTERNAL', URI, false],
      ['INTERNAL', URI, false]
    ]);
    expect(shown).toEqual(['fine']);
    expect(follower.following).toBe(true);
    follower.stop();
  });

  it('hands the kept panel over as a result the contract reads like any other', async () => {
    const result = await panelRead(async () => kept(3), URI)();
    expect(result.structuredContent).toEqual({ panel: { revision: 3 } });
    expect((result._meta as Record<string, unknown>)[APP_PANEL_META]).toMatchObject({ panelId: 'notes', follow: { uri: URI, seq: 3 } });
    expect(AppPanel.parse((result._meta as Record<string, unknown>)[APP_PANEL_META]).follow).toEqual({ uri: URI, seq: 3 });
  });
});
