/**
 * The Story widget when things go wrong around it: a parked Story (its
 * viewer released to stay within the WebGL budget) is drawn before a call on
 * it returns; a lost WebGL context is a located error with `ready` false,
 * and the same step is drawn again once the context is back; a download
 * redirected off the allowed resource hosts is a located FORBIDDEN.
 * Every wait is on the widget's reported state, never on a timer.
 */
import * as fs from 'fs';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as path from 'path';
import { expect, galata, test } from '@jupyterlab/galata';
import type { Page } from '@playwright/test';
import { ROOT, call, foregroundFraction, mcpClient, runCell, uploadStory, setCode } from './helpers';

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
    await setCode(
      page,
      0,
      'import molspace\nfrom IPython.display import display\n' +
        'a = molspace.Story("data/1cbs-story.mvsx")\nb = molspace.Story("data/1cbs-story.mvsx")\ndisplay(a)\ndisplay(b)'
    );
    await page.notebook.runCell(0, true);
    const stories = page.locator('.molspace-story');
    await expect(stories).toHaveCount(2, { timeout: 60_000 });
    // The budget is one viewer: one of the two Stories is parked.
    const parked = page.locator('.molspace-story[data-molspace-parked="true"]');
    await expect(parked).toHaveCount(1, { timeout: 120_000 });
    const target = (await parked.getAttribute('data-molspace-model'))!;

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
      // Within the budget: one live viewer.
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
  await setCode(page, 0, 'import molspace\nstory = molspace.Story("data/1cbs-story.mvsx")\nstory');
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
  // The redirect target is a real local server (Playwright's routes do not see redirected requests).
  const served: string[] = [];
  const local = http.createServer((req, res) => {
    served.push(req.url ?? '');
    res.writeHead(200, { ...CORS, 'Content-Type': 'text/plain' });
    res.end(CIF);
  });
  await new Promise<void>(resolve => local.listen(0, '127.0.0.1', resolve));
  const away = `http://127.0.0.1:${(local.address() as AddressInfo).port}/1cbs.cif`;
  await page.route('https://files.rcsb.org/molspace-test/direct.cif', route =>
    route.fulfill({ body: CIF, contentType: 'text/plain', headers: CORS })
  );
  await page.route('https://files.rcsb.org/molspace-test/away.cif', route =>
    route.fulfill({ status: 302, headers: { ...CORS, Location: away } })
  );
  const source = [
    'import molspace',
    'cartoon = {"kind": "component", "params": {"selector": "all"}, "children": [{"kind": "representation", "params": {"type": "cartoon"}}]}',
    'model = {"kind": "structure", "params": {"type": "model"}, "children": [cartoon]}',
    'download = lambda url: {"kind": "download", "params": {"url": url}, "children": [{"kind": "parse", "params": {"format": "mmcif"}, "children": [model]}]}',
    'step = lambda key, url: {"root": {"kind": "root", "children": [download(url)]}, "metadata": {"key": key, "title": key, "linger_duration_ms": 1000}}',
    'story = molspace.Story({"kind": "multiple", "metadata": {"version": "1", "timestamp": "2026-01-01T00:00:00Z"},',
    '    "snapshots": [step("direct", "https://files.rcsb.org/molspace-test/direct.cif"), step("away", "https://files.rcsb.org/molspace-test/away.cif")]})',
    'story'
  ].join('\n');
  const client = await mcpClient();
  try {
    await page.notebook.createNew('redirect.ipynb');
    await setCode(page, 0, source);
    await page.notebook.runCell(0, true);
    const story = page.locator('.molspace-story').first();
    await expect(page.locator('.molspace-story[data-molspace-ready="true"], .molspace-story-has-error')).toHaveCount(1, {
      timeout: 90_000
    });
    expect(await story.locator('.molspace-story-error').textContent()).toBe('');
    await expect(story).toHaveAttribute('data-molspace-drawn', 'direct');
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
        redirectedTo: away,
        setting: 'resourceHosts'
      }
    });
    expect(error.message).toContain('Snapshot 1 ("away")');
    expect(error.message).toContain(away);
    expect(error.fix).toContain('resourceHosts');
    await expect(story.locator('.molspace-story-error')).toContainText('FORBIDDEN');
    await expect(story.locator('.molspace-story-error')).toContainText(away);
    await expect(story).toHaveAttribute('data-molspace-ready', 'false');
    const [observed] = await call(client, 'story_observe', { target });
    expect(observed.story).toMatchObject({ key: 'away', ready: false, error: { code: 'FORBIDDEN' } });
    // The browser followed the redirect (without cookies); its answer was not used.
    expect(served).toEqual(['/1cbs.cif']);
  } finally {
    await client.close();
    local.close();
  }
});

/** Page init script: `document.visibilityState` follows `window.__molspaceHidden` (as in a background tab). */
function hideablePage(): void {
  Object.defineProperty(document, 'visibilityState', {
    configurable: true,
    get: () => ((window as unknown as { __molspaceHidden?: boolean }).__molspaceHidden ? 'hidden' : 'visible')
  });
}

/** Hide or show the page as the browser does for a background tab: the state, then `visibilitychange`. */
async function setHidden(page: Page, hidden: boolean): Promise<void> {
  await page.evaluate(h => {
    (window as unknown as { __molspaceHidden?: boolean }).__molspaceHidden = h;
    document.dispatchEvent(new Event('visibilitychange'));
  }, hidden);
}

test('a step applied in a hidden page is not ready: a located TIMEOUT saying no frame was drawn; shown again, it is drawn', async ({
  page
}) => {
  await page.addInitScript(hideablePage);
  await page.reload();
  await page.notebook.createNew('hidden.ipynb');
  await setCode(
    page,
    0,
    [
      'import molspace',
      'empty = {"kind": "root", "children": []}',
      'story = molspace.Story({"kind": "multiple", "metadata": {"version": "1", "timestamp": "2026-01-01T00:00:00Z", "title": "Hidden"},',
      '    "snapshots": [{"root": empty, "metadata": {"key": k, "title": k, "linger_duration_ms": 1000}} for k in ["a", "b"]]})',
      'story'
    ].join('\n')
  );
  await page.notebook.runCell(0, true);
  const story = page.locator('.molspace-story').first();
  await expect(story).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
  await expect(story).toHaveAttribute('data-molspace-drawn', 'a');
  const target = (await story.getAttribute('data-molspace-model'))!;

  const client = await mcpClient();
  try {
    await setHidden(page, true);
    const [refused, isError] = await call(client, 'story_control', { target, action: 'next' });
    expect(isError, JSON.stringify(refused)).toBe(true);
    expect(refused).toMatchObject({
      code: 'TIMEOUT',
      where: target,
      details: { target, index: 1, key: 'b', reason: 'no-frame-drawn', outcome: 'page-hidden' }
    });
    expect(refused.message).toMatch(/applied but not drawn: the page is hidden/);
    expect(refused.fix).toMatch(/Show the page/);
    const [hidden] = await call(client, 'story_observe', { target });
    expect(hidden.story).toMatchObject({ index: 1, key: 'b', ready: false, error: { details: { reason: 'no-frame-drawn' } } });
    await expect(story).toHaveAttribute('data-molspace-ready', 'false');
    await expect(story).not.toHaveAttribute('data-molspace-drawn', /.*/);
    await expect(story.locator('.molspace-story-error')).toContainText('not drawn');

    // Shown again: the step is drawn, ready, and the error is gone.
    await setHidden(page, false);
    await expect(story).toHaveAttribute('data-molspace-drawn', 'b', { timeout: 60_000 });
    await expect(story).toHaveAttribute('data-molspace-ready', 'true');
    await expect(story.locator('.molspace-story-error')).toBeHidden();
    const [shown] = await call(client, 'story_observe', { target });
    expect(shown.story).toMatchObject({ index: 1, key: 'b', ready: true, error: null });
  } finally {
    await client.close();
  }
});
