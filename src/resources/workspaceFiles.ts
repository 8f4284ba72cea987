/**
 * Files under the Jupyter root (Stories, Molfiles, panel exports), read and
 * written through JupyterLab's contents manager in the page, so Jupyter's own root confinement and
 * authentication apply (docs/architecture.md, "Story authoring"). Paths are
 * refused before any request when they could leave the root.
 */
import type { Contents } from '@jupyterlab/services';

import { MolspaceError } from '../contract/errors';

/**
 * Check a path under the Jupyter root.
 *
 * @param extensions - allowed file name endings, e.g. `['.mvsj']`; empty: any.
 * @param where - the argument the path came from (default `/path`).
 * @returns the path without a leading `./`.
 * @throws MolspaceError `FORBIDDEN` at `where` (absolute, `~`, `..`, a URL, a
 *   backslash), `UNSUPPORTED_FORMAT` at `where` (another extension).
 */
export function checkStoryPath(path: string, extensions: readonly string[], where = '/path'): string {
  const p = path.replace(/^(\.\/)+/, '');
  const forbidden = (why: string) =>
    new MolspaceError(
      'FORBIDDEN',
      `The path "${path}" ${why}.`,
      where,
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
  if (extensions.length > 0 && !extensions.some(e => p.toLowerCase().endsWith(e))) {
    throw new MolspaceError(
      'UNSUPPORTED_FORMAT',
      `The path "${path}" does not end with ${extensions.join(' or ')}.`,
      where,
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
    return new MolspaceError(
      'NOT_FOUND',
      `No file "${path}" under the Jupyter root.`,
      '/path',
      'Check the path (relative to the Jupyter root).',
      { path }
    );
  }
  if (status === 403) {
    return new MolspaceError(
      'FORBIDDEN',
      `Jupyter refused to ${action} "${path}".`,
      '/path',
      'Use a path under the Jupyter root that you may write.',
      { path, status }
    );
  }
  return MolspaceError.from(e, `${action} ${path}`);
}

/** The bytes of a base64 text (contents API `format: 'base64'`). */
function fromBase64(content: string): Uint8Array {
  const raw = atob(content.replace(/\s+/g, ''));
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) {
    bytes[i] = raw.charCodeAt(i);
  }
  return bytes;
}

/** Base64 of bytes, in chunks (a spread of a large array would overflow the call stack). */
function toBase64(bytes: Uint8Array): string {
  let raw = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    raw += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(raw);
}

/** The same error located at another argument. */
function relocate(e: MolspaceError, where: string): MolspaceError {
  return new MolspaceError(e.code, e.message, where, e.fix, e.details);
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
 * The files of one page, through one contents manager: the app's
 * (`serviceManager.contents`, set by the `molspace:authoring` plugin), a
 * test's, or else a default one on this page's server settings. Held by the
 * page (`IMolspacePage.files`); tools reach it from their call (`files`).
 */
export class WorkspaceFiles {
  private _contents: Contents.IManager | null;

  constructor(contents: Contents.IManager | null = null) {
    this._contents = contents;
  }

  /** Use this contents manager from now on. */
  use(contents: Contents.IManager): void {
    this._contents = contents;
  }

  private async _manager(): Promise<Contents.IManager> {
    if (this._contents === null) {
      const { ContentsManager } = await import('@jupyterlab/services');
      this._contents = new ContentsManager();
    }
    return this._contents;
  }

  /** Read a Story file: text for `.mvsj`, bytes for `.mvsx`. */
  async readStoryFile(path: string): Promise<{ mvsj: string } | { mvsx: Uint8Array }> {
    const m = await this._manager();
    const binary = path.toLowerCase().endsWith('.mvsx');
    let model: Contents.IModel;
    try {
      model = await m.get(path, { type: 'file', format: binary ? 'base64' : 'text', content: true });
    } catch (e) {
      throw contentsError(e, path, 'read');
    }
    const content = String(model.content ?? '');
    return binary ? { mvsx: fromBase64(content) } : { mvsj: content };
  }

  /**
   * The size of a file under the Jupyter root, without reading it.
   *
   * @param where - the argument it came from, e.g. `/assets/0`.
   * @throws MolspaceError `NOT_FOUND` at `where` (no such file, or a directory),
   *   `FORBIDDEN` at `where` (Jupyter refused).
   */
  async fileSize(path: string, where: string): Promise<number> {
    const m = await this._manager();
    let model: Contents.IModel;
    try {
      model = await m.get(path, { content: false });
    } catch (e) {
      throw relocate(contentsError(e, path, 'read'), where);
    }
    if (model.type !== 'file') {
      throw new MolspaceError(
        'NOT_FOUND',
        `"${path}" is a ${model.type}, not a file.`,
        where,
        'Give the path of a file, e.g. "data/1hpv.cif".',
        { path }
      );
    }
    return typeof model.size === 'number' ? model.size : 0;
  }

  /** The bytes of a file under the Jupyter root (errors as {@link fileSize}). */
  async readFileBytes(path: string, where: string): Promise<Uint8Array> {
    const m = await this._manager();
    try {
      const model = await m.get(path, { type: 'file', format: 'base64', content: true });
      return fromBase64(String(model.content ?? ''));
    } catch (e) {
      throw relocate(contentsError(e, path, 'read'), where);
    }
  }

  /**
   * Write a Story file (text for `.mvsj`, bytes for `.mvsx`), creating missing parent directories.
   *
   * @returns whether an existing file was replaced.
   * @throws MolspaceError `FORBIDDEN` at `/overwrite` when the file exists and
   *   `overwrite` is false; `FORBIDDEN` when Jupyter refuses.
   */
  async writeStoryFile(path: string, content: string | Uint8Array, overwrite: boolean): Promise<boolean> {
    const m = await this._manager();
    const replaced = await this.checkOverwrite(path, overwrite);
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
      await m.save(
        path,
        typeof content === 'string'
          ? { type: 'file', format: 'text', content }
          : { type: 'file', format: 'base64', content: toBase64(content) }
      );
    } catch (e) {
      throw contentsError(e, path, 'write');
    }
    return replaced;
  }

  /** Whether a file or directory exists at `path` under the Jupyter root (used by Ketcher saves too). */
  async fileExists(path: string): Promise<boolean> {
    return exists(await this._manager(), path);
  }

  /**
   * Refuse to replace an existing file unless `overwrite` (checked before any
   * asset is read, and again when writing).
   *
   * @returns whether a file exists at `path`.
   * @throws MolspaceError `FORBIDDEN` at `/overwrite`.
   */
  async checkOverwrite(path: string, overwrite: boolean): Promise<boolean> {
    const m = await this._manager();
    const present = await exists(m, path);
    if (present && !overwrite) {
      throw new MolspaceError(
        'FORBIDDEN',
        `"${path}" exists; story_create does not overwrite it.`,
        '/overwrite',
        'Pass overwrite: true to replace it, or choose another path.',
        { path }
      );
    }
    return present;
  }
}
