/**
 * Two pages showing one notebook and one kernel (two browser tabs): the
 * second page opens the same notebook path, joins the running session and
 * restores the widgets from the kernel (ipywidgets 8). A cell's
 * `story.next()` reaches both pages and moves the Story exactly one step;
 * Play pressed in one page steps once per tick (one timer, the pressing
 * page's). Every wait is on reported state (the kernel's, the pages'), never
 * on a timer.
 */
import { expect, test } from '@jupyterlab/galata';
import type { Page } from '@playwright/test';
import { notebookJson } from '../harness';
import { SERVER, TOKEN } from './helpers';

const STEPS = ['a', 'b', 'c', 'd', 'e'];
/** One step from a cell. */
const NEXT_CELL = 'story.next()\nprint(story.last_request_id)';
/** The last cell, re-run to ask the kernel what it saw. */
const KERNEL_CELL = 'print(story.index, story.ready, story.playing, story.last_request_id, seen)';

/** Empty scenes draw at once and download nothing; short lingers keep Play short. */
const STORY_CELL = [
  'import molspace',
  'meta = lambda k: {"key": k, "title": k, "linger_duration_ms": 400}',
  'empty = {"kind": "root", "children": []}',
  'story = molspace.Story({"kind": "multiple", "metadata": {"version": "1", "timestamp": "2026-01-01T00:00:00Z", "title": "Two pages"},',
  `    "snapshots": [{"root": empty, "metadata": meta(k)} for k in ${JSON.stringify(STEPS)}]})`,
  'seen = []  # every change the kernel saw: (index, revision, source)',
  'story.on_change(lambda c: seen.append((c.index, c.revision, c.source)))',
  'story'
].join('\n');

/** What one page's Dispatcher ran: recorded from `window.molspace.dispatcher.executed`. */
interface Ran {
  tool: string;
  source: string;
  ok: boolean;
}

async function recordCalls(page: Page): Promise<void> {
  await page.waitForFunction(() => (window as any).molspace?.dispatcher !== undefined);
  await page.evaluate(() => {
    const w = window as any;
    w.__ran = [] as Ran[];
    w.molspace.dispatcher.executed.connect((_: unknown, r: Ran) => w.__ran.push({ tool: r.tool, source: r.source, ok: r.ok }));
  });
}

function calls(page: Page): Promise<Ran[]> {
  return page.evaluate(() => (window as any).__ran as Ran[]);
}

/** The synced state of the Story in one page's model: index, ready, and the kernel requests some page applied. */
function pageState(page: Page, id: string): Promise<{ index: number; ready: boolean; applied: string[] }> {
  return page.evaluate(target => {
    const model = (window as any).molspace.registry.find(target);
    return { index: model.get('index'), ready: model.get('ready'), applied: model.get('_applied_requests') };
  }, id);
}

test('two pages on one kernel: a cell moves the Story one step, and Play steps once per tick', async ({ page, tmpPath }) => {
  // Made as a file first: the session is opened at its final path, the one the second tab opens.
  const name = 'twopages.ipynb';
  // Every cell the test runs is in the file from the start: typing into a cell while two pages draw
  // in software WebGL can outlast Galata's 10 s wait for the editor's highlighting.
  await page.contents.uploadContent(notebookJson([STORY_CELL, NEXT_CELL, KERNEL_CELL]), 'text', `${tmpPath}/${name}`);
  await page.notebook.openByPath(`${tmpPath}/${name}`);
  await page.notebook.activate(name);
  await page.notebook.runCell(0, true);
  const first = page.locator('.molspace-story').first();
  await expect(first).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
  const id = (await first.getAttribute('data-molspace-model'))!;
  await page.notebook.save();
  await recordCalls(page);

  // The second tab: the same notebook path joins the running session and kernel.
  const second = await page.context().newPage();
  await second.goto(`${SERVER}/lab/tree/${tmpPath}/${name}?token=${TOKEN}`);
  const other = second.locator(`.molspace-story[data-molspace-model="${id}"]`);
  await expect(other).toHaveAttribute('data-molspace-ready', 'true', { timeout: 120_000 });
  await recordCalls(second);

  /** The kernel's view, from the last cell: [index, ready, playing, last_request_id, seen]. */
  const kernel = async (): Promise<string> => {
    const cells = await page.notebook.getCellCount();
    await page.notebook.runCell(cells - 1, true);
    return ((await page.notebook.getCellTextOutput(cells - 1)) ?? []).join('').trim();
  };
  expect(await kernel()).toMatch(/^0 True False None \[\]$/);

  // (a) One story.next() from a cell: both pages receive it; it is applied once.
  await page.notebook.runCell(1, true);
  const requestId = ((await page.notebook.getCellTextOutput(1)) ?? []).join('').trim();
  expect(requestId).toMatch(/^[0-9a-f]{32}$/);
  // Both pages have seen it applied (by one of them, or by both from the same step).
  for (const p of [page, second]) {
    await expect.poll(async () => (await pageState(p, id)).applied, { timeout: 60_000 }).toContain(requestId);
    await expect.poll(() => pageState(p, id), { timeout: 60_000 }).toMatchObject({ index: 1, ready: true });
  }
  await expect(first).toHaveAttribute('data-molspace-index', '1');
  await expect(other).toHaveAttribute('data-molspace-index', '1');
  await expect.poll(kernel, { timeout: 60_000 }).toBe(`1 True False ${requestId} [(1, 1, 'kernel')]`);
  const kernelRuns = [...(await calls(page)), ...(await calls(second))].filter(r => r.source === 'kernel');
  expect(kernelRuns.length).toBeGreaterThanOrEqual(1);
  expect(kernelRuns.every(r => r.ok && r.tool === 'story_control')).toBe(true);

  // (b) Play pressed in the first page: one timer (that page's), one step per tick.
  await first.locator('button[data-action="play"]').click();
  await expect
    .poll(kernel, { timeout: 120_000 })
    .toMatch(new RegExp(`^${STEPS.length - 1} True False `));
  const out = await kernel();
  const seen = [...out.matchAll(/\((\d+), (\d+), '(\w+)'\)/g)].map(m => [Number(m[1]), Number(m[2]), m[3]] as const);
  // After the cell's step: play (ui), one step per tick to the last (play), then pause (play).
  expect(seen.slice(1).map(([index, , source]) => `${index}:${source}`)).toEqual([
    '1:ui',
    ...STEPS.slice(2).map((_, i) => `${i + 2}:play`),
    `${STEPS.length - 1}:play`
  ]);
  // One revision per change, none skipped or repeated.
  expect(seen.map(([, revision]) => revision)).toEqual(seen.map((_, i) => i + 1));
  // The steps were taken by the first page's timer only.
  const playSteps = async (p: Page) => (await calls(p)).filter(r => r.source === 'play').length;
  expect(await playSteps(page)).toBe(STEPS.length - 1);
  expect(await playSteps(second)).toBe(0);
  for (const p of [page, second]) {
    await expect.poll(() => pageState(p, id), { timeout: 60_000 }).toMatchObject({ index: STEPS.length - 1, ready: true });
  }
  await second.close();
});
