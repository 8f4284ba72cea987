/**
 * `.mvsx` archives for `story_create` (docs/architecture.md, "Story
 * authoring"): assets named by paths under the Jupyter root are read through
 * JupyterLab's contents manager, stored as `assets/<name>` beside
 * `index.mvsj`, and every `url`/`uri` param that names one is rewritten to
 * that archive path. The zip is written by Mol*'s own zip writer (the one it
 * saves `.molx` sessions with) and read back by the same validation that
 * plays it.
 */

import { MolspaceError } from '../contract/errors';
import { LIMITS } from '../contract/limits';
import { MVSX_MAIN_FILE } from '../molstar/storySource';
import { checkStoryPath, type WorkspaceFiles } from '../resources/workspaceFiles';

/** Folder of the archive that holds the assets (Mol*'s examples use `assets/`). */
export const ASSET_FOLDER = 'assets/';

/** An asset as `story_create` takes it: a path, or a path with an archive name. */
export type AssetArg = string | { path: string; name: string };

/** One planned asset: where it comes from, where it goes in the archive, which argument named it. */
export interface PlannedAsset {
  path: string;
  entry: string;
  where: string;
}

/** Archive file names: a plain file name, no folders. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * Check the asset arguments and choose each one's archive entry.
 *
 * @throws MolspaceError `FORBIDDEN` at `/assets/<i>` (a path that leaves the
 *   root), `INVALID_INPUT` at `/assets/<i>/name` (not a plain file name) or at
 *   `/assets/<i>` (two assets with one archive name).
 */
export function planAssets(assets: readonly AssetArg[]): PlannedAsset[] {
  const planned: PlannedAsset[] = [];
  const byEntry = new Map<string, number>();
  assets.forEach((asset, i) => {
    const where = `/assets/${i}`;
    const given = typeof asset === 'string' ? asset : asset.path;
    const path = checkStoryPath(given, [], typeof asset === 'string' ? where : `${where}/path`);
    const name = typeof asset === 'string' ? (path.split('/').pop() ?? path) : asset.name;
    if (!NAME.test(name) || name === MVSX_MAIN_FILE) {
      throw new MolspaceError(
        'INVALID_INPUT',
        `"${name}" cannot name an archive file: use letters, digits, ".", "_" and "-", no folders${name === MVSX_MAIN_FILE ? `, not ${MVSX_MAIN_FILE}` : ''}.`,
        typeof asset === 'string' ? where : `${where}/name`,
        'Give the asset a plain file name, e.g. {"path": "' + path + '", "name": "receptor.pdb"}.',
        { name }
      );
    }
    const entry = ASSET_FOLDER + name;
    const first = byEntry.get(entry.toLowerCase());
    if (first !== undefined) {
      const same = planned[first].path === path;
      throw new MolspaceError(
        'INVALID_INPUT',
        same
          ? `"${path}" is listed twice (assets ${first} and ${i}).`
          : `Assets ${first} ("${planned[first].path}") and ${i} ("${path}") would both be stored as ${entry}.`,
        where,
        same ? `Remove asset ${i}.` : `Give one of them another archive name: {"path": "${path}", "name": "<other name>"}.`,
        { entry, assets: [first, i] }
      );
    }
    byEntry.set(entry.toLowerCase(), i);
    planned.push({ path, entry, where });
  });
  return planned;
}

/** `./a/b` → `a/b`. */
function plain(ref: string): string {
  return ref.trim().replace(/^(\.\/)+/, '');
}

/**
 * A copy of `document` whose `url`/`uri` params that name an asset (its path
 * under the root, or its archive entry, with or without `./`) hold the
 * archive entry; and how many references each asset got.
 */
export function rewriteReferences(
  document: Record<string, unknown>,
  assets: readonly PlannedAsset[]
): { document: Record<string, unknown>; uses: number[] } {
  const copy = JSON.parse(JSON.stringify(document)) as Record<string, unknown>;
  const uses = assets.map(() => 0);
  const lookup = new Map<string, number>();
  assets.forEach((a, i) => {
    lookup.set(a.path, i);
    lookup.set(a.entry, i);
  });
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) {
      v.forEach(walk);
      return;
    }
    if (typeof v !== 'object' || v === null) {
      return;
    }
    const o = v as Record<string, unknown>;
    const params = o.params;
    if (typeof params === 'object' && params !== null && !Array.isArray(params)) {
      const p = params as Record<string, unknown>;
      for (const name of ['url', 'uri']) {
        const ref = p[name];
        const i = typeof ref === 'string' ? lookup.get(plain(ref)) : undefined;
        if (i !== undefined) {
          p[name] = assets[i].entry;
          uses[i]++;
        }
      }
    }
    for (const [k, child] of Object.entries(o)) {
      if (k !== 'params') {
        walk(child);
      }
    }
  };
  walk(copy);
  return { document: copy, uses };
}

/**
 * Read the assets through the contents manager, sizes first: nothing is read
 * when one is missing or too large.
 *
 * @throws MolspaceError `NOT_FOUND` / `FORBIDDEN` at `/assets/<i>`, `TOO_LARGE`
 *   at `/assets/<i>` (over `LIMITS.storySourceBytes`) or at `/assets` (together
 *   over it: the archive could not be read back).
 */
export async function readAssets(
  workspace: WorkspaceFiles,
  assets: readonly PlannedAsset[]
): Promise<{ files: Record<string, Uint8Array>; sizes: number[] }> {
  const limit = LIMITS.storySourceBytes;
  const mib = `${limit} bytes (${limit / (1024 * 1024)} MiB, the largest Story source)`;
  const sizes: number[] = [];
  for (const a of assets) {
    const size = await workspace.fileSize(a.path, a.where);
    if (size > limit) {
      throw new MolspaceError(
        'TOO_LARGE',
        `Asset "${a.path}" is ${size} bytes; the limit is ${mib}.`,
        a.where,
        'Reference a file this large by https URL instead of packing it, or pack a smaller file (e.g. the chains you show).',
        {
          path: a.path,
          bytes: size,
          limit
        }
      );
    }
    sizes.push(size);
  }
  const total = sizes.reduce((x, y) => x + y, 0);
  if (total > limit) {
    throw new MolspaceError(
      'TOO_LARGE',
      `The assets are ${total} bytes together; the limit of the unpacked archive is ${mib}.`,
      '/assets',
      'Pack fewer or smaller files; reference the rest by https URL.',
      {
        bytes: total,
        limit
      }
    );
  }
  const files: Record<string, Uint8Array> = {};
  for (const a of assets) {
    files[a.entry] = await workspace.readFileBytes(a.path, a.where);
  }
  return { files, sizes };
}

/** A zip of `index.mvsj` and the asset files (written beside the reader, `../molstar/mvsxArchive.ts`). */
export { zipStory } from '../molstar/mvsxArchive';
