/**
 * The main job end to end: the demo notebook plays a real Story in Mol*;
 * an MCP agent and the notebook cell drive the same widget and see each
 * other's steps; a click is seen by both.
 */
import { expect, test } from '@jupyterlab/galata';
import { call, foregroundFraction, mcpClient, runCell, runNotebook, uploadDemo } from './helpers';

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
