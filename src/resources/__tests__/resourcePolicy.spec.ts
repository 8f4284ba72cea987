/**
 * Where a Story may fetch from (src/resources/resourcePolicy.ts), alone and
 * through parseStory, before anything is fetched.
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import { MolspaceError } from '../../contract/errors';
import { DEFAULT_RESOURCE_HOSTS, ResourcePolicy, refusalOf } from '../resourcePolicy';
import { parseStory } from '../../molstar/storySource';

const policy: ResourcePolicy = { hosts: DEFAULT_RESOURCE_HOSTS, pageOrigin: 'https://hub.example.org' };

describe('refusalOf', () => {
  it.each([
    'https://files.rcsb.org/download/1cbs.cif',
    'https://models.rcsb.org/v1/1cbs/atoms',
    'https://www.ebi.ac.uk/pdbe/entry-files/download/1cbs.bcif',
    'https://alphafold.ebi.ac.uk/files/AF-P00533-F1-model_v4.cif',
    'https://rcsb.org/x.cif',
    'https://FILES.RCSB.ORG./x.cif'
  ])('allows %s', url => {
    expect(refusalOf(url, policy)).toBeNull();
  });

  it.each([
    ['http://files.rcsb.org/x.cif', /only https/],
    ['https://user:pw@files.rcsb.org/x.cif', /credentials/],
    ['https://hub.example.org/user/alice/files/x.cif', /JupyterLab server/],
    ['https://127.0.0.1/x.cif', /IP addresses/],
    ['https://10.0.0.8/x.cif', /IP addresses/],
    ['https://169.254.169.254/latest/meta-data', /IP addresses/],
    ['https://[::1]/x.cif', /IP addresses/],
    ['https://2130706433/x.cif', /IP addresses/],
    ['https://localhost/x.cif', /single-label/],
    ['https://example.org/x.cif', /not on the allowed resource hosts/],
    ['https://evilrcsb.org/x.cif', /not on the allowed resource hosts/],
    ['https://rcsb.org.evil.example/x.cif', /not on the allowed resource hosts/],
    ['ftp://files.rcsb.org/x.cif', /only https/]
  ])('refuses %s', (url, reason) => {
    expect(refusalOf(url, policy)).toMatch(reason);
  });

  it('allows exactly the hosts a changed setting names', () => {
    const own: ResourcePolicy = { hosts: ['data.example.org'], pageOrigin: null };
    expect(refusalOf('https://data.example.org/a.cif', own)).toBeNull();
    expect(refusalOf('https://sub.data.example.org/a.cif', own)).toMatch(/not on the allowed/);
    expect(refusalOf('https://files.rcsb.org/a.cif', own)).toMatch(/not on the allowed/);
  });

  it('the settings schema default is the built-in default', () => {
    const schema = JSON.parse(readFileSync(join(__dirname, '../../../schema/plugin.json'), 'utf8'));
    expect(schema.properties.resourceHosts.default).toEqual([...DEFAULT_RESOURCE_HOSTS]);
  });
});

function story(urls: string[]): string {
  return JSON.stringify({
    kind: 'multiple',
    metadata: { version: '1.4', title: 't' },
    snapshots: urls.map((url, i) => ({
      root: {
        kind: 'root',
        children: [{ kind: 'download', params: { url }, children: [{ kind: 'parse', params: { format: 'mmcif' } }] }]
      },
      metadata: { key: `s${i}`, title: `S${i}`, linger_duration_ms: 1000 }
    }))
  });
}

async function failure(p: Promise<unknown>): Promise<MolspaceError> {
  try {
    await p;
  } catch (e) {
    return e as MolspaceError;
  }
  throw new Error('expected a failure');
}

describe('parseStory with a resource policy', () => {
  it('loads a Story whose URLs are all allowed', async () => {
    const s = await parseStory({ mvsj: story(['https://files.rcsb.org/a.cif', 'https://www.ebi.ac.uk/b.bcif']) }, policy);
    expect(s.snapshots.map(m => m.key)).toEqual(['s0', 's1']);
  });

  it('refuses with FORBIDDEN located at the snapshot and param, naming URL and setting, listing all', async () => {
    const e = await failure(
      parseStory({ mvsj: story(['https://files.rcsb.org/a.cif', 'https://hub.example.org/api/contents/x', 'http://x.example/y']) }, policy)
    );
    expect(e).toBeInstanceOf(MolspaceError);
    expect(e.code).toBe('FORBIDDEN');
    expect(e.where).toBe('/snapshots/1/root/children/0/params/url');
    expect(e.message).toContain('Snapshot 1 ("s1")');
    expect(e.message).toContain('https://hub.example.org/api/contents/x');
    expect(e.fix).toContain('resourceHosts');
    expect(e.details.count).toBe(2);
    expect((e.details.refused as { url: string }[]).map(r => r.url)).toEqual([
      'https://hub.example.org/api/contents/x',
      'http://x.example/y'
    ]);
  });

  it('uses the default policy when none is given', async () => {
    const e = await failure(parseStory({ mvsj: story(['https://example.org/x.cif']) }));
    expect(e.code).toBe('FORBIDDEN');
  });

  it('data: URLs always load', async () => {
    const s = await parseStory({ mvsj: story(['data:text/plain,hello']) }, { hosts: [], pageOrigin: null });
    expect(s.snapshots).toHaveLength(1);
  });
});

describe('URLs a browser resolves against the page (issue 12 audit)', () => {
  // `https:host/x` has no "//": the WHATWG parser resolves it against an https page as a path on
  // this server (with its cookies), and against an http page as https://host/x; backslashes count
  // as slashes. Neither form may slip past the host check.
  const pageResolved = [
    'https:evil.example/x.cif',
    'https:/user/alice/files/secret.cif',
    'https:files.rcsb.org/download/1cbs.cif',
    'HTTPS:\\\\evil.example/x.cif',
    'https:\\evil.example/x.cif',
    'http:/files/secret.cif',
    'https:192.168.1.1/x.cif'
  ];

  it.each(pageResolved)('refusalOf refuses %s', url => {
    expect(refusalOf(url, policy)).toMatch(/"\/\/"/);
  });

  it.each(pageResolved)('parseStory refuses %s with a located FORBIDDEN', async url => {
    const e = await failure(parseStory({ mvsj: story([url]) }, policy));
    expect(e.code).toBe('FORBIDDEN');
    expect(e.where).toBe('/snapshots/0/root/children/0/params/url');
    expect(e.details.url).toBe(url);
  });

  it("refuses this server's host on any port (cookies are shared across ports)", () => {
    const own: ResourcePolicy = { hosts: ['.example.org'], pageOrigin: 'https://hub.example.org' };
    expect(refusalOf('https://hub.example.org:8443/x.cif', own)).toMatch(/JupyterLab server/);
    expect(refusalOf('https://HUB.example.org./x.cif', own)).toMatch(/JupyterLab server/);
    expect(refusalOf('https://data.example.org/x.cif', own)).toBeNull();
  });
});

describe('more URL forms (issue 12 audit): each refused before any fetch, as today', () => {
  it.each([
    ['https://ébi.ac.uk/x.cif', 'FORBIDDEN'],
    ['https://xn--bi-9ia.ac.uk/x.cif', 'FORBIDDEN'],
    ['https://www.ebi.ac.uk\u3002evil.example/x.cif', 'FORBIDDEN'],
    ['https://files.rcsb.org@evil.example/x.cif', 'FORBIDDEN'],
    ['https://evil.example\\@files.rcsb.org/x.cif', 'FORBIDDEN'],
    ['https://files.rcsb.org\t.evil.example/x.cif', 'FORBIDDEN'],
    ['https://127.1/x.cif', 'FORBIDDEN'],
    ['https://[::ffff:127.0.0.1]/x.cif', 'FORBIDDEN'],
    ['blob:https://files.rcsb.org/0f3c', 'VALIDATION_FAILED'],
    ['//evil.example/x.cif', 'VALIDATION_FAILED'],
    ['\\\\evil.example/x.cif', 'VALIDATION_FAILED'],
    ['javascript:alert(1)', 'VALIDATION_FAILED'],
    ['file:/etc/passwd', 'VALIDATION_FAILED']
  ])('%s is %s', async (url, code) => {
    const e = await failure(parseStory({ mvsj: story([url]) }, policy));
    expect(e.code).toBe(code);
    expect(e.where === '/snapshots/0/root/children/0/params/url' || JSON.stringify(e.details).includes('params/url')).toBe(true);
  });
});
