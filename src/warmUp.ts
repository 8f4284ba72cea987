/**
 * Idle-time warm-up after JupyterLab has restored (issue 19 item 7): the
 * first `open` / `ketcher_open` of a page paid for loading code the later
 * ones find loaded. Off the start path and in idle time, this
 *
 * loads (downloads, parses, evaluates) molspace's own lazily loaded chunks an
 * agent's first calls need: the docked Viewer and editor openers and the
 * Story file helpers. Mol*, Ketcher's frame and Indigo still load only when a
 * view needs them (no Mol* chunk and nothing under `static/ketcher/` without
 * a widget: a prefetch of them was measured and gave no clear gain,
 * docs/benchmarks.md, "First calls").
 *
 * One chunk at a time, each in an idle period, so the person's typing and
 * JupyterLab's own work go first. `document.body.dataset.molspaceWarm` is
 * `"done"` when it has finished, `"off"` when `localStorage["molspace.warmUp"]`
 * is `"off"` (the benchmark's control, bench/first_call.mjs).
 */
/** The chunks, in the order first calls need them. */
const CHUNKS: (() => Promise<unknown>)[] = [
  () => import('./viewer/dockedViewer'),
  () => import('./ketcher/dockedKetcher'),
  () => import('./resources/workspaceFiles')
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
  document.body.dataset.molspaceWarm = 'done';
}
