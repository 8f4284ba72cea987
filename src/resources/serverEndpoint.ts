/**
 * The page's requests to molspace's own REST endpoints of the Jupyter server (`molspace/embed3d`,
 * `molspace/frames`, `molspace/export-html`; molspace/gateway/located_handler.py): JupyterLab's
 * `ServerConnection` carries the page's credentials (cookie and XSRF token) and `base_url`; a
 * refusal is the endpoint's located error, `{"error": {code, message, where, fix, details}}`.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';
import { LocatedError, MolspaceError } from '../contract';

/** `{base_url}<endpoint>`, with `query` when given. */
export function endpointUrl(settings: ServerConnection.ISettings, endpoint: string, query?: Record<string, string | number>): string {
  const url = URLExt.join(settings.baseUrl, endpoint);
  if (!query) {
    return url;
  }
  const search = Object.entries(query)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join('&');
  return `${url}?${search}`;
}

/**
 * Send `init` to `url` with the page's Jupyter credentials.
 *
 * @param what - the endpoint as errors name it (e.g. "3D endpoint").
 * @param fix - what the person does once the server is back.
 * @throws MolspaceError `INTERNAL` at `where` when the server cannot be reached.
 */
export async function requestEndpoint(
  url: string,
  init: RequestInit,
  what: string,
  where: string,
  settings: ServerConnection.ISettings,
  fix = 'Check that the Jupyter server is running, then retry.'
): Promise<Response> {
  try {
    return await ServerConnection.makeRequest(url, init, settings);
  } catch (e) {
    throw new MolspaceError('INTERNAL', `The server's ${what} could not be reached: ${String(e)}.`, where, fix, { url });
  }
}

/**
 * The endpoint's located refusal in the JSON `body` of a `status` answer, or null when the body
 * holds none; located at `where(e.where)` (the endpoint's own place by default).
 */
export function endpointRefusal(body: unknown, status: number, where: (serverWhere: string) => string = w => w): MolspaceError | null {
  const parsed = LocatedError.safeParse((body as { error?: unknown } | null)?.error);
  if (!parsed.success) {
    return null;
  }
  const e = parsed.data;
  return new MolspaceError(e.code, e.message, where(e.where), e.fix, { ...e.details, status });
}

/** `INTERNAL` at `where`: the endpoint answered `status` without a molspace answer. */
export function notAnAnswer(what: string, status: number, where: string, details: Record<string, unknown>): MolspaceError {
  return new MolspaceError(
    'INTERNAL',
    `The server's ${what} answered HTTP ${status} without a molspace answer.`,
    where,
    'Check that the molspace server extension is enabled (jupyter server extension list).',
    { ...details, status }
  );
}
