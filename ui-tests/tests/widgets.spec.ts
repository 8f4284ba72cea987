/**
 * The Story widget as a JupyterLab citizen: Mol* is loaded only when a Story
 * is shown; many Stories share the page's WebGL budget; a closed widget frees
 * its viewer; keys inside the widget stay in the widget; saved widget state
 * restores the Story and its step; the viewer follows the dark theme.
 */
import { expect, galata, test } from '@jupyterlab/galata';
import * as path from 'path';
import { ROOT, dominantColour, newNotebookRun, runCell, stillPicture, uploadStory } from './helpers';

const ONE_STORY = 'import molspace\nstory = molspace.Story("data/1cbs-story.mvsx")\nstory';

/**
 * Text only Mol* code carries, minified or not: strings of its task runtime
 * (mol-task, which nearly every Mol* module uses) and zip reader
 * (mol-util/zip), a uniform of its shaders (mol-canvas3d), and its module
 * paths (development builds).
 */
const MOLSTAR_MARKERS = ['Aborting...', '✳️', 'ungzip: checksums', 'uCameraPosition', 'molstar/lib/'];

/** Live WebGL contexts in the page, counted since the page loaded (see trackWebGL). */
interface WebGLStats {
  live: number;
  max: number;
  created: number;
}

/**
 * Page init script: count WebGL contexts that are live (created and not yet
 * lost) and the most that were live at once. Mol*'s dispose loses its context
 * (`WEBGL_lose_context`): the context is lost from that call on, while the
 * browser fires `webglcontextlost` only in a later task, so a context counts
 * as live while it is not `isContextLost()`, checked whenever one is created.
 */
function trackWebGL(): void {
  const live = new Set<{ isContextLost(): boolean }>();
  const stats = {
    max: 0,
    created: 0,
    get live(): number {
      return [...live].filter(c => !c.isContextLost()).length;
    }
  };
  (window as unknown as { __molspaceWebGL: typeof stats }).__molspaceWebGL = stats;
  const original = HTMLCanvasElement.prototype.getContext;
  HTMLCanvasElement.prototype.getContext = function (this: HTMLCanvasElement, type: string, ...rest: unknown[]) {
    const ctx = (original as any).call(this, type, ...rest);
    if (ctx && /webgl/.test(type) && !live.has(ctx) && !ctx.isContextLost()) {
      for (const c of [...live]) {
        if (c.isContextLost()) {
          live.delete(c);
        }
      }
      live.add(ctx);
      stats.created += 1;
      stats.max = Math.max(stats.max, live.size);
    }
    return ctx;
  } as typeof original;
}

test.describe('Story widgets in JupyterLab', () => {
  test('JupyterLab without a Story loads no Mol* code', async ({ page, tmpPath }) => {
    const urls: string[] = [];
    page.on('request', request => urls.push(request.url()));
    await page.reload();
    // molspace's plugins ran and the bridge (loaded after JupyterLab restored) started.
    await page.waitForFunction(() => (window as any).molspace?.registry !== undefined);
    await page.waitForLoadState('networkidle');
    const molspaceScripts = () => [...new Set(urls.filter(u => /\/lab\/extensions\/molspace\/static\/.*\.js(\?|$)/.test(u)))];
    const scripts = molspaceScripts();
    expect(scripts.some(u => /remoteEntry\.[0-9a-f]+\.js/.test(u))).toBe(true);
    // Production chunks are named by number, so look inside each script molspace loaded.
    const molstarIn: string[] = [];
    for (const url of scripts) {
      const text = await (await page.request.get(url)).text();
      const found = MOLSTAR_MARKERS.filter(m => text.includes(m));
      if (found.length) {
        molstarIn.push(`${url}: ${found.join(', ')}`);
      }
    }
    expect(molstarIn).toEqual([]);
    expect(scripts.length).toBeGreaterThan(2);
    expect(await page.evaluate(() => (window as any).molspace.registry.size)).toBe(0);

    // The same check finds Mol* once a Story is shown.
    await uploadStory(page, tmpPath);
    await newNotebookRun(page, 'markers.ipynb', ONE_STORY);
    await expect(page.locator('.molspace-story')).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
    const later = molspaceScripts();
    let markers = 0;
    for (const url of later.filter(u => !scripts.includes(u))) {
      const text = await (await page.request.get(url)).text();
      markers += MOLSTAR_MARKERS.filter(m => text.includes(m)).length;
    }
    expect(markers).toBeGreaterThan(0);
  });

  test('twenty Stories in one notebook stay usable within the viewer budget', async ({ page, tmpPath }) => {
    // Twenty Mol* loads on 2 shared cores with software WebGL.
    test.setTimeout(600_000);
    const tooMany: string[] = [];
    page.on('console', m => {
      if (/too many active webgl contexts/i.test(m.text())) {
        tooMany.push(m.text());
      }
    });
    await page.addInitScript(trackWebGL);
    await page.reload();
    await uploadStory(page, tmpPath);
    await newNotebookRun(
      page,
      'twenty.ipynb',
      'import molspace\nfrom IPython.display import display\n' +
        'stories = [molspace.Story("data/1cbs-story.mvsx") for _ in range(20)]\n' +
        'for s in stories:\n    display(s)'
    );
    const stories = page.locator('.molspace-story');
    await expect(stories).toHaveCount(20, { timeout: 60_000 });
    const stats = () => page.evaluate(() => (window as any).__molspaceWebGL as WebGLStats);
    const budget = 8;
    // A view out of view keeps its viewer while the budget has room: read down the whole
    // notebook (more than eight Stories come into view) so that the budget must park some.
    for (const i of [3, 6, 13, 16]) {
      const story = stories.nth(i);
      await story.scrollIntoViewIfNeeded();
      await expect(story).toHaveAttribute('data-molspace-ready', 'true', { timeout: 240_000 });
    }
    for (const i of [0, 10, 19]) {
      const story = stories.nth(i);
      await story.scrollIntoViewIfNeeded();
      await expect(story).toHaveAttribute('data-molspace-ready', 'true', { timeout: 240_000 });
      await expect(story).not.toHaveAttribute('data-molspace-parked', 'true');
      await expect(story.locator('.molspace-story-step')).toHaveText('step 1 of 3');
      await story.locator('[data-action="next"]').click();
      await expect(story.locator('.molspace-story-step')).toHaveText('step 2 of 3');
      await expect(story).toHaveAttribute('data-molspace-ready', 'true', { timeout: 60_000 });
      const s = await stats();
      expect(s.max, `live WebGL contexts: ${JSON.stringify(s)}`).toBeLessThanOrEqual(budget);
      expect(await page.locator('.molspace-story-viewer').count()).toBeLessThanOrEqual(budget);
    }
    await expect(page.locator('.molspace-story-error:visible')).toHaveCount(0);
    // Views scrolled out of view were parked (image, no WebGL) once more than eight had been shown.
    await expect(stories).toHaveCount(20);
    await expect
      .poll(() => page.locator('.molspace-story[data-molspace-parked="true"]').count(), { timeout: 60_000 })
      .toBeGreaterThan(0);
    const s = await stats();
    expect(s.max, `live WebGL contexts: ${JSON.stringify(s)}`).toBeLessThanOrEqual(budget);
    expect(tooMany).toEqual([]);
  });

  test('a closed Story disposes its Mol* viewer', async ({ page, tmpPath }) => {
    await uploadStory(page, tmpPath);
    await newNotebookRun(page, 'close.ipynb', ONE_STORY);
    const story = page.locator('.molspace-story').first();
    await expect(story).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
    const canvas = await story.locator('.molspace-story-canvas canvas').first().elementHandle();
    expect(canvas).not.toBeNull();
    const live = (c: any) => {
      const gl = c.getContext('webgl2') ?? c.getContext('webgl');
      return { connected: c.isConnected as boolean, lost: gl ? (gl.isContextLost() as boolean) : null };
    };
    expect(await canvas!.evaluate(live)).toEqual({ connected: true, lost: false });
    const before = await page.evaluate(() => (window as any).molspace.registry.size as number);
    expect(before).toBeGreaterThanOrEqual(1);

    await runCell(page, 'story.close()');
    await expect(page.locator('.molspace-story')).toHaveCount(0);
    await expect.poll(() => canvas!.evaluate(live)).toEqual({ connected: false, lost: true });
    await expect.poll(() => page.evaluate(() => (window as any).molspace.registry.size as number)).toBe(before - 1);
  });

  test('keys inside a Story do not trigger notebook shortcuts', async ({ page, tmpPath }) => {
    await uploadStory(page, tmpPath);
    await newNotebookRun(page, 'keys.ipynb', ONE_STORY);
    const story = page.locator('.molspace-story').first();
    await expect(story).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
    const cells = await page.notebook.getCellCount();
    await story.locator('.molspace-story-canvas canvas').first().focus();
    await expect(page.locator('.jp-Notebook.jp-mod-commandMode')).toHaveCount(1);
    expect(await story.evaluate(root => root.contains(document.activeElement))).toBe(true);

    await page.keyboard.press('b');
    await page.keyboard.press('a');
    await page.keyboard.press('ArrowRight');
    await expect(story.locator('.molspace-story-step')).toHaveText('step 2 of 3');
    await expect(story).toHaveAttribute('data-molspace-ready', 'true', { timeout: 60_000 });
    await expect(story).toHaveAttribute('data-molspace-index', '1');
    expect(await page.notebook.getCellCount()).toBe(cells);
  });

  test('the viewer follows the dark theme', async ({ page, tmpPath }) => {
    await uploadStory(page, tmpPath);
    await newNotebookRun(page, 'dark.ipynb', ONE_STORY);
    const story = page.locator('.molspace-story').first();
    await expect(story).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
    const canvas = story.locator('.molspace-story-canvas canvas').first();
    const light = await dominantColour(canvas);
    expect(Math.min(...light), `light background ${light}`).toBeGreaterThan(192);

    await page.theme.setDarkTheme();
    await expect(page.locator('body')).toHaveAttribute('data-jp-theme-light', 'false');
    await expect
      .poll(async () => Math.max(...(await dominantColour(canvas))), { timeout: 30_000 })
      .toBeLessThan(64);
    await expect(story).toHaveAttribute('data-molspace-ready', 'true');
    await expect(story.locator('.molspace-story-error')).toBeHidden();
  });
});

test.describe('Saved widget state', () => {
  test.use({
    mockSettings: {
      ...galata.DEFAULT_SETTINGS,
      '@jupyter-widgets/jupyterlab-manager:plugin': { saveState: true }
    }
  });

  test('restores the Story and its step after reopening', async ({ page, tmpPath }) => {
    await uploadStory(page, tmpPath);
    await newNotebookRun(page, 'saved.ipynb', ONE_STORY);
    const story = page.locator('.molspace-story').first();
    await expect(story).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
    await runCell(page, 'story.goto("ligand")');
    await expect(story.locator('.molspace-story-step')).toHaveText('step 3 of 3');
    await expect(story).toHaveAttribute('data-molspace-ready', 'true', { timeout: 60_000 });
    expect(await runCell(page, 'print(story.index, story.key)')).toBe('2 ligand');
    await page.notebook.save();
    await page.kernel.shutdownAll();
    await page.notebook.close(true);
    await expect(page.locator('.molspace-story')).toHaveCount(0);

    await page.notebook.openByPath(`${tmpPath}/saved.ipynb`);
    await page.notebook.activate('saved.ipynb');
    const restored = page.locator('.molspace-story').first();
    await expect(restored.locator('.molspace-story-step')).toHaveText('step 3 of 3', { timeout: 60_000 });
    await expect(restored).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
    await expect(restored).toHaveAttribute('data-molspace-index', '2');
    await expect(restored.locator('.molspace-story-error')).toBeHidden();
  });
});

// The Story and the Viewer keep their Mol* canvas in one host (src/widget/molstarCanvas.ts): both guard the wheel.
const WHEEL_CASES = [
  { kind: 'Story', root: '.molspace-story', cell: 'w = molspace.Story("data/1cbs-story.mvsx")' },
  { kind: 'Viewer', root: '.molspace-viewer', cell: 'w = molspace.Viewer("data/1cbs.cif")' }
];

for (const { kind, root, cell } of WHEEL_CASES) {
  test.describe(`Mouse wheel over a ${kind}`, () => {
    test('scrolls the notebook until the view is focused, then zooms the view', async ({ page, tmpPath }) => {
      await uploadStory(page, tmpPath);
      await page.contents.uploadFile(path.join(ROOT, 'tests', 'data', 'structures', '1cbs.cif'), `${tmpPath}/data/1cbs.cif`);
      // Tall outputs above and below the widget, so the notebook can scroll either way.
      await newNotebookRun(
        page,
        'wheel.ipynb',
        'import molspace\nfrom IPython.display import display, HTML\n' +
          'display(HTML("<div style=\\"height: 900px\\">above</div>"))\n' +
          `${cell}\ndisplay(w)\n` +
          'display(HTML("<div style=\\"height: 1500px\\">below</div>"))'
      );
      const widget = page.locator(root).first();
      await widget.scrollIntoViewIfNeeded();
      await expect(widget).toHaveAttribute('data-molspace-ready', 'true', { timeout: 120_000 });
      const canvas = widget.locator('.molspace-story-canvas canvas');
      const scroller = page.locator('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-WindowedPanel-outer');
      const scrollTop = () => scroller.evaluate(e => e.scrollTop);
      // Nothing in the view focused, then wheel over the canvas: the notebook scrolls, the molecule does not zoom.
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await expect(canvas).not.toBeFocused();
      const box = (await canvas.boundingBox())!;
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      const before = await scrollTop();
      await page.mouse.wheel(0, 200);
      await expect.poll(scrollTop).toBeGreaterThan(before);
      await expect(widget.locator('.molspace-wheel-hint')).toHaveClass(/molspace-wheel-hint-shown/);

      // Click the view (focus), wheel again: the notebook stays put and the picture changes.
      await widget.scrollIntoViewIfNeeded();
      await canvas.click();
      await expect(canvas).toBeFocused();
      const still = await scrollTop();
      // The pointer rests over the view (hover highlights settle): take the picture once it is stable.
      const picture = await stillPicture(canvas);
      await page.mouse.wheel(0, -400);
      await expect.poll(async () => Buffer.compare(await canvas.screenshot(), picture) !== 0, { timeout: 30_000 }).toBe(true);
      expect(await scrollTop()).toBe(still);
    });
  });
}
