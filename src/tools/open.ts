/**
 * `open`: a structure from a path under the Jupyter root (read through
 * JupyterLab's contents API, so Jupyter's own root confinement applies),
 * inline text, a PDB ID, one MVS state, or a Ketcher editor's molecule in 3D,
 * in a Viewer docked in the main area: a page-owned Viewer that `observe`
 * lists and `act` drives like any other.
 */
import { MolspaceError, OPEN_TOOL } from '../contract';
import type { WidgetRegistry } from '../dispatcher/registry';
import { checkRootPath, formatOfPath, structureOpener } from '../viewer/structureOpener';
import type { ViewerTarget } from '../viewer/viewerTarget';
import { checkPlacement } from '../dockPlacement';
import { defineTool } from './tool';

const SOURCES = ['path', 'text', 'pdbId', 'mvs', 'ketcher'] as const;

/**
 * The molecule of the editor `id` as one SDF record in 3D (the server's RDKit).
 *
 * @throws MolspaceError at `/ketcher`: `NOT_FOUND`/`STALE_TARGET` for the id,
 *   `VALIDATION_FAILED` for an empty editor or a drawing with no 3D form, and
 *   the 3D endpoint's errors (`embed3d`).
 */
async function ketcherIn3d(registry: WidgetRegistry, id: string): Promise<{ bytes: Uint8Array; title: string; note: string }> {
  const editor = registry.get(id, 'ketcher', '/ketcher');
  await editor.whenLoaded();
  const state = editor.state();
  if (state.error) {
    throw new MolspaceError(state.error.code, state.error.message, '/ketcher', state.error.fix, { ...state.error.details, target: id });
  }
  if (state.atoms === 0) {
    throw new MolspaceError('VALIDATION_FAILED', `Ketcher editor ${id} is empty: there is no molecule to open in 3D.`, '/ketcher', 'Draw or set a molecule first (ketcher_control set_structure).', {
      target: id
    });
  }
  const molfile = await editor.export('molfile');
  const { embed3d } = await import('../ketcher/embed3d');
  const embedded = await embed3d(molfile, '/ketcher');
  return {
    bytes: new TextEncoder().encode(embedded.sdf),
    title: `${state.title} (3D)`,
    note: `Ketcher ${id}'s molecule at structure revision ${state.structureRevision} (${embedded.atoms} atoms with hydrogens${embedded.optimized ? ', MMFF94-optimised' : ''})`
  };
}

export const open = defineTool(OPEN_TOOL, async ({ args, registry }) => {
  const given = SOURCES.filter(k => args[k] !== undefined);
  if (given.length !== 1) {
    throw new MolspaceError(
      'INVALID_INPUT',
      given.length ? `open takes one source; got ${given.join(' and ')}.` : 'open takes one of path, text, pdbId, mvs or ketcher; got none.',
      `/${given[1] ?? 'path'}`,
      'Pass path (a file under the Jupyter root), text with format, pdbId, mvs (one MVS state), or ketcher (an editor id).',
      { given }
    );
  }
  const opener = structureOpener();
  checkPlacement(args.dock);
  if (args.mvs !== undefined) {
    if (args.mvs.kind === 'multiple') {
      throw new MolspaceError('UNSUPPORTED_FORMAT', 'open draws one MVS state, not a multi-state Story.', '/mvs/kind', 'Pass one state; show a Story with story_create.', {});
    }
    const title = args.title ?? (typeof (args.mvs.metadata as { title?: unknown })?.title === 'string' ? String((args.mvs.metadata as { title: string }).title) : 'MVS state');
    const viewer = await opener.open({ bytes: new Uint8Array(), format: 'mmcif', name: '/mvs', title, mvs: args.mvs, placement: args.dock });
    return opened(viewer, 'an MVS state');
  }
  let bytes: Uint8Array;
  let name: string;
  let format;
  let what: string;
  let title = args.title;
  if (args.ketcher !== undefined) {
    const sketch = await ketcherIn3d(registry, args.ketcher);
    bytes = sketch.bytes;
    format = 'sdf' as const;
    name = '/ketcher';
    what = sketch.note;
    title = title ?? sketch.title;
  } else if (args.pdbId !== undefined) {
    const { downloadPdbEntry } = await import('../viewer/pdbDownload');
    bytes = await downloadPdbEntry(args.pdbId, args.mirror);
    format = 'mmcif' as const;
    name = `/pdbId`;
    what = `PDB ${args.pdbId}`;
  } else if (args.path !== undefined) {
    checkRootPath(args.path);
    format = formatOfPath(args.path, args.format);
    bytes = await opener.read(args.path);
    name = args.path;
    what = args.path;
  } else {
    if (!args.format) {
      throw new MolspaceError('UNSUPPORTED_FORMAT', 'Inline text carries no format.', '/format', 'Pass format with text.', {});
    }
    format = args.format;
    bytes = new TextEncoder().encode(args.text);
    name = '/text';
    what = `inline ${format} text`;
  }
  title = title ?? args.path ?? (args.pdbId ? `PDB ${args.pdbId.toUpperCase()}` : `${format} text`);
  const viewer = await opener.open({ bytes, format, name, title, placement: args.dock });
  return opened(viewer, what);
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
