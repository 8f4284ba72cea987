/**
 * Frames of an on-demand trajectory (docs/architecture.md, "Viewer", Trajectories): the kernel
 * keeps the coordinates (`molspace/viewer/frames.py`), or for a Viewer an agent opened the Jupyter
 * server does (`./serverFrames.ts`; the cache's `source`, which its errors name); the page holds at most `budget` frames,
 * least recently used out first, and asks for a frame it lacks with a block of the frames after
 * it (read-ahead for playback), each frame as Mol*'s `Frame` (x, y, z float32 arrays).
 *
 * A frame asked for again while its block is in flight waits for that block (one request). A
 * block that fails, is malformed, or takes longer than `timeoutMs` rejects every frame of it with
 * a located `MolspaceError` and leaves nothing in flight, so the next ask requests it again.
 */
import type { Frame } from 'molstar/lib/mol-model/structure/coordinates/coordinates';

import { MolspaceError } from '../contract/errors';
import { FRAME_SOURCE_TEXT, type FrameSource } from './frameSource';

export type { FrameSource } from './frameSource';

/** Frames per request unless the budget is smaller (the kernel and the server serve at most 64). */
export const READ_AHEAD = 16;
/** Time a block may take to arrive, ms. */
export const FRAME_FETCH_MS = 30_000;

export interface FrameCacheOptions {
  frames: number;
  atoms: number;
  /** Most frames held (at least 2). */
  budget: number;
  /** Time of frame `i`, ps (or steps), for Mol*'s `Frame.time`. */
  timeOf?(i: number): number;
  readAhead?: number;
  timeoutMs?: number;
  /** Who serves the frames, named by the errors (default the kernel). */
  source?: FrameSource;
  /** The source's block: `count` frames from `start`, each x, y, z float32 blocks of `atoms`. */
  fetch(start: number, count: number): Promise<ArrayBuffer | ArrayBufferView>;
}

export class FrameCache {
  readonly frames: number;
  readonly atoms: number;
  readonly budget: number;
  readonly source: FrameSource;
  private readonly _options: FrameCacheOptions;
  /** Held frames, least recently used first (a Map keeps insertion order). */
  private readonly _held = new Map<number, Frame>();
  private readonly _inFlight = new Map<number, Promise<Frame>>();
  private _requests = 0;

  constructor(options: FrameCacheOptions) {
    this._options = options;
    this.frames = options.frames;
    this.atoms = options.atoms;
    this.budget = Math.max(2, Math.floor(options.budget));
    this.source = options.source ?? 'kernel';
  }

  /** Frames held now (never more than {@link budget}). */
  get size(): number {
    return this._held.size;
  }

  /** Bytes of coordinates held now. */
  get bytesHeld(): number {
    return this._held.size * this.atoms * 12;
  }

  /** Blocks requested so far. */
  get requests(): number {
    return this._requests;
  }

  has(i: number): boolean {
    return this._held.has(i);
  }

  /**
   * Frame `i`, from the cache or its source (the kernel or the Jupyter server).
   *
   * @throws MolspaceError `VALIDATION_FAILED` at `/frames/<i>` out of range or for a malformed
   *   block; `TIMEOUT` there when the block takes longer than `timeoutMs`; the source's refusal. Each
   *   names the source and a fix that fits it.
   */
  frame(i: number): Promise<Frame> {
    const held = this._held.get(i);
    if (held) {
      this._held.delete(i);
      this._held.set(i, held);
      return Promise.resolve(held);
    }
    const waiting = this._inFlight.get(i);
    if (waiting) {
      return waiting;
    }
    if (!Number.isInteger(i) || i < 0 || i >= this.frames) {
      return Promise.reject(
        new MolspaceError(
          'VALIDATION_FAILED',
          `Frame ${i} is out of range: the trajectory has ${this.frames} frames.`,
          `/frames/${i}`,
          `Ask for a frame from 0 to ${this.frames - 1}.`,
          { frame: i, frames: this.frames }
        )
      );
    }
    const most = Math.min(this._options.readAhead ?? READ_AHEAD, this.budget, this.frames - i);
    let count = 1;
    while (count < most && !this._held.has(i + count) && !this._inFlight.has(i + count)) {
      count += 1;
    }
    const block = this._fetch(i, count);
    for (let k = 0; k < count; k++) {
      const p = block.then(frames => frames[k]);
      p.catch(() => undefined);
      this._inFlight.set(i + k, p);
    }
    const done = () => {
      for (let k = 0; k < count; k++) {
        this._inFlight.delete(i + k);
      }
    };
    block.then(frames => {
      done();
      frames.forEach((f, k) => this._hold(i + k, f));
    }, done);
    return this._inFlight.get(i)!;
  }

  private _hold(i: number, frame: Frame): void {
    this._held.delete(i);
    this._held.set(i, frame);
    while (this._held.size > this.budget) {
      this._held.delete(this._held.keys().next().value as number);
    }
  }

  private async _fetch(start: number, count: number): Promise<Frame[]> {
    this._requests += 1;
    const where = `/frames/${start}`;
    const ms = this._options.timeoutMs ?? FRAME_FETCH_MS;
    const text = FRAME_SOURCE_TEXT[this.source];
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new MolspaceError(
              'TIMEOUT',
              `Frames ${start}–${start + count - 1} did not arrive from ${text.name} within ${ms / 1000} s.`,
              where,
              text.late,
              { start, count, source: this.source }
            )
          ),
        ms
      );
    });
    let data: ArrayBuffer | ArrayBufferView;
    try {
      data = await Promise.race([this._options.fetch(start, count), late]);
    } catch (e) {
      throw MolspaceError.from(e, where);
    } finally {
      clearTimeout(timer);
    }
    const bytes = ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data);
    const n = this.atoms;
    if (bytes.byteLength !== count * 3 * n * 4) {
      throw new MolspaceError(
        'VALIDATION_FAILED',
        `${text.name[0].toUpperCase()}${text.name.slice(1)} sent ${bytes.byteLength} bytes for frames ${start}–${start + count - 1}; ${count} frames of ${n} atoms are ${count * 3 * n * 4}.`,
        where,
        text.malformed,
        { start, count, bytes: bytes.byteLength, source: this.source }
      );
    }
    // one copy, float32-aligned and little-endian as sent; each frame its own arrays (evicted alone)
    const all = new Float32Array(bytes.slice().buffer);
    const frames: Frame[] = [];
    for (let k = 0; k < count; k++) {
      const at = k * 3 * n;
      frames.push({
        elementCount: n,
        time: { value: this._options.timeOf?.(start + k) ?? start + k, unit: 'ps' },
        x: all.slice(at, at + n),
        y: all.slice(at + n, at + 2 * n),
        z: all.slice(at + 2 * n, at + 3 * n),
        xyzOrdering: { isIdentity: true }
      });
    }
    return frames;
  }
}
