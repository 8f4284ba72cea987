/**
 * The structure a tool result carries for the App (`_meta["molspace/structure"]`,
 * src/contract/app.ts), decoded and checked: a file sent in the result, or a PDB entry the App
 * downloads itself from an allow-listed mirror ({@link appStructureBytes}).
 */
import type { CallToolResult } from '@modelcontextprotocol/client';

import { APP_STRUCTURE_META, AppStructure, type AppFile } from '../contract/app';
import { MolspaceError } from '../contract/errors';
import { appMetaOf, metaWhere } from './appMeta';
import { CoordinatesFormat, PdbMirror, StructureFormat, ViewerViewState } from '../contract/viewer';
import { downloadPdbEntry, PDB_MIRRORS } from '../viewer/pdbDownload';
import type { CoordinatesSource } from '../viewer/structureData';

/** A structure ready for `readStructure`. */
export interface AppSource {
  title: string;
  name: string;
  format: StructureFormat;
  /** The file's bytes, or null for a PDB entry to download (`download`). */
  bytes: Uint8Array | null;
  /** A PDB entry the App downloads (`open {pdbId}`), or null. */
  download: { pdbId: string; mirror: PdbMirror } | null;
  coordinates: CoordinatesSource | null;
  /** The view to show (a Viewer exported with its view), or null: the initial view. */
  view: ViewerViewState | null;
}

/**
 * The bytes of a file sent to the App.
 *
 * @throws MolspaceError `INVALID_INPUT` at `where/data` when base64 data is not base64.
 */
export function appFileBytes(file: AppFile, where: string): Uint8Array {
  if (file.encoding === 'utf8') {
    return new TextEncoder().encode(file.data);
  }
  let raw: string;
  try {
    raw = atob(file.data);
  } catch {
    throw new MolspaceError(
      'INVALID_INPUT',
      `The data of "${file.name}" is not base64.`,
      `${where}/data`,
      'Send binary files base64-encoded.',
      {
        name: file.name
      }
    );
  }
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) {
    out[i] = raw.charCodeAt(i);
  }
  return out;
}

/**
 * The structure of `result`, or null when it carries none (a result the App has nothing to draw for).
 *
 * @throws MolspaceError `INVALID_INPUT` at `_meta/molspace~1structure` when it has the wrong shape
 *   or a format molspace does not read (the fix names the formats).
 */
export function appSourceOf(result: CallToolResult): AppSource | null {
  const s = appMetaOf(result, APP_STRUCTURE_META, AppStructure, 'structure', 'open');
  if (!s) {
    return null;
  }
  const where = metaWhere(APP_STRUCTURE_META);
  const format = StructureFormat.safeParse(s.format);
  if (!format.success) {
    throw new MolspaceError(
      'INVALID_INPUT',
      `"${s.format}" is not a structure format molspace reads.`,
      `${where}/format`,
      `Use one of: ${StructureFormat.options.join(', ')}.`,
      { format: s.format }
    );
  }
  let coordinates: CoordinatesSource | null = null;
  if (s.coordinates) {
    const cf = CoordinatesFormat.safeParse(s.coordinates.format);
    if (!cf.success) {
      throw new MolspaceError(
        'INVALID_INPUT',
        `"${s.coordinates.format}" is not a coordinates format molspace reads.`,
        `${where}/coordinates/format`,
        `Use one of: ${CoordinatesFormat.options.join(', ')}.`,
        { format: s.coordinates.format }
      );
    }
    coordinates = { bytes: appFileBytes(s.coordinates.file, `${where}/coordinates/file`), format: cf.data, where: s.coordinates.file.name };
  }
  let view: ViewerViewState | null = null;
  if (s.view) {
    const v = ViewerViewState.safeParse(s.view);
    if (!v.success) {
      const issue = v.error.issues[0];
      throw new MolspaceError(
        'INVALID_INPUT',
        `The view sent with the structure is not a Viewer view state: ${issue.message}.`,
        `${where}/view/${issue.path.join('/')}`,
        'Export the Viewer again (its view is checked when it is set); or leave view out for the initial view.',
        { path: issue.path.map(String) }
      );
    }
    view = v.data;
  }
  if ((s.structure === undefined) === (s.download === undefined)) {
    throw new MolspaceError(
      'INVALID_INPUT',
      s.structure
        ? 'The structure for the App has both a file and a download.'
        : 'The structure for the App has neither a file nor a download.',
      `${where}/structure`,
      'Send one of them: structure (a file) or download (a PDB ID and mirror).',
      {}
    );
  }
  let download: AppSource['download'] = null;
  if (s.download) {
    const mirror = PdbMirror.safeParse(s.download.mirror);
    if (!mirror.success) {
      throw new MolspaceError(
        'INVALID_INPUT',
        `"${s.download.mirror}" is not a PDB mirror molspace downloads from.`,
        `${where}/download/mirror`,
        `Use one of: ${PdbMirror.options.join(', ')}.`,
        { mirror: s.download.mirror }
      );
    }
    download = { pdbId: s.download.pdbId, mirror: mirror.data };
  }
  return {
    title: s.title,
    name: s.structure?.name ?? (download ? PDB_MIRRORS[download.mirror](download.pdbId) : s.title),
    format: format.data,
    bytes: s.structure ? appFileBytes(s.structure, `${where}/structure`) : null,
    download,
    coordinates,
    view
  };
}

/**
 * The bytes of `source`: the file sent, or the PDB entry downloaded now (the page's own
 * `downloadPdbEntry`: allow-listed hosts after redirects, capped in bytes and lines).
 *
 * @throws MolspaceError as `downloadPdbEntry`: `NOT_FOUND`, `FORBIDDEN`, `TOO_LARGE` at `/pdbId`
 *   (the `open` argument the model gave).
 */
export async function appStructureBytes(source: AppSource): Promise<Uint8Array> {
  if (source.bytes) {
    return source.bytes;
  }
  const { pdbId, mirror } = source.download!;
  return downloadPdbEntry(pdbId, mirror);
}
