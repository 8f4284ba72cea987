/**
 * A structure file read with Mol*'s own parsers (no WebGL, no plugin): the
 * models, the bounded composition, and MolViewSpec selectors checked against
 * the models (docs/architecture.md, "Viewer").
 *
 * The parsers and their order are those of Mol*'s trajectory transforms
 * (`mol-plugin-state/transforms/model`), so the page's model reads a file as
 * the Mol* plugin of its view does. Selectors become Mol* substructures with
 * the MVS extension (`componentPropsFromSelector`, `substructureFromSelector`).
 */
import { CIF } from 'molstar/lib/mol-io/reader/cif';
import { parseGRO } from 'molstar/lib/mol-io/reader/gro/parser';
import { parseMol } from 'molstar/lib/mol-io/reader/mol/parser';
import { parseMol2 } from 'molstar/lib/mol-io/reader/mol2/parser';
import { parsePDB } from 'molstar/lib/mol-io/reader/pdb/parser';
import { parseSdf } from 'molstar/lib/mol-io/reader/sdf/parser';
import { parseXyz } from 'molstar/lib/mol-io/reader/xyz/parser';
import { parsePsf } from 'molstar/lib/mol-io/reader/psf/parser';
import { parsePrmtop } from 'molstar/lib/mol-io/reader/prmtop/parser';
import { parseLammpsTrajectory } from 'molstar/lib/mol-io/reader/lammps/traj/parser';
import { topologyFromPsf } from 'molstar/lib/mol-model-formats/structure/psf';
import { topologyFromPrmtop } from 'molstar/lib/mol-model-formats/structure/prmtop';
import { trajectoryFromLammpsTrajectory } from 'molstar/lib/mol-model-formats/structure/lammps-trajectory';
import { trajectoryFromGRO } from 'molstar/lib/mol-model-formats/structure/gro';
import { trajectoryFromMmCIF } from 'molstar/lib/mol-model-formats/structure/mmcif';
import { trajectoryFromMol } from 'molstar/lib/mol-model-formats/structure/mol';
import { trajectoryFromMol2 } from 'molstar/lib/mol-model-formats/structure/mol2';
import { trajectoryFromPDB } from 'molstar/lib/mol-model-formats/structure/pdb';
import { trajectoryFromSdf } from 'molstar/lib/mol-model-formats/structure/sdf';
import { trajectoryFromXyz } from 'molstar/lib/mol-model-formats/structure/xyz';
import { ArrayTrajectory, Model, Structure, StructureElement, Trajectory } from 'molstar/lib/mol-model/structure';
import { Loci } from 'molstar/lib/mol-model/loci';
import { Vec3 } from 'molstar/lib/mol-math/linear-algebra';
import { componentPropsFromSelector } from 'molstar/lib/extensions/mvs/load-helpers';
import { substructureFromSelector } from 'molstar/lib/extensions/mvs/components/selector';
import { Task } from 'molstar/lib/mol-task';
import { AtomPartialCharge } from 'molstar/lib/mol-model-formats/structure/property/partial-charge';
import { decode as decodeMsgPack } from '@msgpack/msgpack';

import { cifLoopCut, cutWarning, refuseCutRecord } from './structureCuts';
import { checkAtomCount, checkLammpsFrames, readCoordinates, type CoordinatesData } from './trajectoryData';
import { OnDemandTrajectory, dcdOfFrame, type OnDemandSource } from './onDemandTrajectory';
import {
  BINARY_STRUCTURE_FORMATS,
  TOPOLOGY_FORMATS,
  type CoordinatesFormat,
  LIMITS,
  MolspaceError,
  type ChainInfo,
  type ComponentSelector,
  type LigandInfo,
  ligandText,
  type StructureFormat,
  type ViewerComposition,
  type ViewerLayer
} from '../contract';

/** A parsed structure: its models and what the page reports of them. */
export interface StructureData {
  format: StructureFormat;
  models: Model[];
  /** Structures of the drawn models (model 0 only when there are more than `viewerShownModels`). */
  structures: Structure[];
  composition: ViewerComposition;
  /** The frames to step through (`composition.trajectory`), or null: one frame. */
  trajectory: Trajectory | null;
  /**
   * A trajectory's coordinates as the live viewer loads them, or null. On demand: frame 0 as a
   * one-frame DCD, and the frames' source (the live viewer swaps the trajectory for it).
   */
  coordinates: { bytes: Uint8Array; format: CoordinatesFormat; onDemand?: OnDemandSource } | null;
}

/** A coordinates file that gives a topology or structure its frames. */
export interface CoordinatesSource {
  bytes: Uint8Array;
  format: CoordinatesFormat;
  /** Where it came from (a path or `/coordinates`), for errors. */
  where: string;
  /** Frames the kernel serves on demand (`bytes` is then empty and unread). */
  onDemand?: OnDemandSource;
}

/**
 * Read a structure with Mol*'s parser for `format`.
 *
 * @param where - where the data came from (a path or `/text`), for errors.
 * @throws MolspaceError `VALIDATION_FAILED` (empty, the parser refused it, no
 *   atoms, a record cut short: `details.truncated`, see `structureCuts.ts`; a
 *   BCIF whose MessagePack does not decode whole), `UNSUPPORTED_FORMAT` (binary
 *   data given as a text format). A text that may be cut short (it lacks its
 *   closing record) opens with a note in `composition.dropped`.
 */
export async function readStructure(
  data: Uint8Array,
  format: StructureFormat,
  where: string,
  coordinates: CoordinatesSource | null = null
): Promise<StructureData> {
  if (TOPOLOGY_FORMATS.includes(format) && !coordinates) {
    throw new MolspaceError(
      'VALIDATION_FAILED',
      `A ${format} file is a topology: it has atoms and bonds but no coordinates.`,
      where,
      'Pass its trajectory too (coordinates: an .xtc, .dcd, .trr or .nc file of the same system).',
      { format }
    );
  }
  const onDemand = coordinates?.onDemand ?? null;
  const coords = onDemand
    ? await readCoordinates(dcdOfFrame(await onDemand.cache.frame(0)), 'dcd', coordinates!.where)
    : coordinates
      ? await readCoordinates(coordinates.bytes, coordinates.format, coordinates.where)
      : null;
  if (data.byteLength === 0) {
    throw new MolspaceError('VALIDATION_FAILED', `The ${format} data is empty.`, where, 'Pass a file or text with atoms in it.', {
      format,
      bytes: 0
    });
  }
  const binary = BINARY_STRUCTURE_FORMATS.includes(format);
  let text = '';
  if (!binary) {
    text = decodeText(data, format, where);
    if (format === 'pdb' || format === 'pdbqt') {
      refuseShortAtomRecord(text, format, where);
    }
    refuseCutRecord(text, format, where);
  } else {
    checkBinaryCif(data, where);
  }
  let models: Model[];
  let trajectory: Trajectory | null = null;
  const notes: ParseNotes = { xyzComment: null };
  try {
    if (coords || format === 'lammpstrj') {
      trajectory = await Task.create('molspace: read trajectory', ctx =>
        trajectoryOf(ctx, format, binary ? data : text, where, coords)
      ).run();
      models = [await Task.resolveInContext(trajectory.getFrameAtIndex(0))];
      if (onDemand) {
        trajectory = new OnDemandTrajectory(models[0], onDemand.cache);
      }
    } else {
      models = await Task.create('molspace: read structure', ctx => parseModels(ctx, format, binary ? data : text, notes)).run();
    }
  } catch (e) {
    if (e instanceof MolspaceError) {
      throw e;
    }
    const reason = e instanceof Error ? e.message : String(e);
    const cifCut = format === 'mmcif' ? cifLoopCut(text, reason) : null;
    throw new MolspaceError(
      'VALIDATION_FAILED',
      `Mol* could not read the data as ${format}: ${reason}${cifCut ? ` The data ends inside that loop (line ${cifCut.line}).` : ''}`,
      where,
      cifCut
        ? 'Pass the whole file: it looks truncated (cut while copying, writing or downloading).'
        : `Check the data is a complete ${format} file, or pass the right format.`,
      cifCut ? { format, reason, line: cifCut.line, loop: cifCut.loop, truncated: true } : { format, reason }
    );
  }
  const atoms = models.length ? models[0].atomicHierarchy.atoms._rowCount : 0;
  if (models.length === 0 || atoms === 0) {
    throw new MolspaceError(
      'VALIDATION_FAILED',
      `The ${format} data has no atoms Mol* can read${models.length ? ` (${models.length} model(s), none with atoms)` : ''}.`,
      where,
      `Check the data is a ${format} file (its records are read as ${format}), or pass the right format.`,
      { format, models: models.length }
    );
  }
  if (!trajectory && models.length > LIMITS.viewerShownModels && models.every(m => m.atomicHierarchy.atoms._rowCount === atoms)) {
    // more models than the Viewer superposes, each of the same atoms: frames, one drawn at a time
    trajectory = new ArrayTrajectory(models);
  }
  const shown = trajectory || models.length > LIMITS.viewerShownModels ? [0] : models.map((_, i) => i);
  const structures = shown.map(i => Structure.ofModel(models[i]));
  const composition = compositionOf(format, models, shown);
  const frames = trajectory?.frameCount ?? 0;
  composition.trajectory = onDemand
    ? { frames, coordinates: onDemand.format, timePs: onDemand.timePs }
    : coords
      ? coords.trajectory
      : trajectory
        ? { frames, coordinates: null, timePs: null }
        : null;
  const warning = binary || trajectory ? null : cutWarning(text, format);
  composition.dropped = [
    ...(warning ? [warning] : []),
    ...droppedOf(format, text, models, notes),
    ...(onDemand ? onDemand.notes : (coords?.notes ?? []))
  ];
  return {
    format,
    models,
    structures,
    composition,
    trajectory,
    coordinates: coords ? { bytes: coords.bytes, format: coords.format, ...(onDemand ? { onDemand } : {}) } : null
  };
}

/**
 * The structures of frame `frame` of a trajectory (frame 0: the ones read), to measure on the frame drawn.
 *
 * @throws MolspaceError `VALIDATION_FAILED` at `where` for a frame out of range.
 */
export async function structuresAt(data: StructureData, frame: number, where: string): Promise<Structure[]> {
  if (frame === 0 || !data.trajectory) {
    return data.structures;
  }
  requireFrame(data, frame, where);
  return [Structure.ofModel(await Task.resolveInContext(data.trajectory.getFrameAtIndex(frame)))];
}

/**
 * Check a frame index against the trajectory.
 *
 * @throws MolspaceError `VALIDATION_FAILED` at `where`: not a trajectory, or the index out of range.
 */
export function requireFrame(data: StructureData, frame: number, where: string): void {
  const frames = data.composition.trajectory?.frames ?? 1;
  if (Number.isInteger(frame) && frame >= 0 && frame < frames) {
    return;
  }
  throw new MolspaceError(
    'VALIDATION_FAILED',
    data.composition.trajectory
      ? `Frame ${frame} is out of range: the trajectory has ${frames} frames (0–${frames - 1}).`
      : `Frame ${frame} is out of range: this Viewer shows one frame (not a trajectory).`,
    where,
    data.composition.trajectory
      ? `Pass a frame from 0 to ${frames - 1} (viewer_observe: composition.trajectory.frames).`
      : 'Open a trajectory (a topology with coordinates, or a file of many models) to step frames.',
    { frame, frames }
  );
}

/** A trajectory: a topology (PSF, PRMTOP) or a structure's first model with coordinates, or a LAMMPS dump. */
async function trajectoryOf(
  ctx: Parameters<Parameters<typeof Task.create>[1]>[0],
  format: StructureFormat,
  data: string | Uint8Array,
  where: string,
  coords: CoordinatesData | null
): Promise<Trajectory> {
  const text = typeof data === 'string' ? data : '';
  const ok = <T>(r: { isError: boolean; message?: string; result?: T }): T => {
    if (r.isError) {
      throw new Error(r.message ?? 'parse error');
    }
    return r.result as T;
  };
  if (!coords) {
    const dump = await trajectoryFromLammpsTrajectory(ok(await parseLammpsTrajectory(text).runInContext(ctx))).runInContext(ctx);
    checkLammpsFrames(text, dump.frameCount, where);
    return dump;
  }
  const whereCoords = `${where} + ${coords.format}`;
  if (format === 'psf' || format === 'prmtop') {
    const topology =
      format === 'psf'
        ? await topologyFromPsf(ok(await parsePsf(text).runInContext(ctx))).runInContext(ctx)
        : await topologyFromPrmtop(ok(await parsePrmtop(text).runInContext(ctx))).runInContext(ctx);
    checkAtomCount(topology.basic.atom_site._rowCount, coords, where, whereCoords);
    return Model.trajectoryFromTopologyAndCoordinates(topology, coords.coordinates).runInContext(ctx);
  }
  const first = (await parseModels(ctx, format, data, { xyzComment: null }))[0];
  if (!first) {
    throw new Error('no model');
  }
  checkAtomCount(first.atomicHierarchy.atoms._rowCount, coords, where, whereCoords);
  return Model.trajectoryFromModelAndCoordinates(first, coords.coordinates);
}

/** What the parsers saw besides the models. */
interface ParseNotes {
  /** The comment line of the first XYZ frame, as Mol*'s XYZ parser read it. */
  xyzComment: string | null;
}

/**
 * What a file carries that Mol* reads past or the Viewer does not draw: PDBQT
 * partial charges (Mol*'s `AtomPartialCharge`), AutoDock atom types and the
 * torsion tree; extended XYZ per-atom columns beyond species and position
 * (named by the `Properties=` key of the comment Mol* read) and frame keys.
 */
function droppedOf(format: StructureFormat, text: string, models: readonly Model[], notes: ParseNotes): string[] {
  const out: string[] = [];
  if (format === 'pdbqt') {
    const charges = AtomPartialCharge.Provider.get(models[0]);
    if (charges) {
      out.push(`PDBQT partial charges of ${models[0].atomicHierarchy.atoms._rowCount} atoms per model (read, not drawn)`);
    }
    out.push('PDBQT AutoDock atom types (drawn as their elements)');
    if (/^(ROOT|BRANCH|TORSDOF)\b/m.test(text)) {
      out.push('PDBQT torsion tree (ROOT/BRANCH/TORSDOF records)');
    }
  }
  if (format === 'xyz' && notes.xyzComment) {
    const keys = [...notes.xyzComment.matchAll(/([A-Za-z_][\w-]*)=("[^"]*"|\S+)/g)].map(m => [m[1], m[2].replace(/^"|"$/g, '')] as const);
    const properties = keys.find(([k]) => k.toLowerCase() === 'properties');
    if (properties) {
      const fields = properties[1].split(':');
      const extra: string[] = [];
      for (let i = 0; i + 2 < fields.length; i += 3) {
        if (fields[i] !== 'species' && fields[i] !== 'pos') {
          extra.push(`${fields[i]} (${fields[i + 1]}×${fields[i + 2]})`);
        }
      }
      if (extra.length) {
        out.push(`extended XYZ per-atom properties: ${extra.join(', ')}`);
      }
    }
    const frame = keys.filter(([k]) => k.toLowerCase() !== 'properties').map(([k]) => k);
    if (frame.length) {
      out.push(`extended XYZ frame properties: ${frame.slice(0, 20).join(', ')}`);
    }
  }
  return out;
}

/** Last column of an ATOM/HETATM record's coordinates (z is columns 47–54, PDB format 3.3). */
const PDB_COORDINATES_END = 54;

/**
 * Refuse a PDB/PDBQT text with an ATOM or HETATM record too short to hold its
 * coordinates: Mol* would read the half-written atom and draw it somewhere.
 *
 * @throws MolspaceError `VALIDATION_FAILED` naming the line (1-based) and its length;
 *   the last line cut short says the file looks truncated.
 */
function refuseShortAtomRecord(text: string, format: StructureFormat, where: string): void {
  let start = 0;
  for (let line = 1; start < text.length; line++) {
    const newline = text.indexOf('\n', start);
    const end = newline < 0 ? text.length : newline;
    if (text.startsWith('ATOM', start) || text.startsWith('HETATM', start)) {
      const length = end - start - (text[end - 1] === '\r' ? 1 : 0);
      if (length < PDB_COORDINATES_END) {
        const last = newline < 0 || text.slice(newline + 1).trim() === '';
        const record = text.startsWith('ATOM', start) ? 'ATOM' : 'HETATM';
        throw new MolspaceError(
          'VALIDATION_FAILED',
          `${last ? `The ${format} data ends inside an ${record} record` : `Line ${line} of the ${format} data is an ${record} record cut short`}: line ${line} has ${length} characters, its coordinates need columns 31–${PDB_COORDINATES_END}.`,
          where,
          last
            ? 'Pass the whole file: it looks truncated (cut while copying, writing or downloading).'
            : `Repair line ${line} (x, y, z in columns 31–54) or pass the complete file.`,
          { format, line, length, truncated: last }
        );
      }
    }
    start = end + 1;
  }
}

/**
 * Refuse BCIF whose MessagePack does not decode whole, before Mol* reads it:
 * Mol*'s decoder trusts array, map and binary lengths that run past the end of
 * the data (a long loop on the page's main thread, issue 23). `@msgpack/msgpack`
 * checks each length against the bytes left, and that the data ends with the
 * value.
 *
 * @throws MolspaceError `VALIDATION_FAILED` with `details: {format: 'bcif', bytes, reason, truncated}`
 *   (`truncated`: a length runs past the end).
 */
function checkBinaryCif(data: Uint8Array, where: string): void {
  try {
    decodeMsgPack(data);
  } catch (e) {
    const reason = (e instanceof Error ? e.message : String(e)).slice(0, 200);
    const truncated = e instanceof RangeError && !/^Extra /.test(reason);
    throw new MolspaceError(
      'VALIDATION_FAILED',
      `The bcif data (${data.byteLength} bytes) is not valid MessagePack${truncated ? ', a length in it runs past the end of the data' : ''}: ${reason}`,
      where,
      truncated
        ? 'Pass the whole file: it looks truncated or corrupted (cut while copying, writing or downloading).'
        : 'Check the data is a BinaryCIF file, or pass the right format.',
      { format: 'bcif', bytes: data.byteLength, reason, truncated }
    );
  }
}

/** UTF-8 text of a text format; binary data is refused. */
function decodeText(data: Uint8Array, format: StructureFormat, where: string): string {
  // Anywhere in the data, not only near its start: Mol* would silently lose the record holding it.
  const nul = data.indexOf(0);
  if (nul >= 0) {
    throw new MolspaceError(
      'UNSUPPORTED_FORMAT',
      `The data is binary, not ${format} text (it has a NUL byte at offset ${nul}).`,
      where,
      'Pass a text structure file (PDB, mmCIF, SDF, MOL2, XYZ, GRO) or BCIF with format "bcif".',
      { format, offset: nul }
    );
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    throw new MolspaceError(
      'UNSUPPORTED_FORMAT',
      `The data is not UTF-8 text, so it cannot be ${format}.`,
      where,
      'Pass a text structure file, or BCIF with format "bcif".',
      { format }
    );
  }
}

async function parseModels(
  ctx: Parameters<Parameters<typeof Task.create>[1]>[0],
  format: StructureFormat,
  data: string | Uint8Array,
  notes: ParseNotes
): Promise<Model[]> {
  const ok = <T>(r: { isError: boolean; message?: string; result?: T }): T => {
    if (r.isError) {
      throw new Error(r.message ?? 'parse error');
    }
    return r.result as T;
  };
  const frames = async (t: Trajectory): Promise<Model[]> => {
    const out: Model[] = [];
    for (let i = 0; i < t.frameCount; i++) {
      out.push(await Task.resolveInContext(t.getFrameAtIndex(i), ctx));
    }
    return out;
  };
  const text = typeof data === 'string' ? data : '';
  switch (format) {
    case 'pdb':
    case 'pdbqt': {
      const parsed = ok(await parsePDB(text, 'structure', format === 'pdbqt' ? 'pdbqt' : 'pdb').runInContext(ctx));
      return frames(await trajectoryFromPDB(parsed).runInContext(ctx));
    }
    case 'mmcif':
    case 'bcif': {
      const cif = ok(await CIF.parse(data).runInContext(ctx));
      if (cif.blocks.length === 0) {
        throw new Error('no CIF data block');
      }
      return frames(await trajectoryFromMmCIF(cif.blocks[0], cif).runInContext(ctx));
    }
    case 'sdf': {
      const parsed = ok(await parseSdf(text).runInContext(ctx));
      const models: Model[] = [];
      for (const compound of parsed.compounds) {
        models.push(...(await frames(await trajectoryFromSdf(compound).runInContext(ctx))));
      }
      return frames(new ArrayTrajectory(models));
    }
    case 'mol':
      return frames(await trajectoryFromMol(ok(await parseMol(text).runInContext(ctx))).runInContext(ctx));
    case 'mol2':
      return frames(await trajectoryFromMol2(ok(await parseMol2(text, 'structure').runInContext(ctx))).runInContext(ctx));
    case 'xyz': {
      const parsed = ok(await parseXyz(text).runInContext(ctx));
      notes.xyzComment = parsed.molecules[0]?.comment ?? null;
      return frames(await trajectoryFromXyz(parsed).runInContext(ctx));
    }
    case 'gro':
      return frames(await trajectoryFromGRO(ok(await parseGRO(text).runInContext(ctx))).runInContext(ctx));
    case 'lammpstrj':
      return frames(await trajectoryFromLammpsTrajectory(ok(await parseLammpsTrajectory(text).runInContext(ctx))).runInContext(ctx));
    case 'psf':
    case 'prmtop':
      throw new Error(`a ${format} topology has no coordinates`);
  }
}

/** The bounded composition of `models` (chains, ligands and waters of model 0). */
export function compositionOf(format: StructureFormat, models: readonly Model[], shown: number[]): ViewerComposition {
  const m = models[0];
  const h = m.atomicHierarchy;
  const { chains, residues, atoms } = h;
  const chainCount = chains._rowCount;
  const chainResidues = new Array<number>(chainCount).fill(0);
  const chainAtoms = new Array<number>(chainCount).fill(0);
  const ligands: LigandInfo[] = [];
  let ligandCount = 0;
  let waters = 0;
  const entityType = (c: number) => m.entities.data.type.value(h.index.getEntityFromChain(c as never));
  for (let r = 0; r < residues._rowCount; r++) {
    const start = h.residueAtomSegments.offsets[r];
    const end = h.residueAtomSegments.offsets[r + 1];
    const c = h.chainAtomSegments.index[start];
    chainResidues[c]++;
    chainAtoms[c] += end - start;
    const type = entityType(c);
    if (type === 'water') {
      waters++;
    } else if (type === 'non-polymer') {
      ligandCount++;
      if (ligands.length < LIMITS.viewerLigandsListed) {
        ligands.push({
          comp_id: atoms.label_comp_id.value(start as never),
          label_asym_id: chains.label_asym_id.value(c as never),
          auth_asym_id: chains.auth_asym_id.value(c as never),
          auth_seq_id: residues.auth_seq_id.value(r as never),
          atoms: end - start
        });
      }
    }
  }
  const chainList: ChainInfo[] = [];
  const polymerTypes = new Set<string>();
  for (let c = 0; c < chainCount; c++) {
    const e = h.index.getEntityFromChain(c as never);
    const type = m.entities.data.type.value(e);
    const subtype = type === 'polymer' ? String(m.entities.subtype.value(e) || 'polymer') : null;
    if (subtype) {
      polymerTypes.add(subtype);
    }
    if (chainList.length < LIMITS.viewerChainsListed) {
      chainList.push({
        label_asym_id: chains.label_asym_id.value(c as never),
        auth_asym_id: chains.auth_asym_id.value(c as never),
        entityType: String(type),
        polymerType: subtype,
        residues: chainResidues[c],
        atoms: chainAtoms[c]
      });
    }
  }
  return {
    format,
    modelCount: models.length,
    models: models.slice(0, LIMITS.viewerModelsListed).map((model, index) => ({
      index,
      label: String(model.label ?? '').slice(0, 100),
      atoms: model.atomicHierarchy.atoms._rowCount,
      residues: model.atomicHierarchy.residues._rowCount,
      chains: model.atomicHierarchy.chains._rowCount
    })),
    atoms: atoms._rowCount,
    residues: residues._rowCount,
    chainCount,
    chains: chainList,
    polymerTypes: [...polymerTypes],
    ligandCount,
    ligands,
    waters,
    shownModels: shown,
    trajectory: null,
    dropped: []
  };
}

/** Atoms of the drawn models that `selector` matches (Mol*'s MVS selector code). */
export function countMatches(structures: readonly Structure[], selector: ComponentSelector): number {
  const props = componentPropsFromSelector(selector as never);
  let n = 0;
  for (const s of structures) {
    n += substructureFromSelector(s, props).elementCount;
  }
  return n;
}

/**
 * Check a selector matches something.
 *
 * @param where - JSON pointer of the selector in the call.
 * @throws MolspaceError `NOT_FOUND` at `where`, naming the selector and the chains that exist.
 */
export function requireMatch(data: StructureData, selector: ComponentSelector, where: string): number {
  const n = countMatches(data.structures, selector);
  if (n > 0) {
    return n;
  }
  const chains = data.composition.chains;
  const auth = [...new Set(chains.map(c => c.auth_asym_id))];
  const label = [...new Set(chains.map(c => c.label_asym_id))];
  throw new MolspaceError(
    'NOT_FOUND',
    `The selector ${JSON.stringify(selector)} matches no atom of this structure.`,
    where,
    `Use chain ids that exist (auth_asym_id: ${shownIds(auth)}; label_asym_id: ${shownIds(label)}); ` +
      `viewer_observe lists the chains and the ligands${ligandHint(data)}.`,
    {
      selector,
      auth_asym_ids: auth.slice(0, 100),
      label_asym_ids: label.slice(0, 100),
      // as viewer_observe lists them, with the `comp_id chain seq` text of summaries
      ligands: data.composition.ligands
        .slice(0, 20)
        .map(l => ({ comp_id: l.comp_id, auth_asym_id: l.auth_asym_id, auth_seq_id: l.auth_seq_id, text: ligandText(l) }))
    }
  );
}

/**
 * The one atom `selector` matches, as a Mol* loci.
 *
 * @param name - the selector's field name in the operation (`start`, `end`), for the message.
 * @throws MolspaceError `NOT_FOUND` at `where` (no atom, see {@link requireMatch}), `VALIDATION_FAILED`
 *   at `where` when it matches more than one atom, naming the selector and how many atoms it matched.
 */
export function requireOneAtom(data: StructureData, selector: ComponentSelector, where: string, name: string): StructureElement.Loci {
  const n = requireMatch(data, selector, where);
  if (n !== 1) {
    throw new MolspaceError(
      'VALIDATION_FAILED',
      `The ${name} selector ${JSON.stringify(selector)} matches ${n} atoms; a distance needs exactly one atom each side.`,
      where,
      'Narrow it to one atom, e.g. {auth_asym_id, auth_seq_id, auth_atom_id}' +
        (data.composition.shownModels.length > 1 ? ` (the ${data.composition.shownModels.length} drawn models each count).` : '.'),
      { selector, name, atoms: n }
    );
  }
  const props = componentPropsFromSelector(selector as never);
  for (const s of data.structures) {
    const loci = Structure.toSubStructureElementLoci(s, substructureFromSelector(s, props));
    if (!StructureElement.Loci.isEmpty(loci)) {
      return loci;
    }
  }
  throw new MolspaceError('INTERNAL', 'A matched atom has no loci.', where, 'Report this as a molspace bug.');
}

/** Distance between the centres of two loci, Å, as Mol*'s distance label computes it (`Loci.getCenter`, `Vec3.distance`); 3 decimals. */
export function lociDistance(a: StructureElement.Loci, b: StructureElement.Loci): number {
  const ca = Loci.getCenter(a);
  const cb = Loci.getCenter(b);
  if (!ca || !cb) {
    return NaN;
  }
  return Math.round(Vec3.distance(ca, cb) * 1000) / 1000;
}

/** The layers a structure starts with: polymer as cartoon, ligands as ball-and-stick; else everything as ball-and-stick. */
export function defaultLayers(data: StructureData): ViewerLayer[] {
  const layers: ViewerLayer[] = [];
  if (countMatches(data.structures, 'polymer') > 0) {
    layers.push({ selector: 'polymer', representation: 'cartoon' });
    if (countMatches(data.structures, 'ligand') > 0) {
      layers.push({ selector: 'ligand', representation: 'ball_and_stick' });
    }
    if (countMatches(data.structures, 'ion') > 0) {
      layers.push({ selector: 'ion', representation: 'ball_and_stick' });
    }
  }
  if (layers.length === 0) {
    layers.push({ selector: 'all', representation: 'ball_and_stick' });
  }
  return layers;
}

/**
 * Chain ids for a fix, as JSON strings an agent can paste: at most 30; a blank id (a PDB HETATM
 * without a chain) is `" "`, the id that matches it.
 */
function shownIds(ids: string[]): string {
  return (
    ids
      .slice(0, 30)
      .map(id => JSON.stringify(id))
      .join(', ') || 'none'
  );
}

/** E.g. `; the first ligand as a selector: {"label_comp_id":"478","auth_asym_id":" ","auth_seq_id":200}`. */
function ligandHint(data: StructureData): string {
  const l = data.composition.ligands[0];
  return l
    ? `; the first ligand (${ligandText(l)}) as a selector: ${JSON.stringify({ auth_asym_id: l.auth_asym_id, auth_seq_id: l.auth_seq_id })}`
    : '';
}
