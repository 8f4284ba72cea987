/** Story playback: linger, next, pause at the last step; only while playing and drawn; one owner. */
import { DEFAULT_LINGER_MS, MIN_LINGER_MS, StoryPlayback, TAKEOVER_GRACE_MS, type PlaybackState } from '../playback';

function setup(initial: Partial<PlaybackState> = {}) {
  const state: PlaybackState = { playing: true, ready: true, index: 0, count: 3, lingerMs: 1000, owner: true, ...initial };
  const steps: string[] = [];
  const playback = new StoryPlayback({
    state: () => state,
    step: a => steps.push(a),
    claim: () => {
      steps.push('claim');
      state.owner = true;
    }
  });
  return { state, steps, playback };
}

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

it('takes the next step once the current one has lingered, and pauses after the last', () => {
  const { state, steps, playback } = setup();
  playback.update();
  jest.advanceTimersByTime(999);
  expect(steps).toEqual([]);
  jest.advanceTimersByTime(1);
  expect(steps).toEqual(['next']);
  state.index = 2;
  state.lingerMs = 300;
  playback.update();
  jest.advanceTimersByTime(300);
  expect(steps).toEqual(['next', 'pause']);
});

it('waits while the step is not drawn or the Story is paused', () => {
  const { state, steps, playback } = setup({ ready: false });
  playback.update();
  expect(playback.scheduled).toBe(false);
  state.ready = true;
  state.playing = false;
  playback.update();
  jest.advanceTimersByTime(10 * DEFAULT_LINGER_MS);
  expect(steps).toEqual([]);
});

it('restarts the linger when rescheduled, and stops when disposed', () => {
  const { steps, playback } = setup();
  playback.update();
  jest.advanceTimersByTime(800);
  playback.update();
  jest.advanceTimersByTime(800);
  expect(steps).toEqual([]);
  playback.dispose();
  playback.update();
  jest.advanceTimersByTime(10 * DEFAULT_LINGER_MS);
  expect(steps).toEqual([]);
});

it('uses the default linger when the step has none and never less than the minimum', () => {
  const a = setup({ lingerMs: undefined });
  a.playback.update();
  jest.advanceTimersByTime(DEFAULT_LINGER_MS - 1);
  expect(a.steps).toEqual([]);
  jest.advanceTimersByTime(1);
  expect(a.steps).toEqual(['next']);
  const b = setup({ lingerMs: 0 });
  b.playback.update();
  jest.advanceTimersByTime(MIN_LINGER_MS - 1);
  expect(b.steps).toEqual([]);
  jest.advanceTimersByTime(1);
  expect(b.steps).toEqual(['next']);
});

it('a page that does not own playback takes no step; it claims playback only after the owner stays silent', () => {
  const { state, steps, playback } = setup({ owner: false });
  playback.update();
  expect(playback.scheduled).toBe(false);
  expect(playback.watching).toBe(true);
  // The owner's next step arrives (the index moves): the watch starts over.
  jest.advanceTimersByTime(2 * 1000 + TAKEOVER_GRACE_MS - 1);
  state.index = 1;
  playback.update();
  jest.advanceTimersByTime(2 * 1000 + TAKEOVER_GRACE_MS - 1);
  expect(steps).toEqual([]);
  // Silent owner: claim, then step as the owner.
  jest.advanceTimersByTime(1);
  expect(steps).toEqual(['claim']);
  playback.update();
  jest.advanceTimersByTime(1000);
  expect(steps).toEqual(['claim', 'next']);
});
