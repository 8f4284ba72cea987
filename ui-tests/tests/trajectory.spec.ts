/**
 * Trajectories end to end: a cell shows a real PSF + DCD (MDAnalysisTests' adenylate kinase),
 * the frame player steps and plays it, the kernel's `frame` and `on_change` follow, a screenshot
 * shows the frame drawn, and the same files through an MDAnalysis AtomGroup with a stride; an
 * agent (official TS SDK) opens a GRO + XTC under the root, reads frame count and time with
 * viewer_observe, steps with act and is refused a frame out of range, located. With a frame budget
 * of 5 the same PSF + DCD plays from frames the kernel serves on demand: slider, a cell, an agent's
 * act and playback each draw the frame (atom 0 as MDAnalysis reads it), the page holding at most 5.
 * With the page's frame budget set to 3, an agent's GRO + XTC (10 frames) stays on the server, which
 * serves the frames the page steps to (molspace/gateway/frames_handler.py, read with MDAnalysis).
 */
import * as fs from 'fs';
import * as path from 'path';
import * as galata from '@jupyterlab/galata';
import { expect, test } from './sharedLab';
import { ROOT, call, mcpClient, runCell, stillPicture, setCode } from './helpers';

const DATA = path.join(ROOT, 'tests', 'data', 'trajectories');
/** MDAnalysis's reading of the test trajectories (tests/data/trajectories/README.md). */
const REFERENCE = JSON.parse(fs.readFileSync(path.join(DATA, 'reference.json'), 'utf8'));

test('a cell plays a PSF + DCD: slider, play, pause; the kernel follows the frames', async ({ page, tmpPath }) => {
  for (const name of ['adk.psf', 'adk_dims.dcd']) {
    await page.contents.uploadFile(path.join(DATA, name), `${tmpPath}/${name}`);
  }
  await page.notebook.createNew('trajectory.ipynb');
  await setCode(
    page,
    0,
    'import molspace\nseen = []\nv = molspace.Viewer("adk.psf", coordinates="adk_dims.dcd")\nv.on_change(lambda c: seen.append((c.frame, c.source)))\nv'
  );
  await page.notebook.runCell(0, true);
  const viewer = page.locator('.molspace-viewer').first();
  await expect(viewer).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
  const player = viewer.locator('.molspace-viewer-player');
  await expect(player).toBeVisible();
  await expect(player).toHaveAttribute('data-molspace-frames', '98');
  await expect(player.locator('.molspace-viewer-frame')).toHaveText('frame 1 / 98 · 1 ps');
  await expect(viewer.locator('.molspace-viewer-summary')).toContainText('(psf + dcd): frame 0 of 98 (1 ps)');
  expect(await runCell(page, 'print(v.frames, v.frame, v.composition["atoms"], v.composition["dropped"])')).toBe(
    "98 0 3341 ['DCD header frame count 500; the file holds 98 whole frames (counted from its size, as MDAnalysis does)']"
  );
  const canvas = viewer.locator('.molspace-viewer-canvas');
  const first = await stillPicture(canvas);

  // the slider: one goto_frame as a ui change; drawn, then the kernel sees it
  const slider = player.locator('input[type=range]');
  await slider.fill('97');
  await expect(player).toHaveAttribute('data-molspace-frame', '97');
  await expect(viewer).toHaveAttribute('data-molspace-ready', 'true');
  expect((await stillPicture(canvas)).equals(first)).toBe(false);
  expect(await runCell(page, 'print(v.frame, seen[-1], v.undo_steps)')).toBe("97 (97, 'ui') 0");

  // a cell moves the frame; then the Play button plays and Pause stops it
  await runCell(page, 'v.frame = 10');
  await expect(player).toHaveAttribute('data-molspace-frame', '10');
  await player.locator('button').click();
  await expect(player).toHaveAttribute('data-molspace-playing', 'true');
  await expect.poll(async () => Number(await player.getAttribute('data-molspace-frame')), { timeout: 30_000 }).toBeGreaterThan(13);
  await player.locator('button').click();
  await expect(player).toHaveAttribute('data-molspace-playing', 'false');
  const stopped = Number(await player.getAttribute('data-molspace-frame'));
  // a kernel round trip later (many playback intervals), neither the kernel nor the page moved on
  const out = await runCell(page, 'print(v.frame, v.playing, sorted({s for _, s in seen}))');
  expect(out).toBe(`${stopped} False ['kernel', 'play', 'ui']`);
  expect(Number(await player.getAttribute('data-molspace-frame'))).toBe(stopped);

  // a frame out of range from a cell: located in last_result, nothing changed
  await runCell(page, 'v.goto_frame(500)');
  await expect
    .poll(() => runCell(page, 'print(((v.last_result or {}).get("error") or {}).get("where"), v.frame)'), { timeout: 20_000 })
    .toBe(`/actions/0/frame ${stopped}`);

  // the same files through MDAnalysis, every 10th frame: a second Viewer of 10 frames
  await runCell(
    page,
    'import warnings\nwarnings.simplefilter("ignore")\nimport MDAnalysis as mda\nu = mda.Universe("adk.psf", "adk_dims.dcd")\nw = molspace.Viewer(u.select_atoms("protein"), frames=slice(0, None, 10))\nw'
  );
  const second = page.locator('.molspace-viewer').last();
  await expect(second).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
  await expect(second.locator('.molspace-viewer-player')).toHaveAttribute('data-molspace-frames', '10');
  await runCell(page, 'w.frame = 9');
  await expect(second.locator('.molspace-viewer-player')).toHaveAttribute('data-molspace-frame', '9');
  expect(await runCell(page, 'print(w.frame, w.composition["atoms"], w.source_name, w.coordinates_name)')).toBe(
    '9 3341 MDAnalysis AtomGroup (3341 atoms) frames 0:98:10'
  );
});

test("frames on demand: a budget of 5 frames over a PSF + DCD of 98; slider, cell, agent and play draw MDAnalysis's frames", async ({
  page,
  tmpPath
}) => {
  for (const name of ['adk.psf', 'adk_dims.dcd']) {
    await page.contents.uploadFile(path.join(DATA, name), `${tmpPath}/${name}`);
  }
  await page.notebook.createNew('frames.ipynb');
  await setCode(
    page,
    0,
    'import warnings\nwarnings.simplefilter("ignore")\nimport molspace, MDAnalysis as mda\nu = mda.Universe("adk.psf", "adk_dims.dcd")\n' +
      'atom0 = lambda i: print(",".join(f"{c:.3f}" for c in u.trajectory[i].positions[0]))\n' +
      'v = molspace.Viewer("adk.psf", coordinates="adk_dims.dcd", frame_budget=5)\nv'
  );
  await page.notebook.runCell(0, true);
  const viewer = page.locator('.molspace-viewer').first();
  await expect(viewer).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
  const player = viewer.locator('.molspace-viewer-player');
  await expect(player).toHaveAttribute('data-molspace-frames', '98');
  expect(await runCell(page, 'print(v._coordinates is None, v._frames_on_demand["frames"], v.frames)')).toBe('True 98 98');
  const host = viewer.locator('[data-molspace-frames-held]');
  const held = async () => Number(await host.getAttribute('data-molspace-frames-held'));
  expect(await host.getAttribute('data-molspace-atom0')).toBe(await runCell(page, 'atom0(0)'));

  // the slider to a far frame: fetched, drawn, atom 0 as MDAnalysis reads frame 90
  await player.locator('input[type=range]').fill('90');
  await expect(player).toHaveAttribute('data-molspace-frame', '90');
  await expect(viewer).toHaveAttribute('data-molspace-ready', 'true');
  await expect(host).toHaveAttribute('data-molspace-atom0', await runCell(page, 'atom0(90)'));
  expect(await held()).toBeLessThanOrEqual(5);

  // a cell's goto_frame, then an agent's act: each answers once its frame is drawn
  await runCell(page, 'v.goto_frame(40).wait()');
  expect(await host.getAttribute('data-molspace-atom0')).toBe(await runCell(page, 'atom0(40)'));
  const client = await mcpClient();
  try {
    const target = await runCell(page, 'print(v.model_id)');
    const [stepped, stepError] = await call(client, 'act', { target, actions: [{ op: 'goto_frame', frame: 75 }] });
    expect(stepError).toBe(false);
    expect(stepped.view.frame).toBe(75);
    expect(await host.getAttribute('data-molspace-atom0')).toBe(await runCell(page, 'atom0(75)'));
    // a change that loads the MVS state again keeps the frame drawn from the kernel's frames
    await runCell(page, 'v.set_representation("protein", "spacefill").wait()');
    expect(await host.getAttribute('data-molspace-atom0')).toBe(await runCell(page, 'atom0(75)'));
  } finally {
    await client.close();
  }

  // playback from 60 crosses blocks of frames it does not hold; the page never holds more than 5
  await runCell(page, 'v.goto_frame(60).wait()');
  const requests = Number(await host.getAttribute('data-molspace-frame-requests'));
  await player.locator('button').click();
  await expect(player).toHaveAttribute('data-molspace-playing', 'true');
  await expect.poll(async () => Number(await player.getAttribute('data-molspace-frame')), { timeout: 30_000 }).toBeGreaterThan(67);
  await player.locator('button').click();
  await expect(player).toHaveAttribute('data-molspace-playing', 'false');
  await expect(viewer).toHaveAttribute('data-molspace-ready', 'true');
  const stopped = Number(await player.getAttribute('data-molspace-frame'));
  expect(Number(await host.getAttribute('data-molspace-frame-requests'))).toBeGreaterThan(requests);
  expect(await held()).toBeLessThanOrEqual(5);
  await expect(host).toHaveAttribute('data-molspace-atom0', await runCell(page, `atom0(${stopped})`));
});

test('an agent opens a GRO + XTC under the root, reads frames and time, steps them', async ({ page, tmpPath }) => {
  for (const name of ['adk_oplsaa.gro', 'adk_oplsaa.xtc']) {
    await page.contents.uploadFile(path.join(DATA, name), `${tmpPath}/${name}`);
  }
  await page.notebook.createNew('agent.ipynb');
  const client = await mcpClient();
  try {
    await client.listTools();
    const [opened, openError] = await call(client, 'open', { path: `${tmpPath}/adk_oplsaa.gro`, coordinates: `${tmpPath}/adk_oplsaa.xtc` });
    expect(openError).toBe(false);
    expect(opened.composition.trajectory).toEqual({ frames: 10, coordinates: 'xtc', timePs: { start: 0, step: 100 } });
    expect(opened.composition.atoms).toBe(47681);
    const target = opened.viewer.target;
    const [stepped, stepError] = await call(client, 'act', {
      target,
      actions: [
        { op: 'goto_frame', frame: 9 },
        { op: 'screenshot', width: 256 }
      ]
    });
    expect(stepError).toBe(false);
    expect(stepped.applied[0].summary).toBe('frame 9, 900 ps');
    expect(stepped.view.frame).toBe(9);
    expect(stepped.viewer.ready).toBe(true);
    expect(stepped.screenshot.width).toBe(256);
    const [observed] = await call(client, 'viewer_observe', { target });
    expect(observed.view).toMatchObject({ frame: 9, play: null });
    const [out, outError] = await call(client, 'act', { target, actions: [{ op: 'goto_frame', frame: 10 }] });
    expect(outError).toBe(true);
    expect(out).toMatchObject({ code: 'VALIDATION_FAILED', where: '/actions/0/frame', details: { frame: 10, frames: 10 } });
    // a coordinates file that is not there: located at /coordinates, nothing docked
    const [mismatch, mismatchError] = await call(client, 'open', {
      path: `${tmpPath}/adk_oplsaa.gro`,
      coordinates: `${tmpPath}/missing.xtc`
    });
    expect(mismatchError).toBe(true);
    expect(mismatch).toMatchObject({ code: 'NOT_FOUND', where: '/coordinates' });
  } finally {
    await client.close();
  }
});

test.describe('the page holds 3 frames (trajectoryFrameBudget)', () => {
  test.use({ mockSettings: { ...galata.DEFAULT_SETTINGS, 'molspace:plugin': { trajectoryFrameBudget: 3 } } });

  test("an agent's GRO + XTC of 10 frames plays from frames the server serves; atom 0 as MDAnalysis reads it", async ({
    page,
    tmpPath
  }) => {
    for (const name of ['adk_oplsaa.gro', 'adk_oplsaa.xtc']) {
      await page.contents.uploadFile(path.join(DATA, name), `${tmpPath}/${name}`);
    }
    const ref = REFERENCE['adk_oplsaa.xtc'];
    const atom0 = (i: number) =>
      (ref.frames.find((f: { frame: number }) => f.frame === i).positions['0'] as number[]).map(v => v.toFixed(3)).join(',');
    const client = await mcpClient();
    try {
      const [opened, openError] = await call(client, 'open', {
        path: `${tmpPath}/adk_oplsaa.gro`,
        coordinates: `${tmpPath}/adk_oplsaa.xtc`
      });
      expect(openError).toBe(false);
      expect(opened.composition.trajectory).toEqual({ frames: 10, coordinates: 'xtc', timePs: { start: 0, step: 100 } });
      expect(opened.composition.atoms).toBe(47681);
      const target = opened.viewer.target;
      const host = page.locator('.molspace-docked-viewer [data-molspace-frames-held]');
      await expect(host).toHaveAttribute('data-molspace-atom0', atom0(0));
      for (const frame of [9, 1]) {
        const [stepped, stepError] = await call(client, 'act', { target, actions: [{ op: 'goto_frame', frame }] });
        expect(stepError).toBe(false);
        expect(stepped.view.frame).toBe(frame);
        expect(await host.getAttribute('data-molspace-atom0')).toBe(atom0(frame));
        expect(Number(await host.getAttribute('data-molspace-frames-held'))).toBeLessThanOrEqual(3);
      }
      expect(Number(await host.getAttribute('data-molspace-frame-requests'))).toBeGreaterThanOrEqual(2);
      // a frame out of range: refused located, nothing asked of the server
      const [out, outError] = await call(client, 'act', { target, actions: [{ op: 'goto_frame', frame: 10 }] });
      expect(outError).toBe(true);
      expect(out).toMatchObject({ code: 'VALIDATION_FAILED', where: '/actions/0/frame' });
    } finally {
      await client.close();
    }
  });
});

test("a Story's steps draw frames of a trajectory (MVS coordinates node: AMBER prmtop + NetCDF in an .mvsx)", async ({ page, tmpPath }) => {
  for (const name of ['bala.prmtop', 'bala.ncdf']) {
    await page.contents.uploadFile(path.join(DATA, name), `${tmpPath}/${name}`);
  }
  await page.notebook.createNew('trajectory-story.ipynb');
  await setCode(
    page,
    0,
    [
      'import io, json, zipfile, molspace',
      'rep = [{"kind": "component", "params": {"selector": "all"}, "children": [{"kind": "representation", "params": {"type": "ball_and_stick"}}]}]',
      'coords = {"kind": "download", "params": {"url": "bala.ncdf"}, "children": [{"kind": "parse", "params": {"format": "nctraj"}, "children": [{"kind": "coordinates", "params": {}, "ref": "traj"}]}]}',
      'top = lambda i: {"kind": "download", "params": {"url": "bala.prmtop"}, "children": [{"kind": "parse", "params": {"format": "prmtop"}, "children": [{"kind": "structure", "params": {"type": "model", "model_index": i, "coordinates_ref": "traj"}, "children": rep}]}]}',
      'step = lambda i: {"root": {"kind": "root", "children": [coords, top(i)]}, "metadata": {"title": f"frame {i}", "key": f"frame-{i}", "linger_duration_ms": 1000}}',
      'story = {"kind": "multiple", "metadata": {"title": "alanine peptide", "version": "1"}, "snapshots": [step(0), step(15), step(29)]}',
      'buf = io.BytesIO()',
      'z = zipfile.ZipFile(buf, "w")',
      'z.writestr("index.mvsj", json.dumps(story))',
      'z.write("bala.prmtop")',
      'z.write("bala.ncdf")',
      'z.close()',
      's = molspace.Story(buf.getvalue())',
      's'
    ].join('\n')
  );
  await page.notebook.runCell(0, true);
  const story = page.locator('.molspace-story').first();
  await expect(story).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
  await expect(story.locator('.molspace-story-error')).toBeHidden();
  const canvas = story.locator('.molspace-story-canvas canvas').first();
  const pictures = [await stillPicture(canvas)];
  for (const key of ['frame-15', 'frame-29']) {
    await runCell(page, `s.goto("${key}")`);
    await expect(story).toHaveAttribute('data-molspace-drawn', key, { timeout: 30_000 });
    await expect(story).toHaveAttribute('data-molspace-ready', 'true');
    pictures.push(await stillPicture(canvas));
  }
  expect(pictures[1].equals(pictures[0])).toBe(false);
  expect(pictures[2].equals(pictures[1])).toBe(false);
  expect(await runCell(page, 'print(s.index, s.key, s.error)')).toBe('2 frame-29 None');
});
