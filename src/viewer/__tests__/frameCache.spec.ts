/**
 * On-demand trajectory frames (`frameCache.ts`, `onDemandTrajectory.ts`): the page holds at most
 * the budget's frames, least recently used out first; a frame asked again while in flight is one
 * request; a failed, malformed or late block is a located error and is asked again next time;
 * and a topology read with frames served by a fake kernel (the DCD's frames, as
 * `molspace/viewer/frames.py` sends them) gives MDAnalysis's positions in far frames
 * (tests/data/trajectories/reference.json).
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import { Task } from 'molstar/lib/mol-task';

import { expectFailure } from '../../__tests__/expectFailure';
import { DEFAULT_FRAME_BUDGET, ViewerBudget } from '../../molstar/viewerBudget';
import { FrameCache } from '../frameCache';
import { readStructure } from '../structureData';
import { readCoordinates } from '../trajectoryData';

const DIR = join(__dirname, '..', '..', '..', 'tests', 'data', 'trajectories');
const file = (name: string) => new Uint8Array(readFileSync(join(DIR, name)));
const REFERENCE = JSON.parse(readFileSync(join(DIR, 'reference.json'), 'utf8'))['adk_dims.dcd'] as {
  n_frames: number;
  frames: { frame: number; positions: Record<string, [number, number, number]> }[];
};

/** A fake kernel of `frames` frames of `atoms` atoms: atom a of frame f at (f, a, -f). */
function kernel(frames: number, atoms: number) {
  const asked: [number, number][] = [];
  const fetch = (start: number, count: number) => {
    asked.push([start, count]);
    const out = new Float32Array(count * 3 * atoms);
    for (let k = 0; k < count; k++) {
      for (let a = 0; a < atoms; a++) {
        out[k * 3 * atoms + a] = start + k;
        out[k * 3 * atoms + atoms + a] = a;
        out[k * 3 * atoms + 2 * atoms + a] = -(start + k);
      }
    }
    return Promise.resolve(out.buffer);
  };
  return { asked, fetch };
}

describe('the frame budget setting', () => {
  it("defaults to the schema's default, and a bad value falls back to it", () => {
    const schema = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'schema', 'plugin.json'), 'utf8'));
    expect(schema.properties.trajectoryFrameBudget.default).toBe(DEFAULT_FRAME_BUDGET);
    const budget = new ViewerBudget();
    expect(budget.frameBudget).toBe(DEFAULT_FRAME_BUDGET);
    budget.setFrameBudget(5);
    expect(budget.frameBudget).toBe(5);
    budget.setFrameBudget(1);
    expect(budget.frameBudget).toBe(DEFAULT_FRAME_BUDGET);
  });
});

describe('FrameCache', () => {
  it('holds at most the budget, least recently used out first, and reads ahead within it', async () => {
    const k = kernel(100, 3);
    const cache = new FrameCache({ frames: 100, atoms: 3, budget: 5, fetch: k.fetch });
    const f = await cache.frame(10);
    expect([f.x[0], f.y[2], f.z[1]]).toEqual([10, 2, -10]);
    expect(k.asked).toEqual([[10, 5]]); // read-ahead: a block of the budget
    expect(cache.size).toBe(5);
    expect(cache.bytesHeld).toBe(5 * 3 * 12);
    await cache.frame(11); // held: no request
    expect(k.asked.length).toBe(1);
    await cache.frame(10); // 10 is now the most recently used
    await cache.frame(50);
    expect(k.asked[1]).toEqual([50, 5]);
    expect(cache.size).toBe(5);
    expect([10, 11, 12, 13, 14].filter(i => cache.has(i))).toEqual([]);
    // a walk over every frame never holds more than the budget
    for (let i = 0; i < 100; i++) {
      expect((await cache.frame(i)).x[0]).toBe(i);
      expect(cache.size).toBeLessThanOrEqual(5);
    }
    // the block stops before a frame already held
    const k3 = kernel(100, 3);
    const c3 = new FrameCache({ frames: 10, atoms: 3, budget: 8, fetch: k3.fetch });
    await c3.frame(5);
    await c3.frame(2);
    expect(k3.asked).toEqual([
      [5, 5],
      [2, 3]
    ]);
  });

  it('asks once for a frame asked again while its block is in flight', async () => {
    const k = kernel(20, 2);
    let release: () => void = () => undefined;
    const gate = new Promise<void>(r => (release = r));
    const cache = new FrameCache({ frames: 20, atoms: 2, budget: 4, fetch: (s, c) => gate.then(() => k.fetch(s, c)) });
    const all = Promise.all([cache.frame(3), cache.frame(3), cache.frame(4), cache.frame(6)]);
    release();
    const [a, b, c, d] = await all;
    expect(a).toBe(b);
    expect([c.x[0], d.x[0]]).toEqual([4, 6]);
    expect(k.asked).toEqual([[3, 4]]);
  });

  it('refuses located: out of range, the kernel refusing, a malformed block, a late block; then asks again', async () => {
    const cache = new FrameCache({ frames: 10, atoms: 2, budget: 4, fetch: kernel(10, 2).fetch });
    expect((await expectFailure(cache.frame(10))).toJSON()).toMatchObject({ code: 'VALIDATION_FAILED', where: '/frames/10' });

    let fail = true;
    const k = kernel(10, 2);
    const flaky = new FrameCache({
      frames: 10,
      atoms: 2,
      budget: 4,
      fetch: (s, c) => (fail ? Promise.reject(new Error('comm closed')) : k.fetch(s, c))
    });
    expect((await expectFailure(flaky.frame(7))).toJSON()).toMatchObject({ code: 'INTERNAL', where: '/frames/7' });
    fail = false;
    expect((await flaky.frame(7)).x[0]).toBe(7);

    const short = new FrameCache({ frames: 10, atoms: 2, budget: 4, fetch: () => Promise.resolve(new ArrayBuffer(8)) });
    const err = (await expectFailure(short.frame(1))).toJSON();
    expect(err).toMatchObject({ code: 'VALIDATION_FAILED', where: '/frames/1', details: { bytes: 8 } });
    expect(short.size).toBe(0);

    jest.useFakeTimers();
    try {
      const never = new FrameCache({ frames: 10, atoms: 2, budget: 4, timeoutMs: 1000, fetch: () => new Promise(() => undefined) });
      const late = expectFailure(never.frame(2));
      await jest.advanceTimersByTimeAsync(1000);
      expect((await late).toJSON()).toMatchObject({ code: 'TIMEOUT', where: '/frames/2', details: { start: 2, count: 4 } });
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('errors name the source of the frames and a fix that fits it', () => {
  const late = async (source?: 'kernel' | 'server') => {
    jest.useFakeTimers();
    try {
      const never = new FrameCache({ frames: 10, atoms: 2, budget: 4, timeoutMs: 1000, source, fetch: () => new Promise(() => undefined) });
      const failed = expectFailure(never.frame(2));
      await jest.advanceTimersByTimeAsync(1000);
      return (await failed).toJSON();
    } finally {
      jest.useRealTimers();
    }
  };
  const malformed = async (source?: 'kernel' | 'server') =>
    (
      await expectFailure(
        new FrameCache({ frames: 10, atoms: 2, budget: 4, source, fetch: () => Promise.resolve(new ArrayBuffer(8)) }).frame(1)
      )
    ).toJSON();

  it("a cell's Viewer (the default): the kernel, fixed in the kernel and its cell", async () => {
    for (const source of [undefined, 'kernel'] as const) {
      const t = await late(source);
      expect(t).toMatchObject({ code: 'TIMEOUT', where: '/frames/2', details: { source: 'kernel' } });
      expect(t.message).toBe('Frames 2–5 did not arrive from the kernel within 1 s.');
      expect(t.fix).toMatch(/kernel is running and idle/);
      const m = await malformed(source);
      expect(m).toMatchObject({ code: 'VALIDATION_FAILED', where: '/frames/1', details: { bytes: 8, source: 'kernel' } });
      expect(m.message).toMatch(/^The kernel sent 8 bytes for frames 1–4/);
      expect(m.fix).toMatch(/Restart the kernel and run the cell again/);
    }
  });

  it("an agent's Viewer: the Jupyter server, never a kernel or a cell it does not have", async () => {
    const t = await late('server');
    expect(t).toMatchObject({ code: 'TIMEOUT', where: '/frames/2', details: { source: 'server' } });
    expect(t.message).toBe('Frames 2–5 did not arrive from the Jupyter server within 1 s.');
    expect(t.fix).toMatch(/Jupyter server is running and reachable/);
    const m = await malformed('server');
    expect(m).toMatchObject({ code: 'VALIDATION_FAILED', where: '/frames/1', details: { bytes: 8, source: 'server' } });
    expect(m.message).toMatch(/^The Jupyter server sent 8 bytes for frames 1–4/);
    expect(m.fix).toMatch(/coordinates file was not changed while open.*restart the server/);
    for (const e of [t, m]) {
      expect(`${e.message} ${e.fix}`).not.toMatch(/kernel|cell/i);
    }
  });
});

describe('a PSF topology with frames on demand', () => {
  it("reads MDAnalysis's positions in far frames, holding at most the budget", async () => {
    const whole = await readCoordinates(file('adk_dims.dcd'), 'dcd', 'adk_dims.dcd');
    const frames = whole.coordinates.frames;
    const atoms = frames[0].elementCount;
    let requests = 0;
    const cache = new FrameCache({
      frames: frames.length,
      atoms,
      budget: 5,
      fetch: (start, count) => {
        requests += 1;
        const out = new Float32Array(count * 3 * atoms);
        for (let k = 0; k < count; k++) {
          const f = frames[start + k];
          out.set(f.x, k * 3 * atoms);
          out.set(f.y, k * 3 * atoms + atoms);
          out.set(f.z, k * 3 * atoms + 2 * atoms);
        }
        return Promise.resolve(out);
      }
    });
    const data = await readStructure(file('adk.psf'), 'psf', 'adk.psf', {
      bytes: new Uint8Array(),
      format: 'dcd',
      where: 'adk_dims.dcd',
      onDemand: { cache, format: 'dcd', timePs: { start: 1, step: 1 }, notes: ['a note'] }
    });
    expect(data.composition.trajectory).toEqual({ frames: REFERENCE.n_frames, coordinates: 'dcd', timePs: { start: 1, step: 1 } });
    expect(data.composition.dropped).toContain('a note');
    expect(data.trajectory?.frameCount).toBe(REFERENCE.n_frames);
    expect(data.coordinates?.onDemand?.cache).toBe(cache);
    for (const f of REFERENCE.frames) {
      const model = await Task.resolveInContext(data.trajectory!.getFrameAtIndex(f.frame));
      const { x, y, z } = model.atomicConformation;
      for (const [atom, [ex, ey, ez]] of Object.entries(f.positions)) {
        const i = Number(atom);
        expect([x[i], y[i], z[i]].map((v, j) => Math.abs(v - [ex, ey, ez][j]) < 0.0015)).toEqual([true, true, true]);
      }
      expect(cache.size).toBeLessThanOrEqual(5);
    }
    expect(requests).toBeLessThanOrEqual(REFERENCE.frames.length);
  });
});
