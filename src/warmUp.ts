/**
 * Idle-time warm-up after JupyterLab has restored (issue 19 item 7): the
 * first `open` / `ketcher_open` of a page paid for loading code the later
 * ones find loaded. Off the start path and in idle time, this
 *
 * - loads (downloads, parses, evaluates) the page's lazily loaded chunks an
 *   agent's first calls need: the docked Viewer and editor, Mol*'s structure
 *   readers and viewer, the `act` planner, the Story file helpers;
 * - prefetches the Ketcher frame's scripts and Indigo's WASM into the HTTP
 *   cache (`<link rel="prefetch">`, the browser's lowest priority; Jupyter
 *   serves extension assets as immutable, so once per browser, not per page).
 *   Nothing of Ketcher runs until an editor is shown.
 *
 * One chunk at a time, each in an idle period, so the person's typing and
 * JupyterLab's own work go first. `document.body.dataset.molspaceWarm` is
 * `"done"` when it has finished, `"off"` when `localStorage["molspace.warmUp"]`
 * is `"off"` (the benchmark's control, bench/first_call.mjs).
 */
import { ketcherFrameUrl } from './ketcher/ketcherFrameHost';

/** The chunks, in the order first calls need them. */
const CHUNKS: (() => Promise<unknown>)[] = [
  () => import('./viewer/dockedViewer'),
  () => import('./viewer/structureData'),
  () => import('./viewer/viewerActions'),
  () => import('./viewer/molstarStructureViewer'),
  () => import('./ketcher/dockedKetcher'),
  () => import('./authoring/storyFiles')
];

function idle(): Promise<void> {
  return new Promise(resolve => {
    if (typeof window.requestIdleCallback === 'function') {
      window.requestIdleCallback(() => resolve(), { timeout: 5000 });
    } else {
      setTimeout(resolve, 200);
    }
  });
}

/** The Ketcher frame's assets (`static/ketcher/warm.json`, written by scripts/build-ketcher-frame.mjs). */
async function ketcherAssets(): Promise<string[]> {
  const frame = new URL(ketcherFrameUrl());
  const list = new URL('warm.json', frame);
  list.search = frame.search;
  const response = await fetch(list.href, { credentials: 'same-origin' });
  if (!response.ok) {
    return [];
  }
  const names: unknown = await response.json();
  return Array.isArray(names) ? names.filter((n): n is string => typeof n === 'string').map(n => new URL(n, frame).href) : [];
}

function prefetch(href: string): void {
  const link = document.createElement('link');
  link.rel = 'prefetch';
  link.href = href;
  document.head.append(link);
}

/** Run the warm-up (never throws: a failure only means the first call loads what it needs). */
export async function warmUp(): Promise<void> {
  if (window.localStorage?.getItem('molspace.warmUp') === 'off') {
    document.body.dataset.molspaceWarm = 'off';
    return;
  }
  for (const chunk of CHUNKS) {
    await idle();
    try {
      await chunk();
    } catch (e) {
      console.debug('molspace: warm-up chunk failed (the first call loads it)', e);
    }
  }
  try {
    await idle();
    for (const href of await ketcherAssets()) {
      prefetch(href);
    }
  } catch (e) {
    console.debug('molspace: Ketcher prefetch failed (the first editor loads it)', e);
  }
  document.body.dataset.molspaceWarm = 'done';
}
