/**
 * story_create writing .mvsx through the Dispatcher, with an in-memory
 * contents manager in place of Jupyter's (the real contents API, gateway and
 * page are in ui-tests/tests/authoring.spec.ts): assets read, zipped with
 * Mol*'s writer, references rewritten, the archive read back by the same
 * validation; each bad input a located error, nothing written.
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import { Unzip } from 'molstar/lib/mol-util/zip/zip';
import { LIMITS } from '../../contract';
import { Dispatcher } from '../../dispatcher/dispatcher';
import { WidgetRegistry } from '../../dispatcher/registry';
import { expectFailure as failure } from '../../__tests__/expectFailure';
import { parseStory } from '../../molstar/storySource';
import { WorkspaceFiles } from '../../resources/workspaceFiles';
import { pageDispatcher } from '../../tools';

const ROOT = join(__dirname, '../../..');
const PDB = readFileSync(join(ROOT, 'tests/data/structures/1hpv.pdb'));

/** Files by path, as the contents API sees them: `size` without reading, base64 content. */
class MemoryContents {
  files = new Map<string, Uint8Array | 'directory'>();
  /** Sizes reported instead of the real ones (a file too large to hold in a test). */
  sizes = new Map<string, number>();
  saved: string[] = [];
  read: string[] = [];

  async get(path: string, opts: { content?: boolean; format?: string } = {}) {
    const f = this.files.get(path);
    if (f === undefined) {
      throw Object.assign(new Error('Not Found'), { response: { status: 404 } });
    }
    if (f === 'directory') {
      return { path, type: 'directory', size: undefined, content: null };
    }
    if (opts.content) {
      this.read.push(path);
    }
    const content = opts.content ? Buffer.from(f).toString(opts.format === 'base64' ? 'base64' : 'utf8') : null;
    return { path, type: 'file', size: this.sizes.get(path) ?? f.length, content };
  }

  async save(path: string, opts: { type: string; format?: string; content?: string }) {
    this.saved.push(path);
    if (opts.type === 'directory') {
      this.files.set(path, 'directory');
    } else {
      this.files.set(path, new Uint8Array(Buffer.from(opts.content ?? '', opts.format === 'base64' ? 'base64' : 'utf8')));
    }
    return { path };
  }
}

const root = (url: string) => ({
  kind: 'root',
  children: [
    {
      kind: 'download',
      params: { url },
      children: [
        {
          kind: 'parse',
          params: { format: 'pdb' },
          children: [
            {
              kind: 'structure',
              params: { type: 'model' },
              children: [
                { kind: 'component', params: { selector: 'polymer' }, children: [{ kind: 'representation', params: { type: 'cartoon' } }] }
              ]
            }
          ]
        }
      ]
    }
  ]
});
const board = (url: string, again = './assets/1hpv.pdb') => ({
  title: 'HIV-1 protease (1HPV)',
  steps: [
    { key: 'overview', title: 'Overview', description: 'The dimer.', root: root(url) },
    { key: 'again', title: 'Again', description: 'Same file, other spelling.', root: root(again) }
  ]
});

let contents: MemoryContents;
let dispatcher: Dispatcher;
beforeEach(() => {
  contents = new MemoryContents();
  contents.files.set('data', 'directory');
  contents.files.set('data/1hpv.pdb', new Uint8Array(PDB));
  dispatcher = pageDispatcher(new WidgetRegistry(), { files: new WorkspaceFiles(contents as never) });
});

const create = (args: Record<string, unknown>) =>
  dispatcher.execute('story_create', { path: 'out/tour.mvsx', document: board('data/1hpv.pdb'), ...args }, { source: 'agent' });

describe('story_create .mvsx', () => {
  it('packs the assets beside index.mvsj, rewrites references, and the archive validates', async () => {
    const r = await create({ assets: ['data/1hpv.pdb'] });
    expect(r.structuredContent).toMatchObject({
      path: 'out/tour.mvsx',
      format: 'mvsx',
      replaced: false,
      snapshotCount: 2,
      assets: [{ path: 'data/1hpv.pdb', entry: 'assets/1hpv.pdb', bytes: PDB.length }],
      story: null
    });
    const written = contents.files.get('out/tour.mvsx') as Uint8Array;
    const entries = (await Unzip(written.slice().buffer, false).run()) as Record<string, Uint8Array>;
    expect(Object.keys(entries).sort()).toEqual(['assets/1hpv.pdb', 'index.mvsj']);
    expect(Buffer.from(entries['assets/1hpv.pdb']).equals(PDB)).toBe(true);
    const index = JSON.parse(new TextDecoder().decode(entries['index.mvsj']));
    const urls = index.snapshots.map((s: { root: { children: { params: { url: string } }[] } }) => s.root.children[0].params.url);
    expect(urls).toEqual(['assets/1hpv.pdb', 'assets/1hpv.pdb']);
    const parsed = await parseStory({ mvsx: written });
    expect(parsed.snapshots.map(s => s.key)).toEqual(['overview', 'again']);
    expect(r.structuredContent.bytes).toBe(written.length);
  });

  it('an asset named by {path, name} is stored under that name', async () => {
    const r = await create({
      assets: [{ path: 'data/1hpv.pdb', name: 'protease.pdb' }],
      document: board('assets/protease.pdb', 'data/1hpv.pdb')
    });
    expect(r.structuredContent).toMatchObject({ assets: [{ entry: 'assets/protease.pdb' }] });
  });

  it('refuses an asset path outside the root, at /assets/<i>', async () => {
    for (const p of ['../secret.pdb', '/etc/passwd', '~/x.pdb', 'data/../../x.pdb', 'file:///etc/passwd']) {
      const e = await failure(create({ assets: ['data/1hpv.pdb', p] }));
      expect(e).toMatchObject({ code: 'FORBIDDEN', where: '/assets/1' });
    }
    const e = await failure(create({ assets: [{ path: '../x.pdb', name: 'x.pdb' }] }));
    expect(e).toMatchObject({ code: 'FORBIDDEN', where: '/assets/0/path' });
    expect(contents.saved).toEqual([]);
  });

  it('refuses a missing asset and a folder, reading nothing and writing nothing', async () => {
    const missing = await failure(create({ assets: ['data/1hpv.pdb', 'data/none.pdb'] }));
    expect(missing).toMatchObject({ code: 'NOT_FOUND', where: '/assets/1', details: { path: 'data/none.pdb' } });
    const folder = await failure(create({ assets: ['data'] }));
    expect(folder).toMatchObject({ code: 'NOT_FOUND', where: '/assets/0' });
    expect(contents.read).toEqual([]);
    expect(contents.saved).toEqual([]);
  });

  it(`refuses an asset over ${LIMITS.storySourceBytes} bytes, and assets over it together, naming the limit`, async () => {
    contents.sizes.set('data/1hpv.pdb', LIMITS.storySourceBytes + 1);
    const one = await failure(create({ assets: ['data/1hpv.pdb'] }));
    expect(one).toMatchObject({
      code: 'TOO_LARGE',
      where: '/assets/0',
      details: { bytes: LIMITS.storySourceBytes + 1, limit: LIMITS.storySourceBytes }
    });
    expect(one.message).toContain('50 MiB');
    contents.sizes.set('data/1hpv.pdb', LIMITS.storySourceBytes / 2 + 1);
    contents.files.set('data/copy.pdb', new Uint8Array(PDB));
    contents.sizes.set('data/copy.pdb', LIMITS.storySourceBytes / 2 + 1);
    const both = await failure(create({ assets: ['data/1hpv.pdb', 'data/copy.pdb'] }));
    expect(both).toMatchObject({ code: 'TOO_LARGE', where: '/assets', details: { limit: LIMITS.storySourceBytes } });
    expect(contents.read).toEqual([]);
    expect(contents.saved).toEqual([]);
  });

  it('refuses two assets with one archive name, and one asset listed twice', async () => {
    contents.files.set('other/1hpv.pdb', new Uint8Array(PDB));
    const clash = await failure(create({ assets: ['data/1hpv.pdb', 'other/1hpv.pdb'] }));
    expect(clash).toMatchObject({ code: 'INVALID_INPUT', where: '/assets/1', details: { entry: 'assets/1hpv.pdb', assets: [0, 1] } });
    expect(clash.fix).toContain('"name"');
    const twice = await failure(create({ assets: ['data/1hpv.pdb', './data/1hpv.pdb'] }));
    expect(twice).toMatchObject({ code: 'INVALID_INPUT', where: '/assets/1' });
    const badName = await failure(create({ assets: [{ path: 'data/1hpv.pdb', name: 'sub/x.pdb' }] }));
    expect(badName).toMatchObject({ code: 'INVALID_INPUT', where: '/assets/0/name' });
    expect(contents.saved).toEqual([]);
  });

  it('refuses to write over an existing file without overwrite, before reading assets', async () => {
    await create({ assets: ['data/1hpv.pdb'] });
    contents.read = [];
    const e = await failure(create({ assets: ['data/1hpv.pdb'] }));
    expect(e).toMatchObject({ code: 'FORBIDDEN', where: '/overwrite', details: { path: 'out/tour.mvsx' } });
    expect(contents.read).toEqual([]);
    const again = await create({ assets: ['data/1hpv.pdb'], overwrite: true });
    expect(again.structuredContent).toMatchObject({ replaced: true });
  });

  it('a relative reference that no asset matches is a located issue; assets need .mvsx', async () => {
    const e = await failure(create({ assets: ['data/1hpv.pdb'], document: board('data/other.pdb') }));
    expect(e).toMatchObject({ code: 'VALIDATION_FAILED', where: '/document/steps/0/root/children/0/params/url' });
    expect(e.message).toContain('not in the MVSX archive');
    expect(e.fix).toMatch(/^List the file in assets/);
    const plain = await failure(create({ path: 'out/tour.mvsj', document: board('data/1hpv.pdb') }));
    expect(plain).toMatchObject({ code: 'VALIDATION_FAILED', where: '/document/steps/0/root/children/0/params/url' });
    expect(plain.fix).toMatch(/^Write an \.mvsx/);
    const mvsj = await failure(create({ path: 'out/tour.mvsj', assets: ['data/1hpv.pdb'] }));
    expect(mvsj).toMatchObject({ code: 'UNSUPPORTED_FORMAT', where: '/assets' });
    expect(contents.saved).toEqual([]);
  });

  it('open without a page that can dock Stories is a located error before anything is written', async () => {
    const e = await failure(create({ assets: ['data/1hpv.pdb'], open: true }));
    expect(e).toMatchObject({ code: 'INTERNAL', where: '/open' });
    expect(contents.saved).toEqual([]);
  });
});
