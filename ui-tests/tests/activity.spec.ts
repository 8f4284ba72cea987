/**
 * The person sees what agents do: the activity panel lists calls from an
 * agent (over MCP), a cell and a click, in order, with their outcomes, and
 * shows agent-supplied strings as text. In-browser agents get the same tools
 * through WebMCP, and what they do is seen by the kernel and the gateway.
 */
import { expect, test } from '@jupyterlab/galata';
import { call, mcpClient, runCell, runNotebook, uploadDemo } from './helpers';

test.describe('activity panel and WebMCP', () => {
  test('calls from an agent, a cell and a click appear in order, as text', async ({ page, tmpPath }) => {
    await uploadDemo(page, tmpPath);
    const story = await runNotebook(page, `${tmpPath}/demo.ipynb`);
    await expect(story.locator('.molspace-story-step')).toHaveText('step 2 of 3');
    const client = await mcpClient();
    try {
      const [observed] = await call(client, 'observe');
      const target = observed.widgets[0].id;
      await call(client, 'story_control', { target, action: 'next' });
      const hostile = '<img src=x onerror="window.__molspacePwned=1">';
      const [refused, isError] = await call(client, 'story_control', { target, action: 'goto', key: hostile });
      expect(isError).toBe(true);
      expect(refused.code).toBe('NOT_FOUND');
      await runCell(page, 'story.goto("overview")');
      await story.locator('[data-action="next"]').click();

      await page.locator('.jp-SideBar.jp-mod-right [title="molspace activity"], .jp-SideBar.jp-mod-right li[data-id="molspace-activity-panel"]').first().click();
      const entries = page.locator('#molspace-activity .molspace-activity-entry');
      await expect.poll(async () => (await entries.allTextContents()).length).toBeGreaterThanOrEqual(5);
      const sources = await entries.evaluateAll(els => els.map(e => (e as HTMLElement).dataset.source));
      const texts = await entries.allTextContents();
      // Newest first: the click, the cell's goto, the refused goto, the agent's next.
      const mine = texts
        .map((t, i) => ({ t, source: sources[i] }))
        .filter(e => e.t.includes('story_control'));
      expect(mine.slice(0, 4).map(e => e.source)).toEqual(['ui', 'kernel', 'agent', 'agent']);
      expect(mine[2].t).toContain('NOT_FOUND');
      expect(mine[2].t).toContain(hostile); // shown as text ...
      expect(mine[3].t).toMatch(/agent \(.+\).*ok \(revision \d+\)/);
      await expect(page.locator('#molspace-activity img')).toHaveCount(0); // ... never as markup
      expect(await page.evaluate(() => (window as unknown as { __molspacePwned?: number }).__molspacePwned)).toBeUndefined();
      await expect(page.locator('.molspace-activity-count')).toContainText(/molspace: \d+ calls/);

      // Filter by source.
      await page.locator('#molspace-activity select[aria-label="Source"]').selectOption('kernel');
      const kernelOnly = await entries.evaluateAll(els => els.map(e => (e as HTMLElement).dataset.source));
      expect(new Set(kernelOnly)).toEqual(new Set(['kernel']));
    } finally {
      await client.close();
    }
  });

  test('an in-browser agent steps the Story through WebMCP; kernel and gateway see the same revision', async ({
    page,
    tmpPath
  }) => {
    await uploadDemo(page, tmpPath);
    const story = await runNotebook(page, `${tmpPath}/demo.ipynb`);
    await expect(story.locator('.molspace-story-step')).toHaveText('step 2 of 3');
    // Tools that act on a widget kind are offered while one is live; the others (observe, open, ketcher_open, ...) always.
    await expect.poll(async () => (await page.webmcp.tools()).map(t => t.name).sort()).toEqual([
      'ketcher_open',
      'observe',
      'open',
      'story_control',
      'story_create',
      'story_edit',
      'story_observe',
      'story_validate'
    ]);
    const tools = await page.webmcp.tools();
    expect(tools.find(t => t.name === 'story_observe')?.annotations?.readOnly).toBe(true);
    expect(tools.find(t => t.name === 'story_control')?.annotations?.readOnly).toBeFalsy();

    const stepped = (await page.webmcp.callTool('story_control', { action: 'next' })) as {
      structuredContent: { story: { index: number; revision: number } };
    };
    expect(stepped.structuredContent.story.index).toBe(2);
    const revision = stepped.structuredContent.story.revision;

    const failed = (await page.webmcp.callTool('story_control', { action: 'goto', key: 'no-such-step' })) as {
      isError: boolean;
      content: { text: string }[];
    };
    expect(failed.isError).toBe(true);
    const error = JSON.parse(failed.content[0].text.split('\n')[1]);
    expect(error).toMatchObject({ code: 'NOT_FOUND', where: '/key' });

    expect(await runCell(page, 'print(story.revision, story.last_change["source"])')).toBe(`${revision} agent`);
    const client = await mcpClient();
    try {
      const [observed] = await call(client, 'story_observe', {});
      expect(observed.story.revision).toBe(revision);
    } finally {
      await client.close();
    }

    // The tool list follows the page: with the Story gone, only the tools that need no widget remain.
    await runCell(page, 'story.close()');
    await expect
      .poll(async () => (await page.webmcp.tools()).map(t => t.name).sort())
      .toEqual(['ketcher_open', 'observe', 'open', 'story_create', 'story_validate']);
  });
});
