/**
 * A PDB entry downloaded by its four-character ID from an allow-listed public
 * mirror only (the `open` tool's `pdbId`), capped in bytes and lines. The
 * browser follows redirects; the final URL's host is checked against the
 * allow-list again and a response from any other host is discarded unread.
 * Every refusal names the cap, the host and the reason.
 */
import { LIMITS, MolspaceError, type PdbMirror } from '../contract';

/** The mirrors and the URL of an entry's mmCIF file on each. */
export const PDB_MIRRORS: Record<PdbMirror, (id: string) => string> = {
  rcsb: id => `https://files.rcsb.org/download/${id.toUpperCase()}.cif`,
  pdbe: id => `https://www.ebi.ac.uk/pdbe/entry-files/download/${id.toLowerCase()}.cif`,
  pdbj: id => `https://pdbj.org/rest/newweb/fetch/file?cat=pdb&type=mmcif&id=${id.toLowerCase()}`
};

/** Hosts a download may come from (after redirects). */
export const PDB_ALLOWED_HOSTS: readonly string[] = ['files.rcsb.org', 'www.ebi.ac.uk', 'pdbj.org'];

type Fetch = (url: string, init: RequestInit) => Promise<Response>;

/**
 * The mmCIF bytes of entry `id` from `mirror`.
 *
 * @throws MolspaceError `FORBIDDEN` (redirected off the allow-list), `TOO_LARGE`
 *   (over `pdbDownloadBytes` or `pdbDownloadLines`), `NOT_FOUND` (HTTP error or
 *   network failure), all at `/pdbId` and naming the URL's host.
 */
export async function downloadPdbEntry(id: string, mirror: PdbMirror, fetchImpl: Fetch = (u, i) => fetch(u, i)): Promise<Uint8Array> {
  const url = PDB_MIRRORS[mirror](id);
  const host = new URL(url).host;
  let response: Response;
  try {
    response = await fetchImpl(url, { redirect: 'follow', credentials: 'omit' });
  } catch (e) {
    throw new MolspaceError(
      'NOT_FOUND',
      `The download of ${id} from ${host} failed: ${e instanceof Error ? e.message : String(e)}.`,
      '/pdbId',
      'Retry, or pick another mirror.',
      {
        id,
        url,
        host
      }
    );
  }
  const finalHost = response.url ? new URL(response.url).host : host;
  if (!PDB_ALLOWED_HOSTS.includes(finalHost)) {
    void response.body?.cancel();
    throw new MolspaceError(
      'FORBIDDEN',
      `The download of ${id} from ${host} was redirected to ${finalHost}, which is not an allowed PDB mirror.`,
      '/pdbId',
      `Use a mirror whose files stay on ${PDB_ALLOWED_HOSTS.join(', ')}, or open a local file.`,
      { id, url, host: finalHost, allowedHosts: PDB_ALLOWED_HOSTS }
    );
  }
  if (!response.ok) {
    throw new MolspaceError(
      'NOT_FOUND',
      `${finalHost} has no entry ${id} (HTTP ${response.status}).`,
      '/pdbId',
      'Check the PDB ID, or pick another mirror.',
      {
        id,
        url,
        host: finalHost,
        status: response.status
      }
    );
  }
  const maxBytes = LIMITS.pdbDownloadBytes;
  const maxLines = LIMITS.pdbDownloadLines;
  const tooLarge = (what: string, cap: string) =>
    new MolspaceError(
      'TOO_LARGE',
      `Entry ${id} from ${finalHost} is over the ${cap} cap of a PDB preview (${what}).`,
      '/pdbId',
      'Download the file into the Jupyter root and open it by path.',
      {
        id,
        host: finalHost,
        maxBytes,
        maxLines
      }
    );
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    void response.body?.cancel();
    throw tooLarge(`${declared} bytes declared`, `${maxBytes}-byte`);
  }
  const reader = response.body?.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  let lines = 0;
  if (reader) {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        break;
      }
      bytes += value.byteLength;
      for (let i = value.indexOf(10); i >= 0; i = value.indexOf(10, i + 1)) {
        lines++;
      }
      if (bytes > maxBytes) {
        void reader.cancel();
        throw tooLarge(`more than ${maxBytes} bytes`, `${maxBytes}-byte`);
      }
      if (lines > maxLines) {
        void reader.cancel();
        throw tooLarge(`more than ${maxLines} lines`, `${maxLines}-line`);
      }
      chunks.push(value);
    }
  }
  const out = new Uint8Array(bytes);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
