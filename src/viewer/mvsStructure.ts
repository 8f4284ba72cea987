/**
 * The structure an MVS state loads, read in the page so selectors are
 * checked against what is drawn (docs/architecture.md, "Viewer"): after
 * `apply_mvs`, and for a Viewer whose source is an MVS state. The state's one
 * `download` node names a URL and its `parse` child a format; the URL was
 * allowed by the resource policy when the state was checked, and the final
 * URL after redirects is checked again here. The bytes are read with Mol*'s
 * parsers as a file is (`readStructure`), capped at `viewerSourceBytes`.
 */
import { LIMITS, MolspaceError, StructureFormat } from '../contract';
import { refusalOf, type ResourcePolicy } from '../resources/resourcePolicy';

/** One `download` → `parse` pair of an MVS tree. */
export interface MvsDownload {
  url: string;
  format: string | null;
}

interface MvsNode {
  kind?: unknown;
  params?: Record<string, unknown>;
  children?: unknown[];
}

/** Every `download` node of `state` with the format of its first `parse` child, in tree order (distinct URLs). */
export function mvsDownloads(state: Record<string, unknown>): MvsDownload[] {
  const out: MvsDownload[] = [];
  const walk = (n: unknown): void => {
    if (!n || typeof n !== 'object') {
      return;
    }
    const node = n as MvsNode;
    const children = Array.isArray(node.children) ? node.children : [];
    if (node.kind === 'download' && typeof node.params?.url === 'string') {
      const parse = children.find(c => (c as MvsNode)?.kind === 'parse') as MvsNode | undefined;
      const format = typeof parse?.params?.format === 'string' ? parse.params.format : null;
      if (!out.some(d => d.url === node.params!.url)) {
        out.push({ url: node.params.url, format });
      }
    }
    children.forEach(walk);
  };
  walk(state.root);
  return out;
}

/**
 * The one structure `state` loads, as a URL and a format the Viewer reads.
 *
 * @param where - JSON pointer of what needs it (a selector, or `source_name`), for errors.
 * @throws MolspaceError `VALIDATION_FAILED` at `where` when the state loads no structure or
 *   several (selectors are checked against one; `details.urls`), `UNSUPPORTED_FORMAT` for a
 *   parse format the Viewer does not read.
 */
export function mvsStructureOf(state: Record<string, unknown>, where: string): { url: string; format: StructureFormat } {
  const downloads = mvsDownloads(state);
  const back = "Send apply_mvs with state null to go back to the Viewer's own structure, or put the component into the MVS state itself.";
  if (downloads.length !== 1) {
    throw new MolspaceError(
      'VALIDATION_FAILED',
      downloads.length === 0
        ? 'The MVS state drawn loads no structure (no download node), so there is nothing to check the selector against.'
        : `The MVS state drawn loads ${downloads.length} structures; a selector is checked against one structure, and it is not known which one it means.`,
      where,
      back,
      { urls: downloads.slice(0, 10).map(d => d.url) }
    );
  }
  const [{ url, format }] = downloads;
  const parsed = StructureFormat.safeParse(format);
  if (!parsed.success) {
    throw new MolspaceError(
      'UNSUPPORTED_FORMAT',
      `The MVS state drawn loads ${url} as "${format}", which the Viewer cannot read to check selectors.`,
      where,
      `${back} The Viewer reads: ${StructureFormat.options.join(', ')}.`,
      { url, format }
    );
  }
  return { url, format: parsed.data };
}

type Fetch = (url: string, init: RequestInit) => Promise<Response>;

/**
 * The bytes at `url` (an MVS state's download, already allowed by `policy`).
 *
 * @throws MolspaceError `NOT_FOUND` (network failure, HTTP error), `FORBIDDEN` (redirected
 *   to a URL the policy refuses), `TOO_LARGE` (over `viewerSourceBytes`), all at `where`.
 */
export async function fetchMvsStructure(
  url: string,
  where: string,
  policy: ResourcePolicy,
  fetchImpl: Fetch = (u, i) => fetch(u, i)
): Promise<Uint8Array> {
  const fix = 'Check the URL serves the structure (the page fetches it as Mol* does), or open the file by path.';
  let response: Response;
  try {
    response = await fetchImpl(url, { redirect: 'follow', credentials: 'omit' });
  } catch (e) {
    throw new MolspaceError(
      'NOT_FOUND',
      `The structure of the MVS state (${url}) could not be fetched: ${e instanceof Error ? e.message : String(e)}.`,
      where,
      fix,
      { url }
    );
  }
  const refusal = response.url && response.url !== url ? refusalOf(response.url, policy) : null;
  if (refusal) {
    void response.body?.cancel();
    throw new MolspaceError('FORBIDDEN', `${url} redirected to ${response.url}, which may not load: ${refusal}.`, where, fix, {
      url,
      finalUrl: response.url
    });
  }
  if (!response.ok) {
    throw new MolspaceError('NOT_FOUND', `The structure of the MVS state (${url}) answered HTTP ${response.status}.`, where, fix, {
      url,
      status: response.status
    });
  }
  const limit = LIMITS.viewerSourceBytes;
  const tooLarge = (bytes: string) =>
    new MolspaceError('TOO_LARGE', `The structure of the MVS state (${url}) is ${bytes} bytes; the limit is ${limit}.`, where, fix, {
      url,
      limit
    });
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > limit) {
    void response.body?.cancel();
    throw tooLarge(String(declared));
  }
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  const reader = response.body?.getReader();
  for (;;) {
    const next = reader ? await reader.read() : { done: true as const, value: undefined };
    if (next.done) {
      break;
    }
    bytes += next.value.byteLength;
    if (bytes > limit) {
      void reader!.cancel();
      throw tooLarge(`more than ${limit}`);
    }
    chunks.push(next.value);
  }
  const out = new Uint8Array(bytes);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
