/**
 * `render_panel` through a real Dispatcher, with in-memory panels and host
 * (no JupyterLab): create, update by id, expectedRevision, actionId, placement,
 * the docked bound. Galata runs the same path in Chromium (ui-tests/tests/panels.spec.ts).
 */
import { LIMITS, MolspaceError, type ChangeEntry, type ChangeSource, type PanelContent, type PanelState } from '../../contract';
import { WidgetRegistry } from '../../dispatcher/registry';
import { setPanelHost, type NewPanel } from '../panelHost';
import { panelSummary, type PanelUpdate } from '../panelTarget';
import type { GivenDepictions } from '../givenDepictions';
import { pageDispatcher } from '../../tools';
import { APPLIED_ACTIONS_ATTR, APPLIED_ACTIONS_MEMORY, AppliedRequests } from '../../kernel/appliedRequests';
import { SyncedAttributes } from '../../__tests__/syncedAttributes';

class MemoryPanel implements NewPanel {
  readonly kind = 'panel' as const;
  readonly notebook = null;
  revision = 0;
  applied: PanelUpdate[] = [];
  constructor(
    readonly targetId: string,
    readonly panelId: string,
    readonly placement: 'docked' | 'inline',
    private _content: PanelContent,
    private _title = 'T'
  ) {}
  whenLoaded(): Promise<void> {
    return Promise.resolve();
  }
  state(): PanelState {
    return {
      target: this.targetId,
      kind: 'panel',
      panelId: this.panelId,
      title: this._title,
      placement: this.placement,
      type: this._content.type,
      ready: true,
      revision: this.revision,
      error: null
    };
  }
  content(): PanelContent {
    return this._content;
  }
  describe(): string {
    return panelSummary(this.state(), this._content);
  }
  open(source: ChangeSource, summary: string, depictions?: GivenDepictions): Promise<ChangeEntry> {
    return this.applyContent({ content: this._content, depictions }, source, summary);
  }
  async applyContent(update: PanelUpdate, source: ChangeSource, summary: string): Promise<ChangeEntry> {
    this.revision += 1;
    this._content = update.content;
    this._title = update.title ?? this._title;
    this.applied.push(update);
    return { revision: this.revision, source, summary };
  }
}

const md = (markdown: string): PanelContent => ({ type: 'markdown', markdown });

function page(withHost = true) {
  const registry = new WidgetRegistry();
  const docked: MemoryPanel[] = [];
  if (withHost) {
    setPanelHost(registry, {
      dock(panelId, title, content) {
        const panel = new MemoryPanel(panelId, panelId, 'docked', content, title);
        registry.register(panel);
        docked.push(panel);
        return panel;
      }
    });
  }
  return { registry, docked, dispatcher: pageDispatcher(registry) };
}

async function refused(p: Promise<unknown>): Promise<MolspaceError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof MolspaceError) {
      return e;
    }
    throw e;
  }
  throw new Error('expected a refusal');
}

const agent = { source: 'agent' as const };

describe('render_panel', () => {
  it('opens a docked panel, then updates it by panelId', async () => {
    const { dispatcher, docked } = page();
    const first = await dispatcher.execute('render_panel', { panelId: 'notes', title: 'Notes', content: md('a') }, agent);
    expect(first.structuredContent).toMatchObject({
      created: true,
      previousRevision: null,
      panel: { panelId: 'notes', revision: 1, title: 'Notes' }
    });
    const second = await dispatcher.execute('render_panel', { panelId: 'notes', expectedRevision: 1, content: md('b') }, agent);
    expect(second.structuredContent).toMatchObject({ created: false, previousRevision: 1, panel: { revision: 2, title: 'Notes' } });
    expect(docked).toHaveLength(1);
    expect(docked[0].applied.map(u => u.content)).toEqual([md('a'), md('b')]);
  });

  it('gives a new id without panelId', async () => {
    const { dispatcher } = page();
    const a = await dispatcher.execute('render_panel', { content: md('a') }, agent);
    const b = await dispatcher.execute('render_panel', { content: md('b') }, agent);
    expect([a.structuredContent.panel, b.structuredContent.panel]).toMatchObject([{ panelId: 'panel-1' }, { panelId: 'panel-2' }]);
  });

  it('refuses a stale expectedRevision with both revisions and the changes since', async () => {
    const { dispatcher } = page();
    await dispatcher.execute('render_panel', { panelId: 'p', content: md('a') }, agent);
    await dispatcher.execute('render_panel', { panelId: 'p', content: md('b') }, { source: 'kernel' });
    const err = await refused(dispatcher.execute('render_panel', { panelId: 'p', expectedRevision: 1, content: md('c') }, agent));
    expect(err).toMatchObject({
      code: 'REVISION_CONFLICT',
      where: '/expectedRevision',
      details: { expectedRevision: 1, currentRevision: 2 }
    });
    expect(err.details.changes).toEqual([expect.objectContaining({ revision: 2, source: 'kernel' })]);
  });

  it('replays a retried actionId without applying again', async () => {
    const { dispatcher, docked } = page();
    await dispatcher.execute('render_panel', { panelId: 'p', content: md('a') }, agent);
    const args = { panelId: 'p', actionId: 'x', content: md('b') };
    await dispatcher.execute('render_panel', args, agent);
    const again = await dispatcher.execute('render_panel', args, agent);
    expect(again.structuredContent).toMatchObject({ replayed: true, panel: { revision: 2 } });
    expect(docked[0].revision).toBe(2);
  });

  it("an inline panel's update that reached the kernel unanswered is replayed by the reloaded page, not applied again", async () => {
    // The page that applied it went away before answering; the kernel kept the panel's synced state.
    const attrs = new SyncedAttributes();
    attrs.set(APPLIED_ACTIONS_ATTR, []);
    const inline = () =>
      Object.assign(new MemoryPanel('model-7', 'cell-notes', 'inline', md('from the cell')), {
        appliedActions: new AppliedRequests(attrs, APPLIED_ACTIONS_ATTR, APPLIED_ACTIONS_MEMORY)
      });
    const first = page();
    const before = inline();
    first.registry.register(before);
    const args = { panelId: 'cell-notes', actionId: 'u1', content: md('agent') };
    await first.dispatcher.execute('render_panel', args, agent);
    expect(attrs.get(APPLIED_ACTIONS_ATTR)).toEqual(['render_panel:u1']);

    const reloaded = page();
    const after = inline();
    after.revision = before.revision;
    reloaded.registry.register(after);
    const retry = await reloaded.dispatcher.execute('render_panel', args, agent);
    expect(retry.structuredContent).toMatchObject({ replayed: true, created: false, changes: [], panel: { revision: 1 } });
    expect(retry.text).toMatch(/replayed actionId u1: not applied again/);
    expect(after.applied).toEqual([]);
    // A new actionId applies.
    await reloaded.dispatcher.execute('render_panel', { ...args, actionId: 'u2' }, agent);
    expect(after.revision).toBe(2);
  });

  it('updates an inline panel by its panelId or target, never moves it, never creates one', async () => {
    const { dispatcher, registry } = page();
    const inline = new MemoryPanel('model-7', 'cell-notes', 'inline', md('from the cell'));
    registry.register(inline);
    await dispatcher.execute('render_panel', { panelId: 'cell-notes', content: md('agent') }, agent);
    await dispatcher.execute('render_panel', { target: 'model-7', content: md('kernel') }, { source: 'kernel' });
    expect(inline.revision).toBe(2);
    const moved = await refused(
      dispatcher.execute('render_panel', { panelId: 'cell-notes', placement: 'docked', content: md('x') }, agent)
    );
    expect(moved).toMatchObject({ code: 'INVALID_INPUT', where: '/placement' });
    const created = await refused(dispatcher.execute('render_panel', { panelId: 'other', placement: 'inline', content: md('x') }, agent));
    expect(created).toMatchObject({ code: 'NOT_FOUND', where: '/panelId' });
    const missing = await refused(dispatcher.execute('render_panel', { target: 'model-9', content: md('x') }, agent));
    expect(missing).toMatchObject({ code: 'NOT_FOUND', where: '/target' });
  });

  it('addresses the newest panel of a panelId (a re-run cell makes a new widget)', async () => {
    const { dispatcher, registry } = page();
    const old = new MemoryPanel('model-1', 'notes', 'inline', md('first run'));
    const rerun = new MemoryPanel('model-2', 'notes', 'inline', md('second run'));
    registry.register(old);
    registry.register(rerun);
    await dispatcher.execute('render_panel', { panelId: 'notes', content: md('agent') }, agent);
    expect([old.revision, rerun.revision]).toEqual([0, 1]);
  });

  it('refuses expectedRevision for a panel that does not exist', async () => {
    const { dispatcher } = page();
    const err = await refused(dispatcher.execute('render_panel', { panelId: 'p', expectedRevision: 0, content: md('x') }, agent));
    expect(err).toMatchObject({ code: 'NOT_FOUND', where: '/panelId' });
  });

  it('bounds the docked panels of a page', async () => {
    const { dispatcher } = page();
    for (let i = 0; i < LIMITS.dockedPanels; i++) {
      await dispatcher.execute('render_panel', { content: md(String(i)) }, agent);
    }
    const err = await refused(dispatcher.execute('render_panel', { content: md('one more') }, agent));
    expect(err).toMatchObject({ code: 'TOO_LARGE', details: { limit: 'dockedPanels', max: LIMITS.dockedPanels } });
    // updating an open one still works
    await expect(dispatcher.execute('render_panel', { panelId: 'panel-1', content: md('u') }, agent)).resolves.toBeDefined();
  });

  it('checks the content before anything changes', async () => {
    const { dispatcher, docked } = page();
    await dispatcher.execute('render_panel', { panelId: 'p', content: md('a') }, agent);
    const table = { type: 'table', columns: [{ name: 'n', type: 'number' }], rows: [['x']] };
    const err = await refused(dispatcher.execute('render_panel', { panelId: 'p', content: table }, agent));
    expect(err).toMatchObject({ code: 'VALIDATION_FAILED', where: '/content/rows/0/0' });
    expect(docked[0].revision).toBe(1);
  });

  it('says so when the page cannot dock', async () => {
    const { dispatcher } = page(false);
    const err = await refused(dispatcher.execute('render_panel', { content: md('a') }, agent));
    expect(err).toMatchObject({ code: 'NOT_FOUND', where: '/placement' });
  });

  it("hands a grid the gateway's depictions from the relayed call's context, not its arguments", async () => {
    const { dispatcher, docked } = page();
    const svg = "<svg xmlns='http://www.w3.org/2000/svg'/>";
    const grid: PanelContent = { type: 'molecules', molecules: [{ smiles: 'CCO' }, { smiles: 'CCN' }] };
    const context = { pageId: 'p', pages: [], depictions: { CCO: svg, CCN: '<p>not svg</p>' } };
    await dispatcher.execute('render_panel', { panelId: 'g', content: grid }, { ...agent, context });
    const given = docked[0].applied[0].depictions!;
    expect(given.drawnBy).toBe('gateway');
    expect(given.url('CCO')).toBeDefined();
    expect(given.url('CCN')).toBeUndefined(); // ignored: Indigo draws it
    // an update by panelId gets its own call's (none here: Indigo draws all)
    await dispatcher.execute('render_panel', { panelId: 'g', content: grid }, agent);
    expect(docked[0].applied[1].depictions).toBeUndefined();
    // other content carries none
    await dispatcher.execute('render_panel', { panelId: 'g', content: md('x') }, { ...agent, context });
    expect(docked[0].applied[2].depictions).toBeUndefined();
  });
});
