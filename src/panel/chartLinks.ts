/**
 * Links of chart panels (docs/architecture.md, "Report panels"): `links[i]`
 * belongs to `spec.data.values[i]`, and a click on a mark drawn from that
 * value follows it (an RMSD-vs-frame chart whose point 12 goes to frame 12 of
 * a Viewer).
 *
 * A clicked mark is mapped back to its value by a hidden row-index field
 * ({@link CHART_ROW_FIELD}) added to each value of the spec that is embedded
 * (never by matching values: two frames may share an RMSD). A mark whose datum
 * has no row index (an aggregate, a rule from a transform) follows nothing, nor
 * does a click on a line, area or trail (one path drawn from many values:
 * Vega's item there is its first value). Linkable marks get a pointer cursor
 * through the spec's `config`.
 */
import { MolspaceError, type ChartContent, type PanelLink } from '../contract';

/** The field carrying each data value's index in the spec that is embedded. */
export const CHART_ROW_FIELD = '__molspace_row';

/** Marks drawn as one path from many values: a click there names no one value. */
const PATH_MARKS: ReadonlySet<string> = new Set(['line', 'area', 'trail']);

/** Vega-Lite mark types a datum is drawn as one item of: the pointer cursor goes on them. */
const ITEM_MARKS = ['point', 'circle', 'square', 'bar', 'rect', 'tick', 'rule', 'text', 'arc', 'image'] as const;

/** The inline values of a chart spec (`spec.data.values`), or null when it has none as an array. */
export function chartValues(spec: Record<string, unknown>): unknown[] | null {
  const data = spec.data;
  if (typeof data !== 'object' || data === null) {
    return null;
  }
  const values = (data as { values?: unknown }).values;
  return Array.isArray(values) ? values : null;
}

/** True when a chart has at least one link. */
export function hasChartLinks(chart: ChartContent): boolean {
  return (chart.links ?? []).some(l => l !== null);
}

/**
 * Check a chart's links against its data: one per `spec.data.values` item at most.
 *
 * @param where - JSON pointer of the chart content (e.g. `/content`).
 * @throws MolspaceError `VALIDATION_FAILED` at `<where>/links` when the spec has no
 *   `data.values` array to link, at `<where>/links/<n>` for the first link past the `n` values.
 */
export function checkChartLinks(chart: ChartContent, where: string): void {
  if (chart.links === undefined) {
    return;
  }
  const values = chartValues(chart.spec);
  if (values === null) {
    throw new MolspaceError(
      'VALIDATION_FAILED',
      'Chart links follow spec.data.values by index; this spec has no data.values array at its top level.',
      `${where}/links`,
      'Put the rows in spec.data.values (an array), or omit links.',
      { links: chart.links.length }
    );
  }
  if (chart.links.length > values.length) {
    throw new MolspaceError(
      'VALIDATION_FAILED',
      `The chart has ${chart.links.length} links but ${values.length} data values; a link belongs to the value of its index.`,
      `${where}/links/${values.length}`,
      'Pass at most one link per value of spec.data.values, in order (null for a value without one).',
      { links: chart.links.length, values: values.length }
    );
  }
}

/**
 * The spec to embed for a linked chart: each value of `data.values` carries its
 * index in {@link CHART_ROW_FIELD} (a primitive value `v` becomes `{data: v}`,
 * as Vega-Lite reads it), and item marks a pointer cursor unless the spec's
 * config sets one. The given spec is not changed.
 */
export function linkedChartSpec(spec: Record<string, unknown>): Record<string, unknown> {
  const values = chartValues(spec);
  if (values === null) {
    return spec;
  }
  const rows = values.map((v, i) =>
    typeof v === 'object' && v !== null && !Array.isArray(v) ? { ...v, [CHART_ROW_FIELD]: i } : { data: v, [CHART_ROW_FIELD]: i }
  );
  const config = typeof spec.config === 'object' && spec.config !== null ? (spec.config as Record<string, unknown>) : {};
  const cursors = Object.fromEntries(
    ITEM_MARKS.map(m => {
      const own = typeof config[m] === 'object' && config[m] !== null ? (config[m] as Record<string, unknown>) : {};
      return [m, { cursor: 'pointer', ...own }];
    })
  );
  return { ...spec, data: { ...(spec.data as Record<string, unknown>), values: rows }, config: { ...config, ...cursors } };
}

/**
 * The data value index of a clicked Vega scenegraph item, or null: its
 * datum's {@link CHART_ROW_FIELD} (or its datum's datum's, for Vega-Lite's
 * `nearest` voronoi cells); null for path marks (line, area, trail) and for
 * data without the field.
 */
export function linkedRow(item: unknown): number | null {
  if (typeof item !== 'object' || item === null) {
    return null;
  }
  const marktype = (item as { mark?: { marktype?: unknown } }).mark?.marktype;
  if (typeof marktype === 'string' && PATH_MARKS.has(marktype)) {
    return null;
  }
  let datum = (item as { datum?: unknown }).datum;
  for (let depth = 0; depth < 2 && typeof datum === 'object' && datum !== null; depth++) {
    const row = (datum as Record<string, unknown>)[CHART_ROW_FIELD];
    if (typeof row === 'number' && Number.isInteger(row) && row >= 0) {
      return row;
    }
    datum = (datum as { datum?: unknown }).datum;
  }
  return null;
}

/** What a click on a chart item follows: the link of its value, with its pointer, or null. */
export function chartLinkAt(chart: ChartContent, item: unknown): { link: PanelLink; where: string } | null {
  const row = linkedRow(item);
  const link = row === null ? null : (chart.links?.[row] ?? null);
  return link === null ? null : { link, where: `/content/links/${row}` };
}

/** The part of a Vega `View` a linked chart uses. */
export interface ChartView {
  addEventListener(type: 'click', handler: (event: unknown, item: unknown) => void): unknown;
}

/**
 * The Vega view of a chart JupyterLab's renderer drew, or null. JupyterLab's
 * `RenderedVega` (`@jupyterlab/vega5-extension`) keeps vega-embed's result in
 * `_result` and exposes no accessor; without it the chart's links cannot be
 * followed (the panel says so), and the chart still shows.
 */
export function chartViewOf(renderer: unknown): ChartView | null {
  const view = (renderer as { _result?: { view?: unknown } } | null)?._result?.view;
  return typeof view === 'object' && view !== null && typeof (view as ChartView).addEventListener === 'function'
    ? (view as ChartView)
    : null;
}
