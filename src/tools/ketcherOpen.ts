/**
 * `ketcher_open`: a Ketcher editor docked in the main area, optionally with
 * a structure (inline `value`, or a molecule file under the Jupyter root read
 * through JupyterLab's contents API); returns once the editor and its engine
 * are ready.
 */
import { KETCHER_EXTENSIONS, KETCHER_OPEN_TOOL, LIMITS, MolspaceError } from '../contract';
import type { KetcherFormat } from '../contract';
import { checkStoryPath, type WorkspaceFiles } from '../resources/workspaceFiles';
import { ketcherOpener } from '../ketcher/ketcherOpener';
import { readyDeadline, whenReady } from '../dispatcher/whenReady';
import { checkPlacement } from '../dockPlacement';
import { defineTool } from '../dispatcher/pageTool';

/** `"a.mol"` → `".mol"` (lower case), `""` when the file name has no extension. */
function extensionOf(path: string): string {
  const base = path.split('/').pop() ?? path;
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot).toLowerCase() : '';
}

const ALLOWED = Object.keys(KETCHER_EXTENSIONS).join(' ');

/** The `TOO_LARGE` of a structure over `LIMITS.ketcherInlineBytes`, at `where`. */
function tooLarge(bytes: number, where: string, what: string): MolspaceError {
  return new MolspaceError(
    'TOO_LARGE',
    `${what} is ${bytes} bytes; the limit is ${LIMITS.ketcherInlineBytes} (ketcherInlineBytes).`,
    where,
    'Send a smaller structure (one molecule or reaction).',
    { size: bytes, limit: LIMITS.ketcherInlineBytes, unit: 'bytes' }
  );
}

/**
 * The text and format of a molecule file under the Jupyter root.
 *
 * @param given - the `path` argument.
 * @param format - the `format` argument, if any (else from the extension).
 * @throws MolspaceError at `/path`: `FORBIDDEN` (absolute, `..`, a URL),
 *   `UNSUPPORTED_FORMAT` (another extension, or not UTF-8 text), `NOT_FOUND`
 *   (no such file, or a directory), `TOO_LARGE` (over
 *   `LIMITS.ketcherInlineBytes`, checked before reading). Each names the path
 *   and the allowed extensions.
 */
export async function readMoleculeFile(
  files: WorkspaceFiles,
  given: string,
  format: KetcherFormat | undefined
): Promise<{ value: string; format: KetcherFormat }> {
  const path = checkStoryPath(given, []);
  const ext = extensionOf(path);
  const byExtension = KETCHER_EXTENSIONS[ext];
  if (!byExtension) {
    throw new MolspaceError(
      'UNSUPPORTED_FORMAT',
      ext
        ? `The extension ${ext} of "${path}" is not a molecule file the editor reads.`
        : `"${path}" has no file extension to tell its format from.`,
      '/path',
      `Open a file ending in one of: ${ALLOWED}; or pass the structure as value.`,
      { path, extension: ext || null, extensions: Object.keys(KETCHER_EXTENSIONS) }
    );
  }
  let size: number;
  try {
    size = await files.fileSize(path, '/path');
  } catch (e) {
    const err = MolspaceError.from(e, `ketcher_open ${path}`);
    if (err.code !== 'NOT_FOUND') {
      throw err;
    }
    throw new MolspaceError(
      'NOT_FOUND',
      err.message,
      '/path',
      `Pass the path of a molecule file under the Jupyter root (relative to it), ending in one of: ${ALLOWED}.`,
      {
        ...err.details,
        path,
        extensions: Object.keys(KETCHER_EXTENSIONS)
      }
    );
  }
  if (size > LIMITS.ketcherInlineBytes) {
    throw tooLarge(size, '/path', `"${path}"`);
  }
  const bytes = await files.readFileBytes(path, '/path');
  let value: string;
  try {
    value = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new MolspaceError(
      'UNSUPPORTED_FORMAT',
      `"${path}" is not UTF-8 text.`,
      '/path',
      `Open a text molecule file ending in one of: ${ALLOWED}.`,
      { path }
    );
  }
  return { value, format: format ?? byExtension };
}

export const ketcherOpen = defineTool(KETCHER_OPEN_TOOL, async ({ args, openers, files, deadline }) => {
  if (args.value !== undefined && args.path !== undefined) {
    throw new MolspaceError(
      'INVALID_INPUT',
      'ketcher_open takes value or path, not both.',
      '/path',
      'Pass value (inline structure) or path (a file under the Jupyter root), not both.',
      {
        given: ['value', 'path']
      }
    );
  }
  let value = args.value ?? '';
  let format: KetcherFormat | null = args.format ?? null;
  if (args.path !== undefined) {
    const file = await readMoleculeFile(files, args.path, args.format);
    value = file.value;
    format = file.format;
  }
  const bytes = new TextEncoder().encode(value).length;
  if (bytes > LIMITS.ketcherInlineBytes) {
    throw tooLarge(bytes, '/value', 'The structure');
  }
  const title = args.title ?? (args.path !== undefined ? (args.path.split('/').pop() ?? args.path) : 'Ketcher');
  checkPlacement(args.dock);
  const editor = await ketcherOpener(openers).open({ value, format, title, placement: args.dock });
  await whenReady(editor, readyDeadline(deadline)); // ready with the structure loaded, or its located error
  const state = editor.state();
  const from = args.path !== undefined ? ` from ${args.path}` : '';
  return { output: { editor: state }, text: `Opened Ketcher editor ${editor.targetId}${from}: ${editor.describe()}.` };
});
