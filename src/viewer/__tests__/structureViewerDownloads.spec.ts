/**
 * The structure Viewer's own Mol* plugin downloads an `apply_mvs` state's URLs
 * through `resourceFetch.ts` (issue 12 audit): no credentials, and a final URL
 * after redirects that the resource policy refuses is discarded unread. The
 * plugin is a stand-in holding Mol*'s real AssetManager (no WebGL in jest);
 * `ui-tests/tests/storyFaults.spec.ts` covers the same guard in a real page.
 */
import { Asset, AssetManager } from 'molstar/lib/mol-util/assets';
import type { ResourcePolicy } from '../../resources/resourcePolicy';

const asset = new AssetManager();
let disposed = false;
jest.mock('../../molstar/molstarPlugin', () => ({
  DARK_BACKGROUND: 0,
  LIGHT_BACKGROUND: 0xffffff,
  createMolstarPlugin: async () => ({ managers: { asset }, dispose: () => (disposed = true) }),
  disposeMolstarPlugin: (plugin: { dispose(): void }) => plugin.dispose()
}));

import { MolstarStructureViewer } from '../molstarStructureViewer';

const POLICY: ResourcePolicy = { hosts: ['.rcsb.org'], pageOrigin: 'http://localhost:8888' };

const requests: { url: string; init: RequestInit }[] = [];
beforeAll(() => {
  global.fetch = (async (url: string, init: RequestInit) => {
    requests.push({ url, init });
    const response = new Response('data_1CBS', { status: 200 });
    Object.defineProperty(response, 'url', { value: 'https://evil.example/1cbs.cif' });
    return response;
  }) as unknown as typeof fetch;
});

test("an apply_mvs download redirected off the allowed hosts is refused unread, without credentials; dispose puts Mol*'s resolve back", async () => {
  const original = asset.resolve;
  const viewer = await MolstarStructureViewer.create({} as HTMLElement, { dark: false, policy: POLICY });
  expect(asset.resolve).not.toBe(original);
  const url = Asset.Url('https://files.rcsb.org/download/1cbs.cif');
  await expect(asset.resolve(url, 'string').run()).rejects.toThrow(
    'Download refused: https://files.rcsb.org/download/1cbs.cif redirected to https://evil.example/1cbs.cif'
  );
  expect(requests).toHaveLength(1);
  expect(requests[0].init.credentials).toBe('omit');
  viewer.dispose();
  expect(disposed).toBe(true);
  expect(asset.resolve).toBe(original);
});
