/**
 * A Viewer's current view as one MolViewSpec archive (`export` to `.mvsx`, a cell's
 * `Viewer.to_mvsx` through `./archiveRequest.ts`; docs/architecture.md, "Viewer"): `index.mvsj` is the MVS state the Viewer draws (`viewToMvs`), its structure's URL
 * (and a trajectory's coordinates URL) replaced by the archive-relative name of the file stored
 * beside it. A Viewer of an MVS state has no file of its own: its state is stored as it is, and
 * its `download` URLs stay remote (opening the archive downloads them); `remote` lists them.
 * Zipped by Mol*'s zip writer (`zipStory`), as `story_create` writes Story archives.
 */
import { MolspaceError, type CoordinatesFormat, type StructureFormat } from '../contract';
import { zipStory } from '../molstar/mvsxArchive';
import { MVSX_MAIN_FILE } from '../molstar/storySource';
import { LIGHT_BACKGROUND } from '../molstar/molstarPlugin';
import { viewToMvs } from './viewerMvs';
import type { ViewerTarget } from './viewerTarget';

/** A plain archive file name: no folders, nothing but letters, digits, `.`, `_`, `-`. */
function archiveName(name: string, fallback: string): string {
  const base = (name.split(/[\\/]/).pop() ?? '').replace(/[^A-Za-z0-9._-]/g, '_').replace(/^[._-]+/, '');
  return base && base !== MVSX_MAIN_FILE ? base : fallback;
}

/** Every `url` param of an MVS tree. */
function urlsOf(node: unknown, into: string[] = []): string[] {
  if (Array.isArray(node)) {
    node.forEach(n => urlsOf(n, into));
  } else if (node && typeof node === 'object') {
    const o = node as { params?: { url?: unknown }; children?: unknown };
    if (typeof o.params?.url === 'string') {
      into.push(o.params.url);
    }
    urlsOf(o.children, into);
  }
  return into;
}

export interface ViewerArchive {
  /** The `.mvsx` bytes. */
  bytes: Uint8Array;
  /** `index.mvsj`'s state. */
  mvs: Record<string, unknown>;
  /** The archive's files besides `index.mvsj`. */
  names: string[];
  /** URLs the state downloads from outside the archive (a Viewer of an MVS state). */
  remote: string[];
}

/**
 * The `.mvsx` of what `target` shows now.
 *
 * @throws MolspaceError `VALIDATION_FAILED` at `/target` for a Viewer that failed to load;
 *   `TOO_LARGE` at `/target` for frames on demand (`sourceFile`).
 */
export async function viewerArchive(target: ViewerTarget): Promise<ViewerArchive> {
  const state = target.state();
  if (state.error !== null) {
    throw new MolspaceError(
      'VALIDATION_FAILED',
      `Viewer "${target.targetId}" shows no structure to export (${state.error.code}: ${state.error.message}).`,
      '/target',
      'Export a Viewer that shows its structure.',
      { target: target.targetId }
    );
  }
  const view = target.view();
  const source = target.sourceFile();
  if (source === null || view.mvs) {
    // an MVS state (its own, or given by apply_mvs): stored as drawn, its data where it names it
    const mvs = viewToMvs(view, { url: '', format: 'mmcif', models: [], background: LIGHT_BACKGROUND });
    const remote = [...new Set(urlsOf((mvs as { root?: unknown }).root))];
    return { bytes: await zipStory(mvs, {}), mvs, names: [], remote };
  }
  const data = await target.structureData();
  const name = archiveName(source.name, `structure.${source.format}`);
  const files: Record<string, Uint8Array> = { [name]: source.bytes };
  let coordinates: { url: string; format: CoordinatesFormat } | null = null;
  if (source.coordinates) {
    let cname = archiveName(source.coordinates.name, `coordinates.${source.coordinates.format}`);
    if (cname === name) {
      cname = `coordinates.${source.coordinates.format}`;
    }
    files[cname] = source.coordinates.bytes;
    coordinates = { url: cname, format: source.coordinates.format as CoordinatesFormat };
  }
  const mvs = viewToMvs(view, {
    url: name,
    format: source.format as StructureFormat,
    models: data.composition.shownModels,
    background: LIGHT_BACKGROUND,
    coordinates,
    frames: data.composition.trajectory !== null && data.coordinates === null
  });
  return { bytes: await zipStory(mvs, files), mvs, names: Object.keys(files), remote: [] };
}
