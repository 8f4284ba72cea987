/**
 * Story playback: while a Story plays, each step stays for its
 * `linger_duration_ms` once drawn, then playback asks for the next step
 * (and pauses after the last). The steps themselves go through the
 * Dispatcher (source `play`), like any other change.
 */

/** What playback reads from the Story each time it is rescheduled. */
export interface PlaybackState {
  playing: boolean;
  /** True once the current step is drawn; the linger starts then. */
  ready: boolean;
  /** 0-based index of the current step. */
  index: number;
  /** Number of steps. */
  count: number;
  /** How long the current step stays, ms (its `linger_duration_ms`), or undefined when unknown. */
  lingerMs: number | undefined;
}

export interface PlaybackOptions {
  /** The Story's playback state now. */
  state(): PlaybackState;
  /** Take one step: `next`, or `pause` after the last step. Failures are the caller's to report. */
  step(action: 'next' | 'pause'): void;
}

/** Linger when a step has none, ms. */
export const DEFAULT_LINGER_MS = 4000;
/** Shortest linger, ms: a step is always seen. */
export const MIN_LINGER_MS = 250;

export class StoryPlayback {
  private readonly _options: PlaybackOptions;
  private _timer: ReturnType<typeof setTimeout> | null = null;
  private _disposed = false;

  constructor(options: PlaybackOptions) {
    this._options = options;
  }

  /** True while a step is lingering (a timer is armed). */
  get scheduled(): boolean {
    return this._timer !== null;
  }

  /**
   * Re-read the state and rearm: while playing and ready, after the current
   * step's linger take the next step. Call when `playing`, `ready` or the
   * step changes.
   */
  update(): void {
    this._clear();
    const s = this._options.state();
    if (this._disposed || !s.playing || !s.ready) {
      return;
    }
    const last = s.index + 1 >= s.count;
    this._timer = setTimeout(
      () => {
        this._timer = null;
        this._options.step(last ? 'pause' : 'next');
      },
      Math.max(s.lingerMs ?? DEFAULT_LINGER_MS, MIN_LINGER_MS)
    );
  }

  /** Stop for good. */
  dispose(): void {
    this._disposed = true;
    this._clear();
  }

  private _clear(): void {
    if (this._timer !== null) {
      clearTimeout(this._timer);
      this._timer = null;
    }
  }
}
