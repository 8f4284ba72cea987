/**
 * The Story widget when things go wrong around it: a parked Story (its
 * viewer released to stay within the WebGL budget) is drawn before a call on
 * it returns; a lost WebGL context is a located error with `ready` false,
 * and the same step is drawn again once the context is back; two pages
 * showing one notebook play it with one timer, one step per tick; a
 * download redirected off the allowed resource hosts is a located FORBIDDEN.
 * Every wait is on the widget's reported state, never on a timer.
 */
import * as fs from 'fs';
import * as path from 'path';
import { expect, galata, test } from '@jupyterlab/galata';
import type { Page } from '@playwright/test';
import { ROOT, call, foregroundFraction, mcpClient, runCell, uploadStory } from './helpers';

const CIF = fs.readFileSync(path.join(ROOT, 'examples', 'data', '1cbs.cif'));
const CORS = { 'Access-Control-Allow-Origin': '*' };

/** What one Story showed when the page sent a bridge `result` frame. */
interface ResultMoment {
  ok: boolean;
  /** `data-molspace-drawn` of each Story by model id. */
  drawn: Record<string, string | null>;
  /** `data-molspace-parked` of each Story by model id. */
  parked: Record<string, boolean>;
}

/** Page init script: at every bridge `result` frame, record what each Story shows. */
function recordResultMoments(): void {
  const moments: ResultMoment[] = [];
  (window as unknown as { __molspaceResults: ResultMoment[] }).__molspaceResults = moments;
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (this: WebSocket, data: string | ArrayBufferLike | Blob | ArrayBufferView) {
    if (typeof data === 'string' && this.url.includes('/molspace/bridge') && data.includes('"type":"result"')) {
      const frame = JSON.parse(data);
      const moment: ResultMoment = { ok: frame.ok, drawn: {}, parked: {} };
      for (const story of document.querySelectorAll('.molspace-story')) {
        const id = story.getAttribute('data-molspace-model') ?? '';
        moment.drawn[id] = story.getAttribute('data-molspace-drawn');
        moment.parked[id] = story.getAttribute('data-molspace-parked') === 'true';
      }
      moments.push(moment);
    }
    return send.call(this, data);
  };
}

test.describe('a parked Story', () => {
  // One live viewer per page: showing the second Story parks the first.
  test.use({
    mockSettings: { ...galata.DEFAULT_SETTINGS, 'molspace:plugin': { maxLiveViewers: 1 } }
  });

  test('is drawn before a call on it returns', async ({ page, tmpPath }) => {
    await page.addInitScript(recordResultMoments);
    await page.reload();
    await uploadStory(page, tmpPath);
    await page.notebook.createNew('parked.ipynb');
    await page.notebook.setCell(
      0,
      'code',
      'import molspace\nfrom IPython.display import display\n' +
        'a = molspace.Story("data/1cbs-story.mvsx")\nb = molspace.Story("data/1cbs-story.mvsx")\ndisplay(a)\ndisplay(b)'
    );
    await page.notebook.runCell(0, true);
    const stories = page.locator('.molspace-story');
    await expect(stories).toHaveCount(2, { timeout: 60_000 });
    const [first, second] = [stories.nth(0), stories.nth(1)];
    await expect(second).toHaveAttribute('data-molspace-ready', 'true', { timeout: 120_000 });
    await expect(first).toHaveAttribute('data-molspace-parked', 'true', { timeout: 60_000 });
    const target = (await first.getAttribute('data-molspace-model'))!;

    const client = await mcpClient();
    try {
      const [stepped, isError] = await call(client, 'story_control', { target, action: 'goto', key: 'ligand' });
      expect(isError, JSON.stringify(stepped)).toBe(false);
      expect(stepped.story).toMatchObject({ target, key: 'ligand', ready: true, error: null });
      // When the page answered, the parked Story was live again and Mol* had drawn the step.
      const moment = (await page.evaluate(() => (window as any).__molspaceResults as ResultMoment[])).at(-1)!;
      expect(moment.ok).toBe(true);
      expect(moment.parked[target]).toBe(false);
      expect(moment.drawn[target]).toBe('ligand');
      // Within the budget: the other Story gave its viewer up.
      await expect(second).toHaveAttribute('data-molspace-parked', 'true');
      await expect(page.locator('.molspace-story-viewer')).toHaveCount(1);
      const [observed] = await call(client, 'story_observe', { target });
      expect(observed.story).toMatchObject({ key: 'ligand', ready: true, error: null });
    } finally {
      await client.close();
    }
  });
});

/** The first Story's WebGL context: lose or restore it with `WEBGL_lose_context`. */
async function loseContext(page: Page, action: 'loseContext' | 'restoreContext'): Promise<void> {
  await page.evaluate(act => {
    const w = window as unknown as { __loseContext?: { loseContext(): void; restoreContext(): void } };
    if (!w.__loseContext) {
      const canvas = document.querySelector('.molspace-story .molspace-story-canvas canvas') as HTMLCanvasElement;
      const gl = (canvas.getContext('webgl2') ?? canvas.getContext('webgl')) as WebGLRenderingContext;
      w.__loseContext = gl.getExtension('WEBGL_lose_context')!;
    }
    w.__loseContext[act]();
  }, action);
}

test('a lost WebGL context is a located error with ready false; on restore the same step is drawn again', async ({
  page,
  tmpPath
}) => {
  await uploadStory(page, tmpPath);
  await page.notebook.createNew('lost.ipynb');
  await page.notebook.setCell(0, 'code', 'import molspace\nstory = molspace.Story("data/1cbs-story.mvsx")\nstory');
  await page.notebook.runCell(0, true);
  const story = page.locator('.molspace-story').first();
  await expect(story).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
  const canvas = story.locator('.molspace-story-canvas canvas').first();
  const client = await mcpClient();
  try {
    const target = (await story.getAttribute('data-molspace-model'))!;
    const [moved] = await call(client, 'story_control', { target, action: 'goto', key: 'binding-site' });
    expect(moved.story).toMatchObject({ key: 'binding-site', ready: true });

    await loseContext(page, 'loseContext');
    await expect(story).toHaveAttribute('data-molspace-context-lost', 'true');
    await expect(story).toHaveAttribute('data-molspace-ready', 'false');
    const panel = story.locator('.molspace-story-error');
    await expect(panel).toBeVisible();
    await expect(panel).toContainText('lost its WebGL context');
    await expect(panel).toContainText('step 2 ("binding-site")');
    await expect(story.locator('.molspace-story-restart')).toBeVisible();
    const [lost] = await call(client, 'story_observe', { target });
    expect(lost.story).toMatchObject({ key: 'binding-site', ready: false, error: { code: 'INTERNAL', where: target } });
    expect(lost.story.error.fix).toMatch(/restores the context/);
    expect(await runCell(page, 'print(story.ready, story.error["details"]["reason"])')).toBe('False webgl-context-lost');

    // A call meanwhile is not answered "ready": it fails, located; the Story is at that step now.
    const [refused, failed] = await call(client, 'story_control', { target, action: 'goto', key: 'ligand' });
    expect(failed).toBe(true);
    expect(refused).toMatchObject({ code: 'INTERNAL', where: target, details: { key: 'ligand', reason: 'webgl-context-lost' } });
    await expect(panel).toContainText('step 3 ("ligand")');

    await loseContext(page, 'restoreContext');
    await expect(story).toHaveAttribute('data-molspace-ready', 'true', { timeout: 60_000 });
    await expect(story).not.toHaveAttribute('data-molspace-context-lost', 'true');
    await expect(story).toHaveAttribute('data-molspace-drawn', 'ligand');
    await expect(story).toHaveAttribute('data-molspace-index', '2');
    await expect(panel).toBeHidden();
    await expect(story.locator('.molspace-story-restart')).toHaveCount(0);
    // The molecule is on the canvas again, not a blank background.
    await expect.poll(() => foregroundFraction(canvas), { timeout: 30_000 }).toBeGreaterThan(0.02);
    const [restored] = await call(client, 'story_observe', { target });
    expect(restored.story).toMatchObject({ key: 'ligand', ready: true, error: null });
  } finally {
    await client.close();
  }
});

test('a download redirected off the allowed hosts is FORBIDDEN, naming the URL, where it went and the setting', async ({
  page
}) => {
  const requested: string[] = [];
  await page.route('https://files.rcsb.org/molspace-test/**', route => {
    const url = route.request().url();
    requested.push(url);
    const to = url.endsWith('/away.cif')
      ? 'https://evil.example.net/1cbs.cif'
      : 'https://models.rcsb.org/molspace-test/1cbs.cif';
    return route.fulfill({ status: 302, headers: { ...CORS, Location: to } });
  });
  await page.route('https://models.rcsb.org/molspace-test/1cbs.cif', route =>
    route.fulfill({ body: CIF, contentType: 'text/plain', headers: CORS })
  );
  await page.route('https://evil.example.net/**', route => {
    requested.push(route.request().url());
    return route.fulfill({ body: CIF, contentType: 'text/plain', headers: CORS });
  });
  const source = [
    'import molspace',
    'cartoon = {"kind": "component", "params": {"selector": "all"}, "children": [{"kind": "representation", "params": {"type": "cartoon"}}]}',
    'model = {"kind": "structure", "params": {"type": "model"}, "children": [cartoon]}',
    'download = lambda url: {"kind": "download", "params": {"url": url}, "children": [{"kind": "parse", "params": {"format": "mmcif"}, "children": [model]}]}',
    'step = lambda key, url: {"root": {"kind": "root", "children": [download(url)]}, "metadata": {"key": key, "title": key}}',
    'story = molspace.Story({"kind": "multiple", "metadata": {"version": "1", "timestamp": "2026-01-01T00:00:00Z"},',
    '    "snapshots": [step("moved", "https://files.rcsb.org/molspace-test/moved.cif"), step("away", "https://files.rcsb.org/molspace-test/away.cif")]})',
    'story'
  ].join('\n');
  await page.notebook.createNew('redirect.ipynb');
  await page.notebook.setCell(0, 'code', source);
  await page.notebook.runCell(0, true);
  const story = page.locator('.molspace-story').first();
  // A redirect that stays on an allowed host (models.rcsb.org) loads.
  await expect(story).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
  await expect(story).toHaveAttribute('data-molspace-drawn', 'moved');
  const client = await mcpClient();
  try {
    const target = (await story.getAttribute('data-molspace-model'))!;
    const [error, isError] = await call(client, 'story_control', { target, action: 'goto', key: 'away' });
    expect(isError).toBe(true);
    expect(error).toMatchObject({
      code: 'FORBIDDEN',
      where: '/snapshots/1/root/children/0/params/url',
      details: {
        snapshotIndex: 1,
        key: 'away',
        url: 'https://files.rcsb.org/molspace-test/away.cif',
        redirectedTo: 'https://evil.example.net/1cbs.cif',
        setting: 'resourceHosts'
      }
    });
    expect(error.message).toContain('Snapshot 1 ("away")');
    expect(error.message).toContain('evil.example.net');
    expect(error.fix).toContain('resourceHosts');
    await expect(story.locator('.molspace-story-error')).toContainText('FORBIDDEN');
    await expect(story.locator('.molspace-story-error')).toContainText('https://evil.example.net/1cbs.cif');
    await expect(story).toHaveAttribute('data-molspace-ready', 'false');
    const [observed] = await call(client, 'story_observe', { target });
    expect(observed.story).toMatchObject({ key: 'away', ready: false, error: { code: 'FORBIDDEN' } });
  } finally {
    await client.close();
  }
  expect(requested).toContain('https://files.rcsb.org/molspace-test/away.cif');
});

/** A four-step Story with empty scenes (draws at once, downloads nothing), one second a step. */
const FOUR_STEPS = [
  'import molspace',
  'meta = lambda k: {"key": k, "title": k, "linger_duration_ms": 1000}',
  'empty = {"kind": "root", "children": []}',
  'story = molspace.Story({"kind": "multiple", "metadata": {"version": "1", "timestamp": "2026-01-01T00:00:00Z", "title": "Four"},',
  '    "snapshots": [{"root": empty, "metadata": meta(k)} for k in "abcd"]})',
  'story'
].join('\n');

/** Record, in this page, every `play` step its own Dispatcher runs (`window.__plays`). */
async function recordPlays(page: Page, target: string): Promise<void> {
  await page.evaluate(id => {
    const w = window as any;
    w.__plays = [];
    const model = w.molspace.registry.find(id);
    model.services.dispatcher.executed.connect((_: unknown, r: { source: string; summary: string }) => {
      if (r.source === 'play') {
        w.__plays.push(r.summary);
      }
    });
  }, target);
}

const plays = (page: Page) => page.evaluate(() => (window as any).__plays as string[]);

test('two pages showing one notebook play it with one timer, one step per tick', async ({ page, tmpPath }) => {
  await page.notebook.createNew('two-pages.ipynb');
  await page.notebook.setCell(0, 'code', FOUR_STEPS);
  await page.notebook.runCell(0, true);
  const first = page.locator('.molspace-story').first();
  await expect(first).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
  await page.notebook.save();
  const target = (await first.getAttribute('data-molspace-model'))!;

  // A second page of the same JupyterLab opens the same notebook (same kernel, same widget model).
  const other = await page.context().newPage();
  try {
    await other.goto(`lab/tree/${tmpPath}/two-pages.ipynb`);
    const second = other.locator(`.molspace-story[data-molspace-model="${target}"]`);
    await expect(second).toHaveAttribute('data-molspace-ready', 'true', { timeout: 120_000 });
    await expect(second.locator('.molspace-story-step')).toHaveText('step 1 of 4');
    await recordPlays(page, target);
    await recordPlays(other, target);

    await first.locator('[data-action="play"]').click();
    // Both pages show every step; playback pauses after the last.
    for (const story of [first, second]) {
      await expect(story.locator('.molspace-story-step')).toHaveText('step 4 of 4', { timeout: 60_000 });
      await expect(story.locator('.molspace-story-toolbar [data-action="play"]')).toBeVisible({ timeout: 30_000 });
      await expect(story).toHaveAttribute('data-molspace-ready', 'true', { timeout: 60_000 });
    }
    // One timer: the page that pressed Play took every step, once; the other took none.
    expect(await plays(page)).toEqual([
      'next: step 2 of 4 ("b")',
      'next: step 3 of 4 ("c")',
      'next: step 4 of 4 ("d")',
      'pause at step 4 of 4 ("d")'
    ]);
    expect(await plays(other)).toEqual([]);
    expect(await runCell(page, 'print(story.index, story.playing, story.revision)')).toBe('3 False 5');
  } finally {
    await other.close();
  }
});
