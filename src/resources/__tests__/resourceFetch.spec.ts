/**
 * resourceFetch: a Story download redirected to a URL the resource policy
 * refuses fails (its answer unread) and the refusal names both URLs; a
 * redirect that stays on allowed hosts, and archive assets, load as before.
 * Below the Galata test of the same path (ui-tests/tests/storyFaults.spec.ts).
 */
import { Asset, AssetManager } from 'molstar/lib/mol-util/assets';
import { guardDownloads, refusedMessage, type RedirectRefusal } from '../resourceFetch';
import type { ResourcePolicy } from '../resourcePolicy';

const POLICY: ResourcePolicy = { hosts: ['.rcsb.org'], pageOrigin: 'http://localhost:8888' };

function server(finalUrl: (url: string) => string, body = 'data_1CBS', status = 200) {
  const requested: { url: string; init: RequestInit }[] = [];
  const fetchImpl = async (url: string, init: RequestInit) => {
    requested.push({ url, init });
    const response = new Response(body, { status });
    Object.defineProperty(response, 'url', { value: finalUrl(url) });
    return response;
  };
  return { fetchImpl, requested };
}

function setup(finalUrl: (url: string) => string, status = 200) {
  const manager = new AssetManager();
  const refused: RedirectRefusal[] = [];
  const s = server(finalUrl, 'data_1CBS', status);
  const unguard = guardDownloads(manager, POLICY, r => refused.push(r), s.fetchImpl);
  return { manager, refused, requested: s.requested, unguard };
}

test('a redirect to a host the policy refuses fails the download and names both URLs', async () => {
  const { manager, refused, requested } = setup(() => 'https://evil.example.net/1cbs.cif');
  const url = 'https://files.rcsb.org/download/1cbs.cif';
  await expect(manager.resolve(Asset.Url(url), 'string').run()).rejects.toThrow(
    'Download refused: https://files.rcsb.org/download/1cbs.cif redirected to https://evil.example.net/1cbs.cif'
  );
  expect(refused).toEqual([
    {
      url,
      redirectedTo: 'https://evil.example.net/1cbs.cif',
      reason: expect.stringContaining('"evil.example.net" is not on the allowed resource hosts')
    }
  ]);
  expect(requested[0].init).toMatchObject({ credentials: 'omit', redirect: 'follow' });
  expect(refusedMessage(refused[0])).toContain('evil.example.net');
});

test('a redirect to http, an IP literal or this server is refused too', async () => {
  for (const target of ['http://files.rcsb.org/x.cif', 'https://192.168.1.1/x.cif', 'http://localhost:8888/api/contents']) {
    const { manager, refused } = setup(() => target);
    await expect(manager.resolve(Asset.Url('https://files.rcsb.org/x.cif'), 'string').run()).rejects.toThrow('Download refused');
    expect(refused.map(r => r.redirectedTo)).toEqual([target]);
  }
});

test('a redirect that stays on allowed hosts loads, and a download without one too', async () => {
  const moved = setup(url => url.replace('files.rcsb.org', 'models.rcsb.org'));
  const a = await moved.manager.resolve(Asset.Url('https://files.rcsb.org/1cbs.cif'), 'string').run();
  expect(a.data).toBe('data_1CBS');
  expect(moved.refused).toEqual([]);
  const plain = setup(url => url);
  const b = await plain.manager.resolve(Asset.Url('https://files.rcsb.org/1cbs.cif'), 'binary').run();
  expect(new TextDecoder().decode(b.data)).toBe('data_1CBS');
});

test("HTTP errors keep Mol*'s message, which names the status", async () => {
  const { manager } = setup(url => url, 404);
  await expect(manager.resolve(Asset.Url('https://files.rcsb.org/none.cif'), 'string').run()).rejects.toThrow(
    'Download failed with status code 404'
  );
});

test('assets Mol* already holds (MVSX archive files) do not go through fetch; unguard puts Mol* back', async () => {
  const { manager, requested, unguard } = setup(url => url);
  const asset = Asset.Url('arcp://archive/1cbs.cif');
  manager.set(asset, new File(['data_ARCHIVE'], 'raw-data'));
  const held = await manager.resolve(asset, 'string').run();
  expect(held.data).toBe('data_ARCHIVE');
  expect(requested).toEqual([]);
  const guarded = manager.resolve;
  unguard();
  expect(manager.resolve).not.toBe(guarded);
});
