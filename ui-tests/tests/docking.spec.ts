/**
 * Room for many docked widgets (issue 19, items 8 and 9), in the real page
 * through the official TS MCP client: ten docked widgets (Viewers, editors,
 * panels) open as tabs of one molspace tab stack, each as wide as the stack;
 * `dock: {mode: 'split-right', beside}` puts one beside another; an empty
 * page tells the agent which tools open widgets; a screenshot of a Viewer
 * parked by the viewer budget (in a hidden tab) draws it first.
 */
import * as galata from '@jupyterlab/galata';
import { expect, test } from './sharedLab';
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import { call, mcpClient } from './helpers';

/** A small PDB text (three atoms): cheap to draw in software WebGL. */
const PDB = [
  'ATOM      1  N   GLY A   1       0.000   0.000   0.000  1.00  0.00           N',
  'ATOM      2  CA  GLY A   1       1.458   0.000   0.000  1.00  0.00           C',
  'ATOM      3  C   GLY A   1       2.009   1.420   0.000  1.00  0.00           C',
  'END'
].join('\n');

/** Select the main-area tab `id` (as the person clicking its tab does) and return its content box. */
async function boxWhenSelected(page: IJupyterLabPageFixture, id: string): Promise<{ x: number; y: number; width: number; height: number }> {
  await page.evaluate(tabId => (window as any).jupyterapp.shell.activateById(tabId), id);
  const tab = page.locator(`[id="${id}"]`);
  await expect(tab).toBeVisible();
  return (await tab.boundingBox())!;
}

test.describe('docked widgets', () => {
  // Two live Mol* viewers: the older docked Viewers are parked by the budget.
  test.use({ mockSettings: { ...galata.DEFAULT_SETTINGS, 'molspace:plugin': { maxLiveViewers: 2 } } });

  test('ten open as tabs of one stack, each usable; one docks beside another; a parked Viewer is drawn for its screenshot', async ({ page }) => {
    test.setTimeout(600_000);
    const client = await mcpClient();
    try {
      // An empty page: next steps an agent holding only MCP can take.
      const empty = await client.callTool({ name: 'observe', arguments: {} });
      expect(empty.isError).toBeFalsy();
      const emptyText = (empty.content as { text: string }[])[0].text;
      for (const tool of ['open', 'render_panel', 'ketcher_open', 'story_template_create']) {
        expect(emptyText).toContain(tool);
      }
      expect(emptyText).not.toMatch(/cell/);

      const tabs: string[] = []; // main-area tab ids, in docking order
      const viewers: string[] = [];
      for (let i = 0; i < 4; i++) {
        const [opened, error] = await call(client, 'open', { text: PDB, format: 'pdb', title: `viewer ${i}` });
        expect(error, JSON.stringify(opened)).toBe(false);
        viewers.push(opened.viewer.target);
        tabs.push(opened.viewer.target);
      }
      for (let i = 0; i < 2; i++) {
        const [opened, error] = await call(client, 'ketcher_open', { value: 'c1ccccc1O', title: `editor ${i}` });
        expect(error, JSON.stringify(opened)).toBe(false);
        tabs.push(opened.editor.target);
      }
      for (let i = 0; i < 4; i++) {
        const [rendered, error] = await call(client, 'render_panel', { panelId: `notes-${i}`, content: { type: 'markdown', markdown: `# Notes ${i}` } });
        expect(error, JSON.stringify(rendered)).toBe(false);
        tabs.push(`molspace-panel-notes-${i}`);
      }
      expect(tabs).toHaveLength(10);

      // Each tab, when selected, fills the same stack: at least 300 px wide, the same box for all ten.
      const boxes = [];
      for (const id of tabs) {
        boxes.push(await boxWhenSelected(page, id));
      }
      for (const box of boxes) {
        expect(box.width).toBeGreaterThanOrEqual(300);
        expect(box).toEqual(boxes[0]);
      }

      // The first Viewer was parked by the budget (two live) and sits in a hidden tab;
      // a screenshot draws it first and returns the image.
      await page.evaluate(tabId => (window as any).jupyterapp.shell.activateById(tabId), tabs[9]);
      const first = page.locator(`[id="${viewers[0]}"] .molspace-viewer`);
      await expect(first).toHaveAttribute('data-molspace-parked', 'true');
      await expect(first).toBeHidden();
      const shot = await client.callTool({ name: 'act', arguments: { target: viewers[0], actions: [{ op: 'screenshot' }] } });
      expect(shot.isError, JSON.stringify(shot.content)).toBeFalsy();
      const image = (shot.content as { type: string; mimeType?: string; data?: string }[]).find(c => c.type === 'image')!;
      expect(image.mimeType).toBe('image/jpeg');
      expect((shot.structuredContent as any).screenshot.width).toBeGreaterThan(0);

      // One docked beside another: side by side, not in the same stack.
      const [nextTo, nextToError] = await call(client, 'render_panel', {
        panelId: 'beside',
        content: { type: 'markdown', markdown: '# Beside viewer 1' },
        dock: { mode: 'split-right', beside: viewers[1] }
      });
      expect(nextToError, JSON.stringify(nextTo)).toBe(false);
      const viewerBox = await boxWhenSelected(page, viewers[1]);
      const besideBox = (await page.locator('[id="molspace-panel-beside"]').boundingBox())!;
      await expect(page.locator('[id="molspace-panel-beside"]')).toBeVisible();
      expect(besideBox.x).toBeGreaterThanOrEqual(viewerBox.x + viewerBox.width - 8);
      expect(besideBox.y).toBeLessThan(viewerBox.y + viewerBox.height);
      expect(viewerBox.y).toBeLessThan(besideBox.y + besideBox.height);

      // A placement naming no docked widget is refused, located, before anything opens.
      const [bad, badError] = await call(client, 'ketcher_open', { dock: { beside: 'no-such-widget' } });
      expect(badError).toBe(true);
      expect(bad).toMatchObject({ code: 'NOT_FOUND', where: '/dock/beside', details: { beside: 'no-such-widget' } });
      expect(bad.details.docked).toContain(viewers[1]);
      await expect(page.locator('.molspace-docked-ketcher')).toHaveCount(2);
    } finally {
      await client.close();
    }
  });
});
