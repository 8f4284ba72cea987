/**
 * MVSX archives (a zip holding `index.mvsj` plus the files it references),
 * read with Mol*'s zip reader within the Story size limit, and archive paths
 * resolved as Mol*'s `loadMVSX` resolves them.
 */
import { Unzip } from 'molstar/lib/mol-util/zip/zip';

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
  // Copy so the buffer holds exactly these bytes (a view may sit inside a larger buffer).
  const buffer = bytes.slice().buffer;
  let sizes: Record<string, unknown>;
  try {
    sizes = await Unzip(buffer, true).run();
  } catch (err) {
    throw notZip(err instanceof Error ? err.message : String(err));
  }
  let total = 0;
  for (const info of Object.values(sizes)) {
    const size = (info as { size?: unknown }).size;
    total += typeof size === 'number' ? size : 0;
  }
  checkStorySize(total, 'unpacked MVSX content', '/mvsx');
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
