/**
 * The MCP App beside a JupyterLab page (issue 21 item 3): a real MCP Apps host
 * (tests/appHost.ts: the SDK's AppBridge, the App in a cross-origin sandbox, the
 * official MCP client 2.x) shows the result of `open` that also docked the
 * Story or Viewer in a real JupyterLab page. The App drives and follows the
 * docked widget through the host: its Story buttons call `story_control` with
 * the revision and an `actionId`, and the model's later `story_control` and
 * `act` calls redraw the App; a docked widget closed in JupyterLab ends the
 * following, located, and the App goes on by itself.
 */
import * as path from 'path';
import { expect, test } from './sharedLab';
import type { Client } from '@modelcontextprotocol/client';
import { type AppHost, connectAppHostClient, openAppHost, toolResourceUri } from './appHost';
import type { Locator } from '@playwright/test';
import { PNG } from 'pngjs';
import { ROOT, foregroundFraction, stillPicture } from './helpers';

/** Three steps, their structure inside the archive: nothing to download. */
const STORY = path.join(ROOT, 'examples', 'data', '1cbs-story.mvsx');
const CIF = path.join(ROOT, 'examples', 'data', '1cbs.cif');

async function pageConnected(client: Client): Promise<boolean> {
  const result = await client.callTool({ name: 'status', arguments: {} });
  return Boolean((result.structuredContent as { pageConnected?: boolean }).pageConnected);
}

/** The App's state, with its located message when it is `error`. */
async function drawnOrError(host: AppHost): Promise<string | undefined> {
  await expect.poll(async () => (await host.appState()) ?? 'none', { timeout: 120_000 }).toMatch(/^(drawn|error)$/);
  const state = await host.appState();
  return state === 'error' ? `error: ${await host.appFrame.locator('#molspace-app-error').textContent()}` : state;
}

/** The fraction of the element's pixels that read as magenta (lit or shaded). */
async function magentaFraction(locator: Locator): Promise<number> {
  const png = PNG.sync.read(await locator.screenshot());
  let m = 0;
  for (let i = 0; i < png.data.length; i += 4) {
    if (png.data[i] > 120 && png.data[i + 1] < 90 && png.data[i + 2] > 120) {
      m++;
    }
  }
  return m / (png.width * png.height);
}

const followed = (host: AppHost) => host.appFrame.evaluate(() => document.documentElement.dataset.molspaceFollow ?? '');
const followedRevision = (host: AppHost) => host.appFrame.evaluate(() => document.documentElement.dataset.molspaceFollowRevision ?? '');

test.describe('molspace MCP App beside a JupyterLab page', () => {
  test("a Story's buttons in the App drive the docked Story, and the model's story_control moves the App", async ({
    page,
    browser,
    tmpPath
  }) => {
    await page.contents.uploadFile(STORY, `${tmpPath}/story.mvsx`);
    const { client, tools } = await connectAppHostClient();
    let host: AppHost | null = null;
    try {
      await expect.poll(() => pageConnected(client), { timeout: 60_000 }).toBe(true);
      const open = tools.find(t => t.name === 'open')!;
      const result = await client.callTool({ name: 'open', arguments: { path: `${tmpPath}/story.mvsx` } });
      expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
      const story = (result.structuredContent as { story: { target: string; revision: number; count: number } }).story;
      expect(story.count).toBe(3);
      expect(result._meta?.['molspace/story']).toBeDefined();
      const docked = page.locator('.molspace-docked-story .molspace-story');
      await expect(docked.locator('.molspace-story-step')).toHaveText('step 1 of 3', { timeout: 60_000 });

      host = await openAppHost(browser, {
        mcp: client,
        resourceUri: toolResourceUri(open)!,
        tool: open,
        toolInput: { path: `${tmpPath}/story.mvsx` },
        toolResult: result
      });
      expect(await drawnOrError(host), host.records.pageErrors.join('\n')).toBe('drawn');
      const controls = host.appFrame.locator('#molspace-app-story');
      await expect(controls).toHaveAttribute('data-molspace-linked', story.target);
      expect(await followed(host)).toBe(`story:${story.target}`);
      expect(await foregroundFraction(host.appFrame.locator('canvas').first())).toBeGreaterThan(0.02);

      // The person's Next in the chat: story_control on the docked Story, through the host, with its revision and an actionId.
      await controls.locator('[data-molspace-step="next"]').click();
      await expect(controls).toHaveAttribute('data-molspace-step-index', '1', { timeout: 60_000 });
      await expect(docked.locator('.molspace-story-step')).toHaveText('step 2 of 3', { timeout: 60_000 });
      const control = host.records.toolCalls.find(c => c.params.name === 'story_control');
      expect(control?.params.arguments).toMatchObject({ target: story.target, action: 'next', expectedRevision: story.revision });
      expect(control?.params.arguments.actionId).toMatch(/^app-/);
      expect(control?.reply.result?.isError ?? false).toBe(false);
      await expect
        .poll(() => host!.records.modelContext.map(c => JSON.stringify(c)).find(c => c.includes('step 2 of 3')) ?? '')
        .toContain('moved there by the person');

      // The model's later call moves the docked Story, and the App that shows it follows.
      const moved = await client.callTool({ name: 'story_control', arguments: { target: story.target, action: 'goto', index: 2 } });
      expect(moved.isError ?? false, JSON.stringify(moved.content)).toBe(false);
      await expect(controls).toHaveAttribute('data-molspace-step-index', '2', { timeout: 30_000 });
      await expect(controls.locator('.molspace-app-step')).toContainText('3 / 3');
      await expect
        .poll(() => followedRevision(host!))
        .toBe(String((moved.structuredContent as { story: { revision: number } }).story.revision));
      // Reads went through the host as story_observe of the target alone.
      expect(host.records.toolCalls.some(c => c.params.name === 'story_observe' && c.params.arguments?.target === story.target)).toBe(true);

      // The docked Story closed in JupyterLab: following ends, located, and the buttons step the App's own Story.
      await page.activity.closeAll();
      await expect(controls).not.toHaveAttribute('data-molspace-linked', /.+/, { timeout: 30_000 });
      await expect(controls.locator('.molspace-app-link-note')).toContainText(/^(NOT_FOUND|STALE_TARGET) at /);
      expect(await followed(host)).toBe('');
      const calls = host.records.toolCalls.length;
      await controls.locator('[data-molspace-step="previous"]').click();
      await expect(controls).toHaveAttribute('data-molspace-step-index', '1', { timeout: 60_000 });
      expect(host.records.toolCalls.slice(calls).filter(c => c.params.name === 'story_control')).toEqual([]);
      expect(host.records.pageErrors).toEqual([]);
      expect(host.records.cspViolations).toEqual([]);
    } finally {
      await host?.close();
      await client.close();
    }
  });

  test("the model's act on the docked Viewer redraws the App that shows it", async ({ page, browser, tmpPath }) => {
    await page.contents.uploadFile(CIF, `${tmpPath}/1cbs.cif`);
    const { client, tools } = await connectAppHostClient();
    let host: AppHost | null = null;
    try {
      await expect.poll(() => pageConnected(client), { timeout: 60_000 }).toBe(true);
      const open = tools.find(t => t.name === 'open')!;
      const result = await client.callTool({ name: 'open', arguments: { path: `${tmpPath}/1cbs.cif` } });
      expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
      const viewer = (result.structuredContent as { viewer: { target: string; revision: number } }).viewer;
      host = await openAppHost(browser, { mcp: client, resourceUri: toolResourceUri(open)!, tool: open, toolResult: result });
      expect(await drawnOrError(host), host.records.pageErrors.join('\n')).toBe('drawn');
      expect(await followed(host)).toBe(`viewer:${viewer.target}`);
      const canvas = host.appFrame.locator('canvas').first();
      await expect.poll(() => foregroundFraction(canvas), { timeout: 30_000 }).toBeGreaterThan(0.02);
      const before = await stillPicture(canvas);

      const acted = await client.callTool({
        name: 'act',
        arguments: { target: viewer.target, actions: [{ op: 'set_color', selector: 'all', color: '#ff00ff' }] }
      });
      expect(acted.isError ?? false, JSON.stringify(acted.content)).toBe(false);
      const revision = (acted.structuredContent as { viewer: { revision: number } }).viewer.revision;
      expect(revision).toBeGreaterThan(viewer.revision);
      await expect.poll(() => followedRevision(host!), { timeout: 30_000 }).toBe(String(revision));
      await expect.poll(async () => (await stillPicture(canvas)).equals(before), { timeout: 30_000 }).toBe(false);
      // Magenta now dominates what the App draws.
      const magenta = await magentaFraction(canvas);
      expect(magenta).toBeGreaterThan(0.01);
      expect(host.records.pageErrors).toEqual([]);
    } finally {
      await host?.close();
      await client.close();
    }
  });

  test("a docked panel's links in the App act on the docked Viewer through the host; a link whose Viewer closed is refused located in the panel", async ({
    page,
    browser,
    tmpPath
  }) => {
    await page.contents.uploadFile(CIF, `${tmpPath}/1cbs.cif`);
    const { client, tools } = await connectAppHostClient();
    let host: AppHost | null = null;
    try {
      await expect.poll(() => pageConnected(client), { timeout: 60_000 }).toBe(true);
      const opened = await client.callTool({ name: 'open', arguments: { path: `${tmpPath}/1cbs.cif` } });
      expect(opened.isError ?? false, JSON.stringify(opened.content)).toBe(false);
      const viewer = (opened.structuredContent as { viewer: { target: string; revision: number } }).viewer;
      const revisionOf = async () => {
        const observed = await client.callTool({ name: 'viewer_observe', arguments: { target: viewer.target } });
        return (observed.structuredContent as { viewer: { revision: number } }).viewer.revision;
      };
      const renderPanel = tools.find(t => t.name === 'render_panel')!;
      const focus = (auth_seq_id: number) => ({ op: 'focus', viewer: viewer.target, selector: { auth_seq_id } });
      const result = await client.callTool({
        name: 'render_panel',
        arguments: {
          panelId: `links-${Date.now()}`,
          title: 'Contacts',
          content: { type: 'table', columns: [{ name: 'residue' }], rows: [['LEU 28'], ['ARG 111']], links: [focus(28), focus(111)] }
        }
      });
      expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
      host = await openAppHost(browser, { mcp: client, resourceUri: toolResourceUri(renderPanel)!, tool: renderPanel, toolResult: result });
      expect(await drawnOrError(host), host.records.pageErrors.join('\n')).toBe('drawn');
      const panel = host.appFrame.locator('.molspace-panel');
      const buttons = panel.locator('button.molspace-panel-link');
      await expect(buttons).toHaveCount(2);

      // A click is the link's act on the docked Viewer, through the host, with an actionId.
      const before = await revisionOf();
      await buttons.nth(1).click();
      await expect.poll(revisionOf, { timeout: 30_000 }).toBeGreaterThan(before);
      const acted = host.records.toolCalls.find(c => c.params.name === 'act');
      expect(acted?.params.arguments).toMatchObject({ target: viewer.target, actions: [{ op: 'focus', selector: { auth_seq_id: 111 } }] });
      expect(acted?.params.arguments.actionId).toMatch(/^app-/);
      expect(acted?.reply.result?.isError ?? false).toBe(false);
      await expect(panel.locator('.molspace-panel-link-error')).toBeHidden();

      // The Viewer closed in JupyterLab: the link is refused, located at the link, in the panel.
      await page.activity.closeAll();
      await buttons.nth(0).click();
      const refusal = panel.locator('.molspace-panel-link-error');
      await expect(refusal).toBeVisible({ timeout: 30_000 });
      await expect(refusal).toContainText(/NOT_FOUND|STALE_TARGET/);
      await expect(refusal).toContainText('/content/links/0/viewer');
      expect(host.records.pageErrors).toEqual([]);
      expect(host.records.cspViolations).toEqual([]);
    } finally {
      await host?.close();
      await client.close();
    }
  });
});
