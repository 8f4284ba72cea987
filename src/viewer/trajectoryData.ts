/**
 * Trajectory coordinates read with Mol*'s own parsers (`mol-io/reader/{xtc,dcd,trr,nctraj,lammps}`,
 * `mol-model-formats/structure/*`), checked first where Mol* would read past a cut or trust a
 * wrong header (docs/architecture.md, "Viewer"):
 *
 * - XTC: every frame header is walked (magic 1995, atom count, the compressed byte count of each
 *   frame, all big-endian as xdrfile writes them); Mol* silently drops a frame cut short.
 * - DCD: the frames are counted from the file size, as MDAnalysis and VMD's dcdplugin do. A
 *   header whose frame count (NSET) is larger than the frames the file holds (MDAnalysis's
 *   adk_dims.dcd says 500, holds 98) makes Mol* read past the end; the bytes Mol* gets carry the
 *   count the file holds, and the composition says so. Mol* scales the DCD time step by the
 *   inverse of the AKMA time unit and leaves out NSAVC, so the time here is MDAnalysis's: frame 0
 *   at ISTART × DELTA, frames NSAVC × DELTA apart, × 0.04888821 ps.
 * - LAMMPS dump: a frame cut short (fewer ATOMS lines than NUMBER OF ATOMS) is dropped by Mol*.
 */
import { parseDcd } from 'molstar/lib/mol-io/reader/dcd/parser';
import { parseLammpsTrajectory } from 'molstar/lib/mol-io/reader/lammps/traj/parser';
import { parseNctraj } from 'molstar/lib/mol-io/reader/nctraj/parser';
import { parseTrr } from 'molstar/lib/mol-io/reader/trr/parser';
import { parseXtc } from 'molstar/lib/mol-io/reader/xtc/parser';
import { coordinatesFromDcd } from 'molstar/lib/mol-model-formats/structure/dcd';
import { coordinatesFromLammpsTrajectory } from 'molstar/lib/mol-model-formats/structure/lammps-trajectory';
import { coordinatesFromNctraj } from 'molstar/lib/mol-model-formats/structure/nctraj';
import { coordinatesFromTrr } from 'molstar/lib/mol-model-formats/structure/trr';
import { coordinatesFromXtc } from 'molstar/lib/mol-model-formats/structure/xtc';
import type { Coordinates } from 'molstar/lib/mol-model/structure';
import { Task } from 'molstar/lib/mol-task';

import { MolspaceError, type CoordinatesFormat, type ViewerTrajectory } from '../contract';

/** One AKMA time unit, ps (CHARMM's DCD time step unit, as MDAnalysis converts it). */
const AKMA_PS = 0.04888821;
const XTC_MAGIC = 1995;

/** Coordinates ready for Mol*: the frames, what the composition reports, and the bytes the plugin loads. */
export interface CoordinatesData {
  format: CoordinatesFormat;
  coordinates: Coordinates;
  /** The bytes the live viewer loads (a DCD's header may carry the frame count the file holds). */
  bytes: Uint8Array;
  trajectory: ViewerTrajectory;
  /** What was read differently from the file's own header, for `composition.dropped`. */
  notes: string[];
}

/**
 * Read a coordinates file.
 *
 * @param where - where the file came from (a path or `/coordinates`), for errors.
 * @throws MolspaceError `VALIDATION_FAILED` (empty, cut short: `details.truncated`, `lastGoodFrame`;
 *   not the declared format; Mol* refused it; no frames).
 */
export async function readCoordinates(data: Uint8Array, format: CoordinatesFormat, where: string): Promise<CoordinatesData> {
  if (data.byteLength === 0) {
    throw new MolspaceError(
      'VALIDATION_FAILED',
      `The ${format} coordinates are empty.`,
      where,
      'Pass a trajectory file with frames in it.',
      {
        format,
        bytes: 0
      }
    );
  }
  const notes: string[] = [];
  let bytes = data;
  let timePs: ViewerTrajectory['timePs'] = null;
  if (format === 'xtc') {
    scanXtc(data, where);
  } else if (format === 'dcd') {
    const dcd = checkDcd(data, where);
    bytes = dcd.bytes;
    notes.push(...dcd.notes);
    timePs = dcd.timePs;
  }
  let coordinates: Coordinates;
  try {
    // Mol*'s binary readers view `data.buffer` from offset 0 (and may swap bytes in place): a copy of its own
    coordinates = await Task.create('molspace: read coordinates', async ctx => {
      const ok = <T>(r: { isError: boolean; message?: string; result?: T }): T => {
        if (r.isError) {
          throw new Error(r.message ?? 'parse error');
        }
        return r.result as T;
      };
      const own = bytes.slice();
      switch (format) {
        case 'xtc':
          return coordinatesFromXtc(ok(await parseXtc(own).runInContext(ctx))).runInContext(ctx);
        case 'dcd':
          return coordinatesFromDcd(ok(await parseDcd(own).runInContext(ctx))).runInContext(ctx);
        case 'trr':
          return coordinatesFromTrr(ok(await parseTrr(own).runInContext(ctx))).runInContext(ctx);
        case 'nctraj':
          return coordinatesFromNctraj(ok(await parseNctraj(own).runInContext(ctx))).runInContext(ctx);
        case 'lammpstrj':
          return coordinatesFromLammpsTrajectory(ok(await parseLammpsTrajectory(decodeText(own, where)).runInContext(ctx))).runInContext(
            ctx
          );
      }
    }).run();
  } catch (e) {
    if (e instanceof MolspaceError) {
      throw e;
    }
    const reason = (e instanceof Error ? e.message : String(e)).slice(0, 300);
    const cut = /outside the bounds|Invalid typed array length|Offset is outside/i.test(reason);
    throw new MolspaceError(
      'VALIDATION_FAILED',
      `Mol* could not read the coordinates as ${format}: ${reason}${cut ? ' (the data ends before a frame it announces)' : ''}`,
      where,
      cut
        ? 'Pass the whole file: it looks truncated (cut while copying, writing, or while the simulation was still running).'
        : `Check the file is ${format} (coordinates_format / the file extension).`,
      { format, reason, truncated: cut }
    );
  }
  const frames = coordinates.frames.length;
  if (frames === 0) {
    throw new MolspaceError(
      'VALIDATION_FAILED',
      `The ${format} coordinates hold no frame.`,
      where,
      'Pass a trajectory file with frames in it.',
      {
        format,
        frames: 0
      }
    );
  }
  if (format === 'lammpstrj') {
    checkLammpsFrames(decodeText(bytes, where), frames, where);
  }
  if (format === 'xtc' || format === 'trr' || format === 'nctraj') {
    // these formats store time in ps (Mol* labels the unit 'step')
    const t0 = coordinates.frames[0].time.value;
    const step = frames > 1 ? coordinates.frames[1].time.value - t0 : 0;
    timePs = Number.isFinite(t0) && Number.isFinite(step) && (step !== 0 || t0 !== 0) ? { start: round(t0), step: round(step) } : null;
  }
  return { format, coordinates, bytes, trajectory: { frames, coordinates: format, timePs }, notes };
}

/**
 * Refuse topology and coordinates whose atom counts differ.
 *
 * @throws MolspaceError `VALIDATION_FAILED` at `where` naming both counts.
 */
export function checkAtomCount(topologyAtoms: number, coords: CoordinatesData, topologyWhere: string, where: string): void {
  const atoms = coords.coordinates.frames[0].elementCount;
  if (atoms !== topologyAtoms) {
    throw new MolspaceError(
      'VALIDATION_FAILED',
      `The topology ${topologyWhere} has ${topologyAtoms} atoms and the ${coords.format} coordinates have ${atoms} per frame.`,
      where,
      'Pass the topology the trajectory was written with (the same atoms in the same order), or a coordinates file of that system.',
      { topologyAtoms, coordinateAtoms: atoms, format: coords.format }
    );
  }
}

/**
 * Refuse a LAMMPS dump whose last frame Mol* dropped (it announces more TIMESTEP items than frames read).
 *
 * @throws MolspaceError `VALIDATION_FAILED` at `where` naming the last whole frame.
 */
export function checkLammpsFrames(text: string, frames: number, where: string): void {
  const announced = (text.match(/^ITEM: TIMESTEP/gm) ?? []).length;
  if (announced > frames) {
    throw truncated('lammpstrj', where, frames, announced);
  }
}

function truncated(format: CoordinatesFormat, where: string, frames: number, announced: number | null): MolspaceError {
  return new MolspaceError(
    'VALIDATION_FAILED',
    `The ${format} coordinates end inside frame ${frames} (0-based); the last whole frame is ${frames - 1}${announced ? ` of ${announced} announced` : ''}.`,
    where,
    `Pass the whole file: it looks truncated (cut while copying, or while the simulation was still writing); or cut it to frames 0–${frames - 1}.`,
    { format, truncated: true, lastGoodFrame: frames - 1, frames, ...(announced ? { announced } : {}) }
  );
}

/** Walk the XTC frame headers: every frame whole, the magic number at each start. */
function scanXtc(data: Uint8Array, where: string): void {
  const dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let offset = 0;
  let frames = 0;
  while (offset < data.byteLength) {
    if (data.byteLength - offset < 56) {
      throw truncated('xtc', where, frames, null);
    }
    const magic = dv.getInt32(offset, false);
    if (magic !== XTC_MAGIC) {
      throw new MolspaceError(
        'VALIDATION_FAILED',
        frames === 0
          ? `The data is not XTC: it starts with ${magic}, not the XTC magic number ${XTC_MAGIC}.`
          : `The xtc coordinates have no frame header after frame ${frames - 1} (at byte ${offset}).`,
        where,
        frames === 0 ? 'Pass an XTC file, or the right coordinates format.' : `Pass the whole file, or cut it to frames 0–${frames - 1}.`,
        { format: 'xtc', offset, frames }
      );
    }
    const natoms = dv.getInt32(offset + 4, false);
    let size: number;
    if (natoms <= 9) {
      size = 56 + 12 * Math.max(natoms, 0);
    } else {
      if (data.byteLength - offset < 92) {
        throw truncated('xtc', where, frames, null);
      }
      const n = dv.getInt32(offset + 88, false);
      size = 92 + Math.ceil(Math.max(n, 0) / 4) * 4;
    }
    if (offset + size > data.byteLength) {
      throw truncated('xtc', where, frames, null);
    }
    offset += size;
    frames += 1;
  }
}

/**
 * Count a DCD's frames from its size (little-endian CHARMM/X-PLOR layout, as Mol*'s parser reads
 * it); give Mol* a header with that count.
 */
function checkDcd(data: Uint8Array, where: string): { bytes: Uint8Array; notes: string[]; timePs: ViewerTrajectory['timePs'] } {
  const dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (data.byteLength < 104 || dv.getInt32(0, true) !== 84) {
    // big-endian or not a DCD: Mol*'s parser says which
    return { bytes: data, notes: [], timePs: null };
  }
  const int = (i: number) => dv.getInt32(4 * i, true);
  const charmm = int(22) !== 0;
  const extraBlock = charmm && int(12) !== 0;
  const fourDims = charmm && int(13) === 1;
  const nset = int(2);
  const istart = int(3);
  const nsavc = int(4);
  const delta = charmm ? dv.getFloat32(44, true) : dv.getFloat64(44, true);
  const titleStart = 92;
  const titleBytes = dv.getInt32(titleStart, true);
  const natomAt = titleStart + titleBytes + 8;
  if (titleBytes < 0 || natomAt + 12 > data.byteLength || fourDims) {
    return { bytes: data, notes: [], timePs: null };
  }
  const natom = dv.getInt32(natomAt + 4, true);
  const first = natomAt + 12;
  const frameBytes = (extraBlock ? 56 : 0) + 3 * (natom * 4 + 8);
  if (natom <= 0 || frameBytes <= 0) {
    return { bytes: data, notes: [], timePs: null };
  }
  const whole = Math.floor((data.byteLength - first) / frameBytes);
  const rest = (data.byteLength - first) % frameBytes;
  if (rest !== 0) {
    throw truncated('dcd', where, whole, nset > 0 ? nset : null);
  }
  // as MDAnalysis: frame 0 at ISTART × DELTA, frames NSAVC × DELTA apart (AKMA time units)
  const timePs = delta > 0 ? { start: round(istart * delta * AKMA_PS), step: round(delta * Math.max(nsavc, 1) * AKMA_PS) } : null;
  if (whole === nset) {
    return { bytes: data, notes: [], timePs };
  }
  const bytes = data.slice();
  new DataView(bytes.buffer).setInt32(8, whole, true);
  return {
    bytes,
    notes: [`DCD header frame count ${nset}; the file holds ${whole} whole frames (counted from its size, as MDAnalysis does)`],
    timePs
  };
}

function decodeText(data: Uint8Array, where: string): string {
  const nul = data.indexOf(0);
  if (nul >= 0) {
    throw new MolspaceError(
      'VALIDATION_FAILED',
      `The data is binary, not a LAMMPS dump (a NUL byte at offset ${nul}).`,
      where,
      'Pass a LAMMPS text dump, or the right coordinates format.',
      { format: 'lammpstrj', offset: nul }
    );
  }
  return new TextDecoder('utf-8').decode(data);
}

function round(v: number): number {
  return Math.round(v * 1e4) / 1e4;
}
