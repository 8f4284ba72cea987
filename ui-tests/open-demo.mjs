// Open the demo notebook as a person would, in Debian's Chromium, on a running JupyterLab, and
// run all its cells: the Story must draw and the cells must print the step the page applied.
// Used by tests/test_release.py (a fresh venv with only the built wheel and jupyterlab) and
// tests/test_binder.py (what Binder builds from binder/).
//   node ui-tests/open-demo.mjs <lab URL with base_url, e.g. http://127.0.0.1:8890/user/pat/> <token> <out dir> [notebook]
// [notebook] is the demo's path under the lab's root (default demo.ipynb).
// Prints one JSON line {ok, outputs, error}; exits 0 only when the demo ran as expected.
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { chromium } from 'playwright-core';

const require = createRequire(import.meta.url);
const browserOptions = require('./chromium.js');
const [url, token, out, notebookPath = 'demo.ipynb'] = process.argv.slice(2);
if (!url || !token || !out) {
  console.error('usage: node ui-tests/open-demo.mjs <lab URL> <token> <out dir> [notebook]');
  process.exit(2);
}

const browser = await chromium.launch({ headless: true, executablePath: browserOptions.executablePath, args: browserOptions.args });
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
let outputs = [];
let kernelDialog = null;
try {
  await page.goto(new URL(`lab/tree/${notebookPath}?token=${token}`, url).href);
  const notebook = page.locator('.jp-NotebookPanel');
  await notebook.waitFor({ timeout: 120_000 });
  // The kernel started and idle (status bar), then any kernel dialog answered with its default.
  await page.locator('.jp-StatusBar-TextItem', { hasText: /\| Idle$/ }).first().waitFor({ timeout: 120_000 });
  const dialog = page.locator('.jp-Dialog');
  if (await dialog.isVisible()) {
    kernelDialog = (await dialog.innerText()).split('\n')[0];
    await dialog.locator('.jp-mod-accept').click();
  }
  await page.getByRole('menuitem', { name: 'Run', exact: true }).click();
  await page.getByRole('menuitem', { name: /^Run All Cells/ }).click();
  const story = page.locator('.molspace-story').first();
  await story.and(page.locator('[data-molspace-ready="true"]')).waitFor({ timeout: 120_000 });
  // The third code cell prints the step the page applied; wait for it under Run All.
  const printed = page.locator('.jp-OutputArea-output');
  await page.waitForFunction(
    () => [...document.querySelectorAll('.jp-OutputArea-output')].some(n => /^1 binding-site \d+/.test(n.textContent.trim())),
    undefined,
    { timeout: 120_000 }
  );
  outputs = (await printed.allTextContents()).map(t => t.trim());
  console.log(JSON.stringify({ ok: true, outputs, kernelDialog }));
} catch (e) {
  outputs = (await page.locator('.jp-OutputArea-output').allTextContents().catch(() => [])).map(t => t.trim());
  await page.screenshot({ path: path.join(out, 'open-demo.png') }).catch(() => undefined);
  console.log(JSON.stringify({ ok: false, outputs, kernelDialog, error: String(e).slice(0, 2000) }));
  process.exitCode = 1;
} finally {
  await browser.close();
}
