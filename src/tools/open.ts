/**
 * `open`: a structure from a path under the Jupyter root (read through
 * JupyterLab's contents API, so Jupyter's own root confinement applies) or
 * inline text, in a Viewer docked in the main area: a page-owned Viewer that
 * `observe` lists and `act` drives like any other.
 */
import { MolspaceError, OPEN_TOOL } from '../contract';
import { checkRootPath, formatOfPath, structureOpener } from '../viewer/structureOpener';
import { defineTool } from './tool';

export const open = defineTool(OPEN_TOOL, async ({ args }) => {
  const given = [args.path, args.text, args.pdbId].filter(x => x !== undefined).length;
  if (given !== 1) {
    throw new MolspaceError(
      'INVALID_INPUT',
      'open takes exactly one of path, text or pdbId.',
      args.path === undefined ? '/path' : args.text !== undefined ? '/text' : '/pdbId',
      'Pass path (a file under the Jupyter root), text with format, or pdbId.',
      {}
    );
  }
  const opener = structureOpener();
  let bytes: Uint8Array;
  let name: string;
  let format;
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
  const state = viewer.state();
  if (state.error) {
    throw new MolspaceError(state.error.code, state.error.message, state.error.where, state.error.fix, {
      ...state.error.details,
      target: viewer.targetId
    });
  }
  return {
    output: { viewer: state, composition: viewer.composition() },
    text: `Opened ${args.pdbId ? `PDB ${args.pdbId}` : args.path ?? `inline ${format} text`} in Viewer ${viewer.targetId}: ${viewer.describe()}.`
  };
});
