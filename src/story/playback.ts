/**
 * Story playback: while a Story plays, each step stays for its
 * `linger_duration_ms` once drawn, then playback asks for the next step
 * (and pauses after the last). The steps themselves go through the
 * Dispatcher (source `play`), like any other change.
 *
 * One timer per Story, whatever the number of pages showing it: the page
 * whose Dispatcher applied `play` owns playback (the synced `_play_owner`
 * names its {@link PAGE_INSTANCE_ID}); other pages follow the model's
 * `index` as the kernel relays it and arm no step timer. A follower claims
 * playback only when the owner took no step for twice the linger plus
 * {@link TAKEOVER_GRACE_MS} (the owning page was closed).
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
  /** True when this page owns playback (it applied `play`, or claimed it). */
  owner: boolean;
}

export interface PlaybackOptions {
  /** The Story's playback state now. */
  state(): PlaybackState;
  /** Take one step: `next`, or `pause` after the last step. Failures are the caller's to report. */
  step(action: 'next' | 'pause'): void;
  /** Make this page the owner (the owner took no step for too long). */
  claim(): void;
}

export { PAGE_INSTANCE_ID } from '../widget/pageInstance';

/** Beyond twice the linger, how long a follower waits for the owner's step before claiming playback, ms. */
export const TAKEOVER_GRACE_MS = 5000;

/** Linger when a step has none, ms. */
export const DEFAULT_LINGER_MS = 4000;
/** Shortest linger, ms: a step is always seen. */
export const MIN_LINGER_MS = 250;

export class StoryPlayback {
  private readonly _options: PlaybackOptions;
  private _timer: ReturnType<typeof setTimeout> | null = null;
  private _watch: ReturnType<typeof setTimeout> | null = null;
  private _disposed = false;

  constructor(options: PlaybackOptions) {
    this._options = options;
  }

  /** True while a step is lingering (a timer is armed). */
  get scheduled(): boolean {
    return this._timer !== null;
  }

  /** True while this page waits to claim playback from a silent owner. */
  get watching(): boolean {
    return this._watch !== null;
  }

  /**
   * Re-read the state and rearm: while playing and ready, after the current
   * step's linger the owner takes the next step (a follower only watches
   * for a silent owner). Call when `playing`, `ready`, the owner or the
   * step changes.
   */
  update(): void {
    this._clear();
    const s = this._options.state();
    if (this._disposed || !s.playing || !s.ready) {
      return;
    }
    const linger = Math.max(s.lingerMs ?? DEFAULT_LINGER_MS, MIN_LINGER_MS);
    if (!s.owner) {
      this._watch = setTimeout(
        () => {
          this._watch = null;
          this._options.claim();
        },
        2 * linger + TAKEOVER_GRACE_MS
      );
      return;
    }
    const last = s.index + 1 >= s.count;
    this._timer = setTimeout(() => {
      this._timer = null;
      this._options.step(last ? 'pause' : 'next');
    }, linger);
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
    if (this._watch !== null) {
      clearTimeout(this._watch);
      this._watch = null;
    }
  }
}
