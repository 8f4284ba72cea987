/**
 * Mol* on software WebGL (SwiftShader, llvmpipe): no ambient occlusion (SSAO)
 * and no temporal multi-sampling. On SwiftShader an SSAO frame of an
 * 8,000-atom structure holds the page for about a second; a plain one takes
 * tens of milliseconds (docs/benchmarks.md, "act on 8,112 atoms").
 *
 * Each `loadMVS` first resets Mol*'s canvas to its defaults (SSAO on), then
 * applies the state's `canvas` node, and a Story's steps carry the canvas
 * props computed at load. So the rule is kept in two places: the plugin's
 * canvas turns both off again after every `setProps`
 * ({@link keepSoftwareProps}, before a frame can be drawn), and every MVS
 * state asks for SSAO off on its `canvas` node ({@link withoutOcclusion}), so
 * the props a snapshot carries are right wherever they are applied.
 */
import type { Canvas3D } from 'molstar/lib/mol-canvas3d/canvas3d';

/**
 * Keep `canvas3d` (a software renderer's) without SSAO and temporal multi-sampling: both off now,
 * and again after every `setProps`, in the same task, so no frame is drawn with them, also not
 * during a first load (which draws while it builds, after `loadMVS`'s reset turned SSAO on).
 */
export function keepSoftwareProps(canvas3d: Canvas3D): void {
  const setProps = canvas3d.setProps.bind(canvas3d);
  const soften = (doNotRequestDraw?: boolean) =>
    setProps(props => {
      props.multiSample.mode = 'off';
      props.postprocessing.occlusion = { name: 'off', params: {} };
    }, doNotRequestDraw);
  canvas3d.setProps = (props, doNotRequestDraw) => {
    setProps(props, doNotRequestDraw);
    const now = canvas3d.props;
    if (now.postprocessing.occlusion.name !== 'off' || now.multiSample.mode !== 'off') {
      soften(doNotRequestDraw);
    }
  };
  soften();
}

/** One MVS tree node, as far as this module reads it. */
interface MvsNode {
  kind?: unknown;
  params?: unknown;
  custom?: Record<string, unknown>;
  children?: MvsNode[];
}

const SSAO_OFF = { enable_ssao: false };

/** `root` (an MVS `root` node) with SSAO off on its canvas node; `root` is not changed. */
function rootWithoutOcclusion(root: MvsNode): MvsNode {
  const children = root.children ?? [];
  const at = children.findIndex(c => c?.kind === 'canvas');
  const canvas: MvsNode = at >= 0 ? children[at] : { kind: 'canvas', params: {} };
  const post = canvas.custom?.molstar_postprocessing;
  const custom = {
    ...canvas.custom,
    molstar_postprocessing: { ...(post && typeof post === 'object' ? post : {}), ...SSAO_OFF }
  };
  const next = { ...canvas, custom };
  return { ...root, children: at >= 0 ? children.map((c, i) => (i === at ? next : c)) : [next, ...children] };
}

/**
 * `data` (one MVS state `{kind?: "single", root}` or several `{kind: "multiple", snapshots}`)
 * with SSAO off in every state; `data` is not changed, and anything that is not MVS-shaped
 * is returned as it is (Mol*'s own validation then reports it).
 */
export function withoutOcclusion<T>(data: T): T {
  const d = data as { kind?: unknown; root?: MvsNode; snapshots?: { root?: MvsNode }[] };
  if (d && d.kind === 'multiple' && Array.isArray(d.snapshots)) {
    return { ...d, snapshots: d.snapshots.map(s => (s?.root ? { ...s, root: rootWithoutOcclusion(s.root) } : s)) } as T;
  }
  if (d && d.root && typeof d.root === 'object') {
    return { ...d, root: rootWithoutOcclusion(d.root) } as T;
  }
  return data;
}
