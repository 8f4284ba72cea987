/**
 * @jest-environment jsdom
 */
/**
 * A linked chart in the panel renderer, through a fake of JupyterLab's Vega renderer (the model
 * it is given, vega-embed's `_result.view`): the spec embedded as SVG with row indices, a click
 * on a point follows its link through the page's follower, a click on a line or an unlinked
 * point follows nothing, a refusal shows located in the panel.
 */
import type { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { PanelContent, type LocatedError, type PanelLink } from '../../contract';
import { CHART_ROW_FIELD } from '../chartLinks';
import { PanelRenderer, VEGALITE_MIME } from '../panelRenderer';

const frame = (f: number) => ({ op: 'goto_frame', viewer: 'v1', frame: f }) as const;
const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ frame: i, rmsd: 1 + (i % 3) }));
const chart = (values: unknown, links?: unknown) =>
  PanelContent.parse({
    type: 'chart',
    spec: {
      data: { values },
      mark: { type: 'line', point: true },
      encoding: { x: { field: 'frame', type: 'quantitative' }, y: { field: 'rmsd', type: 'quantitative' } }
    },
    ...(links ? { links } : {})
  });

/** JupyterLab's Vega renderer as far as a panel uses it: the model it was given, vega-embed's `_result.view`. */
class FakeVega {
  readonly node = document.createElement('div');
  model: { data: Record<string, unknown>; metadata: Record<string, unknown> } | null = null;
  click: ((event: unknown, item: unknown) => void) | null = null;
  _result: { view: { addEventListener: (type: string, h: (event: unknown, item: unknown) => void) => void } } | undefined;
  constructor(withView: boolean) {
    this._result = withView ? { view: { addEventListener: (_type, h) => (this.click = h) } } : undefined;
  }
  async renderModel(model: { data: Record<string, unknown>; metadata: Record<string, unknown> }): Promise<void> {
    this.model = model;
  }
  dispose(): void {}
}

function fakeRendermime(withView = true): { rendermime: IRenderMimeRegistry; made: FakeVega[] } {
  const made: FakeVega[] = [];
  const rendermime = {
    mimeTypes: [VEGALITE_MIME, 'text/markdown'],
    createRenderer: () => {
      const r = new FakeVega(withView);
      made.push(r);
      return r;
    },
    createModel: (options: { data: Record<string, unknown>; metadata?: Record<string, unknown> }) => ({
      data: options.data,
      metadata: options.metadata ?? {}
    })
  } as unknown as IRenderMimeRegistry;
  return { rendermime, made };
}

describe('PanelRenderer chart links', () => {
  const symbol = (row: number) => ({ mark: { marktype: 'symbol' }, datum: { frame: row, [CHART_ROW_FIELD]: row } });

  it('embeds the linked spec as SVG; a click on a point follows its link, a click on the line or an unlinked point nothing', async () => {
    const { rendermime, made } = fakeRendermime();
    const followed: [PanelLink, string][] = [];
    const renderer = new PanelRenderer(
      () => rendermime,
      null,
      undefined,
      async (link, where) => {
        followed.push([link, where]);
        return null;
      }
    );
    const content = chart(rows(3), [frame(0), null, frame(2)]);
    expect(await renderer.render(content, 1)).toBe(true);
    const vega = made[0];
    const embedded = vega.model!.data[VEGALITE_MIME] as { data: { values: Record<string, unknown>[] } };
    expect(embedded.data.values.map(v => v[CHART_ROW_FIELD])).toEqual([0, 1, 2]);
    expect(vega.model!.metadata[VEGALITE_MIME]).toEqual({ embed_options: { actions: false, renderer: 'svg' } });
    const node = renderer.node.querySelector('.molspace-panel-chart') as HTMLElement;
    expect(node.dataset.molspaceChartLinks).toBe('on');

    vega.click!({}, symbol(2));
    await Promise.resolve();
    expect(followed).toEqual([[frame(2), '/content/links/2']]);
    await new Promise(r => setTimeout(r, 0));
    expect(node.dataset.molspaceLinkState).toBe('done');
    expect(node.dataset.molspaceLink).toBe('/content/links/2');
    vega.click!({}, symbol(1));
    vega.click!({}, { mark: { marktype: 'line' }, datum: { [CHART_ROW_FIELD]: 0 } });
    vega.click!({}, null);
    expect(followed).toHaveLength(1);
  });

  it("shows a refused link's located error in the panel", async () => {
    const { rendermime, made } = fakeRendermime();
    const refusal: LocatedError = {
      code: 'VALIDATION_FAILED',
      message: 'Frame 9 is out of range.',
      where: '/content/links/0/frame',
      fix: 'Pass 0 to 7.',
      details: {}
    };
    const renderer = new PanelRenderer(
      () => rendermime,
      null,
      undefined,
      async () => refusal
    );
    await renderer.render(chart(rows(1), [frame(9)]), 1);
    made[0].click!({}, symbol(0));
    await new Promise(r => setTimeout(r, 0));
    expect(renderer.linkErrorNode.hidden).toBe(false);
    expect(renderer.linkErrorNode.textContent).toContain('Where: /content/links/0/frame');
    expect((renderer.node.querySelector('.molspace-panel-chart') as HTMLElement).dataset.molspaceLinkState).toBe('error');
  });

  it('embeds a chart without links (or without a follower) as given, on the default renderer', async () => {
    for (const [content, follow] of [
      [chart(rows(2)), async () => null],
      [chart(rows(2), [frame(0)]), null]
    ] as const) {
      const { rendermime, made } = fakeRendermime();
      const renderer = new PanelRenderer(() => rendermime, null, undefined, follow);
      await renderer.render(content, 1);
      expect(made[0].model!.data[VEGALITE_MIME]).toEqual((content as { spec: unknown }).spec);
      expect(made[0].model!.metadata[VEGALITE_MIME]).toEqual({ embed_options: { actions: false } });
      expect(made[0].click).toBeNull();
    }
  });

  it('says so, located, when the renderer gives no Vega view', async () => {
    const { rendermime } = fakeRendermime(false);
    const renderer = new PanelRenderer(
      () => rendermime,
      null,
      undefined,
      async () => null
    );
    await renderer.render(chart(rows(1), [frame(0)]), 1);
    expect((renderer.node.querySelector('.molspace-panel-chart') as HTMLElement).dataset.molspaceChartLinks).toBe('unavailable');
    expect(renderer.linkErrorNode.textContent).toContain('Where: /content/links');
  });
});
