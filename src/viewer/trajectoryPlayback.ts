/**
 * Trajectory playback in a Viewer: while `view.play` is set, the owning page takes one frame
 * step every `1000 / fps` ms (measured from the start of the previous step, so a step that draws
 * slowly lowers the rate rather than queueing steps), through the Dispatcher as `act`
 * `goto_frame` with source `play`; after the last frame it starts again at 0 (`loop`) or pauses.
 *
 * One timer per Viewer, whatever the number of pages showing it: the page that applied `play`
 * owns playback (the synced `_play_owner`, `../widget/pageInstance.ts`); other pages follow the
 * frames the kernel relays.
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
}

export class TrajectoryPlayback {
  private readonly _options: TrajectoryPlaybackOptions;
  private _timer: ReturnType<typeof setTimeout> | null = null;
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

  /** Re-read the state and rearm. Call when the view or the owner changes. */
  update(): void {
    if (this._stepping) {
      return; // rearmed when the step is drawn
    }
    this._clear();
    const s = this._options.state();
    if (this._disposed || !s.play || !s.owner || s.frames < 2) {
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
  }
}
