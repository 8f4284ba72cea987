/**
 * The "floor" page of bench/first_frame.mjs: the same Mol* work the Story
 * widget does for a new Story, in a plain page without JupyterLab, kernel or
 * widget. molspace's own Story parser (src/molstar/storySource.ts) and Mol*
 * wrapper (src/story/molstarStoryViewer.ts) are bundled by esbuild against
 * the same molstar, as production code (minified, NODE_ENV=production) like
 * the labextension `scripts/install.sh` installs, and loaded the way the
 * widget loads them: this small entry is in the page, the two modules are
 * lazy chunks (`import()`), fetched and evaluated inside the timed span.
 *
 * `firstFrame()` does what `StoryModel.parsed()` and `StoryView.createViewer()`
 * do: import the parser chunk, fetch the .mvsx (the widget gets the bytes
 * over the comm instead), parse and validate it, import the viewer chunk,
 * create the viewer in a host of the widget's canvas size, load the Story and
 * show step 0 (`viewer.load` resolves once Mol* drew a frame of the committed
 * scene; the widget sets `data-molspace-ready` right then).
 */
declare global {
  interface Window {
    firstFrame: () => Promise<Record<string, number>>;
    __floorTimeline: { drawn: boolean; draws: { t: number; queue: number }[] };
  }
}

type Viewer = import('../../src/story/molstarStoryViewer').MolstarStoryViewer;
let viewer: Viewer | null = null;

async function firstFrame(): Promise<Record<string, number>> {
  const t0 = performance.now();
  viewer?.dispose();
  viewer = null;
  const host0 = document.getElementById('host')!;
  host0.replaceChildren();
  const { parseStory } = await import('../../src/molstar/storySource');
  const t1 = performance.now();
  const bytes = new Uint8Array(await (await fetch('1cbs-story.mvsx', { cache: 'no-store' })).arrayBuffer());
  const t2 = performance.now();
  const story = await parseStory({ mvsx: bytes });
  const t3 = performance.now();
  const { MolstarStoryViewer } = await import('../../src/story/molstarStoryViewer');
  const t4 = performance.now();
  const host = document.createElement('div');
  host.style.cssText = 'position:relative;width:100%;height:100%';
  host0.append(host);
  viewer = await MolstarStoryViewer.create(host, { dark: false });
  const t5 = performance.now();
  // Timeline of Mol*'s draws while loading (diagnostics: when geometry first
  // appears, when the commit queue empties, when loadMVS returns).
  const plugin = (viewer as unknown as { plugin: import('molstar/lib/mol-plugin/context').PluginContext }).plugin;
  const c3 = plugin.canvas3d!;
  const draws: { t: number; queue: number }[] = [];
  const sub = c3.didDraw.subscribe(() => draws.push({ t: performance.now() - t0, queue: c3.commitQueueSize.value }));
  const drawn = await viewer.load(story, 0);
  sub.unsubscribe();
  const t6 = performance.now();
  window.__floorTimeline = { drawn, draws: draws.slice(0, 200) };
  return {
    ready: t6 - t0,
    importParser: t1 - t0,
    fetch: t2 - t1,
    parse: t3 - t2,
    importViewer: t4 - t3,
    create: t5 - t4,
    load: t6 - t5,
    start: t0
  };
}

window.firstFrame = firstFrame;
