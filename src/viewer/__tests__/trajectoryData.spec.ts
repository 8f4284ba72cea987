/**
 * Trajectories read as the page reads them (Mol*'s parsers behind `readStructure`), checked
 * against MDAnalysis's reading of the same files (tests/data/trajectories/reference.json, which
 * tests/test_trajectory_reference.py recomputes with MDAnalysis), and every bad input refused
 * located.
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import { Task } from 'molstar/lib/mol-task';

import { CoordinatesFormat, type StructureFormat } from '../../contract';
import { expectFailure } from '../../__tests__/expectFailure';
import { readStructure, type StructureData } from '../structureData';
import { planActions, initialView } from '../viewerActions';

const DIR = join(__dirname, '..', '..', '..', 'tests', 'data', 'trajectories');
const REFERENCE: Record<
  string,
  {
    topology: string;
    n_atoms: number;
    n_frames: number;
    header_frames?: number;
    dt: number | null;
    time_first: number | null;
    frames: { frame: number; positions: Record<string, [number, number, number]> }[];
  }
> = JSON.parse(readFileSync(join(DIR, 'reference.json'), 'utf8'));

const file = (name: string) => new Uint8Array(readFileSync(join(DIR, name)));
const TOPOLOGY: Record<string, StructureFormat> = { psf: 'psf', gro: 'gro', prmtop: 'prmtop', lammpstrj: 'lammpstrj', pdb: 'pdb' };
const COORDS: Record<string, CoordinatesFormat> = { dcd: 'dcd', xtc: 'xtc', ncdf: 'nctraj', lammpstrj: 'lammpstrj', trr: 'trr' };
const ext = (name: string) => name.slice(name.lastIndexOf('.') + 1);

async function read(topology: string, coordinates: string | null): Promise<StructureData> {
  return readStructure(
    file(topology),
    TOPOLOGY[ext(topology)],
    topology,
    coordinates ? { bytes: file(coordinates), format: COORDS[ext(coordinates)], where: coordinates } : null
  );
}

const refused = expectFailure;

describe('trajectories against MDAnalysis', () => {
  for (const [name, ref] of Object.entries(REFERENCE)) {
    it(`${ref.topology} + ${name}: atoms, frames, time and positions`, async () => {
      const standalone = ref.topology === name;
      const data = await read(ref.topology, standalone ? null : name);
      expect(data.composition.atoms).toBe(ref.n_atoms);
      expect(data.composition.trajectory?.frames).toBe(ref.n_frames);
      expect(data.trajectory?.frameCount).toBe(ref.n_frames);
      const t = data.composition.trajectory?.timePs ?? null;
      if (ref.dt && ref.time_first !== null) {
        expect(t?.step).toBeCloseTo(ref.dt, 3);
        expect(t?.start).toBeCloseTo(ref.time_first, 3);
      } else {
        expect(t).toBeNull(); // MDAnalysis reads no time (or 0 in every frame): none reported
      }
      for (const f of ref.frames) {
        const model = await Task.resolveInContext(data.trajectory!.getFrameAtIndex(f.frame));
        const { x, y, z } = model.atomicConformation;
        for (const [atom, [ex, ey, ez]] of Object.entries(f.positions)) {
          const i = Number(atom);
          expect(Math.abs(x[i] - ex)).toBeLessThan(0.0015);
          expect(Math.abs(y[i] - ey)).toBeLessThan(0.0015);
          expect(Math.abs(z[i] - ez)).toBeLessThan(0.0015);
        }
      }
      if (ref.header_frames && ref.header_frames !== ref.n_frames) {
        expect(data.composition.dropped.join(' ')).toContain(`DCD header frame count ${ref.header_frames}`);
      }
    });
  }
});

describe('DCD time', () => {
  it('puts frame 0 at ISTART × DELTA and frames NSAVC × DELTA apart, as MDAnalysis', async () => {
    // adk_dims.dcd has ISTART = NSAVC = 1000 (DELTA × 1000 = 1 ps): set apart, MDAnalysis 2.11 reads 0.5 ps and 2 ps
    const dcd = file('adk_dims.dcd');
    const dv = new DataView(dcd.buffer, dcd.byteOffset, dcd.byteLength);
    dv.setInt32(12, 500, true); // ISTART
    dv.setInt32(16, 2000, true); // NSAVC
    const data = await readStructure(file('adk.psf'), 'psf', 'adk.psf', { bytes: dcd, format: 'dcd', where: 'a.dcd' });
    expect(data.composition.trajectory?.timePs?.start).toBeCloseTo(0.5, 3);
    expect(data.composition.trajectory?.timePs?.step).toBeCloseTo(2, 3);
  });
});

describe('trajectory bad inputs', () => {
  it('refuses topology and coordinates of different atom counts, naming both', async () => {
    const e = await refused(read('adk.psf', 'bala.ncdf'));
    expect(e.code).toBe('VALIDATION_FAILED');
    expect(e.message).toContain('3341 atoms');
    expect(e.message).toContain('2661 per frame');
    expect(e.details).toMatchObject({ topologyAtoms: 3341, coordinateAtoms: 2661 });
  });

  it('refuses an XTC cut inside a frame, naming the last whole frame', async () => {
    const xtc = file('adk_oplsaa.xtc');
    const e = await refused(
      readStructure(file('adk_oplsaa.gro'), 'gro', 'adk_oplsaa.gro', {
        bytes: xtc.slice(0, Math.floor(xtc.length * 0.7)),
        format: 'xtc',
        where: 'cut.xtc'
      })
    );
    expect(e.code).toBe('VALIDATION_FAILED');
    expect(e.where).toBe('cut.xtc');
    // frame 6 ends at byte 1,156,212, 11 bytes past the cut: Mol* alone reads it as a 7th frame
    expect(e.details).toMatchObject({ truncated: true, lastGoodFrame: 5 });
  });

  it('refuses a DCD cut inside a frame, naming the last whole frame', async () => {
    const dcd = file('adk_dims.dcd');
    const e = await refused(
      readStructure(file('adk.psf'), 'psf', 'adk.psf', { bytes: dcd.slice(0, dcd.length - 1000), format: 'dcd', where: 'cut.dcd' })
    );
    expect(e.details).toMatchObject({ truncated: true, lastGoodFrame: 96 });
    expect(e.message).toContain('last whole frame is 96');
  });

  it('refuses a LAMMPS dump cut inside a frame', async () => {
    const dump = file('chain_dump_1.lammpstrj');
    const e = await refused(readStructure(dump.slice(0, 4013), 'lammpstrj', 'cut.lammpstrj'));
    expect(e.code).toBe('VALIDATION_FAILED');
    expect(e.details).toMatchObject({ truncated: true, lastGoodFrame: 3, announced: 5 });
    const asCoordinates = await refused(
      readStructure(dump, 'lammpstrj', 'chain.lammpstrj', { bytes: dump.slice(0, 4013), format: 'lammpstrj', where: 'cut.lammpstrj' })
    );
    expect(asCoordinates.where).toBe('cut.lammpstrj');
    expect(asCoordinates.details).toMatchObject({ truncated: true, lastGoodFrame: 3 });
  });

  it('refuses a topology without coordinates, and coordinates of another format', async () => {
    const alone = await refused(read('adk.psf', null));
    expect(alone.message).toContain('topology');
    expect(alone.fix).toContain('coordinates');
    const wrong = await refused(
      readStructure(file('adk.psf'), 'psf', 'adk.psf', { bytes: file('adk_dims.dcd'), format: 'xtc', where: 'a.xtc' })
    );
    expect(wrong.code).toBe('VALIDATION_FAILED');
    expect(wrong.where).toBe('a.xtc');
    expect(wrong.message).toContain('not XTC');
  });

  it('refuses a frame out of range, and playback of one frame', async () => {
    const data = await read('adk.psf', 'adk_dims.dcd');
    const view = initialView([{ selector: 'all', representation: 'cartoon' }]);
    const e = await refused(planActions(view, [{ op: 'goto_frame', frame: 98 }], data));
    expect(e.where).toBe('/actions/0/frame');
    expect(e.details).toMatchObject({ frame: 98, frames: 98 });
    const negative = await refused(planActions(view, [{ op: 'goto_frame', frame: -1 }], data));
    expect(negative.where).toBe('/actions/0/frame');
    const plan = await planActions(view, [{ op: 'goto_frame', frame: 97 }], data);
    expect(plan.view.frame).toBe(97);
    expect(plan.step).toBe('none');
    // playback is navigation too: no undo step
    const play = await planActions(view, [{ op: 'play', fps: 10, loop: true }], data);
    expect([play.view.play, play.step]).toEqual([{ fps: 10, loop: true }, 'none']);
    const pause = await planActions(play.view, [{ op: 'pause' }], data);
    expect([pause.view.play, pause.step]).toEqual([null, 'none']);
    // with an edit in the batch it is one undo step
    const mixed = await planActions(
      view,
      [
        { op: 'goto_frame', frame: 3 },
        { op: 'set_background', color: '#000000' }
      ],
      data
    );
    expect(mixed.step).toBe('push');
    const single = await readStructure(file('adk_oplsaa.gro'), 'gro', 'adk_oplsaa.gro');
    const p = await refused(planActions(view, [{ op: 'play', fps: 10, loop: true }], single));
    expect(p.message).toContain('one frame');
  });

  it('measures a distance on the frame drawn', async () => {
    const data = await read('adk.psf', 'adk_dims.dcd');
    const view = { ...initialView([{ selector: 'all', representation: 'cartoon' }]), frame: 0 };
    const measure = [{ op: 'measure_distance' as const, start: { atom_index: 0 }, end: { atom_index: 1670 } }];
    const d0 = (await planActions(view, measure, data)).applied[0].distance!;
    const d97 = (await planActions({ ...view, frame: 97 }, measure, data)).applied[0].distance!;
    const ref = REFERENCE['adk_dims.dcd'].frames;
    const dist = (p: Record<string, number[]>) => Math.hypot(...p['0'].map((v, k) => v - p['1670'][k]));
    expect(d0).toBeCloseTo(dist(ref[0].positions), 2);
    expect(d97).toBeCloseTo(dist(ref[2].positions), 2);
  });
});
