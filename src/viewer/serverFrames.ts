/**
 * Frames of a trajectory file under the Jupyter root, from the server (docs/architecture.md,
 * "Viewer", Trajectories): a Viewer an agent opens has no kernel to keep its frames, so when its
 * coordinates pass the page's frame budget or `viewerSourceBytes`, the page asks
 * `{base_url}molspace/frames` (molspace/gateway/frames_handler.py) for the file's description,
 * then for blocks of frames as its {@link FrameCache} needs them: the same float32 block layout as
 * a kernel's frames on demand. The requests carry the page's Jupyter credentials
 * (`ServerConnection`); the server applies `open`'s path policy and reads with MDAnalysis.
 */
import { ServerConnection } from '@jupyterlab/services';

import { CoordinatesFormat, MolspaceError, type ViewerTrajectory } from '../contract';
import { endpointRefusal, endpointUrl, requestEndpoint } from '../resources/serverEndpoint';

/** What the server says of a trajectory file before the first frame (as a kernel's `_frames_on_demand`). */
export interface ServedFrames {
  frames: number;
  atoms: number;
  format: CoordinatesFormat;
  timePs: ViewerTrajectory['timePs'];
  notes: string[];
  /** The file's size, bytes. */
  bytes: number;
}

const ENDPOINT = 'molspace/frames';

function request(settings: ServerConnection.ISettings, query: Record<string, string | number>, where: string): Promise<Response> {
  const url = endpointUrl(settings, ENDPOINT, query);
  return requestEndpoint(
    url,
    { method: 'GET', cache: 'no-store' },
    'frames endpoint',
    where,
    settings,
    'Check that the Jupyter server is running, then step again.'
  );
}

/** The server's located refusal in `response`, or null when it answered something else. */
async function refusal(response: Response, where: string): Promise<MolspaceError | null> {
  const body: unknown = await response.json().catch(() => null);
  // a path problem is the argument's; a range problem keeps the server's /frames/<i>
  return endpointRefusal(body, response.status, w => (w === '/coordinates' ? where : w));
}

/**
 * The server's description of the trajectory file `path`, or null where the server cannot serve
 * its frames (no molspace server extension, as in JupyterLite; no MDAnalysis on the server, or a
 * contents manager without files): the page then reads the whole file, as before.
 *
 * @param where - the argument it came from (`/coordinates`).
 * @throws MolspaceError the server's located refusal at `where` (`NOT_FOUND`, `FORBIDDEN`,
 *   `VALIDATION_FAILED` for a file MDAnalysis cannot read); `INTERNAL` when the server cannot be
 *   reached.
 */
export async function describeServerFrames(
  path: string,
  where: string,
  settings = ServerConnection.makeSettings()
): Promise<ServedFrames | null> {
  const response = await request(settings, { path }, where);
  if (response.ok) {
    const body = (await response.json().catch(() => null)) as Partial<ServedFrames> | null;
    const format = CoordinatesFormat.safeParse(body?.format);
    if (body && format.success && Number.isInteger(body.frames) && Number.isInteger(body.atoms) && Number.isInteger(body.bytes)) {
      return {
        frames: body.frames!,
        atoms: body.atoms!,
        format: format.data,
        timePs: body.timePs ?? null,
        notes: Array.isArray(body.notes) ? body.notes.map(String) : [],
        bytes: body.bytes!
      };
    }
    return null;
  }
  const error = await refusal(response, where);
  if (!error || error.code === 'UNSUPPORTED_FORMAT') {
    return null;
  }
  throw error;
}

/**
 * `count` frames of `path` from `start`, as the server reads them (x, y, z float32 blocks of each
 * frame); the {@link FrameCache}'s `fetch` for an agent-opened Viewer.
 *
 * @throws MolspaceError the server's located refusal (`VALIDATION_FAILED` at `/frames/start` or
 *   `/frames/count`, `INTERNAL` at `/frames/<start>` for a file changed or cut since), or
 *   `INTERNAL` at `/frames/<start>` when it cannot be reached or answers something else.
 */
export async function fetchServerFrames(
  path: string,
  start: number,
  count: number,
  settings = ServerConnection.makeSettings()
): Promise<ArrayBuffer> {
  const where = `/frames/${start}`;
  const response = await request(settings, { path, start, count }, where);
  if (response.ok && (response.headers.get('Content-Type') ?? '').startsWith('application/octet-stream')) {
    return response.arrayBuffer();
  }
  throw (
    (await refusal(response, where)) ??
    new MolspaceError(
      'INTERNAL',
      `The server's frames endpoint answered HTTP ${response.status} without frames for ${path}.`,
      where,
      'Check that the molspace server extension is enabled (jupyter server extension list), then step again.',
      { path, start, count, status: response.status }
    )
  );
}
