/**
 * Story files under the Jupyter root, read and written through JupyterLab's
 * contents manager in the page, so Jupyter's own root confinement and
 * authentication apply (docs/architecture.md, "Story authoring"). Paths are
 * refused before any request when they could leave the root.
 */
import type { Contents } from '@jupyterlab/services';

import { MolspaceError } from '../contract/errors';
import { defaultResourcePolicy, type ResourcePolicy } from '../story/resourcePolicy';

let contents: Contents.IManager | null = null;
let policy: ResourcePolicy | null = null;

/** Check Stories against this page's resource policy (the `resourceHosts` setting). */
export function useResourcePolicy(p: ResourcePolicy): void {
  policy = p;
}

/** The page's resource policy, else the default one. */
export function storyResourcePolicy(): ResourcePolicy {
  return policy ?? defaultResourcePolicy();
}

/** Use this contents manager (the app's `serviceManager.contents`; tests pass their own). */
export function useContents(manager: Contents.IManager): void {
  contents = manager;
}

/** The contents manager in use: the app's, else a default one on this page's server settings. */
async function manager(): Promise<Contents.IManager> {
  if (contents === null) {
    const { ContentsManager } = await import('@jupyterlab/services');
    contents = new ContentsManager();
  }
  return contents;
}

/**
 * Check a path under the Jupyter root.
 *
 * @param extensions - allowed file name endings, e.g. `['.mvsj']`.
 * @returns the path without a leading `./`.
 * @throws MolspaceError `FORBIDDEN` at `/path` (absolute, `~`, `..`, a URL, a
 *   backslash), `UNSUPPORTED_FORMAT` at `/path` (another extension).
 */
export function checkStoryPath(path: string, extensions: readonly string[]): string {
  const p = path.replace(/^(\.\/)+/, '');
  const forbidden = (why: string) =>
    new MolspaceError(
      'FORBIDDEN',
      `The path "${path}" ${why}.`,
      '/path',
      'Give a path relative to the Jupyter root without "..", e.g. "stories/my-story.mvsj".',
      { path }
    );
  if (p.startsWith('/') || p.startsWith('~') || /^[a-zA-Z]:/.test(p)) {
    throw forbidden('is absolute; only paths relative to the Jupyter root are allowed');
  }
  if (p.includes('\\') || /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(p)) {
    throw forbidden('is not a plain relative path');
  }
  if (p.split('/').some(s => s === '..')) {
    throw forbidden('leaves the Jupyter root ("..")');
  }
  if (!extensions.some(e => p.toLowerCase().endsWith(e))) {
    throw new MolspaceError(
      'UNSUPPORTED_FORMAT',
      `The path "${path}" does not end with ${extensions.join(' or ')}.`,
      '/path',
      `Name the file with ${extensions.join(' or ')}.`,
      { path, extensions: [...extensions] }
    );
  }
  return p;
}

/** HTTP status of a contents request failure (`ServerConnection.ResponseError`), if any. */
function statusOf(e: unknown): number | null {
  const status = (e as { response?: { status?: unknown } })?.response?.status;
  return typeof status === 'number' ? status : null;
}

function contentsError(e: unknown, path: string, action: string): MolspaceError {
  const status = statusOf(e);
  if (status === 404) {
    return new MolspaceError('NOT_FOUND', `No file "${path}" under the Jupyter root.`, '/path', 'Check the path (relative to the Jupyter root).', { path });
  }
  if (status === 403) {
    return new MolspaceError('FORBIDDEN', `Jupyter refused to ${action} "${path}".`, '/path', 'Use a path under the Jupyter root that you may write.', { path, status });
  }
  return MolspaceError.from(e, `${action} ${path}`);
}

/** Read a Story file: text for `.mvsj`, bytes for `.mvsx`. */
export async function readStoryFile(path: string): Promise<{ mvsj: string } | { mvsx: Uint8Array }> {
  const m = await manager();
  const binary = path.toLowerCase().endsWith('.mvsx');
  let model: Contents.IModel;
  try {
    model = await m.get(path, { type: 'file', format: binary ? 'base64' : 'text', content: true });
  } catch (e) {
    throw contentsError(e, path, 'read');
  }
  const content = String(model.content ?? '');
  if (!binary) {
    return { mvsj: content };
  }
  const raw = atob(content.replace(/\s+/g, ''));
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) {
    bytes[i] = raw.charCodeAt(i);
  }
  return { mvsx: bytes };
}

/** Whether a file or directory exists at `path`. */
async function exists(m: Contents.IManager, path: string): Promise<boolean> {
  try {
    await m.get(path, { content: false });
    return true;
  } catch (e) {
    if (statusOf(e) === 404) {
      return false;
    }
    throw contentsError(e, path, 'read');
  }
}

/**
 * Write a Story file, creating missing parent directories.
 *
 * @returns whether an existing file was replaced.
 * @throws MolspaceError `FORBIDDEN` at `/overwrite` when the file exists and
 *   `overwrite` is false; `FORBIDDEN` when Jupyter refuses.
 */
export async function writeStoryFile(path: string, text: string, overwrite: boolean): Promise<boolean> {
  const m = await manager();
  const replaced = await exists(m, path);
  if (replaced && !overwrite) {
    throw new MolspaceError(
      'FORBIDDEN',
      `"${path}" exists; story_create does not overwrite it.`,
      '/overwrite',
      'Pass overwrite: true to replace it, or choose another path.',
      { path }
    );
  }
  const parts = path.split('/').slice(0, -1);
  for (let i = 1; i <= parts.length; i++) {
    const dir = parts.slice(0, i).join('/');
    if (!(await exists(m, dir))) {
      try {
        await m.save(dir, { type: 'directory' });
      } catch (e) {
        throw contentsError(e, dir, 'create');
      }
    }
  }
  try {
    await m.save(path, { type: 'file', format: 'text', content: text });
  } catch (e) {
    throw contentsError(e, path, 'write');
  }
  return replaced;
}

/** Whether a file or directory exists at `path` under the Jupyter root (used by Ketcher saves too). */
export async function fileExists(path: string): Promise<boolean> {
  return exists(await manager(), path);
}
