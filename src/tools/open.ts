/**
 * `open`: a structure from a path under the Jupyter root (read through
 * JupyterLab's contents API, so Jupyter's own root confinement applies),
 * inline text, a PDB ID, one MVS state, or a Ketcher editor's molecule in 3D,
 * in a Viewer docked in the main area: a page-owned Viewer that `observe`
 * lists and `act` drives like any other. A `.mvsj`/`.mvsx` path is a Story:
 * docked as `story_create {open: true}` docks one, driven by `story_control`.
 */
import { LIMITS, MolspaceError, OPEN_TOOL } from '../contract';
import type { WidgetRegistry } from '../dispatcher/registry';
import { checkStoryPath } from '../resources/workspaceFiles';
import { storyOpener } from '../story/storyOpener';
import {
  checkRootPath,
  coordinatesFormatOfPath,
  formatOfPath,
  isStoryPath,
  structureOpener,
  type OpenedCoordinates
} from '../viewer/structureOpener';
import type { ViewerTarget } from '../viewer/viewerTarget';
import { readyDeadline, whenReady } from '../dispatcher/whenReady';
import { checkPlacement } from '../dockPlacement';
import type { DockPlacement } from '../contract/toolArgs';
import { defineTool, type ToolEnv } from '../dispatcher/pageTool';

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
    throw new MolspaceError(
      'VALIDATION_FAILED',
      `Ketcher editor ${id} is empty: there is no molecule to open in 3D.`,
      '/ketcher',
      'Draw or set a molecule first (ketcher_control set_structure).',
      {
        target: id
      }
    );
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

export const open = defineTool(OPEN_TOOL, async ({ args, registry, openers, files, resourcePolicy, deadline }) => {
  const given = SOURCES.filter(k => args[k] !== undefined);
  if (given.length !== 1) {
    throw new MolspaceError(
      'INVALID_INPUT',
      given.length
        ? `open takes one source; got ${given.join(' and ')}.`
        : 'open takes one of path, text, pdbId, mvs or ketcher; got none.',
      `/${given[1] ?? 'path'}`,
      'Pass path (a file under the Jupyter root), text with format, pdbId, mvs (one MVS state), or ketcher (an editor id).',
      { given }
    );
  }
  if (args.path !== undefined && isStoryPath(args.path)) {
    if (args.format !== undefined) {
      throw new MolspaceError(
        'INVALID_INPUT',
        `format applies to structures; "${args.path}" is a Story.`,
        '/format',
        'Drop format to show the Story.',
        {
          path: args.path
        }
      );
    }
    checkPlacement(args.dock);
    return openStory({ openers, files, resourcePolicy }, args.path, args.title, deadline, args.dock);
  }
  const opener = structureOpener(openers);
  checkPlacement(args.dock);
  if (args.mvs !== undefined) {
    if (args.mvs.kind === 'multiple') {
      throw new MolspaceError(
        'UNSUPPORTED_FORMAT',
        'open draws one MVS state, not a multi-state Story.',
        '/mvs/kind',
        'Pass one state; show a Story with story_create.',
        {}
      );
    }
    const title =
      args.title ??
      (typeof (args.mvs.metadata as { title?: unknown })?.title === 'string'
        ? String((args.mvs.metadata as { title: string }).title)
        : 'MVS state');
    const viewer = await opener.open({
      bytes: new Uint8Array(),
      format: 'mmcif',
      name: '/mvs',
      title,
      mvs: args.mvs,
      placement: args.dock
    });
    return opened(viewer, 'an MVS state', deadline);
  }
  let bytes: Uint8Array;
  let name: string;
  let format;
  let what: string;
  let title = args.title;
  let coordinates: OpenedCoordinates | undefined;
  if (args.coordinates !== undefined && args.path === undefined) {
    throw new MolspaceError(
      'INVALID_INPUT',
      'coordinates are the frames of a topology given as path.',
      '/coordinates',
      'Pass path (the topology or structure file) with coordinates, or drop coordinates.',
      { given }
    );
  }
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
    if (args.coordinates !== undefined) {
      checkRootPath(args.coordinates, '/coordinates');
      const cformat = coordinatesFormatOfPath(args.coordinates);
      coordinates = await opener.readCoordinates(args.coordinates, cformat, '/coordinates');
      what = `${args.path} with ${args.coordinates}`;
    }
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
  const viewer = await opener.open({ bytes, format, name, title, placement: args.dock, coordinates });
  return opened(viewer, what, deadline);
});

/** The `open` answer of a docked Viewer once drawn, or its load or draw error (with the Viewer's id). */
async function opened(viewer: ViewerTarget, what: string, deadline: number | undefined) {
  await whenReady(viewer, readyDeadline(deadline));
  const state = viewer.state();
  return {
    output: { viewer: state, composition: viewer.composition() },
    text: `Opened ${what} in Viewer ${viewer.targetId}: ${viewer.describe()}.`
  };
}

/**
 * Dock the Story file `path` (`.mvsj`/`.mvsx` under the Jupyter root): read,
 * validated and resource-checked as the Story widget does, then shown; the
 * answer comes once its first step is drawn.
 *
 * @throws MolspaceError at `/path`: `FORBIDDEN` (a path leaving the root),
 *   `NOT_FOUND`, `TOO_LARGE` (over `LIMITS.storySourceBytes`), the Story's
 *   parse/validation error (`UNSUPPORTED_FORMAT`, `VALIDATION_FAILED`,
 *   `FORBIDDEN` for a refused host) before anything is docked; once docked,
 *   the Story's own located load error (with `details.target`), or `TIMEOUT`
 *   when its first step was not drawn by the deadline (`whenReady`).
 */
async function openStory(
  { openers, files, resourcePolicy }: Pick<ToolEnv, 'openers' | 'files' | 'resourcePolicy'>,
  given: string,
  title: string | undefined,
  deadline: number | undefined,
  placement?: DockPlacement
) {
  const path = checkStoryPath(given, ['.mvsj', '.mvsx']);
  const opener = storyOpener(openers);
  const size = await files.fileSize(path, '/path');
  if (size > LIMITS.storySourceBytes) {
    throw new MolspaceError(
      'TOO_LARGE',
      `"${path}" is ${size} bytes; the limit is ${LIMITS.storySourceBytes} (storySourceBytes).`,
      '/path',
      'Open a smaller Story file.',
      {
        path,
        bytes: size,
        limit: LIMITS.storySourceBytes
      }
    );
  }
  const source = await files.readStoryFile(path);
  // Loaded with the first call: Mol* stays off JupyterLab's start path.
  const { parseStory } = await import('../molstar/storySource');
  const { stepsOf } = await import('../authoring/storyDocument');
  let story;
  try {
    story = await parseStory(source, resourcePolicy);
  } catch (e) {
    const err = MolspaceError.from(e, `open ${path}`);
    throw new MolspaceError(err.code, `${path}: ${err.message}`, '/path', err.fix, { ...err.details, path });
  }
  const shown = await opener.open({ path, story, title, placement });
  try {
    await whenReady(shown, readyDeadline(deadline));
  } catch (e) {
    const err = MolspaceError.from(e, `open ${path}`);
    throw new MolspaceError(err.code, err.message, err.where, err.fix, { ...err.details, path, target: shown.targetId });
  }
  const state = shown.state();
  const steps = stepsOf(story);
  return {
    output: { story: state, steps },
    text:
      `Opened ${path} as Story ${shown.targetId} (kind story): "${story.title}", ${state.count} step(s), at step ${state.index + 1} ` +
      `"${state.key}". Drive it with story_control {target: "${shown.targetId}"}.`
  };
}
