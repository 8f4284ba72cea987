/**
 * `open`: a structure from a path under the Jupyter root (read through
 * JupyterLab's contents API, so Jupyter's own root confinement applies) or
 * inline text, in a Viewer docked in the main area: a page-owned Viewer that
 * `observe` lists and `act` drives like any other.
 */
import { MolspaceError, OPEN_TOOL } from '../contract';
import { checkRootPath, formatOfPath, structureOpener } from '../viewer/structureOpener';
import type { ViewerTarget } from '../viewer/viewerTarget';
import { defineTool } from './tool';

export const open = defineTool(OPEN_TOOL, async ({ args }) => {
  const given = [args.path, args.text, args.pdbId, args.mvs].filter(x => x !== undefined).length;
  if (given !== 1) {
    throw new MolspaceError(
      'INVALID_INPUT',
      'open takes exactly one of path, text, pdbId or mvs.',
      args.path === undefined ? '/path' : args.text !== undefined ? '/text' : args.pdbId !== undefined ? '/pdbId' : '/mvs',
      'Pass path (a file under the Jupyter root), text with format, pdbId, or mvs (one MVS state).',
      {}
    );
  }
  const opener = structureOpener();
  let bytes: Uint8Array;
  let name: string;
  let format;
  if (args.mvs !== undefined) {
    if (args.mvs.kind === 'multiple') {
      throw new MolspaceError('UNSUPPORTED_FORMAT', 'open draws one MVS state, not a multi-state Story.', '/mvs/kind', 'Pass one state; show a Story with story_create.', {});
    }
    const title = args.title ?? (typeof (args.mvs.metadata as { title?: unknown })?.title === 'string' ? String((args.mvs.metadata as { title: string }).title) : 'MVS state');
    const viewer = await opener.open({ bytes: new Uint8Array(), format: 'mmcif', name: '/mvs', title, mvs: args.mvs });
    return opened(viewer, 'an MVS state');
  }
  if (args.pdbId !== undefined) {
    const { downloadPdbEntry } = await import('../viewer/pdbDownload');
    bytes = await downloadPdbEntry(args.pdbId, args.mirror);
    format = 'mmcif' as const;
    name = `/pdbId`;
  } else if (args.path !== undefined) {
    checkRootPath(args.path);
    format = formatOfPath(args.path, args.format);
    bytes = await opener.read(args.path);
    name = args.path;
  } else {
    if (!args.format) {
      throw new MolspaceError('UNSUPPORTED_FORMAT', 'Inline text carries no format.', '/format', 'Pass format with text.', {});
    }
    format = args.format;
    bytes = new TextEncoder().encode(args.text);
    name = '/text';
  }
  const title = args.title ?? args.path ?? (args.pdbId ? `PDB ${args.pdbId.toUpperCase()}` : `${format} text`);
  const viewer = await opener.open({ bytes, format, name, title });
  return opened(viewer, args.pdbId ? `PDB ${args.pdbId}` : args.path ?? `inline ${format} text`);
});

/** The `open` answer of a docked Viewer, or its load error (with the Viewer's id). */
function opened(viewer: ViewerTarget, what: string) {
  const state = viewer.state();
  if (state.error) {
    throw new MolspaceError(state.error.code, state.error.message, state.error.where, state.error.fix, {
      ...state.error.details,
      target: viewer.targetId
    });
  }
  return {
    output: { viewer: state, composition: viewer.composition() },
    text: `Opened ${what} in Viewer ${viewer.targetId}: ${viewer.describe()}.`
  };
}
