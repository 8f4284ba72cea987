/**
 * molspace in JupyterLite, offline: the site scripts/build-lite.sh builds (lite.config.js) runs the
 * Story, Viewer, Ketcher and Panel widgets with the Pyodide kernel. Cells build them, a button
 * reaches the kernel, an in-browser agent reaches the tools through WebMCP, and what needs a Jupyter
 * server (RDKit's 3D embedding) fails located. Every request goes to the local site; the test fails
 * on any other (lite.config.js also makes other host names unresolvable).
 */
import { expect, test, type Locator, type Page } from '@playwright/test';
import { PNG } from 'pngjs';

/** Fraction of the element's pixels that differ from its most common colour (the background). */
async function foregroundFraction(locator: Locator): Promise<number> {
  const png = PNG.sync.read(await locator.screenshot());
  const counts = new Map<number, number>();
  for (let i = 0; i < png.data.length; i += 4) {
    const key = (png.data[i] << 16) | (png.data[i + 1] << 8) | png.data[i + 2];
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return (png.width * png.height - Math.max(...counts.values())) / (png.width * png.height);
}

/** Run the notebook cell whose source contains `marker` again; its text output. */
async function rerun(page: Page, marker: string): Promise<Locator> {
  const cell = page.locator('.jp-CodeCell', { has: page.locator('.jp-InputArea', { hasText: marker }) });
  await cell.locator('.jp-InputArea-editor').click();
  await page.keyboard.press('Control+Enter');
  return cell.locator('.jp-OutputArea-output');
}

/** Requests to anywhere but the local site (refused). */
const elsewhere: string[] = [];

// On a failure, what each cell printed (a pip install or a kernel error shows only there).
test.afterEach(async ({ page }, testInfo) => {
  if (testInfo.status !== testInfo.expectedStatus) {
    console.log(`requests refused (not to the local site): ${JSON.stringify(elsewhere)}`);
    const outputs = await page.locator('.jp-CodeCell .jp-OutputArea').evaluateAll(areas => areas.map(a => (a as HTMLElement).innerText));
    console.log(outputs.map((text, i) => `--- cell ${i} output\n${text.slice(-3000)}`).join('\n'));
  }
});

test('a JupyterLite site runs the Story, Viewer, Ketcher and Panel widgets with Pyodide, offline', async ({ page, context, baseURL }) => {
  const local = new URL(baseURL!).origin;
  await context.route('**/*', route => {
    const url = route.request().url();
    if (url.startsWith(`${local}/`) || url.startsWith('data:') || url.startsWith('blob:')) {
      return route.continue();
    }
    elsewhere.push(url);
    return route.abort('blockedbyclient');
  });
  context.on('request', request => {
    const url = request.url();
    if (!(url.startsWith(`${local}/`) || url.startsWith('data:') || url.startsWith('blob:'))) {
      elsewhere.push(url);
    }
  });

  await page.goto('lab/index.html?path=molspace-lite.ipynb');
  await expect(page.locator('.jp-NotebookPanel .jp-CodeCell')).toHaveCount(7, { timeout: 120_000 });
  // The Pyodide kernel, started with the notebook, is idle before the cells run.
  await expect(page.locator('.jp-NotebookPanel-toolbar .jp-Notebook-ExecutionIndicator[data-status="idle"]')).toHaveCount(1, {
    timeout: 180_000
  });
  await page.locator('.lm-MenuBar-itemLabel', { hasText: /^Run$/ }).click();
  await page.locator('.lm-Menu-itemLabel', { hasText: /^Run All Cells$/ }).click();

  // Viewer: a committed structure file read by the kernel from the site's contents, drawn by Mol*.
  const viewer = page.locator('.molspace-viewer').first();
  await expect(viewer).toHaveAttribute('data-molspace-ready', 'true', { timeout: 300_000 });
  await expect(viewer.locator('.molspace-viewer-summary')).toContainText('1 ligand (REA A 200), 100 waters, 1213 atoms');
  await expect.poll(() => foregroundFraction(viewer.locator('canvas').first()), { timeout: 60_000 }).toBeGreaterThan(0.02);

  // Story: an MVSX file with its structure inside; its Next button reaches the kernel.
  const story = page.locator('.molspace-story').first();
  await expect(story).toHaveAttribute('data-molspace-ready', 'true', { timeout: 120_000 });
  await expect(story.locator('.molspace-story-step')).toHaveText('step 1 of 3');

  // Panel and Ketcher (the editor frame and Indigo's WASM are the site's own files).
  const panel = page.locator('.molspace-panel').first();
  await expect(panel).toHaveAttribute('data-molspace-ready', 'true', { timeout: 60_000 });
  await expect(panel.locator('strong')).toHaveText('Pyodide');
  const editor = page.locator('.molspace-ketcher').first();
  await expect(editor).toHaveAttribute('data-molspace-ready', 'true', { timeout: 180_000 });

  // What needs a server says so, located: RDKit's 3D embedding is not in the site's Pyodide.
  const embedded = page.locator('.jp-CodeCell', { has: page.locator('.jp-InputArea', { hasText: 'editor.to_viewer()' }) });
  await expect(embedded.locator('.jp-OutputArea-output')).toContainText(
    'to_viewer: UNSUPPORTED_FORMAT molfile In JupyterLite, %pip install rdkit'
  );

  await story.locator('button[data-action="next"]').click();
  await expect(story.locator('.molspace-story-step')).toHaveText('step 2 of 3');
  await expect(await rerun(page, 'print("story index"')).toHaveText('story index 1 ui');

  // An in-browser agent: the page's tools through WebMCP, answered by the same widgets.
  await expect
    .poll(async () => (await page.webmcp.tools()).map(t => t.name))
    .toEqual(expect.arrayContaining(['observe', 'story_control', 'story_observe', 'ketcher_open', 'open']));
  const stepped = (await page.webmcp.callTool('story_control', { action: 'next' })) as {
    structuredContent: { story: { index: number } };
  };
  expect(stepped.structuredContent.story.index).toBe(2);
  await expect(story.locator('.molspace-story-step')).toHaveText('step 3 of 3');
  await expect(await rerun(page, 'print("story index"')).toHaveText('story index 2 agent');

  // The page's 3D embedding is the Jupyter server's (molspace/embed3d): without one, a located error.
  const target = await editor.getAttribute('data-molspace-model');
  const opened = (await page.webmcp.callTool('open', { ketcher: target })) as { isError?: boolean; content: { text: string }[] };
  expect(opened.isError, JSON.stringify(opened)).toBe(true);
  const error = JSON.parse(opened.content[0].text.split('\n')[1]);
  expect(error).toMatchObject({ where: '/ketcher' });
  expect(error.message).toContain('server');

  // No MCP gateway in a static site: the page's bridge asks once (a 404 at molspace/bridge), stops
  // retrying, and says so in a JupyterLab notification, located.
  await expect
    .poll(() => page.evaluate(() => (window as any).molspace?.bridge.error ?? null), { timeout: 60_000 })
    .toMatchObject({ code: 'NOT_FOUND', where: 'bridge' });
  expect(await page.evaluate(() => (window as any).molspace.bridge.state)).toBe('stopped');
  await expect(page.locator('.Toastify__toast', { hasText: 'No molspace gateway serves this page' })).toHaveCount(1);

  expect(elsewhere, 'requests that left the local site').toEqual([]);
});
