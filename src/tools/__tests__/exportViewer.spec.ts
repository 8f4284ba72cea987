/**
 * `export` of a Viewer to `.mvsx` and `.png` through a real Dispatcher with an in-memory
 * contents manager (the real page, contents API and gateway: ui-tests/tests/exportViewer.spec.ts):
 * the archive's files, `index.mvsj` read back by the validation that plays Stories (Mol*'s MVS
 * schema) with the structure's URL the archive name; a trajectory's coordinates beside it; a
 * Viewer of an MVS state (its URLs kept, named in the answer); the PNG's bytes; each bad input
 * refused, located, nothing written.
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import { Unzip } from 'molstar/lib/mol-util/zip/zip';
import { MolspaceError, type ViewerViewState } from '../../contract';
import { WidgetRegistry } from '../../dispatcher/registry';
import { MemoryStory } from '../../__tests__/memoryStory';
import { memoryViewer } from '../../__tests__/memoryViewer';
import { parseStory } from '../../molstar/storySource';
import { WorkspaceFiles } from '../../resources/workspaceFiles';
import { pageDispatcher } from '../../tools';
import { defaultLayers, readStructure, type StructureData } from '../../viewer/structureData';
import { initialView } from '../../viewer/initialView';
import type { ViewerSourceFile, ViewerTarget } from '../../viewer/viewerTarget';

const ROOT = join(__dirname, '../../..');
const PDB = new Uint8Array(readFileSync(join(ROOT, 'tests/data/structures/1hpv.pdb')));
/** A 1x1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

class MemoryContents {
  files = new Map<string, Uint8Array | 'directory'>();
  async get(path: string) {
    const f = this.files.get(path);
    if (f === undefined) {
      throw Object.assign(new Error('Not Found'), { response: { status: 404 } });
    }
    return { path, type: f === 'directory' ? 'directory' : 'file', content: null };
  }
  async save(path: string, opts: { type: string; format?: string; content?: string }) {
    this.files.set(
      path,
      opts.type === 'directory'
        ? 'directory'
        : new Uint8Array(Buffer.from(opts.content ?? '', opts.format === 'base64' ? 'base64' : 'utf8'))
    );
    return { path };
  }
}

/** A Viewer as the `.mvsx` / `.png` export sees it: its file, data and view, and a 1-pixel PNG screenshot. */
function viewerOf(id: string, file: ViewerSourceFile | null, data: StructureData | null, view: ViewerViewState): ViewerTarget {
  return memoryViewer(
    id,
    {
      sourceFile: () => file,
      structureData: async () => data,
      view: () => view,
      screenshot: async (o: { format?: string }) => {
        expect(o.format).toBe('png');
        return { data: PNG, mimeType: 'image/png', width: 1, height: 1 };
      }
    },
    { revision: 2 }
  );
}

async function entries(bytes: Uint8Array): Promise<Record<string, Uint8Array>> {
  return (await Unzip(bytes.slice().buffer, false).run()) as Record<string, Uint8Array>;
}

describe('export a Viewer to .mvsx and .png', () => {
  let contents: MemoryContents;
  let registry: WidgetRegistry;
  let view: ViewerViewState;
  const run = (args: Record<string, unknown>) =>
    pageDispatcher(registry, { files: new WorkspaceFiles(contents as never) }).execute('export', args, { source: 'agent' });
  const refusal = async (args: Record<string, unknown>) => {
    try {
      await run(args);
    } catch (e) {
      return MolspaceError.from(e, 'test').toJSON();
    }
    throw new Error('expected a refusal');
  };

  // export loads the archive code (Mol*'s zip writer, MVS) on use: its first, cold import under
  // ts-jest outlasts a test's 5 s on a fresh clone, so it is loaded here once, before the tests
  beforeAll(() => import('../../viewer/viewerArchive'), 120_000);

  beforeEach(async () => {
    contents = new MemoryContents();
    registry = new WidgetRegistry();
    const data = await readStructure(PDB, 'pdb', 'data/1hpv.pdb');
    view = { ...initialView(defaultLayers(data)), colors: [{ selector: { label_asym_id: 'A' }, color: '#ff0000' }] } as ViewerViewState;
    registry.register(viewerOf('protease', { format: 'pdb', name: 'data/1hpv.pdb', bytes: PDB, coordinates: null }, data, view));
  });

  it('writes index.mvsj (the drawn state, the structure by its archive name) and the structure file; Mol*’s MVS validation reads it back', async () => {
    const r = await run({ target: 'protease', path: 'share/protease.mvsx' });
    const written = contents.files.get('share/protease.mvsx') as Uint8Array;
    expect(r.structuredContent).toEqual({
      path: 'share/protease.mvsx',
      target: 'protease',
      kind: 'viewer',
      bytes: written.length,
      replaced: false
    });
    expect(r.text).toContain('index.mvsj + 1hpv.pdb');
    const files = await entries(written);
    expect(Object.keys(files).sort()).toEqual(['1hpv.pdb', 'index.mvsj']);
    expect(Buffer.from(files['1hpv.pdb']).equals(Buffer.from(PDB))).toBe(true);
    const index = JSON.parse(new TextDecoder().decode(files['index.mvsj']));
    const download = index.root.children.find((c: { kind: string }) => c.kind === 'download');
    expect(download.params.url).toBe('1hpv.pdb');
    expect(JSON.stringify(index)).toContain('"color":"#ff0000"');
    const parsed = await parseStory({ mvsx: written });
    expect(parsed.snapshots.length).toBe(1);
  });

  it("stores a trajectory's coordinates file beside the structure, named by the coordinates node", async () => {
    const data = await readStructure(PDB, 'pdb', 'data/1hpv.pdb');
    const dcd = new Uint8Array([1, 2, 3]);
    registry.register(
      viewerOf(
        'md',
        { format: 'pdb', name: '1hpv.pdb', bytes: PDB, coordinates: { format: 'dcd', name: 'run.dcd', bytes: dcd } },
        data,
        view
      )
    );
    await run({ target: 'md', path: 'md.mvsx' });
    const files = await entries(contents.files.get('md.mvsx') as Uint8Array);
    expect(Object.keys(files).sort()).toEqual(['1hpv.pdb', 'index.mvsj', 'run.dcd']);
    const index = JSON.parse(new TextDecoder().decode(files['index.mvsj']));
    const urls = index.root.children
      .filter((c: { kind: string }) => c.kind === 'download')
      .map((c: { params: { url: string } }) => c.params.url);
    expect(urls).toEqual(['run.dcd', '1hpv.pdb']);
  });

  it('stores a Viewer of an MVS state as that state, its data left at its URLs, which the answer names', async () => {
    const url = 'https://files.example.org/1cbs.cif';
    const mvs = {
      kind: 'single',
      metadata: { version: '1' },
      root: { kind: 'root', children: [{ kind: 'download', params: { url }, children: [{ kind: 'parse', params: { format: 'mmcif' } }] }] }
    };
    registry.register(viewerOf('remote', null, null, { ...view, mvs } as ViewerViewState));
    const r = await run({ target: 'remote', path: 'remote.mvsx' });
    expect(r.text).toContain(`its data stays at ${url}`);
    const files = await entries(contents.files.get('remote.mvsx') as Uint8Array);
    expect(Object.keys(files)).toEqual(['index.mvsj']);
    expect(JSON.parse(new TextDecoder().decode(files['index.mvsj'])).root.children[0].params.url).toBe(url);
  });

  it("writes the current frame as a PNG, the screenshot's bytes", async () => {
    const r = await run({ path: 'shots/frame.png' });
    expect(r.structuredContent).toMatchObject({ path: 'shots/frame.png', target: 'protease', kind: 'viewer', replaced: false });
    expect(Buffer.from(contents.files.get('shots/frame.png') as Uint8Array).equals(Buffer.from(PNG, 'base64'))).toBe(true);
    expect(r.text).toContain('1x1 PNG');
  });

  it('refuses, located, writing nothing: an existing file, "..", an absolute path, a Story given .mvsx, another ending, an unknown target', async () => {
    await run({ target: 'protease', path: 'a.png' });
    const before = [...contents.files.keys()];
    expect(await refusal({ target: 'protease', path: 'a.png' })).toMatchObject({ code: 'FORBIDDEN', where: '/overwrite' });
    expect((await run({ target: 'protease', path: 'a.png', overwrite: true })).structuredContent).toMatchObject({ replaced: true });
    expect(await refusal({ target: 'protease', path: '../a.mvsx' })).toMatchObject({ code: 'FORBIDDEN', where: '/path' });
    expect(await refusal({ target: 'protease', path: '/tmp/a.png' })).toMatchObject({ code: 'FORBIDDEN', where: '/path' });
    expect(await refusal({ target: 'protease', path: 'a.jpg' })).toMatchObject({
      code: 'UNSUPPORTED_FORMAT',
      where: '/path',
      details: { kind: 'viewer', extensions: ['.html', '.mvsx', '.png'] }
    });
    registry.register(new MemoryStory('tour', []));
    expect(await refusal({ target: 'tour', path: 'tour.mvsx' })).toMatchObject({
      code: 'UNSUPPORTED_FORMAT',
      where: '/path',
      details: { kind: 'story', extensions: ['.html'] }
    });
    expect(await refusal({ target: 'nope', path: 'a.mvsx' })).toMatchObject({ code: 'NOT_FOUND', where: '/target' });
    expect([...contents.files.keys()]).toEqual(before);
  });
});
