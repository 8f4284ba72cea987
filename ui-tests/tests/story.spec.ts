/**
 * The main job end to end: the demo notebook plays a real Story in Mol*;
 * an MCP agent and the notebook cell drive the same widget and see each
 * other's steps; a click is seen by both; a call returns once the step is
 * drawn; a Story closed under a call gives STALE_TARGET; a description
 * shows its archive's images and MVS colour swatches.
 */
import * as fs from 'fs';
import * as path from 'path';
import { expect, test } from './sharedLab';
import type { Page, Route } from '@playwright/test';
import { ROOT, call, foregroundFraction, mcpClient, runCell, runNotebook, stillPicture, uploadDemo, setCode } from './helpers';

test.describe('Story in the demo notebook', () => {
  test('renders the demo Story in Mol* with its controls', async ({ page, tmpPath }) => {
    await uploadDemo(page, tmpPath);
    const story = await runNotebook(page, `${tmpPath}/demo.ipynb`);
    // The demo's second cell moved it to "binding-site".
    await expect(story.locator('.molspace-story-step')).toHaveText('step 2 of 3');
    await expect(story.locator('.molspace-story-title')).toHaveText('Binding site');
    await expect(story.locator('.molspace-story-description')).toContainText('Arg111');
    await expect(story.locator('.molspace-story-error')).toBeHidden();
    const canvas = story.locator('.molspace-story-canvas canvas').first();
    await expect.poll(() => foregroundFraction(canvas), { timeout: 30_000 }).toBeGreaterThan(0.02);
  });

  test('an agent and a cell drive the same Story and see each other', async ({ page, tmpPath }) => {
    await uploadDemo(page, tmpPath);
    const story = await runNotebook(page, `${tmpPath}/demo.ipynb`);
    await expect(story.locator('.molspace-story-step')).toHaveText('step 2 of 3');
    const client = await mcpClient();
    try {
      const [status] = await call(client, 'status');
      expect(status.pageConnected).toBe(true);
      expect(status.versions.molstar).toBe('5.11.0');

      const [observed, observeError] = await call(client, 'observe');
      expect(observeError).toBe(false);
      expect(observed.widgets).toHaveLength(1);
      const target = observed.widgets[0].id;
      expect(observed.widgets[0]).toMatchObject({ kind: 'story', title: 'Retinoic acid in CRABP2 (1CBS)' });

      // agent -> page -> kernel
      const [before] = await call(client, 'story_observe', { target });
      expect(before.story).toMatchObject({ index: 1, key: 'binding-site' });
      const [stepped, stepError] = await call(client, 'story_control', { target, action: 'next' });
      expect(stepError).toBe(false);
      expect(stepped.story).toMatchObject({ index: 2, key: 'ligand', ready: true });
      await expect(story.locator('.molspace-story-step')).toHaveText('step 3 of 3');
      expect(await runCell(page, 'print(story.index, story.key)')).toBe('2 ligand');

      // kernel -> page -> agent
      await runCell(page, 'story.goto("overview")');
      await expect
        .poll(async () => (await call(client, 'story_observe', { target }))[0].story.key)
        .toBe('overview');

      // a click -> agent and kernel
      await story.locator('[data-action="next"]').click();
      await expect
        .poll(async () => (await call(client, 'story_observe', { target }))[0].story.index)
        .toBe(1);
      expect(await runCell(page, 'print(story.index, story.last_change["source"])')).toBe('1 ui');

      // a stale expectedRevision is refused with both revisions
      const [current] = await call(client, 'story_observe', { target });
      const [conflict, isError] = await call(client, 'story_control', {
        target,
        action: 'next',
        expectedRevision: current.story.revision - 1
      });
      expect(isError).toBe(true);
      expect(conflict).toMatchObject({
        code: 'REVISION_CONFLICT',
        where: '/expectedRevision',
        details: { expectedRevision: current.story.revision - 1, currentRevision: current.story.revision }
      });
      expect(conflict.details.changes.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });
});

test('a "#key" link in a step description goes to that step', async ({ page, tmpPath }) => {
  await uploadDemo(page, tmpPath);
  const story = await runNotebook(page, `${tmpPath}/demo.ipynb`);
  // The demo's goto("binding-site") lands first.
  await expect(story.locator('.molspace-story-step')).toHaveText('step 2 of 3');
  await story.locator('[data-action="next"]').click();
  await expect(story.locator('.molspace-story-step')).toHaveText('step 3 of 3');
  await story.locator('.molspace-story-description a[href="#overview"]').click();
  await expect(story.locator('.molspace-story-step')).toHaveText('step 1 of 3');
  await expect(story).toHaveAttribute('data-molspace-ready', 'true');
  expect(await runCell(page, 'print(story.key, story.last_change["source"])')).toBe('overview ui');
});

/** Serve the committed 1hpv.pdb at an allowed https URL (nothing reaches the internet); returns the URL. */
async function serve1hpv(page: Pick<Page, 'route'>): Promise<string> {
  const url = 'https://files.rcsb.org/molspace-test/1hpv.pdb';
  const body = fs.readFileSync(path.join(ROOT, 'tests', 'data', 'structures', '1hpv.pdb'));
  await page.route(url, route => route.fulfill({ body, contentType: 'text/plain', headers: { 'Access-Control-Allow-Origin': '*' } }));
  return url;
}

test('MVS markdown commands in a description move the Story through its controls and focus the view, never navigating', async ({ page }) => {
  const url = await serve1hpv(page);
  const source = [
    'import molspace',
    `tree = {"kind": "root", "children": [{"kind": "download", "params": {"url": "${url}"}, "children": [{"kind": "parse", "params": {"format": "pdb"}, "children": [`,
    '  {"kind": "structure", "params": {"type": "model"}, "children": [',
    '    {"kind": "component", "params": {"selector": "polymer"}, "children": [{"kind": "representation", "params": {"type": "cartoon"}}]},',
    '    {"kind": "component", "ref": "lig", "params": {"selector": "ligand"}, "children": [{"kind": "representation", "params": {"type": "ball_and_stick"}}]}]}]}]}]}',
    'meta = lambda key, text: {"key": key, "title": key, "description": text, "linger_duration_ms": 3000}',
    'story = molspace.Story({"kind": "multiple", "metadata": {"version": "1", "timestamp": "2026-01-01T00:00:00Z"}, "snapshots": [',
    '  {"root": tree, "metadata": meta("one", "[Focus the inhibitor](!focus-refs=lig) or [go on](!next-snapshot)")},',
    '  {"root": tree, "metadata": meta("two", "[Back to the start](!apply-snapshot=one)")}]})',
    'story'
  ].join('\n');
  await page.notebook.createNew('commands.ipynb');
  await setCode(page, 0, source);
  await page.notebook.runCell(0, true);
  const story = page.locator('.molspace-story').first();
  await expect(story).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
  const pages = page.context().pages().length;
  const at = page.url();

  // focus-refs: Mol* moves the camera to the ligand (the picture changes), the Story stays at its step
  const canvas = story.locator('.molspace-story-canvas canvas').first();
  const link = story.locator('.molspace-story-description a', { hasText: 'Focus the inhibitor' });
  await link.hover();
  // The picture once it is still (hovering may highlight first), then the click moves the camera.
  const before = await stillPicture(canvas);
  await link.click();
  await expect.poll(async () => Buffer.compare(await canvas.screenshot(), before) !== 0, { timeout: 30_000 }).toBe(true);
  await expect(story.locator('.molspace-story-step')).toHaveText('step 1 of 2');

  // next-snapshot and apply-snapshot go through the Story's controls: the kernel sees them as the page's
  await story.locator('.molspace-story-description a', { hasText: 'go on' }).click();
  await expect(story.locator('.molspace-story-step')).toHaveText('step 2 of 2');
  await expect(story).toHaveAttribute('data-molspace-ready', 'true', { timeout: 60_000 });
  await story.locator('.molspace-story-description a', { hasText: 'Back to the start' }).click();
  await expect(story.locator('.molspace-story-step')).toHaveText('step 1 of 2');
  expect(await runCell(page, 'print(story.key, story.last_change["source"])')).toBe('one ui');

  // no command link opened a tab or navigated this one
  expect(page.context().pages().length).toBe(pages);
  expect(page.url()).toBe(at);
});

test('images in a description: the .mvsx archive\'s own files and MVS colour swatches draw, and nothing is fetched for them', async ({ page }) => {
  const url = await serve1hpv(page);
  const requested: string[] = [];
  page.on('request', r => requested.push(r.url()));
  // A 1x1 PNG in the archive at figs/site.png, referenced from the description as a relative path.
  const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
  const source = [
    'import base64, io, json, zipfile, molspace',
    `tree = {"kind": "root", "children": [{"kind": "download", "params": {"url": "${url}"}, "children": [{"kind": "parse", "params": {"format": "pdb"}, "children": [`,
    '  {"kind": "structure", "params": {"type": "model"}, "children": [{"kind": "component", "params": {"selector": "polymer"}, "children": [{"kind": "representation", "params": {"type": "cartoon"}}]}]}]}]}]}',
    'text = "![the site](figs/site.png) inhibitor ![](!color-swatch=%23ff0000) scale ![](!color-palette-name=viridis) ![gone](figs/missing.png)"',
    'doc = {"kind": "multiple", "metadata": {"version": "1", "timestamp": "2026-01-01T00:00:00Z"}, "snapshots": [',
    '  {"root": tree, "metadata": {"key": "one", "title": "one", "description": text, "linger_duration_ms": 3000}}]}',
    'buf = io.BytesIO()',
    // one line each: the editor would indent the lines after a `with` block
    'z = zipfile.ZipFile(buf, "w")',
    'z.writestr("index.mvsj", json.dumps(doc))',
    `z.writestr("figs/site.png", base64.b64decode("${png}"))`,
    'z.close()',
    'story = molspace.Story(buf.getvalue())',
    'story'
  ].join('\n');
  await page.notebook.createNew('images.ipynb');
  await setCode(page, 0, source);
  await page.notebook.runCell(0, true);
  const story = page.locator('.molspace-story').first();
  await expect(story).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
  const description = story.locator('.molspace-story-description');
  const image = description.locator('img.molspace-archive-image');
  await expect(image).toHaveAttribute('alt', 'the site');
  await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1);
  await expect(description.locator('.molspace-color-swatch')).toHaveCSS('background-color', 'rgb(255, 0, 0)');
  await expect(description.locator('.molspace-color-palette')).toHaveCSS('background-image', /^linear-gradient\(to right, rgb\(69, 8, 91\)/);
  await expect(description.locator('.molspace-refused-image')).toHaveText(/figs\/missing\.png — the Story's \.mvsx archive has no image "figs\/missing\.png"/);
  expect(requested.filter(u => u.includes('figs/') || u.includes('color-'))).toEqual([]);
});

/** What the page showed at the moment it sent one bridge `result` frame. */
interface ResultMoment {
  callId: string;
  ok: boolean;
  /** `data-molspace-drawn` of the Story: the key of the step Mol* last drew a frame for. */
  drawn: string | null;
  /** The Story's canvas as a PNG data URL (Mol* preserves its drawing buffer). */
  image: string;
}

/**
 * Page init script: when the page sends a bridge `result` frame (a call
 * returns to the agent), record what the first Story shows at that moment.
 */
function recordResultMoments(): void {
  const moments: ResultMoment[] = [];
  (window as unknown as { __molspaceResults: ResultMoment[] }).__molspaceResults = moments;
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (this: WebSocket, data: string | ArrayBufferLike | Blob | ArrayBufferView) {
    if (typeof data === 'string' && this.url.includes('/molspace/bridge') && data.includes('"type":"result"')) {
      const frame = JSON.parse(data);
      const story = document.querySelector('.molspace-story');
      const canvas = story?.querySelector('.molspace-story-canvas canvas');
      moments.push({
        callId: frame.callId,
        ok: frame.ok,
        drawn: story?.getAttribute('data-molspace-drawn') ?? null,
        image: canvas instanceof HTMLCanvasElement ? canvas.toDataURL('image/png') : ''
      });
    }
    return send.call(this, data);
  };
}

test('a story_control call returns once Mol* has drawn the new step', async ({ page, tmpPath }) => {
  await page.addInitScript(recordResultMoments);
  await page.reload();
  await uploadDemo(page, tmpPath);
  const story = await runNotebook(page, `${tmpPath}/demo.ipynb`);
  await expect(story.locator('.molspace-story-step')).toHaveText('step 2 of 3');
  const client = await mcpClient();
  try {
    const [observed] = await call(client, 'observe');
    const target = observed.widgets[0].id;
    const moments = () => page.evaluate(() => (window as any).__molspaceResults as ResultMoment[]);
    let previous = await story.locator('.molspace-story-canvas canvas').first().evaluate(c => (c as HTMLCanvasElement).toDataURL('image/png'));
    for (const key of ['ligand', 'overview', 'binding-site']) {
      const [stepped, isError] = await call(client, 'story_control', { target, action: 'goto', key });
      expect(isError).toBe(false);
      expect(stepped.story).toMatchObject({ key, ready: true });
      const moment = (await moments()).at(-1)!;
      expect(moment.ok).toBe(true);
      // When the page answered, Mol* had already drawn a frame of this step...
      expect(moment.drawn).toBe(key);
      // ... and the canvas showed something other than the previous step.
      expect(moment.image.length).toBeGreaterThan(0);
      expect(moment.image).not.toBe(previous);
      previous = moment.image;
    }
  } finally {
    await client.close();
  }
});

test('a call on a Story that is closed while its step is drawn fails with STALE_TARGET', async ({ page, tmpPath }) => {
  // Step 1's structure is served; step 2's download hangs until the test lets it go.
  const cif = fs.readFileSync(path.join(ROOT, 'examples', 'data', '1cbs.cif'));
  await page.route('https://files.rcsb.org/molspace-test/first.cif', route =>
    route.fulfill({ body: cif, contentType: 'text/plain', headers: { 'Access-Control-Allow-Origin': '*' } })
  );
  const held: { route: Route | null } = { route: null };
  const secondRequested = new Promise<void>(resolve =>
    page.route('https://files.rcsb.org/molspace-test/second.cif', route => {
      held.route = route;
      resolve();
    })
  );
  await page.notebook.createNew('stale.ipynb');
  await setCode(page, 0, TWO_STEP_STORY);
  await page.notebook.runCell(0, true);
  const story = page.locator('.molspace-story').first();
  await expect(story).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
  const client = await mcpClient();
  try {
    const [observed] = await call(client, 'observe');
    const target = observed.widgets[0].id;
    const pending = call(client, 'story_control', { target, action: 'goto', key: 'second' });
    // The call now waits for step 2 to be drawn; the cell closes the widget meanwhile.
    await secondRequested;
    await runCell(page, 'story.close()');
    const [error, isError] = await pending;
    expect(isError).toBe(true);
    expect(error).toMatchObject({ code: 'STALE_TARGET', where: '/target', details: { target } });
    expect(error.fix).toMatch(/observe/);
    const [after] = await call(client, 'observe');
    expect(after.widgets).toEqual([]);
  } finally {
    await held.route?.abort().catch(() => undefined);
    await client.close();
  }
});

/** A two-step Story whose steps download different (test-served) structures. */
const TWO_STEP_STORY = [
  'import molspace',
  'cartoon = {"kind": "component", "params": {"selector": "all"}, "children": [{"kind": "representation", "params": {"type": "cartoon"}}]}',
  'model = {"kind": "structure", "params": {"type": "model"}, "children": [cartoon]}',
  'download = lambda url: {"kind": "download", "params": {"url": url}, "children": [{"kind": "parse", "params": {"format": "mmcif"}, "children": [model]}]}',
  'step = lambda key, url: {"root": {"kind": "root", "children": [download(url)]}, "metadata": {"key": key, "title": key, "linger_duration_ms": 1000}}',
  'story = molspace.Story({"kind": "multiple", "metadata": {"version": "1", "timestamp": "2026-01-01T00:00:00Z"},',
  '    "snapshots": [step("first", "https://files.rcsb.org/molspace-test/first.cif"), step("second", "https://files.rcsb.org/molspace-test/second.cif")]})',
  'story'
].join('\n');
