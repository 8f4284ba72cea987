/**
 * The live viewer's side of an on-demand trajectory (`onDemandTrajectory.ts`): a Mol* state
 * transform, inserted between the one-frame trajectory the MVS state loads and its
 * `ModelFromTrajectory`, whose object is the {@link OnDemandTrajectory} over the same topology
 * model. Mol*'s `ModelFromTrajectory` then asks it for the frame of its `modelIndex` (a Task the
 * frame cache resolves), so stepping a frame is the same one-cell update as for a whole file.
 */
import { PluginStateObject as SO, PluginStateTransform } from 'molstar/lib/mol-plugin-state/objects';
import type { PluginContext } from 'molstar/lib/mol-plugin/context';
import { StateSelection } from 'molstar/lib/mol-state';
import { StateTransforms } from 'molstar/lib/mol-plugin-state/transforms';
import { Task } from 'molstar/lib/mol-task';
import { ParamDefinition as PD } from 'molstar/lib/mol-util/param-definition';

import type { FrameCache } from './frameCache';
import { OnDemandTrajectory } from './onDemandTrajectory';

/**
 * Frame caches by the key the transform's params name (params are serializable; caches are not),
 * held weakly: a cache lives as long as its Viewer's model.
 */
const caches = new Map<string, WeakRef<FrameCache>>();
const keyOf = new WeakMap<FrameCache, string>();
let keys = 0;

export const OnDemandFrames = PluginStateTransform.BuiltIn({
  name: 'molspace-on-demand-frames',
  display: {
    name: 'Frames on demand',
    description: 'Frames of this trajectory are fetched when drawn, from the kernel or the Jupyter server.'
  },
  from: SO.Molecule.Trajectory,
  to: SO.Molecule.Trajectory,
  params: { key: PD.Text('', { isHidden: true }) }
})({
  apply({ a, params }) {
    return Task.create('molspace: frames on demand', async () => {
      const cache = caches.get(params.key)?.deref();
      if (!cache) {
        throw new Error(`no frame source ${params.key}`);
      }
      const trajectory = new OnDemandTrajectory(a.data.representative, cache);
      return new SO.Molecule.Trajectory(trajectory, { label: 'Trajectory', description: `${cache.frames} frames, on demand` });
    });
  }
});

/** The key of `cache` for the transform's params. */
export function frameSourceKey(cache: FrameCache): string {
  let key = keyOf.get(cache);
  if (!key) {
    for (const [k, ref] of caches) {
      if (!ref.deref()) {
        caches.delete(k);
      }
    }
    key = `frames-${++keys}`;
    keyOf.set(cache, key);
    caches.set(key, new WeakRef(cache));
  }
  return key;
}

/**
 * Put the on-demand trajectory under every `ModelFromTrajectory` of the plugin that lacks it,
 * showing `frame`. Resolves true when it inserted one (the caller then draws).
 */
export async function insertOnDemandFrames(plugin: PluginContext, cache: FrameCache, frame: number): Promise<boolean> {
  const state = plugin.state.data;
  const models = state.select(StateSelection.Generators.ofTransformer(StateTransforms.Model.ModelFromTrajectory));
  const update = plugin.build();
  let inserted = false;
  for (const cell of models) {
    const parent = state.cells.get(cell.transform.parent);
    if (!parent || parent.transform.transformer === OnDemandFrames) {
      continue;
    }
    update.to(parent.transform.ref).insert(OnDemandFrames, { key: frameSourceKey(cache) });
    update.to(cell.transform.ref).update({ ...(cell.transform.params as object), modelIndex: frame });
    inserted = true;
  }
  if (inserted) {
    await update.commit();
  }
  return inserted;
}

/** Whether the plugin's state holds the on-demand transform (a reload of the MVS state first clears it). */
export function hasOnDemandFrames(plugin: PluginContext): boolean {
  return plugin.state.data.select(StateSelection.Generators.ofTransformer(OnDemandFrames)).length > 0;
}
