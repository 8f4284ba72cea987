/**
 * A Viewer's view state as one MolViewSpec state: the structure (by the URL
 * of its bytes in Mol*'s asset manager), one `structure` node per drawn
 * model, one `component` + `representation` per layer, `color` nodes for the
 * colour overrides, one `component` + `label` per label, and the `canvas`
 * background; or, after `apply_mvs`, the MVS state given (already validated)
 * with the Viewer's labels added as `component` + `label` under each of its
 * `structure` nodes (its selectors were checked against that structure).
 * Transparency and distances are not MVS nodes here: the live viewer applies
 * them with Mol*'s transparency helper and measurement manager. Mol* loads it with its MVS
 * extension; the deterministic node refs of MVS loading keep the parsed
 * structure across updates (docs/architecture.md, "Viewer").
 */
import type { CoordinatesFormat, StructureFormat, ViewerViewState } from '../contract';

/** MVS ref of a trajectory's `coordinates` node, named by its `structure` node's `coordinates_ref`. */
export const COORDINATES_REF = 'molspace-coordinates';

/** Mol* theme of a representation's base colour (MVS `custom.molstar_color_theme_name`). */
function baseTheme(representation: string): string {
  return representation === 'cartoon' || representation === 'backbone' || representation === 'putty' || representation === 'surface'
    ? 'chain-id'
    : 'element-symbol';
}

/** The MVS state (`kind: "single"`) that draws `view` of the data at `url`. */
export function viewToMvs(
  view: ViewerViewState,
  source: {
    url: string;
    format: StructureFormat;
    models: readonly number[];
    background: string;
    /** A trajectory's coordinates file (in Mol*'s asset manager): frame `view.frame` of it is drawn. */
    coordinates?: { url: string; format: CoordinatesFormat } | null;
    /** The file's models are frames: model `view.frame` is drawn. */
    frames?: boolean;
  }
): Record<string, unknown> {
  const labels = view.labels.map(l => ({
    kind: 'component',
    params: { selector: l.selector },
    children: [{ kind: 'label', params: { text: l.text } }]
  }));
  if (view.mvs) {
    return { ...view.mvs, kind: 'single', root: withLabels(view.mvs.root, labels) };
  }
  const layers = view.layers.map(layer => ({
    kind: 'component',
    params: { selector: layer.selector },
    children: [
      {
        kind: 'representation',
        params: { type: layer.representation },
        children: [
          { kind: 'color', params: {}, custom: { molstar_color_theme_name: baseTheme(layer.representation) } },
          ...view.colors.map(c => ({ kind: 'color', params: { selector: c.selector, color: c.color } }))
        ]
      }
    ]
  }));
  const coordinates = source.coordinates ?? null;
  const shown = coordinates || source.frames ? [view.frame] : source.models;
  return {
    kind: 'single',
    metadata: { version: '1', timestamp: new Date(0).toISOString() },
    root: {
      kind: 'root',
      children: [
        { kind: 'canvas', params: { background_color: view.background ?? source.background } },
        ...(coordinates
          ? [
              {
                kind: 'download',
                params: { url: coordinates.url },
                children: [
                  { kind: 'parse', params: { format: coordinates.format }, children: [{ kind: 'coordinates', ref: COORDINATES_REF }] }
                ]
              }
            ]
          : []),
        {
          kind: 'download',
          params: { url: source.url },
          children: [
            {
              kind: 'parse',
              params: { format: source.format },
              children: shown.map(i => ({
                kind: 'structure',
                params: { type: 'model', model_index: i, ...(coordinates ? { coordinates_ref: COORDINATES_REF } : {}) },
                children: [...layers, ...labels]
              }))
            }
          ]
        }
      ]
    }
  };
}

/** `node` (an MVS tree, not changed) with `labels` appended to the children of every `structure` node. */
function withLabels(node: unknown, labels: readonly object[]): unknown {
  if (!labels.length || !node || typeof node !== 'object') {
    return node;
  }
  const n = node as { kind?: unknown; children?: unknown[] };
  if (n.kind !== 'structure' && !Array.isArray(n.children)) {
    return node;
  }
  const children = (n.children ?? []).map(c => withLabels(c, labels));
  return { ...n, children: n.kind === 'structure' ? [...children, ...labels] : children };
}
