/**
 * Widgets that leave the page: a re-run cell or a restarted kernel takes the
 * old Story out of `observe`, a call naming it gets STALE_TARGET saying why,
 * and the default target is the newest displayed Story.
 */
import { expect, test } from './sharedLab';
import { call, mcpClient, setCode } from './helpers';

/** A two-step Story with empty scenes: it draws at once and downloads nothing. */
const EMPTY_STORY = [
  'import molspace',
  'meta = lambda k: {"key": k, "title": k, "linger_duration_ms": 1000}',
  'empty = {"kind": "root", "children": []}',
  'story = molspace.Story({"kind": "multiple", "metadata": {"version": "1", "timestamp": "2026-01-01T00:00:00Z", "title": "Empty"},',
  '    "snapshots": [{"root": empty, "metadata": meta("a")}, {"root": empty, "metadata": meta("b")}]})',
  'story'
].join('\n');

async function widgetIds(client: Awaited<ReturnType<typeof mcpClient>>): Promise<string[]> {
  const [observed] = await call(client, 'observe');
  return observed.widgets.map((w: { id: string }) => w.id);
}

test('a re-run cell replaces its Story: the old id is STALE_TARGET, the new one is the default target', async ({
  page
}) => {
  await page.notebook.createNew('rerun.ipynb');
  await setCode(page, 0, EMPTY_STORY);
  await page.notebook.runCell(0, true);
  await expect(page.locator('.molspace-story').first()).toHaveAttribute('data-molspace-ready', 'true', {
    timeout: 90_000
  });
  const client = await mcpClient();
  try {
    const [old] = await widgetIds(client);
    expect(old).toBeTruthy();
    await page.notebook.runCell(0, true);
    await expect.poll(() => widgetIds(client), { timeout: 60_000 }).toEqual([expect.not.stringMatching(old)]);
    const [fresh] = await widgetIds(client);

    const [stale, isError] = await call(client, 'story_control', { target: old, action: 'next' });
    expect(isError).toBe(true);
    expect(stale).toMatchObject({ code: 'STALE_TARGET', where: '/target', details: { target: old, live: [fresh] } });
    expect(stale.message).toMatch(/re-run/);
    expect(stale.fix).toMatch(/observe/);

    // No target: the newest displayed Story.
    const [moved, failed] = await call(client, 'story_control', { action: 'next' });
    expect(failed).toBe(false);
    expect(moved.story).toMatchObject({ target: fresh, key: 'b' });
  } finally {
    await client.close();
  }
});

test.describe('kernel restart', () => {
  // Galata mocks the kernels API and answers a restart in a way JupyterLab takes as a failure:
  // this test restarts the real kernel, as the Kernel menu does.
  test.use({ kernels: null });

  test('a restarted kernel takes its Stories out of observe; calls naming them get STALE_TARGET', async ({ page }) => {
    await page.notebook.createNew('restart.ipynb');
    await setCode(page, 0, EMPTY_STORY);
    await page.notebook.runCell(0, true);
    await expect(page.locator('.molspace-story').first()).toHaveAttribute('data-molspace-ready', 'true', {
      timeout: 90_000
    });
    const client = await mcpClient();
    try {
      const [old] = await widgetIds(client);
      expect(old).toBeTruthy();
      // Kernel > Restart Kernel (the session context's restart, without the confirmation dialog).
      await page.evaluate(async () => {
        const app = (window as any).jupyterapp;
        await app.shell.currentWidget.sessionContext.restartKernel();
      });
      await expect.poll(() => widgetIds(client), { timeout: 60_000 }).toEqual([]);
      const [stale, isError] = await call(client, 'story_control', { target: old, action: 'next' });
      expect(isError).toBe(true);
      expect(stale).toMatchObject({ code: 'STALE_TARGET', where: '/target', details: { target: old } });
      expect(stale.message).toMatch(/kernel restarted/);
      // The cell run again shows a new Story, which is the default target.
      await page.notebook.runCell(0, true);
      await expect.poll(() => widgetIds(client), { timeout: 60_000 }).toEqual([expect.not.stringMatching(old)]);
    } finally {
      await client.close();
    }
  });
});

test('a re-run cell replaces its Viewer and Panel too: the old ids leave observe and are STALE_TARGET', async ({
  page
}) => {
  const pdb = [
    'ATOM      1  N   GLY A   1       0.000   0.000   0.000  1.00  0.00           N',
    'ATOM      2  CA  GLY A   1       1.458   0.000   0.000  1.00  0.00           C',
    'END'
  ].join('\\n');
  const source = [
    'import molspace',
    'from IPython.display import display',
    `viewer = molspace.Viewer("${pdb}\\n", format="pdb")`,
    'panel = molspace.Panel("**finding**", panel_id="finding")',
    'display(viewer, panel)'
  ].join('\n');
  await page.notebook.createNew('rerun-kinds.ipynb');
  await setCode(page, 0, source);
  await page.notebook.runCell(0, true);
  const client = await mcpClient();
  try {
    const kinds = async () => {
      const [observed] = await call(client, 'observe');
      return observed.widgets.map((w: { id: string; kind: string }) => [w.kind, w.id]).sort();
    };
    await expect.poll(async () => (await kinds()).map(([k]: string[]) => k), { timeout: 90_000 }).toEqual(['panel', 'viewer']);
    const before: string[][] = await kinds();
    await page.notebook.runCell(0, true);
    await expect
      .poll(async () => (await kinds()).filter(([, id]: string[]) => before.some(([, old]) => old === id)), { timeout: 60_000 })
      .toEqual([]);
    expect((await kinds()).map(([k]: string[]) => k)).toEqual(['panel', 'viewer']);
    const oldViewer = before.find(([k]) => k === 'viewer')![1];
    const [stale, isError] = await call(client, 'viewer_observe', { target: oldViewer });
    expect(isError).toBe(true);
    expect(stale).toMatchObject({ code: 'STALE_TARGET', details: { target: oldViewer } });
    const oldPanel = before.find(([k]) => k === 'panel')![1];
    const [stalePanel, panelError] = await call(client, 'render_panel', {
      target: oldPanel,
      content: { type: 'markdown', markdown: 'late' }
    });
    expect(panelError).toBe(true);
    expect(stalePanel).toMatchObject({ code: 'STALE_TARGET' });
  } finally {
    await client.close();
  }
});
