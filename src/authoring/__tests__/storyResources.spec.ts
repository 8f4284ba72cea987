/**
 * story_validate's resource check, below the real path (Galata: ui-tests/tests/story-create.spec.ts,
 * through MCP in a real page with its downloads answered in the browser): each resource's status,
 * unreachable ones as issues, and nothing sent to a host the policy refuses.
 */
import { LIMITS } from '../../contract';
import { checkStoryResources } from '../storyResources';
import type { ResourcePolicy } from '../../resources/resourcePolicy';

const policy: ResourcePolicy = { hosts: ['.rcsb.org'], pageOrigin: 'http://localhost:8888' };
const download = (url: string) => ({ kind: 'download', params: { url }, children: [{ kind: 'parse', params: { format: 'pdb' } }] });
const mvs = (...urls: string[]) => ({
  kind: 'multiple',
  snapshots: urls.map((u, i) => ({ root: { kind: 'root', children: [download(u)] }, metadata: { key: `s${i}` } }))
});

function fakeFetch(answers: Record<string, { status: number; url?: string }>) {
  const calls: string[] = [];
  const impl = async (url: string) => {
    calls.push(url);
    const a = answers[url];
    if (!a) {
      throw new TypeError('Failed to fetch');
    }
    return { status: a.status, url: a.url ?? url, body: null } as unknown as Response;
  };
  return { calls, impl };
}

const opts = (over: Partial<Parameters<typeof checkStoryResources>[1]> = {}) => ({
  format: 'mvsj' as const,
  valid: true,
  check: true,
  policy,
  until: Date.now() + 10_000,
  keys: (i: number) => `s${i}`,
  ...over
});

test('each resource says whether this page could fetch it; unreachable ones are issues', async () => {
  const ok = 'https://files.rcsb.org/ok.pdb';
  const missing = 'https://files.rcsb.org/missing.pdb';
  const offline = 'https://no-such-name.rcsb.org/x.pdb';
  const redirected = 'https://files.rcsb.org/moved.pdb';
  const refused = 'https://example.org/x.pdb';
  const plain = 'http://files.rcsb.org/x.pdb';
  const data = 'data:text/plain;base64,QQ==';
  const { calls, impl } = fakeFetch({
    [ok]: { status: 200 },
    [missing]: { status: 404 },
    [redirected]: { status: 200, url: 'https://evil.example.net/x' }
  });
  const { resources, issues } = await checkStoryResources(
    mvs(ok, missing, offline, redirected, refused, plain, data, 'local/1hpv.pdb'),
    opts(),
    impl
  );
  expect(resources.map(r => [r.url, r.source, r.status, r.httpStatus])).toEqual([
    [ok, 'remote', 'reachable', 200],
    [missing, 'remote', 'unreachable', 404],
    [offline, 'remote', 'unreachable', null],
    [redirected, 'remote', 'forbidden', 200],
    [refused, 'remote', 'forbidden', null],
    [plain, 'remote', 'forbidden', null],
    [data, 'data', 'reachable', null],
    ['local/1hpv.pdb', 'relative', 'unreachable', null]
  ]);
  expect(resources[1]).toMatchObject({ snapshotIndex: 1, path: 'root/children/0/params/url', reason: 'the server answered HTTP 404' });
  expect(issues.map(i => [i.snapshotIndex, i.key, i.path])).toEqual([
    [1, 's1', 'root/children/0/params/url'],
    [2, 's2', 'root/children/0/params/url']
  ]);
  // never to a host the policy refuses (the redirect target was requested by the browser, as for a download)
  expect(calls.sort()).toEqual([missing, offline, ok, redirected].sort());
});

test('files in a valid .mvsx need no fetch; checkResources false lists without fetching; the fetches are bounded', async () => {
  const { calls, impl } = fakeFetch({});
  const packed = await checkStoryResources(mvs('assets/1hpv.pdb'), opts({ format: 'mvsx' }), impl);
  expect(packed.resources[0]).toMatchObject({ source: 'archive', status: 'reachable' });
  const off = await checkStoryResources(mvs('https://files.rcsb.org/a.pdb', 'https://example.org/b.pdb'), opts({ check: false }), impl);
  expect(off.resources.map(r => r.status)).toEqual(['not-checked', 'forbidden']);
  expect(off.issues).toEqual([]);
  expect(calls).toEqual([]);
  const many = Array.from({ length: LIMITS.storyResourcesListed + 3 }, (_, i) => `https://files.rcsb.org/${i}.pdb`);
  const big = fakeFetch(Object.fromEntries(many.map(u => [u, { status: 200 }])));
  const bounded = await checkStoryResources(mvs(...many), opts(), big.impl);
  expect(big.calls).toHaveLength(LIMITS.storyResourcesListed);
  expect(bounded.resources.filter(r => r.status === 'not-checked')).toHaveLength(3);
});
