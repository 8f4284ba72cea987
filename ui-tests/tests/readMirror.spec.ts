/**
 * The read mirror end to end (docs/architecture.md, "Read mirror"): the real
 * page pushes its read answers, the gateway answers the official client from
 * them without a call into the page, and the answers are the ones the page's
 * Dispatcher gives for the same call. Writes are read back at once; widgets
 * added and removed are reflected.
 */
import * as fs from 'fs';
import * as path from 'path';
import { expect, test } from './sharedLab';
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import { ROOT, call, mcpClient, runCell, uploadDemo, setCode } from './helpers';

/** The manifest's mirrored read tools: a new one is covered here without a new test. */
const MANIFEST = JSON.parse(fs.readFileSync(path.join(ROOT, 'molspace', 'contract', 'manifest.json'), 'utf8'));
const MIRRORED: { name: string; inputSchema: { properties: Record<string, unknown> } }[] = MANIFEST.tools.filter(
  (t: { mirrored?: boolean }) => t.mirrored
);

/** Count the page's Dispatcher calls by tool (a mirrored read makes none). */
async function countCalls(page: IJupyterLabPageFixture): Promise<void> {
  await page.waitForFunction(() => !!window.molspace?.dispatcher);
  await page.evaluate(() => {
    const w = window as unknown as { molspaceCalls: Record<string, number>; molspaceCounting?: boolean };
    w.molspaceCalls = {};
    // once per page: the tests of this file share it (./sharedLab.ts)
    if (!w.molspaceCounting) {
      w.molspaceCounting = true;
      window.molspace!.dispatcher!.executed.connect((_, r) => {
        w.molspaceCalls[r.tool] = (w.molspaceCalls[r.tool] ?? 0) + 1;
      });
    }
  });
}

const callsOf = (page: IJupyterLabPageFixture, tool: string) =>
  page.evaluate(t => (window as unknown as { molspaceCalls: Record<string, number> }).molspaceCalls[t] ?? 0, tool);

/** What the page's own Dispatcher answers, with the context the gateway sends a relayed call. */
async function relayed(page: IJupyterLabPageFixture, tool: string, args: Record<string, unknown>, pages: unknown[]) {
  return page.evaluate(
    async ({ tool, args, pages }) => {
      const pageId = window.molspace!.bridge.pageId;
      const r = await window.molspace!.dispatcher!.execute(tool, args, {
        source: 'agent',
        context: { pageId, pages: pages as never, client: { name: 'molspace-ui-tests', version: '0.1.0' } }
      });
      return { structuredContent: r.structuredContent, text: r.text };
    },
    { tool, args, pages }
  );
}

test('every mirrored read answers what the page answers, without a call into the page', async ({ page, tmpPath }) => {
  expect(MIRRORED.map(t => t.name)).toEqual(expect.arrayContaining(['observe', 'story_observe', 'viewer_observe']));
  await uploadDemo(page, tmpPath);
  await page.contents.uploadFile(path.join(ROOT, 'tests', 'data', 'structures', '1cbs.cif'), `${tmpPath}/1cbs.cif`);
  await page.notebook.createNew('mirror.ipynb');
  await setCode(page, 0, 'import molspace\ns = molspace.Story("data/1cbs-story.mvsx")\ns');
  await page.notebook.runCell(0, true);
  await expect(page.locator('.molspace-story').first()).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
  await runCell(page, 'v = molspace.Viewer("1cbs.cif")\nv');
  await countCalls(page);
  const client = await mcpClient();
  try {
    // The Viewer's file is read (its 3D view may stay parked below the Story: viewer_observe needs no live view).
    await expect.poll(async () => (await call(client, 'viewer_observe'))[0].composition?.atoms, { timeout: 90_000 }).toBe(1213);
    const [observed] = await call(client, 'observe');
    const ids = Object.fromEntries(observed.widgets.map((w: { kind: string; id: string }) => [w.kind, w.id]));
    let checked = 0;
    for (const tool of MIRRORED) {
      const kind = tool.name === 'observe' ? null : tool.name.replace('_observe', '');
      const argSets: Record<string, unknown>[] = [{}];
      if ('target' in tool.inputSchema.properties) {
        expect(ids[kind!], `a ${kind} widget for ${tool.name}`).toBeTruthy();
        argSets.push({ target: ids[kind!] });
      }
      for (const args of argSets) {
        const before = await callsOf(page, tool.name);
        // The mirror may lag one push behind a change just made: wait until the page answers the same.
        await expect
          .poll(async () => {
            const [status] = await call(client, 'status');
            const served = await client.callTool({ name: tool.name, arguments: args });
            const own = await relayed(page, tool.name, args, status.pages);
            const text = (served.content as { text: string }[])[0].text;
            return JSON.stringify({ sc: served.structuredContent, text }) === JSON.stringify({ sc: own.structuredContent, text: own.text });
          }, { message: `${tool.name} ${JSON.stringify(args)}` })
          .toBe(true);
        // Only the page-side comparison reached the Dispatcher: the MCP calls did not.
        const relays = (await callsOf(page, tool.name)) - before;
        await call(client, tool.name, args);
        expect(await callsOf(page, tool.name), `${tool.name} answered from the mirror`).toBe(before + relays);
        checked++;
      }
    }
    expect(checked).toBe(1 + 2 * (MIRRORED.length - 1));
    // A paged read is not mirrored: the page answers it.
    const before = await callsOf(page, 'story_observe');
    await call(client, 'story_observe', { target: ids.story, offset: 1 });
    expect(await callsOf(page, 'story_observe')).toBe(before + 1);
  } finally {
    await client.close();
  }
});

test('a write is read back at once; widgets added and removed are reflected', async ({ page, tmpPath }) => {
  await uploadDemo(page, tmpPath);
  await page.contents.uploadFile(path.join(ROOT, 'tests', 'data', 'structures', '1cbs.cif'), `${tmpPath}/1cbs.cif`);
  await page.notebook.createNew('mirror.ipynb');
  await setCode(page, 0, 'import molspace\ns = molspace.Story("data/1cbs-story.mvsx")\ns');
  await page.notebook.runCell(0, true);
  await expect(page.locator('.molspace-story').first()).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
  await countCalls(page);
  const client = await mcpClient();
  try {
    const [observed] = await call(client, 'observe');
    const story = observed.widgets[0].id;
    for (const action of ['next', 'next', 'previous']) {
      const [moved, failed] = await call(client, 'story_control', { target: story, action });
      expect(failed).toBe(false);
      const [read] = await call(client, 'story_observe', { target: story });
      expect(read.story).toEqual(moved.story);
      const [ws] = await call(client, 'observe');
      expect(ws.widgets[0].revision).toBe(moved.story.revision);
      expect(ws.lastAction).toMatchObject({ tool: 'story_control', revision: moved.story.revision });
    }
    // A cell's change (kernel source) is reflected too.
    await runCell(page, 's.goto(0)');
    await expect.poll(async () => (await call(client, 'story_observe', { target: story }))[0].story.index).toBe(0);
    expect(await callsOf(page, 'story_observe')).toBe(0);

    // Added: a Viewer from a cell; then acted on and read back.
    await runCell(page, 'v = molspace.Viewer("1cbs.cif")\nv');
    await expect.poll(async () => (await call(client, 'observe'))[0].total).toBe(2);
    const [two] = await call(client, 'observe');
    const viewer = two.widgets.find((w: { kind: string }) => w.kind === 'viewer').id;
    await expect.poll(async () => (await call(client, 'viewer_observe', { target: viewer }))[0].composition?.atoms, { timeout: 90_000 }).toBe(1213);
    const relayedBefore = await callsOf(page, 'viewer_observe');
    const [acted, actError] = await call(client, 'act', {
      target: viewer,
      actions: [{ op: 'set_representation', selector: 'ligand', representation: 'spacefill' }]
    });
    expect(actError).toBe(false);
    const [seen] = await call(client, 'viewer_observe', { target: viewer });
    expect(seen.viewer.revision).toBe(acted.viewer.revision);
    expect(seen.view).toEqual(acted.view);
    // Removed: the Viewer's output cleared.
    await page.evaluate(() => window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs'));
    await expect.poll(async () => (await call(client, 'observe'))[0].total).toBe(0);
    const [gone, goneError] = await call(client, 'viewer_observe', { target: viewer });
    expect(goneError).toBe(true);
    expect(gone.code).toBe('STALE_TARGET');
    // Only the call naming the removed Viewer reached the page (the mirror has no answer for it).
    expect(await callsOf(page, 'viewer_observe')).toBe(relayedBefore + 1);
  } finally {
    await client.close();
  }
});
