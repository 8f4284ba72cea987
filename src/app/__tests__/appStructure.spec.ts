/**
 * The structure a tool result carries for the App: decoded as the gateway encodes it
 * (molspace/app/structure.py), and every wrong shape a located INVALID_INPUT.
 */
import { APP_STORY_META, APP_STRUCTURE_META } from '../../contract/app';
import { MolspaceError } from '../../contract/errors';
import { ResultQueue } from '../appHandoff';
import { appSourceOf } from '../appStructure';
import { appStoryOf } from '../appStory';

type Result = Parameters<typeof appSourceOf>[0];

function result(structure: unknown): Result {
  return { content: [{ type: 'text', text: 'open: shown' }], _meta: { [APP_STRUCTURE_META]: structure } } as Result;
}

const PDB = 'HETATM    1  O   HOH A   1       0.000   0.000   0.000  1.00  0.00           O\nEND\n';

function refusal(structure: unknown): MolspaceError {
  try {
    appSourceOf(result(structure));
  } catch (e) {
    return e as MolspaceError;
  }
  throw new Error('expected a refusal');
}

describe('appSourceOf', () => {
  it('reads UTF-8 text and base64 binary as the gateway sends them', () => {
    const text = appSourceOf(
      result({ format: 'pdb', structure: { name: 'data/w.pdb', encoding: 'utf8', data: PDB }, coordinates: null, title: 'water' })
    );
    expect(text).toMatchObject({ title: 'water', name: 'data/w.pdb', format: 'pdb', coordinates: null });
    expect(new TextDecoder().decode(text!.bytes!)).toBe(PDB);
    const binary = appSourceOf(
      result({
        format: 'pdb',
        structure: { name: 'w.pdb', encoding: 'utf8', data: PDB },
        coordinates: { format: 'dcd', file: { name: 'w.dcd', encoding: 'base64', data: btoa('\x00\x01\xff') } },
        title: 'w'
      })
    );
    expect(Array.from(binary!.coordinates!.bytes)).toEqual([0, 1, 255]);
    expect(binary!.coordinates).toMatchObject({ format: 'dcd', where: 'w.dcd' });
  });

  it('reads a PDB entry to download, with the mirror URL as its name and no bytes', () => {
    const entry = appSourceOf(result({ format: 'mmcif', download: { pdbId: '1cbs', mirror: 'rcsb' }, coordinates: null, title: '1cbs' }));
    expect(entry).toMatchObject({ title: '1cbs', format: 'mmcif', bytes: null, download: { pdbId: '1cbs', mirror: 'rcsb' } });
    expect(entry!.name).toBe('https://files.rcsb.org/download/1CBS.cif');
  });

  it('is null for a result that carries no structure (shown in JupyterLab)', () => {
    expect(appSourceOf({ content: [] } as unknown as Result)).toBeNull();
  });

  it.each([
    ['not an object', 'a string', '_meta/molspace~1structure'],
    ['a missing field', { format: 'pdb', coordinates: null, title: 't' }, '_meta/molspace~1structure/structure'],
    [
      'an unknown encoding',
      { format: 'pdb', structure: { name: 'x', encoding: 'hex', data: '00' }, coordinates: null, title: 't' },
      '_meta/molspace~1structure/structure/encoding'
    ],
    [
      'an unknown format',
      { format: 'exe', structure: { name: 'x', encoding: 'utf8', data: PDB }, coordinates: null, title: 't' },
      '_meta/molspace~1structure/format'
    ],
    [
      'an unknown coordinates format',
      {
        format: 'pdb',
        structure: { name: 'x', encoding: 'utf8', data: PDB },
        coordinates: { format: 'zip', file: { name: 'c', encoding: 'base64', data: '' } },
        title: 't'
      },
      '_meta/molspace~1structure/coordinates/format'
    ],
    [
      'both a file and a download',
      {
        format: 'mmcif',
        structure: { name: 'x', encoding: 'utf8', data: PDB },
        download: { pdbId: '1cbs', mirror: 'rcsb' },
        coordinates: null,
        title: 't'
      },
      '_meta/molspace~1structure/structure'
    ],
    [
      'a download from an unknown mirror',
      { format: 'mmcif', download: { pdbId: '1cbs', mirror: 'evil' }, coordinates: null, title: 't' },
      '_meta/molspace~1structure/download/mirror'
    ],
    [
      'a download of something that is not a PDB ID',
      { format: 'mmcif', download: { pdbId: '../x', mirror: 'rcsb' }, coordinates: null, title: 't' },
      '_meta/molspace~1structure/download/pdbId'
    ],
    [
      'base64 that is not',
      { format: 'bcif', structure: { name: 'x.bcif', encoding: 'base64', data: '%%%' }, coordinates: null, title: 't' },
      '_meta/molspace~1structure/structure/data'
    ]
  ])('refuses %s, located', (_what, structure, where) => {
    const e = refusal(structure);
    expect(e).toBeInstanceOf(MolspaceError);
    expect(e.code).toBe('INVALID_INPUT');
    expect(e.where).toBe(where);
    expect(e.fix).toBeTruthy();
  });
});

describe('ResultQueue', () => {
  it('keeps results until the App listens, then passes each in order', () => {
    const q = new ResultQueue();
    const seen: string[] = [];
    q.push({ content: [], _meta: { n: '1' } } as unknown as Result);
    q.push({ content: [], _meta: { n: '2' } } as unknown as Result);
    q.onResult(r => seen.push(String((r._meta as Record<string, unknown>).n)));
    q.push({ content: [], _meta: { n: '3' } } as unknown as Result);
    expect(seen).toEqual(['1', '2', '3']);
  });
});

describe('appStoryOf', () => {
  const story = (value: unknown) => ({ content: [], _meta: { [APP_STORY_META]: value } }) as unknown as Result;

  it('gives MVSJ as text and MVSX as bytes', () => {
    expect(
      appStoryOf(story({ format: 'mvsj', file: { name: 's.mvsj', encoding: 'utf8', data: '{"kind":"single"}' }, title: 'S' }))
    ).toEqual({
      title: 'S',
      name: 's.mvsj',
      input: { mvsj: '{"kind":"single"}' }
    });
    const zip = appStoryOf(story({ format: 'mvsx', file: { name: 's.mvsx', encoding: 'base64', data: btoa('PK\x03\x04') }, title: 'S' }));
    expect(Array.from(zip!.input.mvsx!)).toEqual([0x50, 0x4b, 3, 4]);
  });

  it('is null without a Story, and a wrong shape is located', () => {
    expect(appStoryOf({ content: [] } as unknown as Result)).toBeNull();
    let error: MolspaceError | null = null;
    try {
      appStoryOf(story({ format: 'pdb', file: { name: 'x', encoding: 'utf8', data: '' }, title: 'S' }));
    } catch (e) {
      error = e as MolspaceError;
    }
    expect(error).toMatchObject({ code: 'INVALID_INPUT', where: '_meta/molspace~1story/format' });
  });
});
