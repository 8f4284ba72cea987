/**
 * The workspace demo notebook (examples/workspace.ipynb) runs end to end under
 * Run All, as a new user runs it: a Viewer, a Ketcher editor, its molecule sent
 * to a 3D Viewer, and a report panel, all listed by an agent's observe.
 */
import * as path from 'path';
import { expect, test } from './sharedLab';
import { ROOT, call, mcpClient } from './helpers';

test('the workspace notebook shows a Viewer, a Ketcher editor, its 3D copy and a panel; an agent observes them', async ({ page, tmpPath }) => {
  // Errors the page reports while the cells run (uncaught, or logged by molspace's code).
  const errors: string[] = [];
  page.on('pageerror', e => errors.push(e.message));
  page.on('console', m => {
    if (m.type() === 'error') {
      errors.push(m.text());
    }
  });
  await page.contents.uploadFile(path.join(ROOT, 'examples', 'workspace.ipynb'), `${tmpPath}/workspace.ipynb`);
  await page.contents.uploadFile(path.join(ROOT, 'examples', 'data', '1cbs.cif'), `${tmpPath}/data/1cbs.cif`);
  await page.notebook.openByPath(`${tmpPath}/workspace.ipynb`);
  await page.notebook.activate('workspace.ipynb');
  // Run All, as a new user does: the cells after the Viewer and the editor wait for the page
  // (`viewer.focus(...).wait()`, `editor.wait_ready()`) before they read what it drew.
  await page.notebook.run();
  await expect(page.locator('.molspace-ketcher').first()).toHaveAttribute('data-molspace-ready', 'true', { timeout: 120_000 });
  const output = async (cell: number) => ((await page.notebook.getCellTextOutput(cell)) ?? []).join('').trim();
  // The waited-for operation shows what happened, not a bare request id.
  await expect.poll(() => output(2), { timeout: 120_000 }).toMatch(
    /^<molspace\.Viewer 'CRABP2 with retinoic acid': set_representation: done/
  );
  // The cell right after the editor's reads the page's state, though it ran before the editor loaded.
  await expect.poll(() => output(5), { timeout: 120_000 }).toBe('C20 H28 O2 22 atoms; structure revision 0');
  await expect(page.locator('.molspace-viewer')).toHaveCount(2, { timeout: 120_000 });
  const client = await mcpClient();
  try {
    const [observed] = await call(client, 'observe');
    const kinds = observed.widgets.map((w: { kind: string }) => w.kind).sort();
    expect(kinds).toEqual(['ketcher', 'panel', 'viewer', 'viewer']);
    const editor = observed.widgets.find((w: { kind: string }) => w.kind === 'ketcher');
    expect(editor.summary).toContain('C20 H28 O2');
    const viewers = observed.widgets.filter((w: { kind: string }) => w.kind === 'viewer');
    expect(viewers.some((v: { summary: string }) => v.summary.includes('1 ligand (REA A 200)'))).toBe(true);
    expect(viewers.some((v: { title: string }) => v.title === 'retinoic acid (3D)')).toBe(true);
    // Every widget is followed by the read mirror from the moment it registers (no TypeError there).
    expect(errors.filter(e => /Cannot read properties of (undefined|null)/.test(e))).toEqual([]);
  } finally {
    await client.close();
  }
});
