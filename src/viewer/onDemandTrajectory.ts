/**
 * A trajectory whose frames the kernel (or the Jupyter server) serves on demand, as Mol* lets one be: a `Trajectory`
 * whose `getFrameAtIndex` returns a `Task` (Mol*'s `ModelFromTrajectory` awaits it), each frame a
 * model of the topology with that frame's conformation, made as Mol*'s own
 * `trajectoryFromModelAndCoordinates` makes its frames. The frames come from a {@link FrameCache}.
 *
 * The topology is read as for any trajectory, with frame 0 as a one-frame DCD ({@link dcdOfFrame}):
 * the same Mol* parsers and checks (atom counts) as a whole file, and the live viewer's MVS state
 * loads that one frame, then puts the on-demand trajectory in its place (`onDemandFrames.ts`).
 */
import { Model, type Trajectory } from 'molstar/lib/mol-model/structure';
import type { Frame } from 'molstar/lib/mol-model/structure/coordinates/coordinates';
import { Task } from 'molstar/lib/mol-task';
import { UUID } from 'molstar/lib/mol-util/uuid';

import type { CoordinatesFormat, ViewerTrajectory } from '../contract';
import type { FrameCache } from './frameCache';

/** A trajectory the kernel (or, opened by an agent, the Jupyter server) serves by frame (the synced `_frames_on_demand`), with the page's cache. */
export interface OnDemandSource {
  cache: FrameCache;
  format: CoordinatesFormat;
  timePs: ViewerTrajectory['timePs'];
  /** What the kernel or server read differently from the file's header, for `composition.dropped`. */
  notes: string[];
}

export class OnDemandTrajectory implements Trajectory {
  readonly duration: number;
  readonly frameCount: number;

  constructor(
    readonly representative: Model,
    readonly cache: FrameCache
  ) {
    this.frameCount = cache.frames;
    this.duration = cache.frames;
  }

  getFrameAtIndex(i: number): Task<Model> {
    return Task.create(`molspace: frame ${i}`, async () =>
      modelAtFrame(this.representative, await this.cache.frame(i), i, this.frameCount)
    );
  }
}

/** Frame `i` of `n` of `model`'s topology (as Mol*'s `trajectoryFromModelAndCoordinates`). */
export function modelAtFrame(model: Model, frame: Frame, i: number, n: number): Model {
  const m: Model = {
    ...model,
    id: UUID.create22(),
    modelNum: i,
    atomicConformation: Model.getAtomicConformationFromFrame(model, frame),
    _dynamicPropertyData: Object.create(null)
  };
  Model.TrajectoryInfo.set(m, { index: i, size: n });
  return m;
}

/** One frame as a one-frame DCD (X-PLOR layout, as Mol*'s DCD parser reads it). */
export function dcdOfFrame(frame: Frame): Uint8Array {
  const n = frame.elementCount;
  const head = 196;
  const bytes = new Uint8Array(head + 3 * (8 + 4 * n));
  const dv = new DataView(bytes.buffer);
  const int = (at: number, v: number) => dv.setInt32(at, v, true);
  int(0, 84);
  bytes.set([67, 79, 82, 68], 4); // CORD
  int(8, 1); // NSET
  int(16, 1); // NSAVC
  int(84, 24); // version
  int(88, 84);
  int(92, 84); // title block: one 80-character line
  int(96, 1);
  bytes.fill(32, 100, 180);
  int(180, 84);
  int(184, 4);
  int(188, n);
  int(192, 4);
  let at = head;
  for (const axis of [frame.x, frame.y, frame.z]) {
    int(at, 4 * n);
    new Float32Array(bytes.buffer, at + 4, n).set(axis);
    int(at + 4 + 4 * n, 4 * n);
    at += 8 + 4 * n;
  }
  return bytes;
}
