/**
 * A person's `export` to `.html` (a docked panel's *Export…*): the page's `export` answer (the
 * panel's App `_meta`, answered as for the gateway: `CallContext.writesHtml`) posted to
 * `{base_url}molspace/export-html`, where the server joins it with the App's script and writes
 * the one offline file under the Jupyter root, as it does for an agent
 * (`molspace/gateway/export_handler.py`). The request carries the page's own Jupyter credentials
 * (cookie and XSRF token).
 */
import { ServerConnection } from '@jupyterlab/services';
import { endpointRefusal, endpointUrl, notAnAnswer, requestEndpoint } from '../resources/serverEndpoint';

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
  const url = endpointUrl(settings, EXPORT_HTML_ENDPOINT);
  const init = { method: 'POST', body: JSON.stringify({ path, overwrite, answer }) };
  const response = await requestEndpoint(url, init, 'export endpoint', '/path', settings);
  const body: unknown = await response.json().catch(() => null);
  const written = body as Partial<WrittenHtml> | null;
  if (response.ok && written && typeof written.structuredContent?.path === 'string' && typeof written.text === 'string') {
    return written as WrittenHtml;
  }
  throw endpointRefusal(body, response.status) ?? notAnAnswer('export endpoint', response.status, '/path', { url });
}
