/**
 * Chart links: the contract (one PanelLink or null per spec.data.values item), the checks (no
 * more links than values, inline values only), the spec the renderer embeds (a hidden row index
 * per value, pointer cursors) and the mapping of a clicked Vega item back to its value. The
 * renderer's click wiring is in chartLinksRender.spec.ts; Galata clicks a real chart's points
 * (ui-tests/tests/panelLinks.spec.ts).
 */
import { MolspaceError, PanelContent } from '../../contract';
import { checkPanelContent } from '../panelContent';
import { CHART_ROW_FIELD, chartLinkAt, chartViewOf, linkedChartSpec, linkedRow } from '../chartLinks';
import { vegaLiteIssue } from '../chartSchema';

const frame = (f: number) => ({ op: 'goto_frame', viewer: 'v1', frame: f }) as const;
const spec = (values: unknown) => ({
  $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
  data: { values },
  mark: { type: 'line', point: true },
  encoding: { x: { field: 'frame', type: 'quantitative' }, y: { field: 'rmsd', type: 'quantitative' } }
});
const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ frame: i, rmsd: 1 + (i % 3) }));
const chart = (values: unknown, links?: unknown) => PanelContent.parse({ type: 'chart', spec: spec(values), ...(links ? { links } : {}) });

describe('chart links in the contract and the content checks', () => {
  it('takes one link or null per value, fewer than values too', async () => {
    await expect(checkPanelContent(chart(rows(3), [frame(0), null, frame(2)]))).resolves.toBeUndefined();
    await expect(checkPanelContent(chart(rows(3), [frame(0)]))).resolves.toBeUndefined();
    expect(
      PanelContent.safeParse({ type: 'chart', spec: spec(rows(1)), links: [{ op: 'goto_frame', viewer: 'v1', frame: -1 }] }).success
    ).toBe(false);
  });

  it('refuses more links than data values, at the first extra link', async () => {
    const e = await checkPanelContent(chart(rows(2), [frame(0), frame(1), null])).catch(x => x);
    expect(e).toBeInstanceOf(MolspaceError);
    expect(e.toJSON()).toMatchObject({ code: 'VALIDATION_FAILED', where: '/content/links/2', details: { links: 3, values: 2 } });
  });

  it('refuses links on a chart without a data.values array (a named dataset, inline CSV text)', async () => {
    const named = PanelContent.parse({
      type: 'chart',
      spec: { ...spec(null), data: { name: 'd' }, datasets: { d: rows(2) } },
      links: [frame(0)]
    });
    const e = await checkPanelContent(named).catch(x => x);
    expect(e.toJSON()).toMatchObject({ code: 'VALIDATION_FAILED', where: '/content/links' });
    const csv = PanelContent.parse({
      type: 'chart',
      spec: { ...spec('frame,rmsd\n0,1'), data: { values: 'frame,rmsd\n0,1', format: { type: 'csv' } } },
      links: [frame(0)]
    });
    expect((await checkPanelContent(csv).catch(x => x)).toJSON()).toMatchObject({ where: '/content/links' });
  });
});

describe('the embedded spec and the clicked item', () => {
  it('adds each value its row index (primitives as Vega-Lite wraps them), leaving the spec given as it was', () => {
    const given = spec([{ frame: 0, rmsd: 1 }, 7]);
    const before = JSON.stringify(given);
    const linked = linkedChartSpec(given) as { data: { values: unknown[] }; config: Record<string, { cursor?: string }> };
    expect(linked.data.values).toEqual([
      { frame: 0, rmsd: 1, [CHART_ROW_FIELD]: 0 },
      { data: 7, [CHART_ROW_FIELD]: 1 }
    ]);
    expect(JSON.stringify(given)).toBe(before);
    expect(linked.config.point.cursor).toBe('pointer');
    expect(linked.config.bar.cursor).toBe('pointer');
    expect(linked.config.line).toBeUndefined(); // a line is one path: clicking it names no value
    expect(vegaLiteIssue(linked)).toBeNull(); // still a valid Vega-Lite spec
  });

  it("keeps the spec's own config and cursor", () => {
    const linked = linkedChartSpec({ ...spec(rows(1)), config: { point: { cursor: 'crosshair', size: 40 }, axis: { grid: false } } }) as {
      config: Record<string, Record<string, unknown>>;
    };
    expect(linked.config.point).toEqual({ cursor: 'crosshair', size: 40 });
    expect(linked.config.axis).toEqual({ grid: false });
  });

  it('maps a clicked item to its value by the row field only, never by matching values', () => {
    // Two values alike (frames 0 and 3 both at rmsd 1): the row field tells them apart.
    expect(linkedRow({ mark: { marktype: 'symbol' }, datum: { frame: 3, rmsd: 1, [CHART_ROW_FIELD]: 3 } })).toBe(3);
    expect(linkedRow({ mark: { marktype: 'path' }, datum: { datum: { [CHART_ROW_FIELD]: 5 } } })).toBe(5); // a voronoi cell
    expect(linkedRow({ mark: { marktype: 'line' }, datum: { [CHART_ROW_FIELD]: 0 } })).toBeNull();
    expect(linkedRow({ mark: { marktype: 'area' }, datum: { [CHART_ROW_FIELD]: 0 } })).toBeNull();
    expect(linkedRow({ mark: { marktype: 'rect' }, datum: { count: 4 } })).toBeNull(); // an aggregate
    expect(linkedRow({ datum: { [CHART_ROW_FIELD]: -1 } })).toBeNull();
    expect(linkedRow({ datum: { [CHART_ROW_FIELD]: '2' } })).toBeNull();
    expect(linkedRow(null)).toBeNull();
    expect(linkedRow(undefined)).toBeNull();
  });

  it('follows the link of the clicked value, none for a null link or a value past the links', () => {
    const c = chart(rows(4), [frame(0), null, frame(2)]) as Extract<PanelContent, { type: 'chart' }>;
    const item = (row: number) => ({ mark: { marktype: 'symbol' }, datum: { [CHART_ROW_FIELD]: row } });
    expect(chartLinkAt(c, item(2))).toEqual({ link: frame(2), where: '/content/links/2' });
    expect(chartLinkAt(c, item(1))).toBeNull();
    expect(chartLinkAt(c, item(3))).toBeNull();
  });

  it("finds the Vega view JupyterLab's renderer keeps, or none", () => {
    const view = { addEventListener: () => undefined };
    expect(chartViewOf({ _result: { view } })).toBe(view);
    expect(chartViewOf({ _result: {} })).toBeNull();
    expect(chartViewOf({ _result: { view: {} } })).toBeNull(); // not a Vega view: no addEventListener
    expect(chartViewOf({})).toBeNull();
    expect(chartViewOf(null)).toBeNull();
  });
});
