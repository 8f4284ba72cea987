/**
 * A molecule's depiction in the App (`_meta["molspace/depiction"]`, src/contract/app.ts): the
 * picture the server drew (RDKit, SVG), shown where Ketcher cannot run, with a located note that
 * says why and how to get the editor. The SVG is shown as an image (`<img>`): nothing in it runs.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';

import { APP_DEPICTION_META, AppDepiction } from '../contract/app';
import { errorResultText, MolspaceError } from '../contract/errors';
import { appMetaOf } from './appMeta';

/** Why the App shows a picture, not an editor: a located note (not an error: the picture is the answer). */
export const NO_EDITOR_NOTE = new MolspaceError(
  'UNSUPPORTED_FORMAT',
  "Ketcher's engine (Indigo) is WebAssembly, which MCP Apps may not run under the hosts' default Content Security Policy: this is the server's picture of the molecule, not an editor.",
  'App',
  'Open JupyterLab and call ketcher_open again to edit it (the page runs Ketcher).',
  {}
);

/**
 * The depiction of `result`, or null when it carries none.
 *
 * @throws MolspaceError `INVALID_INPUT` at `_meta/molspace~1depiction/...` when it has the wrong shape.
 */
export function appDepictionOf(result: CallToolResult): AppDepiction | null {
  return appMetaOf(result, APP_DEPICTION_META, AppDepiction, 'depiction', 'ketcher_open');
}

/** Show `depiction` in `box` (emptied first): the picture, its formula and SMILES, and the note. */
export function showDepiction(box: HTMLElement, depiction: AppDepiction): void {
  box.replaceChildren();
  const img = document.createElement('img');
  img.alt = `${depiction.title}: ${depiction.formula}`;
  img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(depiction.svg)}`;
  img.className = 'molspace-app-depiction';
  const caption = document.createElement('div');
  caption.className = 'molspace-app-caption';
  caption.textContent = `${depiction.title}: ${depiction.formula} (${depiction.atoms} atoms), ${depiction.smiles}`;
  const note = document.createElement('div');
  note.id = 'molspace-app-note';
  note.textContent = errorResultText(NO_EDITOR_NOTE.toJSON()).split('\n')[0];
  box.append(img, caption, note);
}
