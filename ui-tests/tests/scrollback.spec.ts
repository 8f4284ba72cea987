/**
 * A Story scrolled out of view and back (issue 12, item 8): in JupyterLab's
 * windowing mode `full` it keeps its live viewer (no new WebGL context, the
 * same canvas, the step on it) while the viewer budget has room; a Story the
 * budget parked comes back with its step drawn on the WebGL context of the
 * viewer parked to make room (no new context: its shaders are linked already).
 * Behaviour only: how fast is measured by bench/scrollback.mjs.
 */
import { expect, galata, test } from '@jupyterlab/galata';
import type { Page } from '@playwright/test';
import { foregroundFraction, uploadStory, setCode, addCode } from './helpers';

/** Page init script: count the WebGL contexts the page creates. */
function countContexts(): void {
  const w = window as unknown as { __molspaceContexts: number };
  w.__molspaceContexts = 0;
  const seen = new WeakSet<object>();
  const original = HTMLCanvasElement.prototype.getContext;
  HTMLCanvasElement.prototype.getContext = function (this: HTMLCanvasElement, type: string, ...rest: unknown[]) {
    const ctx = (original as any).call(this, type, ...rest);
    if (ctx && /webgl/.test(type) && !seen.has(ctx)) {
      seen.add(ctx);
      w.__molspaceContexts += 1;
    }
    return ctx;
  } as typeof original;
}

const contexts = (page: Page) => page.evaluate(() => (window as any).__molspaceContexts as number);

/** Scroll the notebook to cell `index` with the focus on that cell (JupyterLab keeps the focused cell rendered). */
async function scrollToCell(page: Page, index: number): Promise<void> {
  await page.evaluate(async i => {
    (document.activeElement as HTMLElement | null)?.blur?.();
    const nb = (window as any).jupyterapp.shell.currentWidget.content;
    nb.mode = 'command';
    nb.activeCellIndex = i;
    nb.deselectAll();
    nb.activeCell.node.focus();
    await nb.scrollToItem(i, 'start');
  }, index);
}

/** A cell whose output is much taller than the window (a long text output would be scrolled within the cell). */
const TALL = 'from IPython.display import HTML\nHTML(\'<div style="height: 2500px">gap</div>\')';

/** Put `sources` into a new notebook's cells and run them all. */
async function notebookOf(page: Page & { notebook: any }, name: string, sources: string[]): Promise<void> {
  await page.notebook.createNew(name);
  for (let i = 0; i < sources.length; i++) {
    if (i > 0) {
      await addCode(page, sources[i]);
    } else {
      await setCode(page, 0, sources[0]);
    }
  }
  await page.notebook.run();
}

test.describe('windowing mode full', () => {
  test.use({
    mockSettings: { ...galata.DEFAULT_SETTINGS, '@jupyterlab/notebook-extension:tracker': { windowingMode: 'full' } }
  });

  test('a Story scrolled out of the window and back keeps its live viewer and shows its step', async ({ page, tmpPath }) => {
    test.setTimeout(300_000);
    await page.addInitScript(countContexts);
    await page.reload();
    await uploadStory(page, tmpPath);
    await notebookOf(page, 'windowed.ipynb', ['import molspace\nmolspace.Story("data/1cbs-story.mvsx")', TALL, TALL, 'print("end")']);
    expect(await page.evaluate(() => (window as any).jupyterapp.shell.currentWidget.content.notebookConfig.windowingMode)).toBe('full');
    const story = page.locator('.molspace-story').first();
    await scrollToCell(page, 0);
    await expect(story).toHaveAttribute('data-molspace-ready', 'true', { timeout: 120_000 });
    const canvas = story.locator('.molspace-story-viewer canvas');
    await expect(canvas).toHaveCount(1);
    const before = await canvas.elementHandle();
    const created = await contexts(page);

    await scrollToCell(page, 3);
    // Out of the window: JupyterLab takes the cell out of the layout.
    await expect.poll(() => story.evaluate(el => el.getClientRects().length)).toBe(0);
    // The budget has seen it leave the view, and keeps it live (being out of view parks nothing;
    // the timer rule this replaced is covered in src/molstar/__tests__/viewerBudget.spec.ts).
    await expect(story).toHaveAttribute('data-molspace-in-view', 'false');
    await expect(story).not.toHaveAttribute('data-molspace-parked', 'true');

    await scrollToCell(page, 0);
    await expect(story).toBeVisible();
    await expect(story).not.toHaveAttribute('data-molspace-parked', 'true');
    await expect(story).toHaveAttribute('data-molspace-ready', 'true');
    // The same canvas on the same WebGL context, showing the step.
    expect(await before!.evaluate((c: Element) => c.isConnected && c.closest('.molspace-story') !== null)).toBe(true);
    expect(await canvas.evaluate((c, b) => c === b, before)).toBe(true);
    expect(await contexts(page)).toBe(created);
    await expect.poll(() => foregroundFraction(canvas), { timeout: 30_000 }).toBeGreaterThan(0.01);
  });
});

test.describe('a parked Story brought back', () => {
  test.use({
    mockSettings: { ...galata.DEFAULT_SETTINGS, 'molspace:plugin': { maxLiveViewers: 1 } }
  });

  test('is drawn again on the WebGL context of the viewer parked for it', async ({ page, tmpPath }) => {
    test.setTimeout(300_000);
    await page.addInitScript(countContexts);
    await page.reload();
    await uploadStory(page, tmpPath);
    await notebookOf(page, 'parkedBack.ipynb', [
      'import molspace\nmolspace.Story("data/1cbs-story.mvsx")',
      TALL,
      TALL,
      'molspace.Story("data/1cbs-story.mvsx")'
    ]);
    const first = page.locator('.molspace-story').first();
    const second = page.locator('.molspace-story').last();
    await scrollToCell(page, 0);
    await expect(first).toHaveAttribute('data-molspace-ready', 'true', { timeout: 120_000 });
    const drawn = await first.getAttribute('data-molspace-drawn');
    expect(drawn).toBe('overview');

    // The budget is one viewer: showing the second parks the first.
    await scrollToCell(page, 3);
    await expect(second).toHaveAttribute('data-molspace-ready', 'true', { timeout: 120_000 });
    await expect(first).toHaveAttribute('data-molspace-parked', 'true');
    await expect(first.locator('.molspace-story-parked img')).toHaveCount(1);
    const created = await contexts(page);

    await scrollToCell(page, 0);
    await expect(first).toHaveAttribute('data-molspace-ready', 'true', { timeout: 120_000 });
    await expect(first).toHaveAttribute('data-molspace-drawn', drawn!);
    await expect(first).not.toHaveAttribute('data-molspace-parked', 'true');
    await expect(first.locator('.molspace-story-parked')).toHaveCount(0);
    await expect(second).toHaveAttribute('data-molspace-parked', 'true');
    await expect(page.locator('.molspace-story-viewer')).toHaveCount(1);
    // No new WebGL context: the first Story took the one the second left.
    expect(await contexts(page)).toBe(created);
    await expect.poll(() => foregroundFraction(first.locator('.molspace-story-viewer canvas')), { timeout: 30_000 }).toBeGreaterThan(0.01);
  });
});
