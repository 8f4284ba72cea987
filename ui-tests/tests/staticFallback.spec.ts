/**
 * Static fallbacks in saved notebooks (docs/architecture.md, "Static fallback in saved notebooks"):
 * a real notebook shows a Viewer, a Story, two panels and a Ketcher editor; JupyterLab saves it through the real
 * server; the file holds each widget's PNG and summary beside its widget view, follows a view
 * change, keeps them when reopened without running and saved again, and `jupyter nbconvert
 * --to html` shows them with hostile strings inert.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { galata } from '@jupyterlab/galata';
import { expect, test } from './sharedLab';
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import type { APIRequestContext } from '@playwright/test';
import { PNG } from 'pngjs';
import { ROOT, runCell, uploadStory, setCode } from './helpers';

const WIDGET_VIEW = 'application/vnd.jupyter.widget-view+json';
const STATE = 'application/vnd.molspace.static+json';

const SHOW_ALL = [
  'import molspace, pandas as pd',
  'from IPython.display import display',
  'v = molspace.Viewer("1cbs.cif")',
  's = molspace.Story("data/1cbs-story.mvsx")',
  `t = molspace.Panel(pd.DataFrame({"name": ['<script>alert("t")</script>'], "dG": [-7.1]}), title="<img src=x onerror=alert(1)>")`,
  `m = molspace.Panel("# Notes\\n\\n**bold** [x](javascript:alert(2))\\n\\n<script>alert('m')</script>")`,
  'display(v, s, t, m)'
].join('\n');

type Output = { output_type: string; data: Record<string, any>; metadata: Record<string, any> };

/** The saved notebook's outputs by widget model id, read through the contents API. */
async function savedOutputs(request: APIRequestContext, file: string): Promise<{ nb: any; byModel: Map<string, Output> }> {
  const r = await request.get(`/api/contents/${file}?content=1&type=notebook`);
  expect(r.ok()).toBe(true);
  const nb = (await r.json()).content;
  const byModel = new Map<string, Output>();
  for (const cell of nb.cells) {
    for (const out of cell.outputs ?? []) {
      const id = out.data?.[WIDGET_VIEW]?.model_id;
      if (id) {
        byModel.set(id, out);
      }
    }
  }
  return { nb, byModel };
}

/** The PNG decodes, is at most 640 px wide, and is not one flat colour. */
function checkPng(base64: string): PNG {
  const png = PNG.sync.read(Buffer.from(base64, 'base64'));
  expect(png.width).toBeLessThanOrEqual(640);
  const counts = new Map<number, number>();
  for (let i = 0; i < png.data.length; i += 4) {
    const key = (png.data[i] << 24) | (png.data[i + 1] << 16) | (png.data[i + 2] << 8) | png.data[i + 3];
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const background = Math.max(...counts.values());
  expect((png.width * png.height - background) / (png.width * png.height)).toBeGreaterThan(0.02);
  return png;
}

async function modelId(page: IJupyterLabPageFixture, selector: string, nth = 0): Promise<string> {
  return (await page.locator(selector).nth(nth).getAttribute('data-molspace-model'))!;
}

/** Wait until the page has sent the fallback of this widget at a revision other than `not`. */
async function fallbackSent(page: IJupyterLabPageFixture, id: string, not?: string): Promise<string> {
  const view = page.locator(`[data-molspace-model="${id}"]`).first();
  await expect(view).toHaveAttribute('data-molspace-fallback-revision', /\d+/, { timeout: 120_000 });
  if (not !== undefined) {
    await expect(view).not.toHaveAttribute('data-molspace-fallback-revision', not, { timeout: 120_000 });
  }
  return (await view.getAttribute('data-molspace-fallback-revision'))!;
}

/** Save through JupyterLab until the file holds what `ready` checks (the frame and the save race on two connections). */
async function saveUntil(
  page: IJupyterLabPageFixture,
  request: APIRequestContext,
  file: string,
  ready: (o: Map<string, Output>) => boolean
) {
  await expect
    .poll(
      async () => {
        await page.notebook.save();
        return ready((await savedOutputs(request, file)).byModel);
      },
      { timeout: 60_000 }
    )
    .toBe(true);
  return savedOutputs(request, file);
}

test('each widget is saved with a PNG and summary that follow the view, and nbconvert shows them inertly', async ({
  page,
  request,
  tmpPath
}) => {
  await page.contents.uploadFile(path.join(ROOT, 'tests', 'data', 'structures', '1cbs.cif'), `${tmpPath}/1cbs.cif`);
  await uploadStory(page, tmpPath);
  await page.notebook.createNew('fallback.ipynb');
  await setCode(page, 0, SHOW_ALL);
  await page.notebook.runCell(0, true);
  const file = `${tmpPath}/fallback.ipynb`;
  await expect(page.locator('.molspace-viewer').first()).toHaveAttribute('data-molspace-ready', 'true', { timeout: 120_000 });
  await expect(page.locator('.molspace-story').first()).toHaveAttribute('data-molspace-ready', 'true', { timeout: 120_000 });
  const ids = {
    viewer: await modelId(page, '.molspace-viewer'),
    story: await modelId(page, '.molspace-story'),
    table: await modelId(page, '.molspace-panel-inline', 0),
    markdown: await modelId(page, '.molspace-panel-inline', 1)
  };
  const sent = {
    viewer: await fallbackSent(page, ids.viewer),
    story: await fallbackSent(page, ids.story)
  };
  await fallbackSent(page, ids.table);
  await fallbackSent(page, ids.markdown);

  // First save: every widget output carries its fallback beside the widget view.
  let { byModel } = await saveUntil(page, request, file, o => Object.values(ids).every(id => o.get(id)?.data[STATE]?.origin === 'page'));
  const viewer = byModel.get(ids.viewer)!;
  const viewerPng = checkPng(viewer.data['image/png']);
  expect(viewer.metadata['image/png']).toEqual({ width: viewerPng.width, height: viewerPng.height });
  expect(viewer.data['text/plain']).toContain('1cbs.cif (mmcif): 1 model');
  expect(viewer.data[WIDGET_VIEW].model_id).toBe(ids.viewer);
  const story = byModel.get(ids.story)!;
  checkPng(story.data['image/png']);
  expect(story.data[STATE]).toMatchObject({ kind: 'story', index: 0, count: 3 });
  expect(story.data[STATE].steps).toHaveLength(3);
  expect(story.data['text/plain']).toContain('step 1 of 3');
  const table = byModel.get(ids.table)!.data['text/html'];
  expect(table).toContain('&lt;script&gt;alert(&quot;t&quot;)&lt;/script&gt;');
  expect(table).toContain('&lt;img src=x onerror=alert(1)&gt;');
  expect(table).not.toMatch(/<script|<img src=x/);
  const markdown = byModel.get(ids.markdown)!.data['text/html'];
  expect(markdown).toContain('<strong>bold</strong>');
  expect(markdown).toContain('&lt;script&gt;');
  expect(markdown).not.toMatch(/<script|javascript:/);

  // A view change from a cell: the next save holds the new picture and state.
  await runCell(page, 'v.focus("ligand")\ns.goto(2)');
  // The cell added below may scroll the Viewer out of view, where the viewer budget parks it and its
  // frame is text only; shown again, it draws the focused view and sends its picture.
  const viewerView = page.locator('.molspace-viewer').first();
  await viewerView.scrollIntoViewIfNeeded();
  await expect(viewerView).toHaveAttribute('data-molspace-ready', 'true', { timeout: 120_000 });
  await fallbackSent(page, ids.viewer, sent.viewer);
  await fallbackSent(page, ids.story, sent.story);
  ({ byModel } = await saveUntil(
    page,
    request,
    file,
    o =>
      o.get(ids.story)?.data[STATE]?.index === 2 &&
      /focus/.test(o.get(ids.viewer)?.data['text/plain']) &&
      o.get(ids.viewer)?.data['image/png'] !== undefined
  ));
  const focused = byModel.get(ids.viewer)!;
  checkPng(focused.data['image/png']);
  expect(focused.data['image/png'] === viewer.data['image/png'], 'the focused view has a new picture').toBe(false);
  expect(focused.data['text/plain']).toContain('focus ligand');
  const moved = byModel.get(ids.story)!;
  checkPng(moved.data['image/png']);
  expect(moved.data['image/png'] === story.data['image/png'], 'the new step has a new picture').toBe(false);
  expect(moved.data['text/plain']).toContain('step 3 of 3');
  expect(moved.data[STATE]).toMatchObject({ index: 2, key: 'ligand' });

  const bytes = (b64: string) => Buffer.from(b64, 'base64').length;
  console.log(
    `fallback PNGs: Viewer ${focused.metadata['image/png'].width}×${focused.metadata['image/png'].height} ${bytes(focused.data['image/png'])} B, ` +
      `Story ${moved.metadata['image/png'].width}×${moved.metadata['image/png'].height} ${bytes(moved.data['image/png'])} B`
  );

  // nbconvert (no molspace, no kernel): the images and summaries are in the HTML, no hostile script.
  const { nb } = await savedOutputs(request, file);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'molspace-fallback-'));
  fs.writeFileSync(path.join(dir, 'fallback.ipynb'), JSON.stringify(nb));
  const html = execFileSync('jupyter', ['nbconvert', '--to', 'html', '--no-input', '--stdout', path.join(dir, 'fallback.ipynb')], {
    encoding: 'utf-8',
    stdio: ['ignore', 'pipe', 'pipe']
  });
  expect(html.includes(`data:image/png;base64,${focused.data['image/png']}`), 'the Viewer PNG is in the HTML').toBe(true);
  expect(html.includes(`data:image/png;base64,${moved.data['image/png']}`), 'the Story PNG is in the HTML').toBe(true);
  expect(html).toContain('focus ligand');
  expect(html).toContain('step 3 of 3');
  expect(html).toContain('<strong>bold</strong>');
  for (const hostile of ['<script>alert("t")', "<script>alert('m')", '<img src=x onerror', 'javascript:alert']) {
    expect(html).not.toContain(hostile);
  }
});

test('a Ketcher editor is saved with a depiction of what it holds and its SMILES, following a change', async ({
  page,
  request,
  tmpPath
}) => {
  await page.notebook.createNew('editor.ipynb');
  await setCode(page, 0, 'import molspace\nk = molspace.Ketcher("OC(=O)c1ccccc1", title="benzoic acid")\nk');
  await page.notebook.runCell(0, true);
  const file = `${tmpPath}/editor.ipynb`;
  await expect(page.locator('.molspace-ketcher').first()).toHaveAttribute('data-molspace-ready', 'true', { timeout: 120_000 });
  const id = await modelId(page, '.molspace-ketcher');
  const first = await fallbackSent(page, id);

  let { byModel } = await saveUntil(
    page,
    request,
    file,
    o => o.get(id)?.data[STATE]?.origin === 'page' && o.get(id)?.data['image/png'] !== undefined
  );
  const saved = byModel.get(id)!;
  expect(saved.data[STATE]).toMatchObject({ kind: 'ketcher', title: 'benzoic acid' });
  // Before, the saved output held only the kernel's "not shown yet" line.
  expect(saved.data['text/plain']).toMatch(/^Ketcher "benzoic acid": .*C7 ?H6 ?O2/);
  expect(saved.data['text/plain']).toMatch(/c1ccccc1|C1=CC=CC=C1/i);
  checkPng(saved.data['image/png']);
  expect(saved.data['text/html']).toContain(`data:image/png;base64,${saved.data['image/png']}`);
  expect(saved.data[WIDGET_VIEW].model_id).toBe(id);

  // A change from a cell: the next save holds the new molecule and its picture.
  await runCell(page, 'k.set_structure("Oc1ccccc1", expected_revision=k.structure_revision).wait()');
  await fallbackSent(page, id, first);
  ({ byModel } = await saveUntil(page, request, file, o => /C6 ?H6 ?O\b/.test(o.get(id)?.data['text/plain'] ?? '')));
  const changed = byModel.get(id)!;
  checkPng(changed.data['image/png']);
  expect(changed.data['image/png'] === saved.data['image/png'], 'the new molecule has a new picture').toBe(false);
});

test('a trajectory Viewer is saved at the frame it shows', async ({ page, request, tmpPath }) => {
  for (const name of ['adk.psf', 'adk_dims.dcd']) {
    await page.contents.uploadFile(path.join(ROOT, 'tests', 'data', 'trajectories', name), `${tmpPath}/${name}`);
  }
  await page.notebook.createNew('trajectory.ipynb');
  await setCode(page, 0, 'import molspace\nv = molspace.Viewer("adk.psf", coordinates="adk_dims.dcd", title="AdK")\nv');
  await page.notebook.runCell(0, true);
  const file = `${tmpPath}/trajectory.ipynb`;
  await expect(page.locator('.molspace-viewer').first()).toHaveAttribute('data-molspace-ready', 'true', { timeout: 120_000 });
  const id = await modelId(page, '.molspace-viewer');
  const first = await fallbackSent(page, id);
  const { byModel: before } = await saveUntil(page, request, file, o => /frame 0 of 98/.test(o.get(id)?.data['text/plain'] ?? ''));
  await runCell(page, 'v.frame = 97');
  await fallbackSent(page, id, first);
  const { byModel } = await saveUntil(page, request, file, o =>
    /frame 97 of 98 \(98 ps\)/.test(o.get(id)?.data['text/plain'] ?? '')
  );
  const saved = byModel.get(id)!;
  expect(saved.data['text/plain']).toContain('AdK (psf + dcd)');
  checkPng(saved.data['image/png']);
  expect(saved.data['image/png'] === before.get(id)!.data['image/png'], 'frame 97 has its own picture').toBe(false);
});

test.describe('Reopened with saved widget state', () => {
  test.use({
    mockSettings: {
      ...galata.DEFAULT_SETTINGS,
      '@jupyter-widgets/jupyterlab-manager:plugin': { saveState: true }
    }
  });

  test('saved again without running any cell, the file keeps the Story and Viewer fallbacks', async ({ page, request, tmpPath }) => {
    await page.contents.uploadFile(path.join(ROOT, 'tests', 'data', 'structures', '1cbs.cif'), `${tmpPath}/1cbs.cif`);
    await uploadStory(page, tmpPath);
    await page.notebook.createNew('reopen.ipynb');
    await setCode(
      page,
      0,
      'import molspace\ns = molspace.Story("data/1cbs-story.mvsx")\nv = molspace.Viewer("1cbs.cif")\ndisplay(s, v)'
    );
    await page.notebook.runCell(0, true);
    const file = `${tmpPath}/reopen.ipynb`;
    await expect(page.locator('.molspace-story').first()).toHaveAttribute('data-molspace-ready', 'true', { timeout: 120_000 });
    const ids = { viewer: await modelId(page, '.molspace-viewer'), story: await modelId(page, '.molspace-story') };
    const first = await fallbackSent(page, ids.story);
    await runCell(page, 's.goto("ligand")');
    await fallbackSent(page, ids.story, first);
    await fallbackSent(page, ids.viewer);
    const { byModel: before } = await saveUntil(
      page,
      request,
      file,
      o => o.get(ids.story)?.data[STATE]?.index === 2 && o.get(ids.viewer)?.data[STATE]?.origin === 'page'
    );

    await page.kernel.shutdownAll();
    await page.notebook.close(true);
    await page.notebook.openByPath(file);
    await page.notebook.activate('reopen.ipynb');
    const restored = page.locator('.molspace-story').first();
    await expect(restored.locator('.molspace-story-step')).toHaveText('step 3 of 3', { timeout: 60_000 });
    await page.notebook.save();
    const { byModel: after } = await savedOutputs(request, file);
    for (const id of [ids.story, ids.viewer]) {
      expect(after.get(id)!.data['image/png'] === before.get(id)!.data['image/png'], 'the PNG is kept').toBe(true);
      expect(after.get(id)!.data['text/plain']).toBe(before.get(id)!.data['text/plain']);
      expect(after.get(id)!.data[STATE]).toEqual(before.get(id)!.data[STATE]);
    }
    expect(after.get(ids.story)!.data[STATE]).toMatchObject({ index: 2, key: 'ligand', count: 3 });
  });
});
