/**
 * What the App shows of its own state: `data-molspace-app` on its document
 * (`loading`, `drawn` or `error`, which tests and hosts can read) and a located
 * error as readable text in `#molspace-app-error`.
 */
import { MolspaceError, errorResultText, type LocatedError } from '../contract/errors';
import { takeHandoff, type AppHandoff } from './appHandoff';

export type AppState = 'loading' | 'drawn' | 'error';

/** Mark the App's state on its document. */
export function markState(state: AppState, note = ''): void {
  document.documentElement.dataset.molspaceApp = state;
  const status = document.getElementById('molspace-app-status');
  if (status) {
    status.textContent = note;
  }
  if (state !== 'error') {
    const box = document.getElementById('molspace-app-error');
    if (box) {
      box.hidden = true;
      box.textContent = '';
    }
  }
}

/** Show `error` in the App: its one-line summary (`CODE at where: message. Fix: fix`). */
export function showError(error: LocatedError): string {
  const text = errorResultText(error).split('\n')[0];
  markState('error');
  const box = document.getElementById('molspace-app-error');
  if (box) {
    box.hidden = false;
    box.textContent = text;
  }
  return text;
}

/**
 * Start an App's script: the handoff its loader left and the document's `#molspace-app-root`,
 * or null after showing a located INTERNAL error (the script ran without its loader).
 *
 * @param app - The App's name in the error (`Viewer`, `Panel`).
 * @param resource - The `ui://` resource that opens it, named in the fix.
 */
export function startApp(app: string, resource: string): { handoff: AppHandoff; root: HTMLElement } | null {
  const handoff = takeHandoff();
  const root = document.getElementById('molspace-app-root');
  if (handoff && root) {
    return { handoff, root };
  }
  showError(
    new MolspaceError(
      'INTERNAL',
      `The ${app} App started without its loader.`,
      'App',
      `Open it through its ${resource} resource.`,
      {}
    ).toJSON()
  );
  return null;
}
