/**
 * Frames of an agent-opened trajectory from the server (`../serverFrames.ts`): the description and
 * blocks asked of `{base_url}molspace/frames` with the path, a server that cannot serve frames
 * (no molspace extension, no MDAnalysis) leaves the page reading the whole file, and the server's
 * located refusals pass through. The real server: tests/gateway/test_frames_endpoint.py; the whole
 * path: ui-tests/tests/trajectory.spec.ts.
 */
import { ServerConnection } from '@jupyterlab/services';
import { MolspaceError } from '../../contract';
import { describeServerFrames, fetchServerFrames } from '../serverFrames';

function settings(status: number, body: unknown, seen: { url?: string } = {}, type = 'application/json'): ServerConnection.ISettings {
  return ServerConnection.makeSettings({
    baseUrl: 'http://localhost:8888/lab-root/',
    fetch: (async (request: RequestInfo, init?: RequestInit) => {
      seen.url = new Request(request, init).url;
      const data = type === 'application/octet-stream' ? (body as ArrayBuffer) : typeof body === 'string' ? body : JSON.stringify(body);
      return new Response(data, { status, headers: { 'Content-Type': type } });
    }) as typeof fetch,
    Request,
    Headers
  });
}

function refusal(e: unknown): Record<string, unknown> {
  return MolspaceError.from(e, 'test').toJSON() as unknown as Record<string, unknown>;
}

const DESCRIBED = { frames: 98, atoms: 3341, format: 'dcd', timePs: { start: 1, step: 1 }, notes: [], bytes: 4011416 };

describe('describeServerFrames', () => {
  it('asks under base_url with the path and returns what the server read', async () => {
    const seen: { url?: string } = {};
    const served = await describeServerFrames('md/a b.dcd', '/coordinates', settings(200, DESCRIBED, seen));
    // (ServerConnection adds a cache-buster to a no-store GET)
    expect(seen.url).toMatch(/^http:\/\/localhost:8888\/lab-root\/molspace\/frames\?path=md%2Fa%20b\.dcd(&\d+)?$/);
    expect(served).toEqual(DESCRIBED);
  });

  it('is null where the server cannot serve frames: the page reads the whole file', async () => {
    const noMda = {
      error: { code: 'UNSUPPORTED_FORMAT', message: 'no MDAnalysis', where: '/coordinates', fix: 'pip install MDAnalysis', details: {} }
    };
    expect(await describeServerFrames('a.xtc', '/coordinates', settings(501, noMda))).toBeNull();
    expect(await describeServerFrames('a.xtc', '/coordinates', settings(404, '<html>Not Found</html>', {}, 'text/html'))).toBeNull();
    expect(await describeServerFrames('a.xtc', '/coordinates', settings(200, { frames: 'many' }))).toBeNull();
  });

  it("passes the server's located refusal on at the argument", async () => {
    const missing = {
      error: { code: 'NOT_FOUND', message: 'There is no file', where: '/coordinates', fix: 'Pass a path', details: { path: 'x.xtc' } }
    };
    expect(await describeServerFrames('x.xtc', '/coordinates', settings(404, missing)).catch(refusal)).toMatchObject({
      code: 'NOT_FOUND',
      where: '/coordinates',
      details: { path: 'x.xtc', status: 404 }
    });
  });
});

describe('fetchServerFrames', () => {
  it('returns the block the server sent for start and count', async () => {
    const seen: { url?: string } = {};
    const block = new Float32Array([1, 2, 3, 4, 5, 6]).buffer;
    const got = await fetchServerFrames('md/a.xtc', 4, 2, settings(200, block, seen, 'application/octet-stream'));
    expect(seen.url).toMatch(/^http:\/\/localhost:8888\/lab-root\/molspace\/frames\?path=md%2Fa\.xtc&start=4&count=2(&\d+)?$/);
    expect(Array.from(new Float32Array(got))).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("a bad range is the server's located refusal; anything else a located INTERNAL", async () => {
    const range = {
      error: {
        code: 'VALIDATION_FAILED',
        message: 'out of range',
        where: '/frames/start',
        fix: 'Ask for frames 0–97',
        details: { frames: 98 }
      }
    };
    expect(await fetchServerFrames('a.dcd', 98, 1, settings(400, range)).catch(refusal)).toMatchObject({
      code: 'VALIDATION_FAILED',
      where: '/frames/start',
      details: { frames: 98, status: 400 }
    });
    expect(await fetchServerFrames('a.dcd', 3, 1, settings(403, 'Forbidden', {}, 'text/html')).catch(refusal)).toMatchObject({
      code: 'INTERNAL',
      where: '/frames/3',
      details: { status: 403 }
    });
  });
});
