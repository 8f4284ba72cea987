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
  if ((args.path === undefined) === (args.text === undefined)) {
    throw new MolspaceError(
      'INVALID_INPUT',
      'open takes exactly one of path or text.',
      args.path === undefined ? '/path' : '/text',
      'Pass path (a file under the Jupyter root) or text with format.',
      {}
    );
  }
  const opener = structureOpener();
  let bytes: Uint8Array;
  let name: string;
  let format;
  if (args.path !== undefined) {
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
  const viewer = await opener.open({ bytes, format, name, title: args.title ?? (args.path ?? `${format} text`) });
  const state = viewer.state();
  if (state.error) {
    throw new MolspaceError(state.error.code, state.error.message, state.error.where, state.error.fix, {
      ...state.error.details,
      target: viewer.targetId
    });
  }
  return {
    output: { viewer: state, composition: viewer.composition() },
    text: `Opened ${name} in Viewer ${viewer.targetId}: ${viewer.describe()}.`
  };
});
