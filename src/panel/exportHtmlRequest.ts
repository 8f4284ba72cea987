/**
 * A person's `export` to `.html` (a docked panel's *Export…*): the page's `export` answer (the
 * panel's App `_meta`, answered as for the gateway: `CallContext.writesHtml`) posted to
 * `{base_url}molspace/export-html`, where the server joins it with the App's script and writes
 * the one offline file under the Jupyter root, as it does for an agent
 * (`molspace/gateway/export_handler.py`). The request carries the page's own Jupyter credentials
 * (cookie and XSRF token).
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';
import { LocatedError, MolspaceError } from '../contract';

/** Path of the server's endpoint under `base_url`. */
export const EXPORT_HTML_ENDPOINT = 'molspace/export-html';

/** What the server answers: the file's path, size and whether it replaced one (never the data). */
export interface WrittenHtml {
  structuredContent: { path: string; bytes: number; replaced: boolean } & Record<string, unknown>;
  text: string;
}

/**
 * Have the server write `answer` (the page's `export` result, with its `app`) to `path`.
 *
 * @throws MolspaceError the server's located error (`FORBIDDEN` at `/overwrite` for an existing
 *   file without `overwrite`, at `/path` for a path outside the root; `UNSUPPORTED_FORMAT`,
 *   `TOO_LARGE`, `INTERNAL` at `/app`); `INTERNAL` at `/path` when the server cannot be reached
 *   or answers something else.
 */
export async function writeHtmlExport(
  path: string,
  overwrite: boolean,
  answer: Record<string, unknown>,
  settings: ServerConnection.ISettings = ServerConnection.makeSettings()
): Promise<WrittenHtml> {
  const url = URLExt.join(settings.baseUrl, EXPORT_HTML_ENDPOINT);
  let response: Response;
  try {
    response = await ServerConnection.makeRequest(url, { method: 'POST', body: JSON.stringify({ path, overwrite, answer }) }, settings);
  } catch (e) {
    throw new MolspaceError(
      'INTERNAL',
      `The server's export endpoint could not be reached: ${String(e)}.`,
      '/path',
      'Check that the Jupyter server is running, then retry.',
      { url }
    );
  }
  const body: unknown = await response.json().catch(() => null);
  const written = body as Partial<WrittenHtml> | null;
  if (response.ok && written && typeof written.structuredContent?.path === 'string' && typeof written.text === 'string') {
    return written as WrittenHtml;
  }
  const parsed = LocatedError.safeParse((body as { error?: unknown } | null)?.error);
  if (parsed.success) {
    const e = parsed.data;
    throw new MolspaceError(e.code, e.message, e.where, e.fix, { ...e.details, status: response.status });
  }
  throw new MolspaceError(
    'INTERNAL',
    `The server's export endpoint answered HTTP ${response.status} without a molspace answer.`,
    '/path',
    'Check that the molspace server extension is enabled (jupyter server extension list).',
    { url, status: response.status }
  );
}
