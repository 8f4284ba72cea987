/**
 * MVSX archives (a zip holding `index.mvsj` plus the files it references),
 * read with Mol*'s zip reader within the Story size limit, and archive paths
 * resolved as Mol*'s `loadMVSX` resolves them; written with Mol*'s zip writer
 * (`zipStory`: `story_create`'s Story archives, a Viewer's `.mvsx`).
 */
import { Unzip, Zip } from 'molstar/lib/mol-util/zip/zip';

import { MolspaceError } from '../contract/errors';
import { LIMITS } from '../contract/limits';

/** Name of the main file inside an MVSX archive (Mol*'s `loadMVSX` default). */
export const MVSX_MAIN_FILE = 'index.mvsj';

/** Base used to resolve archive-relative paths, exactly as Mol*'s `loadMVSX` does (`arcp://<id>/<path>`). */
export const ARCHIVE_BASE = 'arcp://molspace-archive/';

/**
 * Refuse a Story part over the Story size limit (`LIMITS.storySourceBytes`).
 *
 * @throws MolspaceError `TOO_LARGE` at `where`.
 */
export function checkStorySize(n: number, what: string, where: string): void {
  if (n > LIMITS.storySourceBytes) {
    throw new MolspaceError(
      'TOO_LARGE',
      `The ${what} is ${n} bytes; the limit is ${LIMITS.storySourceBytes} bytes (${LIMITS.storySourceBytes / (1024 * 1024)} MiB).`,
      where,
      'Reference large structures by https URL instead of embedding them, or split the Story.',
      { bytes: n, limit: LIMITS.storySourceBytes }
    );
  }
}

/** True when the last 64 KiB + 22 bytes hold a zip end-of-central-directory record. */
function hasZipEnd(bytes: Uint8Array): boolean {
  const min = Math.max(0, bytes.length - 65557);
  for (let i = bytes.length - 22; i >= min; i--) {
    if (bytes[i] === 0x50 && bytes[i + 1] === 0x4b && bytes[i + 2] === 0x05 && bytes[i + 3] === 0x06) {
      return true;
    }
  }
  return false;
}

/**
 * The name and declared uncompressed size of every entry the central
 * directory lists, read from the local headers as Mol*'s reader reads them
 * (`mol-util/zip/zip.ts`); null when a record lies past the end of the data.
 */
function listedEntries(bytes: Uint8Array): { name: string; size: number }[] | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let eocd = bytes.length - 4;
  while (eocd >= 0 && view.getUint32(eocd, true) !== 0x06054b50) {
    eocd--;
  }
  if (eocd < 0 || eocd + 20 > bytes.length) {
    return null;
  }
  const count = view.getUint16(eocd + 8, true);
  let at = view.getUint32(eocd + 16, true);
  const decoder = new TextDecoder();
  const out: { name: string; size: number }[] = [];
  for (let i = 0; i < count; i++) {
    if (at + 46 > bytes.length) {
      return null;
    }
    const local = view.getUint32(at + 42, true);
    if (local + 30 > bytes.length) {
      return null;
    }
    const nameLength = view.getUint16(local + 26, true);
    if (local + 30 + nameLength > bytes.length) {
      return null;
    }
    out.push({ name: decoder.decode(bytes.subarray(local + 30, local + 30 + nameLength)), size: view.getUint32(local + 22, true) });
    at += 46 + view.getUint16(at + 28, true) + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  return out;
}

/** Read an MVSX archive with Mol*'s zip reader; names are archive paths. */
export async function readArchive(bytes: Uint8Array): Promise<Map<string, Uint8Array>> {
  const notZip = (reason: string) =>
    new MolspaceError(
      'UNSUPPORTED_FORMAT',
      `The MVSX bytes are not a readable zip archive: ${reason}`,
      '/mvsx',
      'Pass an .mvsx file (a zip of index.mvsj and its assets), or pass MVSJ text instead.'
    );
  // Mol*'s reader scans backwards for the end record without a bound: check it exists first.
  if (bytes.length < 22 || bytes[0] !== 0x50 || bytes[1] !== 0x4b || !hasZipEnd(bytes)) {
    throw notZip('no zip signature');
  }
  // Mol*'s reader allocates each entry's declared size before inflating it, once per time the
  // central directory lists it, and keeps the last of duplicate names: the sizes are summed over
  // every listing, and duplicates refused, before it reads anything (issue 23: zip bombs).
  const listed = listedEntries(bytes);
  if (listed === null) {
    throw notZip('its central directory points past the end of the data');
  }
  checkStorySize(
    listed.reduce((n, e) => n + e.size, 0),
    'unpacked MVSX content',
    '/mvsx'
  );
  const names = new Set<string>();
  for (const { name } of listed) {
    if (names.has(name)) {
      throw new MolspaceError(
        'UNSUPPORTED_FORMAT',
        `The MVSX archive holds "${name}" more than once; which one a reader takes is not defined.`,
        '/mvsx',
        'Pack the archive again with each file once (e.g. with story_create or the molviewspec package).',
        { entry: name }
      );
    }
    names.add(name);
  }
  let entries: Record<string, unknown>;
  try {
    entries = await Unzip(bytes.slice().buffer, false).run();
  } catch (err) {
    throw notZip(err instanceof Error ? err.message : String(err));
  }
  const files = new Map<string, Uint8Array>();
  for (const [name, data] of Object.entries(entries)) {
    if (data instanceof Uint8Array && !name.endsWith('/')) {
      files.set(name, data);
    }
  }
  return files;
}

/**
 * Normalize an archive-relative path the way Mol* resolves it against the
 * archive's main file (`./assets/x.cif` → `assets/x.cif`); returns the path and
 * the `arcp:` URL Mol* would look up.
 */
export function normalizeArchivePath(uri: string): { path: string; url: string } {
  const url = new URL(uri, ARCHIVE_BASE + MVSX_MAIN_FILE).href;
  return { path: url.slice(ARCHIVE_BASE.length), url };
}

/** A zip of `index.mvsj` (the MVS JSON) and the files beside it, by Mol*'s zip writer. */
export async function zipStory(mvs: Record<string, unknown>, files: Record<string, Uint8Array>): Promise<Uint8Array> {
  const entries: Record<string, Uint8Array<ArrayBuffer>> = {
    [MVSX_MAIN_FILE]: new TextEncoder().encode(JSON.stringify(mvs, null, 2) + '\n') as Uint8Array<ArrayBuffer>
  };
  for (const [name, bytes] of Object.entries(files)) {
    entries[name] = bytes as Uint8Array<ArrayBuffer>;
  }
  return new Uint8Array(await Zip(entries).run());
}
