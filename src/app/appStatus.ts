/**
 * What the App shows of its own state: `data-molspace-app` on its document
 * (`loading`, `drawn` or `error`, which tests and hosts can read) and a located
 * error as readable text in `#molspace-app-error`.
 */
import { errorResultText, type LocatedError } from '../contract/errors';

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
