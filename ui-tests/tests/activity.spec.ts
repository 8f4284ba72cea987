/**
 * The person sees what agents do: the activity panel lists calls from an
 * agent (over MCP), a cell and a click, in order, with their outcomes, and
 * shows agent-supplied strings as text; it filters by source and by widget and
 * a click on an entry brings its widget into view. Reads the gateway answers
 * from the read mirror (they never reach the page's Dispatcher) are entries
 * too. In-browser agents get the same tools through WebMCP, and what they do
 * is seen by the kernel, the gateway and the panel.
 */
import * as path from 'path';
import { expect, test } from '@jupyterlab/galata';
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import { ROOT, call, mcpClient, runCell, runNotebook, uploadDemo, setCode } from './helpers';

/** Open the activity side panel; its entries, newest first. */
async function openActivity(page: IJupyterLabPageFixture) {
  if (!(await page.locator('#molspace-activity').isVisible())) {
    await page.locator('.jp-SideBar.jp-mod-right li[data-id="molspace-activity-panel"]').click();
  }
  await expect(page.locator('#molspace-activity')).toBeVisible();
  return page.locator('#molspace-activity .molspace-activity-entry');
}

/** One entry's data and head line (`HH:MM:SS  who  tool → target  outcome  N ms`). */
type Entry = { source: string; answeredBy: string; target: string | null; head: string; text: string };
function entryData(entries: ReturnType<IJupyterLabPageFixture['locator']>): Promise<Entry[]> {
  return entries.evaluateAll(els =>
    els.map(e => {
      const el = e as HTMLElement;
      return {
        source: el.dataset.source ?? '',
        answeredBy: el.dataset.answeredBy ?? '',
        target: el.dataset.target ?? null,
        head: el.querySelector('.molspace-activity-head')?.textContent ?? '',
        text: el.textContent ?? ''
      };
    })
  );
}

/** The page's Dispatcher calls by tool from now on (a read answered from the mirror makes none). */
async function countCalls(page: IJupyterLabPageFixture): Promise<() => Promise<Record<string, number>>> {
  await page.waitForFunction(() => !!window.molspace?.dispatcher);
  await page.evaluate(() => {
    const w = window as unknown as { molspaceCalls: Record<string, number> };
    w.molspaceCalls = {};
    window.molspace!.dispatcher!.executed.connect((_, r) => {
      w.molspaceCalls[r.tool] = (w.molspaceCalls[r.tool] ?? 0) + 1;
    });
  });
  return () => page.evaluate(() => ({ ...(window as unknown as { molspaceCalls: Record<string, number> }).molspaceCalls }));
}

test.describe('activity panel and WebMCP', () => {
  test('calls from an agent, a cell and a click appear in order, as text', async ({ page, tmpPath }) => {
    await uploadDemo(page, tmpPath);
    const story = await runNotebook(page, `${tmpPath}/demo.ipynb`);
    await expect(story.locator('.molspace-story-step')).toHaveText('step 2 of 3');
    // Under Run All, `story.goto(...).wait()` shows what happened and the next cell reads the new step.
    const output = async (cell: number) => ((await page.notebook.getCellTextOutput(cell)) ?? []).join('').trim();
    await expect.poll(() => output(3), { timeout: 60_000 }).toMatch(/^<molspace\.Story '.*': goto 'binding-site': done/);
    expect(await output(4)).toMatch(/^1 binding-site \d+$/);
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

      const entries = await openActivity(page);
      await expect.poll(async () => (await entries.allTextContents()).length).toBeGreaterThanOrEqual(5);
      const all = await entryData(entries);
      // Newest first: the click, the cell's goto, the refused goto, the agent's next.
      const mine = all.filter(e => e.text.includes('story_control'));
      expect(mine.slice(0, 4).map(e => e.source)).toEqual(['ui', 'kernel', 'agent', 'agent']);
      expect(mine[2].text).toContain('NOT_FOUND');
      expect(mine[2].text).toContain(hostile); // shown as text ...
      // time, who (with the MCP client's name), tool → widget, outcome with the new revision, duration
      expect(mine[3].head).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d  agent \\(molspace-ui-tests\\)  story_control → ${target}  ok \\(revision \\d+\\)  \\d+ ms$`));
      expect(mine[3].text).toContain('action="next"'); // the short argument summary
      expect(mine[2].head).toMatch(/agent \(molspace-ui-tests\)  story_control → .*  NOT_FOUND  \d+ ms$/);
      // A cell's and a click's call without `target` still name the widget they acted on.
      expect(mine.slice(0, 2).map(e => e.target)).toEqual([target, target]);
      await expect(page.locator('#molspace-activity img')).toHaveCount(0); // ... never as markup
      expect(await page.evaluate(() => (window as unknown as { __molspacePwned?: number }).__molspacePwned)).toBeUndefined();
      await expect(page.locator('.molspace-activity-count')).toContainText(/molspace: \d+ calls/);

      // Filter by source.
      const sourceFilter = page.locator('#molspace-activity select[aria-label="Source"]');
      await sourceFilter.selectOption('kernel');
      const kernelOnly = await entries.evaluateAll(els => els.map(e => (e as HTMLElement).dataset.source));
      expect(kernelOnly.length).toBeGreaterThan(0);
      expect(new Set(kernelOnly)).toEqual(new Set(['kernel']));
      await sourceFilter.selectOption('');
      // Filter by widget: only the Story's entries (not observe, which names none).
      const widgetFilter = page.locator('#molspace-activity select[aria-label="Widget"]');
      await widgetFilter.selectOption(target);
      const ofStory = await entryData(entries);
      expect(ofStory.length).toBeGreaterThanOrEqual(4);
      expect(new Set(ofStory.map(e => e.target))).toEqual(new Set([target]));
      expect(ofStory.some(e => e.head.includes('  observe  '))).toBe(false);
      await widgetFilter.selectOption('');
      expect((await entryData(entries)).some(e => e.head.includes('  observe  '))).toBe(true);

      // A click on an entry scrolls its widget into view and highlights it.
      await runCell(page, 'from IPython.display import HTML\nHTML(\'<div style="height: 5000px">spacer</div>\')');
      await page.locator('.jp-NotebookPanel:visible .jp-WindowedPanel-outer').evaluate(el => (el.scrollTop = el.scrollHeight));
      await expect(story).not.toBeInViewport();
      await story.evaluate(el => {
        new MutationObserver(() => {
          if (el.classList.contains('molspace-mod-highlight')) {
            (window as unknown as { __molspaceHighlighted?: boolean }).__molspaceHighlighted = true;
          }
        }).observe(el, { attributes: true, attributeFilter: ['class'] });
      });
      await entries.filter({ hasText: 'action="next"' }).first().click();
      await expect(story).toBeInViewport();
      await expect
        .poll(() => page.evaluate(() => (window as unknown as { __molspaceHighlighted?: boolean }).__molspaceHighlighted))
        .toBe(true);

      // A hostile Story title (a docked Story an agent made) is text in the entry of the step it took.
      const title = '<img src=x onerror="window.__molspacePwned=2">';
      const document = {
        title,
        steps: [
          { key: 'a', title: 'A', description: 'a', root: { kind: 'root' } },
          { key: 'b', title: 'B', description: 'b', root: { kind: 'root' } }
        ]
      };
      const [created, createFailed] = await call(client, 'story_create', { path: `${tmpPath}/hostile.mvsj`, document, open: true });
      expect(createFailed, JSON.stringify(created)).toBe(false);
      const docked = created.story.target;
      const [, stepFailed] = await call(client, 'story_control', { target: docked, action: 'next' });
      expect(stepFailed).toBe(false);
      await openActivity(page);
      const ofDocked = entries.filter({ hasText: `story_control → ${docked}` }).first();
      await expect(ofDocked).toContainText(`Story "${title}"`);
      await expect(page.locator('#molspace-activity img')).toHaveCount(0);
      expect(await page.evaluate(() => (window as unknown as { __molspacePwned?: number }).__molspacePwned)).toBeUndefined();
    } finally {
      await client.close();
    }
  });

  test('an in-browser agent steps the Story through WebMCP; kernel and gateway see the same revision', async ({
    page,
    tmpPath
  }) => {
    // Before any widget: only the tools that need none (export names its target: any Viewer, Story or panel).
    const noWidget = ['export', 'ketcher_open', 'observe', 'open', 'story_create', 'story_validate'];
    await expect.poll(async () => (await page.webmcp.tools()).map(t => t.name).sort()).toEqual(noWidget);
    await uploadDemo(page, tmpPath);
    const story = await runNotebook(page, `${tmpPath}/demo.ipynb`);
    await expect(story.locator('.molspace-story-step')).toHaveText('step 2 of 3');
    // Tools that act on a widget kind are offered once one is live; the others (observe, open, ketcher_open, ...) always.
    await expect.poll(async () => (await page.webmcp.tools()).map(t => t.name).sort()).toEqual([
      'export',
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

    // The WebMCP calls are in the activity panel as agent (WebMCP), with their outcomes.
    const entries = await openActivity(page);
    const target = await story.getAttribute('data-molspace-model');
    await expect
      .poll(async () => (await entryData(entries)).filter(e => e.head.includes('agent (WebMCP)')).map(e => e.head.replace(/^\S+ /, '')))
      .toEqual([
        expect.stringMatching(new RegExp(`^ agent \\(WebMCP\\)  story_control → ${target}  NOT_FOUND  \\d+ ms$`)),
        expect.stringMatching(new RegExp(`^ agent \\(WebMCP\\)  story_control → ${target}  ok \\(revision ${revision}\\)  \\d+ ms$`))
      ]);

    // The tool list follows the page: with the Story gone, only the tools that need no widget remain.
    await runCell(page, 'story.close()');
    await expect.poll(async () => (await page.webmcp.tools()).map(t => t.name).sort()).toEqual(noWidget);
  });

  test('reads the gateway answers from the read mirror are agent entries; a batch is one entry and one undo step', async ({
    page,
    tmpPath
  }) => {
    await page.contents.uploadFile(path.join(ROOT, 'tests', 'data', 'structures', '1hpv.pdb'), `${tmpPath}/1hpv.pdb`);
    await page.notebook.createNew('activity.ipynb');
    await setCode(page, 0, 'import molspace\nv = molspace.Viewer("1hpv.pdb")\nv');
    await page.notebook.runCell(0, true);
    const viewer = page.locator('.molspace-viewer').first();
    await expect(viewer).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
    const target = (await viewer.getAttribute('data-molspace-model'))!;
    const calls = await countCalls(page);
    const entries = await openActivity(page);
    const client = await mcpClient(); // the official TS SDK; tools/list first
    try {
      // Once the page has pushed its answers, observe is answered by the gateway: no Dispatcher call,
      // yet an entry of the panel, with the agent's client name.
      const fromMirror = () => entryData(entries).then(all => all.filter(e => e.answeredBy === 'mirror'));
      await expect
        .poll(async () => {
          await call(client, 'observe');
          return (await fromMirror()).filter(e => e.head.includes('  observe  ')).length;
        })
        .toBeGreaterThan(0);
      const relayedObserves = (await calls()).observe ?? 0;
      for (let i = 0; i < 5; i++) {
        await call(client, 'observe');
      }
      const [read] = await call(client, 'viewer_observe', { target });
      await expect.poll(async () => (await fromMirror()).filter(e => e.head.includes('  observe  ')).length).toBeGreaterThanOrEqual(6);
      expect((await calls()).observe ?? 0).toBe(relayedObserves); // the five reads never reached the page
      const mirrored = await fromMirror();
      expect(mirrored[mirrored.length - 1].source).toBe('agent');
      const observeEntry = mirrored.find(e => e.head.includes('  observe  '))!;
      expect(observeEntry.head).toMatch(/^\d\d:\d\d:\d\d  agent \(molspace-ui-tests\)  observe  ok  \d+ ms$/);
      expect(observeEntry.text).toContain('answered by the gateway from the read mirror');
      await expect
        .poll(async () => (await fromMirror()).filter(e => e.head.includes('viewer_observe')).map(e => e.head.replace(/^\S+ /, '')))
        .toContainEqual(
          expect.stringMatching(new RegExp(`^ agent \\(molspace-ui-tests\\)  viewer_observe → ${target}  ok \\(revision ${read.viewer.revision}\\)  \\d+ ms$`))
        );
      expect((await calls()).viewer_observe ?? 0).toBe(0);

      // One act batch of two operations: one entry, one new revision, one undo step labelled with its source.
      const actEntries = () => entryData(entries).then(all => all.filter(e => e.head.includes('  act → ')));
      expect(await actEntries()).toEqual([]);
      const [acted, failed] = await call(client, 'act', {
        target,
        actions: [
          { op: 'set_representation', selector: 'polymer', representation: 'surface' },
          { op: 'set_background', color: '#202040' }
        ]
      });
      expect(failed, JSON.stringify(acted)).toBe(false);
      const revision = read.viewer.revision + 1;
      await expect.poll(async () => (await actEntries()).length).toBe(1);
      expect((await actEntries())[0].head).toMatch(
        new RegExp(`agent \\(molspace-ui-tests\\)  act → ${target}  ok \\(revision ${revision}\\)  \\d+ ms$`)
      );
      await expect(viewer.locator('[data-action="undo"]')).toHaveAttribute('title', /^Undo: .*surface.*\(agent\)$/);
      expect(await runCell(page, 'print(v.undo_steps, v.revision)')).toBe(`1 ${revision}`);
      // observe's lastAction is the record the panel shows for that call.
      const [observed] = await call(client, 'observe');
      expect(observed.lastAction).toMatchObject({ tool: 'act', target, source: 'agent', ok: true, revision });
    } finally {
      await client.close();
    }
  });
});
