/**
 * Trajectory playback in a Viewer: while `view.play` is set, the owning page takes one frame
 * step every `1000 / fps` ms (measured from the start of the previous step, so a step that draws
 * slowly lowers the rate rather than queueing steps), through the Dispatcher as `act`
 * `goto_frame` with source `play`; after the last frame it starts again at 0 (`loop`) or pauses.
 *
 * One timer per Viewer, whatever the number of pages showing it: the page that applied `play`
 * owns playback (the synced `_play_owner`, `../widget/pageInstance.ts`); other pages follow the
 * frames the kernel relays, and claim playback only when the owner took no step for
 * {@link TAKEOVER_MS} (the owning page was closed or frozen), as a Story's followers do.
 */
import type { Playback } from '../contract';

/** What playback reads from the Viewer each time it is rescheduled. */
export interface TrajectoryPlaybackState {
  play: Playback | null;
  frame: number;
  frames: number;
  /** This page owns playback. */
  owner: boolean;
}

export interface TrajectoryPlaybackOptions {
  state(): TrajectoryPlaybackState;
  /** Take one step (`goto_frame` to `frame`, or `pause`); resolves once drawn or failed. */
  step(action: { op: 'goto_frame'; frame: number } | { op: 'pause' }): Promise<void>;
  /** Make this page the owner (the owner took no step for {@link TAKEOVER_MS}). */
  claim(): void;
}

/** How long a following page waits for the owner's next frame before it claims playback, ms. */
export const TAKEOVER_MS = 5000;

export class TrajectoryPlayback {
  private readonly _options: TrajectoryPlaybackOptions;
  private _timer: ReturnType<typeof setTimeout> | null = null;
  private _watch: ReturnType<typeof setTimeout> | null = null;
  private _stepping = false;
  private _lastStep = 0;
  private _disposed = false;

  constructor(options: TrajectoryPlaybackOptions) {
    this._options = options;
  }

  /** True while a step is due (a timer is armed) or being drawn. */
  get active(): boolean {
    return this._timer !== null || this._stepping;
  }

  /** True while this page follows another's playback, ready to claim it. */
  get watching(): boolean {
    return this._watch !== null;
  }

  /** Re-read the state and rearm. Call when the view or the owner changes. */
  update(): void {
    if (this._stepping) {
      return; // rearmed when the step is drawn
    }
    this._clear();
    const s = this._options.state();
    if (this._disposed || !s.play || s.frames < 2) {
      return;
    }
    if (!s.owner) {
      // each frame the owner takes calls update() again (a new view), restarting this watch
      this._watch = setTimeout(() => {
        this._watch = null;
        this._options.claim();
      }, TAKEOVER_MS);
      return;
    }
    const due = Math.max(0, this._lastStep + 1000 / s.play.fps - performance.now());
    this._timer = setTimeout(() => void this._step(), due);
  }

  dispose(): void {
    this._disposed = true;
    this._clear();
  }

  private async _step(): Promise<void> {
    this._timer = null;
    const s = this._options.state();
    if (this._disposed || !s.play || !s.owner) {
      return;
    }
    this._lastStep = performance.now();
    const last = s.frame + 1 >= s.frames;
    this._stepping = true;
    try {
      await this._options.step(last && !s.play.loop ? { op: 'pause' } : { op: 'goto_frame', frame: last ? 0 : s.frame + 1 });
    } finally {
      this._stepping = false;
      this.update();
    }
  }

  private _clear(): void {
    if (this._timer !== null) {
      clearTimeout(this._timer);
      this._timer = null;
    }
    if (this._watch !== null) {
      clearTimeout(this._watch);
      this._watch = null;
    }
  }
}
