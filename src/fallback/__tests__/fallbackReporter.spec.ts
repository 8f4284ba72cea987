/**
 * The page side of static fallbacks (docs/architecture.md, "Static fallback in saved notebooks"):
 * when a widget's fallback is sent, what it says, and when nothing is sent.
 */
import { Signal } from '@lumino/signaling';
import type { PageFallback } from '../../contract';
import { FALLBACK_SETTLE_MS, FallbackReporter } from '../fallbackReporter';

const PNG = { png: 'iVBORw0KGgoAAAANSUhEUg', width: 10, height: 5 };

function story(over: Record<string, unknown> = {}) {
  const s = { index: 0, count: 2, ready: true, playing: false, revision: 1, title: 'T', key: 'a', error: null, ...over };
  return {
    targetId: 's1',
    kind: 'story' as const,
    notebook: 'n.ipynb',
    comm_live: true,
    state: () => ({ target: 's1', kind: 'story', ...s }),
    snapshots: () => [
      { index: 0, key: 'a', title: 'Overview', description: '<b>desc</b>', linger_duration_ms: 0, transition_duration_ms: 0 },
      { index: 1, key: 'b', title: 'Site', description: '', linger_duration_ms: 0, transition_duration_ms: 0 }
    ],
    describe: () => 'story',
    whenLoaded: () => Promise.resolve(),
    set(values: Record<string, unknown>) {
      Object.assign(s, values);
    }
  };
}

function setup(targets: any[]) {
  const changed = new Signal<unknown, number>({});
  const executed = new Signal<unknown, { target: string | null }>({});
  const welcomed = new Signal<unknown, void>({});
  const frames: PageFallback[] = [];
  let connected = true;
  const capture = jest.fn(async () => PNG);
  const reporter = new FallbackReporter({
    registry: { find: id => targets.find(t => t.targetId === id), list: () => targets, changed },
    executed,
    welcomed,
    send: f => (connected ? (frames.push(f), true) : false),
    capture,
    observe: null
  });
  return { reporter, frames, executed, welcomed, capture, setConnected: (c: boolean) => (connected = c) };
}

/** Let the settle timer fire and the capture resolve. */
async function settle(): Promise<void> {
  jest.advanceTimersByTime(FALLBACK_SETTLE_MS);
  for (let i = 0; i < 5; i++) {
    await Promise.resolve();
  }
}

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

test('a settled kernel Story is sent once after the settle time, with its step, steps and picture', async () => {
  const s = story();
  const { frames, executed } = setup([s]);
  jest.advanceTimersByTime(FALLBACK_SETTLE_MS - 1);
  expect(frames).toHaveLength(0);
  await settle();
  expect(frames).toHaveLength(1);
  expect(frames[0]).toMatchObject({ type: 'fallback', modelId: 's1', png: PNG.png, width: 10, height: 5 });
  expect(frames[0].state).toMatchObject({ kind: 'story', index: 0, key: 'a', count: 2, revision: 1 });
  expect(frames[0].state.steps).toEqual([
    { key: 'a', title: 'Overview' },
    { key: 'b', title: 'Site' }
  ]);
  expect(frames[0].state.summary).toContain('step 1 of 2: Overview');
  // Nothing changed: a trigger sends nothing.
  executed.emit({ target: 's1' });
  await settle();
  expect(frames).toHaveLength(1);
  // A change of step: one new frame.
  s.set({ index: 1, key: 'b', revision: 2 });
  executed.emit({ target: 's1' });
  await settle();
  expect(frames).toHaveLength(2);
  expect(frames[1].state).toMatchObject({ index: 1, revision: 2 });
});

test('triggers within the settle time take one picture', async () => {
  const s = story();
  const { frames, executed, capture } = setup([s]);
  for (let i = 0; i < 5; i++) {
    jest.advanceTimersByTime(FALLBACK_SETTLE_MS / 2);
    executed.emit({ target: 's1' });
  }
  await settle();
  expect(frames).toHaveLength(1);
  expect(capture).toHaveBeenCalledTimes(1);
});

test('nothing is taken while a Story plays, before it is drawn, or for a widget without a live comm', async () => {
  const playing = story({ playing: true });
  const notDrawn = { ...story({ ready: false }), targetId: 's2' };
  const docked = { ...story(), targetId: 's3', comm_live: undefined };
  const restored = { ...story(), targetId: 's4', comm_live: false };
  const { frames, capture } = setup([playing, notDrawn, docked, restored]);
  await settle();
  expect(frames).toHaveLength(0);
  expect(capture).not.toHaveBeenCalled();
  playing.set({ playing: false });
  await expect(setup([playing]).reporter.flush('s1')).resolves.toBe(true);
});

test('a frame the bridge could not send is sent after the next welcome', async () => {
  const { frames, welcomed, setConnected } = setup([story()]);
  setConnected(false);
  await settle();
  expect(frames).toHaveLength(0);
  setConnected(true);
  welcomed.emit();
  await settle();
  expect(frames).toHaveLength(1);
});

test('a panel is sent with its content and without a picture unless it is a chart', async () => {
  const content = { type: 'table', columns: [{ name: 'a', type: 'string' }], rows: [['<b>x</b>']] };
  const panel = {
    targetId: 'p1',
    kind: 'panel' as const,
    notebook: 'n.ipynb',
    comm_live: true,
    panelId: 'p1',
    placement: 'inline',
    state: () => ({
      target: 'p1',
      kind: 'panel',
      panelId: 'p1',
      title: 'Results',
      placement: 'inline',
      type: 'table',
      ready: true,
      revision: 0,
      error: null
    }),
    content: () => content,
    describe: () => 'inline panel "p1": table, 1 rows × 1 columns',
    whenLoaded: () => Promise.resolve()
  };
  const { frames, capture } = setup([panel]);
  await settle();
  expect(frames).toHaveLength(1);
  expect(frames[0].content).toEqual(content);
  expect(frames[0].png).toBeUndefined();
  expect(frames[0].state.summary).toBe('Panel "Results": inline panel "p1": table, 1 rows × 1 columns');
  expect(capture).not.toHaveBeenCalled();
});

test('a Ketcher editor is sent with what it holds at its structure revision, and a picture; not before it is ready', async () => {
  const s = { ready: false, structureRevision: 3, interactionRevision: 7, title: 'acetic acid', smiles: 'CC(O)=O', error: null };
  const editor = {
    targetId: 'k1',
    kind: 'ketcher' as const,
    notebook: 'n.ipynb',
    comm_live: true,
    state: () => ({ target: 'k1', kind: 'ketcher', ...s }),
    describe: () => 'Ketcher editor: CC(O)=O, C2H4O2, 4 atoms',
    whenLoaded: () => Promise.resolve()
  };
  const { frames, capture, executed } = setup([editor]);
  await settle();
  expect(frames).toHaveLength(0); // the editor has not loaded yet
  s.ready = true;
  executed.emit({ target: 'k1' });
  await settle();
  expect(frames).toHaveLength(1);
  expect(frames[0].state).toEqual({
    kind: 'ketcher',
    revision: 3,
    title: 'acetic acid',
    summary: 'Ketcher "acetic acid": Ketcher editor: CC(O)=O, C2H4O2, 4 atoms'
  });
  expect(frames[0].png).toBe(PNG.png);
  expect(capture).toHaveBeenCalledWith(editor);
});

test('nothing is taken while a trajectory plays; its frame is, once paused', async () => {
  let play: { fps: number; loop: boolean } | null = { fps: 10, loop: true };
  const viewer = {
    targetId: 'v1',
    kind: 'viewer' as const,
    notebook: 'n.ipynb',
    comm_live: true,
    state: () => ({ target: 'v1', kind: 'viewer', title: 'AdK', ready: true, revision: 7, error: null, undo: 0, redo: 0 }),
    view: () => ({ frame: 12, play }),
    describe: () => `AdK (psf + dcd): frame 12 of 98${play ? ', playing' : ''}`,
    whenLoaded: () => Promise.resolve()
  };
  const { frames, capture, reporter } = setup([viewer]);
  await settle();
  expect(capture).not.toHaveBeenCalled();
  await expect(reporter.flush('v1')).resolves.toBe(false);
  play = null;
  await expect(reporter.flush('v1')).resolves.toBe(true);
  expect(frames.map(f => f.state.summary)).toEqual(['Viewer: AdK (psf + dcd): frame 12 of 98']);
});
