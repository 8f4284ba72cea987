/**
 * What the `open` tool needs from the page: read a file through JupyterLab's
 * contents API and dock a page-owned Viewer in the main area. The
 * `molspace:open` plugin provides it (`./dockedViewer.ts`); a page without it
 * (e.g. a test Dispatcher) answers `open` with a located error.
 */
import {
  COORDINATES_EXTENSIONS,
  CoordinatesFormat,
  MolspaceError,
  STORY_EXTENSIONS,
  STRUCTURE_EXTENSIONS,
  StructureFormat
} from '../contract';
import type { DockPlacement } from '../contract/toolArgs';
import type { ViewerTarget } from './viewerTarget';
import type { ServedFrames } from './serverFrames';
import type { OpenerSlots } from '../dispatcher/pageOpeners';

export interface StructureOpener {
  /**
   * Dock a Viewer of `bytes` (or of an MVS state `mvs`, `bytes` empty) in the main area; resolves once it has
   * loaded or failed. The caller waits for its first draw with `whenReady` (`../dispatcher/whenReady.ts`).
   */
  open(source: {
    bytes: Uint8Array;
    format: StructureFormat;
    name: string;
    title: string;
    mvs?: Record<string, unknown>;
    placement?: DockPlacement;
    /** A trajectory's coordinates (`bytes` is its topology); `served`: the server serves its frames. */
    coordinates?: OpenedCoordinates;
  }): Promise<ViewerTarget>;
  /**
   * The bytes of a file under the Jupyter root.
   *
   * @param where - the argument it came from, for errors (default `/path`).
   * @throws MolspaceError `NOT_FOUND`, `FORBIDDEN`, `TOO_LARGE` at `where`.
   */
  read(path: string, where?: string): Promise<Uint8Array>;
  /**
   * A trajectory file under the Jupyter root: its bytes, or, past the page's frame budget or
   * `viewerSourceBytes`, the server's description of it (its frames are then fetched on demand).
   *
   * @throws MolspaceError `NOT_FOUND`, `FORBIDDEN`, `VALIDATION_FAILED` (a file the server cannot
   *   read), `TOO_LARGE` (over `viewerSourceBytes` where the server cannot serve frames) at `where`.
   */
  readCoordinates(path: string, format: CoordinatesFormat, where?: string): Promise<OpenedCoordinates>;
}

/** A trajectory's coordinates for `open`: the whole file, or (empty `bytes`) served by the server. */
export interface OpenedCoordinates {
  bytes: Uint8Array;
  format: CoordinatesFormat;
  name: string;
  served?: ServedFrames;
}

/** @throws MolspaceError `INTERNAL` when this page cannot dock Viewers. */
export function structureOpener(openers: OpenerSlots): StructureOpener {
  const opener = openers.structure;
  if (!opener) {
    throw new MolspaceError(
      'INTERNAL',
      'This page cannot open structures in the main area (the molspace:open plugin is not running).',
      '/path',
      'Reload the JupyterLab page; check that the molspace extension is enabled.'
    );
  }
  return opener;
}

/**
 * Refuse a path that climbs above the Jupyter root (`..` segments); the
 * contents API would silently read it as another path under the root.
 *
 * @throws MolspaceError `FORBIDDEN` at `/path`.
 */
export function checkRootPath(path: string, where = '/path'): void {
  let depth = 0;
  for (const part of path.split('/')) {
    if (part === '..') {
      depth -= 1;
    } else if (part !== '' && part !== '.') {
      depth += 1;
    }
    if (depth < 0) {
      throw new MolspaceError(
        'FORBIDDEN',
        `"${path}" climbs above the Jupyter root.`,
        where,
        'Pass a path under the Jupyter root, relative to it (as the file browser shows it).',
        { path }
      );
    }
  }
}

/** Whether `path` names a Story file (`.mvsj` / `.mvsx`), which `open` docks as a Story. */
export function isStoryPath(path: string): boolean {
  const lower = path.toLowerCase();
  return STORY_EXTENSIONS.some(e => lower.endsWith(`.${e}`));
}

/**
 * The format of a path: `given`, else from its extension.
 *
 * @throws MolspaceError `UNSUPPORTED_FORMAT` at `/path` (no or an unknown extension).
 */
export function formatOfPath(path: string, given: StructureFormat | undefined): StructureFormat {
  if (given) {
    return given;
  }
  const ext = extensionOf(path);
  const format = STRUCTURE_EXTENSIONS[ext];
  if (!format) {
    const exts = Object.keys(STRUCTURE_EXTENSIONS)
      .map(e => `.${e}`)
      .join(' ');
    const stories = STORY_EXTENSIONS.map(e => `.${e}`).join(' ');
    throw new MolspaceError(
      'UNSUPPORTED_FORMAT',
      ext
        ? `The extension .${ext} of "${path}" is not a structure or Story format molspace reads.`
        : `"${path}" has no file extension to tell its format from.`,
      '/path',
      `Pass format (one of: ${StructureFormat.options.join(', ')}), or use a file ending in one of: ${exts} (structures), ${stories} (Stories).`,
      { path, extension: ext || null, formats: StructureFormat.options, storyExtensions: [...STORY_EXTENSIONS] }
    );
  }
  return format;
}

/**
 * The coordinates format of a trajectory path, from its extension.
 *
 * @throws MolspaceError `UNSUPPORTED_FORMAT` at `/coordinates`.
 */
export function coordinatesFormatOfPath(path: string): CoordinatesFormat {
  const ext = extensionOf(path);
  const format = COORDINATES_EXTENSIONS[ext];
  if (!format) {
    const exts = Object.keys(COORDINATES_EXTENSIONS)
      .map(e => `.${e}`)
      .join(' ');
    throw new MolspaceError(
      'UNSUPPORTED_FORMAT',
      ext
        ? `The extension .${ext} of "${path}" is not a trajectory format molspace reads.`
        : `"${path}" has no extension to tell its format from.`,
      '/coordinates',
      `Pass a trajectory file ending in one of: ${exts} (formats: ${CoordinatesFormat.options.join(', ')}).`,
      { path, extension: ext || null, extensions: Object.keys(COORDINATES_EXTENSIONS) }
    );
  }
  return format;
}

/** The extension of a path's file name, lower case without the dot ('' when none). */
function extensionOf(path: string): string {
  const base = path.split('/').pop() ?? path;
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}

declare module '../dispatcher/pageOpeners' {
  interface PageOpeners {
    structure: StructureOpener;
  }
}
