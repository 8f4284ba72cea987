/**
 * The "floor" page of bench/first_frame.mjs: molspace's own Mol* wrapper
 * (src/viewer/molstarStoryViewer.ts) and Story parser (src/story/storySource.ts),
 * bundled with esbuild against the same molstar in /work/main/node_modules,
 * with no JupyterLab, kernel or widget around them.
 *
 * `firstFrame()` does what the Story view does for a new widget: fetch the
 * .mvsx, parse and validate it, create the viewer, load the Story and show
 * step 0 (resolves once Mol* drew a frame), then waits one
 * requestAnimationFrame. On page load it runs once and stores the time since
 * navigation start in `window.__floor`.
 */
import { MolstarStoryViewer } from '../../src/viewer/molstarStoryViewer';
import { parseStory } from '../../src/story/storySource';

declare global {
  interface Window {
    __floor: { ms?: number; error?: string; fetchMs?: number; parseMs?: number; createMs?: number; loadMs?: number };
    firstFrame: () => Promise<Record<string, number>>;
  }
}

let viewer: MolstarStoryViewer | null = null;

async function firstFrame(): Promise<Record<string, number>> {
  const t0 = performance.now();
  viewer?.dispose();
  document.getElementById('host')!.replaceChildren();
  const bytes = new Uint8Array(await (await fetch('1cbs-story.mvsx', { cache: 'no-store' })).arrayBuffer());
  const t1 = performance.now();
  const story = await parseStory({ mvsx: bytes });
  const t2 = performance.now();
  const host = document.createElement('div');
  host.style.cssText = 'position:relative;width:100%;height:100%';
  document.getElementById('host')!.append(host);
  viewer = await MolstarStoryViewer.create(host, { dark: false });
  const t3 = performance.now();
  await viewer.load(story, 0);
  await new Promise(r => requestAnimationFrame(r));
  const t4 = performance.now();
  return { start: t0, end: t4, fetchMs: t1 - t0, parseMs: t2 - t1, createMs: t3 - t2, loadMs: t4 - t3 };
}

window.firstFrame = firstFrame;
window.__floor = {};
firstFrame().then(
  r => (window.__floor = { ms: r.end, fetchMs: r.fetchMs, parseMs: r.parseMs, createMs: r.createMs, loadMs: r.loadMs }),
  e => (window.__floor = { error: String(e?.stack ?? e) })
);
