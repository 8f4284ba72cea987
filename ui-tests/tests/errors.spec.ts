/**
 * A Story whose download URLs cannot be reached shows a located error in the
 * widget, and the kernel's `story.error` says the same.
 */
import * as path from 'path';
import { expect, test } from '@jupyterlab/galata';
import { ROOT, runCell } from './helpers';

test('an unreachable download URL gives a located error in the page and the kernel', async ({ page, tmpPath }) => {
  // The network is unreachable: refuse every request to the Story's structure host.
  await page.route('**/www.ebi.ac.uk/**', route => route.abort('internetdisconnected'));
  await page.contents.uploadFile(path.join(ROOT, 'tests', 'data', 'kinase-story.mvsj'), `${tmpPath}/kinase-story.mvsj`);
  await page.notebook.createNew('kinase.ipynb');
  await page.notebook.setCell(0, 'code', 'import molspace\nstory = molspace.Story("kinase-story.mvsj")\nstory');
  await page.notebook.runCell(0, true);
  const error = page.locator('.molspace-story .molspace-story-error');
  await expect(error).toBeVisible({ timeout: 60_000 });
  await expect(error).toContainText('https://www.ebi.ac.uk/pdbe/entry-files/download/');
  await expect(error).toContainText('intro');
  const shown = (await error.textContent()) ?? '';
  const kernel = await runCell(page, 'print(story.error["code"]); print(story.error["message"]); print(story.error["fix"])');
  const [code, message, fix] = kernel.split('\n');
  expect(code).toBe('NOT_FOUND');
  expect(shown).toContain(message);
  expect(shown).toContain(fix);
});
