/**
 * storySource: parsing and validation of Stories (docs/architecture.md).
 * MVSX fixtures are built with Mol*'s own zip writer.
 */
import { Zip } from 'molstar/lib/mol-util/zip/zip';
import { MolspaceError } from '../../contract/errors';
import { LIMITS } from '../../contract/limits';
import { classifyUri, normalizeArchivePath, parseStory, StoryIssue } from '../storySource';
import { expectFailure as failure } from '../../__tests__/expectFailure';

const URL_1CBS = 'https://www.ebi.ac.uk/pdbe/entry-files/download/1cbs_updated.cif';

function root(url = URL_1CBS): Record<string, unknown> {
  return {
    kind: 'root',
    children: [
      {
        kind: 'download',
        params: { url },
        children: [
          {
            kind: 'parse',
            params: { format: 'mmcif' },
            children: [
              {
                kind: 'structure',
                params: { type: 'model' },
                children: [
                  { kind: 'component', params: { selector: 'all' }, children: [{ kind: 'representation', params: { type: 'cartoon' } }] }
                ]
              }
            ]
          }
        ]
      }
    ]
  };
}

function snapshot(meta: Record<string, unknown>, r: Record<string, unknown> = root()): Record<string, unknown> {
  return { root: r, metadata: { linger_duration_ms: 1000, ...meta } };
}

function story(snapshots: unknown[], title = 'Demo'): string {
  return JSON.stringify({
    kind: 'multiple',
    metadata: { title, version: '1.4', timestamp: '2025-01-01T00:00:00Z' },
    snapshots
  });
}

function issuesOf(e: MolspaceError): StoryIssue[] {
  return (e.details as { issues: StoryIssue[] }).issues;
}

async function mvsx(files: Record<string, string>): Promise<Uint8Array> {
  const enc = new TextEncoder();
  const obj: Record<string, Uint8Array<ArrayBuffer>> = {};
  for (const [k, v] of Object.entries(files)) {
    obj[k] = enc.encode(v) as Uint8Array<ArrayBuffer>;
  }
  return new Uint8Array(await Zip(obj).run());
}

describe('parseStory: MVSJ', () => {
  it('parses a valid multi-state Story with bounded metadata', async () => {
    const s = await parseStory({
      mvsj: story([
        snapshot({ key: 'a', title: 'First', description: '**bold**', transition_duration_ms: 500 }),
        snapshot({ key: 'b', title: 'Second', description: 'x'.repeat(3000) })
      ])
    });
    expect(s.format).toBe('mvsj');
    expect(s.title).toBe('Demo');
    expect(s.data.kind).toBe('multiple');
    expect(s.snapshots).toHaveLength(2);
    expect(s.snapshots[0]).toEqual({
      index: 0,
      key: 'a',
      title: 'First',
      description: '**bold**',
      linger_duration_ms: 1000,
      transition_duration_ms: 500
    });
    expect(s.snapshots[1].transition_duration_ms).toBeNull();
    expect(s.snapshots[1].description).toHaveLength(LIMITS.descriptionChars);
    expect(s.snapshots[1].description.endsWith('x … [cut 1024 characters]')).toBe(true);
  });

  it('converts a single state and fills missing keys as snapshot-<index>', async () => {
    const single = JSON.stringify({ root: root(), metadata: { version: '1.4', timestamp: 't', title: 'One' } });
    const s = await parseStory({ mvsj: single });
    expect(s.data.snapshots).toHaveLength(1);
    expect(s.snapshots[0].key).toBe('snapshot-0');
    expect(s.data.snapshots[0].metadata.key).toBe('snapshot-0');
    expect(s.title).toBe('One');
  });

  it('rejects non-JSON and non-MVS input with UNSUPPORTED_FORMAT', async () => {
    expect((await failure(parseStory({ mvsj: '{nope' }))).code).toBe('UNSUPPORTED_FORMAT');
    expect((await failure(parseStory({ mvsj: '{"a": 1}' }))).code).toBe('UNSUPPORTED_FORMAT');
  });

  it('needs exactly one input', async () => {
    expect((await failure(parseStory({}))).code).toBe('INVALID_INPUT');
    expect((await failure(parseStory({ mvsj: '{}', mvsx: new Uint8Array(4) }))).code).toBe('INVALID_INPUT');
  });

  it('reports every issue with snapshot index, key and path', async () => {
    const badTree = root();
    ((badTree.children as any[])[0].children[0].children[0].children[0].children[0] as any).params = {
      type: 'cartoon',
      bogus: 1
    };
    const e = await failure(
      parseStory({
        mvsj: story([
          snapshot({ key: 'a', linger_duration_ms: -1 }),
          snapshot({ key: 'a', transition_duration_ms: 'slow' }),
          snapshot({ key: 'c' }, root('file:///etc/passwd')),
          snapshot({ key: 'd' }, root('/home/me/x.cif')),
          snapshot({ key: 'e' }, root('./assets/x.cif')),
          snapshot({ key: 'f' }, badTree),
          snapshot({ key: 'g', description: 'y'.repeat(50_001) })
        ])
      })
    );
    expect(e.code).toBe('VALIDATION_FAILED');
    const issues = issuesOf(e);
    expect(e.message).toMatch(new RegExp(`^${issues.length} issue\\(s\\) in the Story: `));
    expect(e.where).toBe('/snapshots/0/metadata/linger_duration_ms');
    const at = (i: number) => issues.filter(x => x.snapshotIndex === i);
    expect(at(0)[0]).toMatchObject({ key: 'a', path: 'metadata/linger_duration_ms' });
    expect(
      at(1)
        .map(x => x.path)
        .sort()
    ).toEqual(['metadata/key', 'metadata/transition_duration_ms']);
    expect(at(2)[0]).toMatchObject({ key: 'c', path: 'root/children/0/params/url' });
    expect(at(2)[0].message).toMatch(/file:/);
    expect(at(3)[0].message).toMatch(/Absolute filesystem path/);
    expect(at(4)[0].message).toMatch(/needs an \.mvsx archive/);
    expect(at(5)[0]).toMatchObject({ key: 'f', path: 'root/children/0/children/0/children/0/children/0/children/0' });
    expect(at(5)[0].message).toMatch(/bogus/);
    expect(at(6)[0].path).toBe('metadata/description');
  });

  it('rejects a missing linger_duration_ms and non-http schemes', async () => {
    const e = await failure(
      parseStory({
        mvsj: story([{ root: root(), metadata: { key: 'a' } }, snapshot({ key: 'b' }, root('ftp://example.org/x.cif'))])
      })
    );
    const issues = issuesOf(e);
    expect(issues).toHaveLength(2);
    expect(issues[0].path).toBe('metadata/linger_duration_ms');
    expect(issues[1].message).toMatch(/Only http\(s\): and data: URLs/);
  });

  it('allows data: URLs and rejects unknown node kinds via Mol*', async () => {
    const ok = await parseStory({ mvsj: story([snapshot({ key: 'a' }, root('data:text/plain;base64,AAAA'))]) });
    expect(ok.snapshots).toHaveLength(1);
    const bad = { kind: 'root', children: [{ kind: 'no_such_kind' }] };
    const e = await failure(parseStory({ mvsj: story([snapshot({ key: 'a' }, bad)]) }));
    expect(issuesOf(e)[0]).toMatchObject({ snapshotIndex: 0, path: 'root/children/0' });
    expect(issuesOf(e)[0].message).toMatch(/no_such_kind/);
  });

  it('bounds the number of snapshots and bytes', async () => {
    const many = Array.from({ length: 1001 }, (_, i) => snapshot({ key: `k${i}` }));
    expect((await failure(parseStory({ mvsj: story(many) }))).code).toBe('TOO_LARGE');
    const huge = 'x'.repeat(50 * 1024 * 1024 + 1);
    expect((await failure(parseStory({ mvsj: huge }))).code).toBe('TOO_LARGE');
  });
});

describe('parseStory: MVSX', () => {
  it('accepts archive-relative URLs that exist and normalizes them', async () => {
    const bytes = await mvsx({
      'index.mvsj': story([snapshot({ key: 'a' }, root('./assets/1cbs.cif')), snapshot({ key: 'b' }, root('assets/1cbs.cif'))]),
      'assets/1cbs.cif': 'data_1cbs\n'
    });
    const s = await parseStory({ mvsx: bytes });
    expect(s.format).toBe('mvsx');
    expect(s.mvsx).toBe(bytes);
    const url = (i: number) => (s.data.snapshots[i].root as any).children[0].params.url as string;
    expect(url(0)).toBe('assets/1cbs.cif');
    expect(url(1)).toBe('assets/1cbs.cif');
  });

  it('keeps the image files of an archive by path, for descriptions, and nothing else', async () => {
    const bytes = await mvsx({
      'index.mvsj': story([snapshot({ key: 'a', description: '![fig](figs/a.png)' }, root('assets/1cbs.cif'))]),
      'assets/1cbs.cif': 'data_1cbs\n',
      'figs/a.png': 'png bytes',
      'figs/b.SVG': '<svg/>',
      'notes.txt': 'text'
    });
    const s = await parseStory({ mvsx: bytes });
    expect([...(s.images?.keys() ?? [])].sort()).toEqual(['figs/a.png', 'figs/b.SVG']);
    expect(new TextDecoder().decode(s.images?.get('figs/a.png'))).toBe('png bytes');
    expect((await parseStory({ mvsj: story([snapshot({ key: 'a' })]) })).images).toBeUndefined();
  });

  it('reports relative URLs missing from the archive', async () => {
    const bytes = await mvsx({ 'index.mvsj': story([snapshot({ key: 'a' }, root('./assets/missing.cif'))]) });
    const e = await failure(parseStory({ mvsx: bytes }));
    expect(e.code).toBe('VALIDATION_FAILED');
    expect(issuesOf(e)[0].message).toMatch(/not in the MVSX archive.*assets\/missing\.cif/);
    expect(e.where).toBe('/snapshots/0/root/children/0/params/url');
  });

  it('refuses archive paths with ".." even when the archive has the file', async () => {
    const bytes = await mvsx({
      'index.mvsj': story([snapshot({ key: 'a' }, root('assets/../1cbs.cif'))]),
      '1cbs.cif': 'data_1cbs'
    });
    const e = await failure(parseStory({ mvsx: bytes }));
    expect(issuesOf(e)).toEqual([
      expect.objectContaining({
        snapshotIndex: 0,
        path: 'root/children/0/params/url',
        message: expect.stringMatching(/leaves the archive/)
      })
    ]);
    expect(issuesOf(e)[0].fix).toMatch(/without "\.\."/);
  });

  it('lists every node Mol* rejects in one snapshot, each with its own message', async () => {
    const r = { kind: 'root', children: [{ kind: 'teleport' }, { kind: 'canvas', params: { nope: 1 } }] };
    const e = await failure(parseStory({ mvsj: story([snapshot({ key: 'a' }, r)]) }));
    expect(issuesOf(e).map(i => [i.path, i.message.slice(0, 40)])).toEqual([
      ['root/children/0', 'Unknown node kind "teleport"'],
      ['root/children/1', 'Invalid parameters for node of kind "can']
    ]);
  });

  it('rejects non-zip bytes and archives without index.mvsj', async () => {
    expect((await failure(parseStory({ mvsx: new TextEncoder().encode('PK but not a zip at all........') }))).code).toBe(
      'UNSUPPORTED_FORMAT'
    );
    const noIndex = await mvsx({ 'other.mvsj': story([snapshot({ key: 'a' })]) });
    const e = await failure(parseStory({ mvsx: noIndex }));
    expect(e.code).toBe('UNSUPPORTED_FORMAT');
    expect(e.message).toMatch(/index\.mvsj/);
  });
});

describe('URI helpers', () => {
  it('classifies resource locations', () => {
    expect(classifyUri('https://x.org/a.cif')).toBe('remote');
    expect(classifyUri('data:,abc')).toBe('data');
    expect(classifyUri('file:///a.cif')).toBe('file');
    expect(classifyUri('C:\\data\\a.cif')).toBe('absolute-path');
    expect(classifyUri('/abs/a.cif')).toBe('absolute-path');
    expect(classifyUri('~/a.cif')).toBe('absolute-path');
    expect(classifyUri('javascript:alert(1)')).toBe('other-scheme');
    expect(classifyUri('./assets/a.cif')).toBe('relative');
  });

  it('normalizes archive paths like Mol* resolves them', () => {
    expect(normalizeArchivePath('./assets/a.cif').path).toBe('assets/a.cif');
    expect(normalizeArchivePath('assets/./b/../a.cif').path).toBe('assets/a.cif');
  });
});
