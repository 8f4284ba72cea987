/**
 * Panel links: the contract (reusing act's MVS component selector), the
 * one-link-per-row bound, the Dispatcher call a click makes and the located
 * error a refused link shows. Galata clicks them on a real Viewer and Story
 * (ui-tests/tests/panelLinks.spec.ts); the table DOM is in panelLinksTable.spec.ts.
 */
import { MolspaceError, PanelContent, PanelLink } from '../../contract';
import { WidgetRegistry } from '../../dispatcher/registry';
import { checkPanelContent } from '../panelContent';
import { linkCall, linkError, linkFollower, linkLabel, linkTitle } from '../panelLinks';
import { pageDispatcher } from '../../tools';

const focus = { op: 'focus', viewer: 'v1', selector: { auth_asym_id: 'A', auth_seq_id: 200 } } as const;
const goto = { op: 'goto', story: 's1', key: 'surface' } as const;
const frame = { op: 'goto_frame', viewer: 'v1', frame: 12 } as const;

describe('PanelLink', () => {
  it('takes act selectors (static, expression, list) and Story keys', () => {
    expect(PanelLink.parse(focus)).toEqual(focus);
    expect(PanelLink.parse({ ...focus, selector: 'ligand' }).op).toBe('focus');
    expect(PanelLink.parse({ ...focus, selector: [{ label_asym_id: 'A' }, { label_asym_id: 'B' }] }).op).toBe('focus');
    expect(PanelLink.parse(goto)).toEqual(goto);
  });

  it('refuses a selector act refuses, and mixed fields', () => {
    expect(PanelLink.safeParse({ ...focus, selector: 'everything' }).success).toBe(false);
    expect(PanelLink.safeParse({ ...focus, selector: { auth_seq_id: 'ten' } }).success).toBe(false);
    expect(PanelLink.safeParse({ ...goto, selector: 'ligand' }).success).toBe(false);
    expect(PanelLink.safeParse({ op: 'goto', story: 's1' }).success).toBe(false);
  });

  it('is the act focus / story_control goto call', () => {
    expect(linkCall(focus)).toEqual({ tool: 'act', args: { target: 'v1', actions: [{ op: 'focus', selector: focus.selector }] } });
    expect(linkCall(goto)).toEqual({ tool: 'story_control', args: { target: 's1', action: 'goto', key: 'surface' } });
  });
});

describe('goto_frame links', () => {
  it('take a Viewer id and a 0-based integer frame, nothing else', () => {
    expect(PanelLink.parse(frame)).toEqual(frame);
    expect(PanelLink.parse({ ...frame, frame: 0 }).op).toBe('goto_frame');
    for (const bad of [
      { ...frame, frame: -1 },
      { ...frame, frame: 1.5 },
      { ...frame, frame: '12' },
      { op: 'goto_frame', viewer: 'v1' },
      { op: 'goto_frame', frame: 3 },
      { ...frame, viewer: '' },
      { ...frame, selector: 'ligand' },
      { op: 'goto_frame', story: 's1', frame: 3 }
    ]) {
      expect(PanelLink.safeParse(bad).success).toBe(false);
    }
  });

  it("is act's goto_frame on the Viewer, labelled and titled with the frame", () => {
    expect(linkCall(frame)).toEqual({ tool: 'act', args: { target: 'v1', actions: [{ op: 'goto_frame', frame: 12 }] } });
    expect(linkLabel(frame)).toBe('Frame 12');
    expect(linkTitle(frame)).toBe('Go to frame 12 of Viewer v1');
    expect([linkLabel(focus), linkLabel(goto)]).toEqual(['Focus', 'Go to surface']);
  });

  it("a refused frame is located at the link's frame, a gone Viewer at its viewer", () => {
    const range = new MolspaceError('VALIDATION_FAILED', 'Frame 12 is out of range.', '/actions/0/frame', 'Pass 0 to 9.', { frames: 10 });
    expect(linkError(range, frame, '/content/links/3')).toMatchObject({
      code: 'VALIDATION_FAILED',
      where: '/content/links/3/frame',
      message: "This link's Viewer v1: Frame 12 is out of range.",
      details: { frames: 10, toolWhere: '/actions/0/frame', tool: 'act' }
    });
    const gone = new MolspaceError('STALE_TARGET', 'gone', '/target', 'reopen', {});
    expect(linkError(gone, frame, '/content/links/3').where).toBe('/content/links/3/viewer');
    // A focus link's selector error stays at its selector; a frame field does not exist there.
    const sel = new MolspaceError('NOT_FOUND', 'no atoms', '/actions/0/selector', 'fix', {});
    expect(linkError(sel, focus, '/content/links/0').where).toBe('/content/links/0/selector');
  });
});

describe('table links bound', () => {
  const table = (links: unknown[]) => PanelContent.parse({ type: 'table', columns: [{ name: 'a' }], rows: [['x'], ['y']], links });

  it('accepts one link or null per row, fewer than rows too', async () => {
    await expect(checkPanelContent(table([focus, null]))).resolves.toBeUndefined();
    await expect(checkPanelContent(table([goto]))).resolves.toBeUndefined();
  });

  it('refuses more links than rows, at the first extra link', async () => {
    const e = await checkPanelContent(table([focus, null, goto])).catch(x => x);
    expect(e).toBeInstanceOf(MolspaceError);
    expect(e.toJSON()).toMatchObject({ code: 'VALIDATION_FAILED', where: '/content/links/2', details: { links: 3, rows: 2 } });
  });
});

describe('linkFollower', () => {
  it('runs the call through the Dispatcher as source ui and re-locates a refusal under the link', async () => {
    const registry = new WidgetRegistry();
    const dispatcher = pageDispatcher(registry);
    const calls: { tool: string; source: string; ok: boolean }[] = [];
    dispatcher.executed.connect((_, e) => calls.push({ tool: e.tool, source: e.source, ok: e.ok }));
    const follow = linkFollower({ dispatcher });
    const missing = await follow(focus, '/content/links/2');
    expect(missing).toMatchObject({ code: 'NOT_FOUND', where: '/content/links/2/viewer', details: { toolWhere: '/target', tool: 'act' } });
    expect(missing!.message).toContain('Viewer v1');
    registry.retire('s1', 'its tab was closed');
    const stale = await follow(goto, '/content/molecules/0/link');
    expect(stale).toMatchObject({ code: 'STALE_TARGET', where: '/content/molecules/0/link/story', details: { tool: 'story_control' } });
    expect(calls).toEqual([
      { tool: 'act', source: 'ui', ok: false },
      { tool: 'story_control', source: 'ui', ok: false }
    ]);
  });
});
