/**
 * A Story whose download URLs cannot be reached shows a located error in the
 * widget, and the kernel's `story.error` says the same.
 */
import * as path from 'path';
import { expect, test } from './sharedLab';
import { ROOT, runCell, setCode } from './helpers';

test('an unreachable download URL gives a located error in the page and the kernel', async ({ page, tmpPath }) => {
  // The network is unreachable: refuse every request to the Story's structure host.
  await page.route('**/www.ebi.ac.uk/**', route => route.abort('internetdisconnected'));
  await page.contents.uploadFile(path.join(ROOT, 'tests', 'data', 'kinase-story.mvsj'), `${tmpPath}/kinase-story.mvsj`);
  await page.notebook.createNew('kinase.ipynb');
  await setCode(page, 0, 'import molspace\nstory = molspace.Story("kinase-story.mvsj")\nstory');
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

test('a Story that does not validate shows every issue, located, in the page and the kernel', async ({ page, tmpPath }) => {
  await page.notebook.createNew('invalid.ipynb');
  // Two snapshots: one with a node kind MVS does not have, one with a negative duration and a duplicate key.
  const source = [
    'import molspace',
    'root = lambda children: {"kind": "root", "children": children}',
    'bad_node = root([{"kind": "download", "params": {"url": "https://example.org/x.cif"}, "children": [{"kind": "parse_everything", "params": {}}]}])',
    'meta = lambda key, linger: {"key": key, "title": key, "linger_duration_ms": linger}',
    'story = molspace.Story({"kind": "multiple", "metadata": {"version": "1", "timestamp": "2026-01-01T00:00:00Z"},',
    '    "snapshots": [{"root": bad_node, "metadata": meta("a", 1000)}, {"root": root([]), "metadata": meta("a", -5)}]})',
    'story'
  ].join('\n');
  await setCode(page, 0, source);
  await page.notebook.runCell(0, true);
  const error = page.locator('.molspace-story .molspace-story-error');
  await expect(error).toBeVisible({ timeout: 60_000 });
  await expect(error).toContainText('VALIDATION_FAILED');
  const kernel = await runCell(
    page,
    'e = story.error\nprint(e["code"], e["where"])\nprint(len(e["details"]["issues"]))\nprint(sorted({i["snapshotIndex"] for i in e["details"]["issues"]}))'
  );
  const [codeWhere, count, snapshots] = kernel.split('\n');
  expect(codeWhere.split(' ')[0]).toBe('VALIDATION_FAILED');
  expect(codeWhere.split(' ')[1]).toMatch(/^\/snapshots\/0/);
  expect(Number(count)).toBeGreaterThanOrEqual(3);
  expect(snapshots).toBe('[0, 1]');
  await expect(error).toContainText('/snapshots/0');
});

test('a Story that would fetch from this server or an unlisted host is FORBIDDEN before any request', async ({
  page,
  baseURL
}) => {
  const requested: string[] = [];
  page.on('request', r => {
    if (r.url().includes('/molspace-forbidden') || r.url().includes('example.org')) {
      requested.push(r.url());
    }
  });
  const own = `${baseURL}/files/molspace-forbidden.cif`;
  await page.notebook.createNew('forbidden.ipynb');
  const source = [
    'import molspace',
    'dl = lambda url: {"kind": "root", "children": [{"kind": "download", "params": {"url": url}, "children": [{"kind": "parse", "params": {"format": "mmcif"}}]}]}',
    'meta = lambda key: {"key": key, "title": key, "linger_duration_ms": 1000}',
    'story = molspace.Story({"kind": "multiple", "metadata": {"version": "1", "timestamp": "2026-01-01T00:00:00Z"},',
    `    "snapshots": [{"root": dl("${own}"), "metadata": meta("own")}, {"root": dl("https://example.org/x.cif"), "metadata": meta("other")}]})`,
    'story'
  ].join('\n');
  await setCode(page, 0, source);
  await page.notebook.runCell(0, true);
  const error = page.locator('.molspace-story .molspace-story-error');
  await expect(error).toBeVisible({ timeout: 60_000 });
  await expect(error).toContainText('FORBIDDEN');
  await expect(error).toContainText(own);
  const kernel = await runCell(
    page,
    'e = story.error\nprint(e["code"], e["where"])\nprint(e["details"]["count"], e["details"]["setting"])\nprint(e["fix"])'
  );
  const [codeWhere, countSetting, fix] = kernel.split('\n');
  expect(codeWhere).toBe('FORBIDDEN /snapshots/0/root/children/0/params/url');
  expect(countSetting).toBe('2 resourceHosts');
  expect(fix).toContain('Story resource hosts');
  expect(requested).toEqual([]);
});

test('images in a Story description load only from the allowed hosts; others become a note', async ({ page, baseURL }) => {
  const requested: string[] = [];
  page.on('request', r => {
    if (r.url().includes('tracker.example.com') || r.url().includes('molspace-own.png')) {
      requested.push(r.url());
    }
  });
  await page.notebook.createNew('images.ipynb');
  const description = `Pixel ![p](https://tracker.example.com/p.png) own ![o](${baseURL}/files/molspace-own.png) <img src="https://tracker.example.com/q.png" onerror="window.__molspacePwned=1">`;
  const source = [
    'import molspace',
    `meta = {"key": "one", "title": "One", "linger_duration_ms": 1000, "description": ${JSON.stringify(description)}}`,
    'story = molspace.Story({"kind": "multiple", "metadata": {"version": "1", "timestamp": "2026-01-01T00:00:00Z"},',
    '    "snapshots": [{"root": {"kind": "root", "children": []}, "metadata": meta}]})',
    'story'
  ].join('\n');
  await setCode(page, 0, source);
  await page.notebook.runCell(0, true);
  const shown = page.locator('.molspace-story .molspace-story-description');
  await expect(shown).toContainText('Pixel');
  await expect(shown.locator('.molspace-refused-image')).toHaveCount(3);
  await expect(shown.locator('img')).toHaveCount(0);
  expect(requested).toEqual([]);
  expect(await page.evaluate(() => (window as unknown as { __molspacePwned?: number }).__molspacePwned)).toBeUndefined();
});

test('a resource that answers 404, or an HTML page, is named with its status or "got HTML"', async ({ page }) => {
  await page.route('https://files.rcsb.org/molspace-test/missing.cif', route =>
    route.fulfill({ status: 404, body: 'Not Found', headers: { 'Access-Control-Allow-Origin': '*' } })
  );
  await page.route('https://files.rcsb.org/molspace-test/page.cif', route =>
    route.fulfill({
      status: 200,
      contentType: 'text/html',
      body: '<!DOCTYPE html><html><head><title>Sign in</title></head><body><form>Log in</form></body></html>',
      headers: { 'Access-Control-Allow-Origin': '*' }
    })
  );
  await page.notebook.createNew('faults.ipynb');
  const source = [
    'import molspace',
    'dl = lambda url: {"kind": "root", "children": [{"kind": "download", "params": {"url": url}, "children": [{"kind": "parse", "params": {"format": "mmcif"}, "children": [{"kind": "structure", "params": {"type": "model"}}]}]}]}',
    'meta = {"key": "one", "title": "One", "linger_duration_ms": 1000}',
    'mk = lambda url: molspace.Story({"kind": "multiple", "metadata": {"version": "1", "timestamp": "2026-01-01T00:00:00Z"}, "snapshots": [{"root": dl(url), "metadata": meta}]})',
    'missing = mk("https://files.rcsb.org/molspace-test/missing.cif")',
    'html = mk("https://files.rcsb.org/molspace-test/page.cif")',
    'display(missing, html)'
  ].join('\n');
  await setCode(page, 0, source);
  await page.notebook.runCell(0, true);
  await expect(page.locator('.molspace-story .molspace-story-error')).toHaveCount(2, { timeout: 90_000 });
  const kernel = await runCell(
    page,
    [
      'for s in (missing, html):',
      '    e = s.error',
      '    print(e["code"], e["where"], e["details"].get("status"), e["details"].get("got"))'
    ].join('\n')
  );
  const [m, h] = kernel.split('\n');
  expect(m).toBe('NOT_FOUND /snapshots/0/root/children/0/params/url 404 None');
  expect(h).toBe('UNSUPPORTED_FORMAT /snapshots/0/root/children/0/params/url None html');
  await expect(page.locator('.molspace-story .molspace-story-error').nth(1)).toContainText('got HTML');
});
