/**
 * MVS data as drawn on software WebGL (SwiftShader, llvmpipe): without Mol*'s
 * ambient occlusion (SSAO).
 *
 * The plugin turns SSAO off on software renderers when it starts
 * (`./molstarPlugin.ts`), but each `loadMVS` first resets Mol*'s canvas to its
 * defaults (SSAO on) and then applies the state's `canvas` node, and a Story's
 * steps carry the canvas props computed at load. So the setting holds only when
 * the MVS state itself asks for it: every state gets
 * `custom.molstar_postprocessing.enable_ssao: false` on its `canvas` node (a
 * node with no params is added where the state has none; its background is
 * MVS's default, as with no node). On SwiftShader an SSAO frame of an 8,000-atom
 * structure holds the page for about a second; a plain one takes tens of
 * milliseconds (docs/benchmarks.md, "act on 8,112 atoms").
 */

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
