/**
 * `open`'s path rules (pure): which paths are Stories, and the located
 * UNSUPPORTED_FORMAT of an unknown extension, whose fix lists the structure
 * and the Story extensions (ui-tests/tests/openAnything.spec.ts opens them for real).
 */
import { MolspaceError, STORY_EXTENSIONS, STRUCTURE_EXTENSIONS } from '../../contract';
import { formatOfPath, isStoryPath } from '../structureOpener';

describe('isStoryPath', () => {
  it.each(['stories/a.mvsj', 'A.MVSX', 'x/y/z.mvsx'])('%s is a Story', p => expect(isStoryPath(p)).toBe(true));
  it.each(['a.cif', 'mvsj', 'a.mvsj.cif', 'a.json', 'stories/'])('%s is not', p => expect(isStoryPath(p)).toBe(false));
});

describe('formatOfPath', () => {
  it('reads the format from the extension, or takes the one given', () => {
    expect(formatOfPath('data/1cbs.cif', undefined)).toBe('mmcif');
    expect(formatOfPath('data/x', 'pdb')).toBe('pdb');
  });

  it.each([
    ['notes.txt', 'txt'],
    ['noextension', null]
  ])('%s: UNSUPPORTED_FORMAT at /path naming structure and Story extensions', (path, extension) => {
    let caught: unknown;
    try {
      formatOfPath(path, undefined);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(MolspaceError);
    const e = caught as MolspaceError;
    expect(e.code).toBe('UNSUPPORTED_FORMAT');
    expect(e.where).toBe('/path');
    expect(e.details).toMatchObject({ path, extension, storyExtensions: [...STORY_EXTENSIONS] });
    for (const ext of [...Object.keys(STRUCTURE_EXTENSIONS), ...STORY_EXTENSIONS]) {
      expect(e.fix).toContain(`.${ext}`);
    }
  });
});
