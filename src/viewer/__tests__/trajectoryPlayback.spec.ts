/** Trajectory playback: one step per 1000/fps ms once drawn, loop or pause at the end, one owner, takeover. */
import { TAKEOVER_MS, TrajectoryPlayback, type TrajectoryPlaybackState } from '../trajectoryPlayback';

function setup(initial: Partial<TrajectoryPlaybackState> = {}) {
  const state: TrajectoryPlaybackState = { play: { fps: 10, loop: true }, frame: 0, frames: 3, owner: true, ...initial };
  const steps: string[] = [];
  const playback = new TrajectoryPlayback({
    state: () => state,
    step: async a => {
      steps.push(a.op === 'pause' ? 'pause' : `frame ${a.frame}`);
      if (a.op === 'goto_frame') {
        state.frame = a.frame;
      } else {
        state.play = null;
      }
    },
    claim: () => {
      steps.push('claim');
      state.owner = true;
    }
  });
  return { state, steps, playback };
}

/** Run due timers and the step's promise. */
async function advance(ms: number): Promise<void> {
  jest.advanceTimersByTime(ms);
  for (let i = 0; i < 5; i++) {
    await Promise.resolve();
  }
}

beforeEach(() => jest.useFakeTimers({ doNotFake: ['performance'] }));
afterEach(() => jest.useRealTimers());

it('steps at the rate asked, loops after the last frame, or pauses there', async () => {
  const { state, steps, playback } = setup();
  playback.update();
  await advance(100);
  await advance(100);
  await advance(100);
  expect(steps).toEqual(['frame 1', 'frame 2', 'frame 0']);
  state.play = { fps: 10, loop: false };
  state.frame = 2;
  playback.update();
  await advance(100);
  expect(steps.at(-1)).toBe('pause');
  await advance(1000);
  expect(steps).toHaveLength(4);
});

it('does nothing for one frame, when paused, or once disposed', async () => {
  const one = setup({ frames: 1 });
  one.playback.update();
  await advance(1000);
  expect(one.steps).toEqual([]);
  const paused = setup({ play: null });
  paused.playback.update();
  await advance(1000);
  expect(paused.steps).toEqual([]);
  const gone = setup();
  gone.playback.dispose();
  gone.playback.update();
  await advance(1000);
  expect(gone.steps).toEqual([]);
});

it('a follower takes no step while the owner does, and claims playback when the owner falls silent', async () => {
  const { state, steps, playback } = setup({ owner: false });
  playback.update();
  expect(playback.watching).toBe(true);
  await advance(TAKEOVER_MS - 100);
  state.frame = 1; // the owner's frame, relayed by the kernel
  playback.update();
  await advance(TAKEOVER_MS - 100);
  expect(steps).toEqual([]);
  await advance(100);
  expect(steps).toEqual(['claim']);
  playback.update(); // the claim changes _play_owner: update() runs again
  await advance(100);
  expect(steps).toEqual(['claim', 'frame 2']);
});
