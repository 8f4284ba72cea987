/**
 * A Viewer's trajectory controls (shown only for a trajectory): play/pause, a frame slider, the
 * frame and its time, the rate and whether playback loops. Every control sends one `act`
 * operation (`goto_frame`, `play`, `pause`) through the Viewer's model as a `ui` change; the
 * controls show the synced view, never their own state. Dragging the slider sends at most one
 * `goto_frame` at a time: the frame under the thumb when the previous one is drawn.
 *
 * Test hooks: `.molspace-viewer-player[data-molspace-frame]`, `[data-molspace-frames]`,
 * `[data-molspace-playing]`.
 */
import type { ViewerAction, ViewerTrajectory, ViewerViewState } from '../contract';
import { frameTimePs } from './viewerText';

const RATES = [1, 2, 5, 10, 15, 24, 30, 60];

export class FramePlayer {
  readonly element: HTMLElement;
  private readonly send: (action: ViewerAction) => Promise<void>;
  private readonly play: HTMLButtonElement;
  private readonly slider: HTMLInputElement;
  private readonly label: HTMLElement;
  private readonly rate: HTMLSelectElement;
  private readonly loop: HTMLInputElement;
  private view: ViewerViewState | null = null;
  private sending = false;
  private wanted: number | null = null;

  constructor(send: (action: ViewerAction) => Promise<void>) {
    this.send = send;
    const root = document.createElement('div');
    root.className = 'molspace-story-toolbar molspace-viewer-player';
    root.setAttribute('role', 'toolbar');
    root.setAttribute('aria-label', 'Trajectory frames');
    root.hidden = true;
    this.play = document.createElement('button');
    this.play.type = 'button';
    this.play.className = 'molspace-story-button jp-Button';
    this.play.addEventListener('click', () => {
      const v = this.view;
      if (v) {
        void this.send(v.play ? { op: 'pause' } : { op: 'play', fps: Number(this.rate.value), loop: this.loop.checked });
      }
    });
    this.slider = document.createElement('input');
    this.slider.type = 'range';
    this.slider.min = '0';
    this.slider.step = '1';
    this.slider.className = 'molspace-viewer-frame-slider';
    this.slider.setAttribute('aria-label', 'Frame');
    this.slider.addEventListener('input', () => this.goTo(Number(this.slider.value)));
    this.label = document.createElement('span');
    this.label.className = 'molspace-story-step molspace-viewer-frame';
    this.rate = document.createElement('select');
    this.rate.className = 'molspace-viewer-rate';
    this.rate.title = 'Frames per second';
    this.rate.setAttribute('aria-label', 'Frames per second');
    for (const r of RATES) {
      const o = document.createElement('option');
      o.value = String(r);
      o.textContent = `${r} fps`;
      this.rate.append(o);
    }
    this.rate.value = '10';
    const loopLabel = document.createElement('label');
    loopLabel.className = 'molspace-viewer-loop';
    this.loop = document.createElement('input');
    this.loop.type = 'checkbox';
    this.loop.checked = true;
    loopLabel.append(this.loop, document.createTextNode(' loop'));
    const restart = () => {
      // a playing trajectory takes the new rate or loop at once
      if (this.view?.play) {
        void this.send({ op: 'play', fps: Number(this.rate.value), loop: this.loop.checked });
      }
    };
    this.rate.addEventListener('change', restart);
    this.loop.addEventListener('change', restart);
    root.append(this.play, this.slider, this.label, this.rate, loopLabel);
    this.element = root;
  }

  /** Show `view` of `trajectory` (hidden when null: one frame). */
  update(trajectory: ViewerTrajectory | null, view: ViewerViewState): void {
    this.view = view;
    const root = this.element;
    root.hidden = !trajectory || trajectory.frames < 2;
    if (!trajectory) {
      return;
    }
    const playing = view.play !== null;
    root.dataset.molspaceFrame = String(view.frame);
    root.dataset.molspaceFrames = String(trajectory.frames);
    root.dataset.molspacePlaying = String(playing);
    this.play.textContent = playing ? '⏸ Pause' : '▶ Play';
    this.play.title = playing ? 'Pause' : 'Play the frames';
    this.play.setAttribute('aria-label', this.play.title);
    this.slider.max = String(trajectory.frames - 1);
    if (this.wanted === null) {
      this.slider.value = String(view.frame);
    }
    const time = trajectory.timePs ? ` · ${frameTimePs(trajectory.timePs, view.frame)} ps` : '';
    this.label.textContent = `frame ${view.frame + 1} / ${trajectory.frames}${time}`;
    if (view.play) {
      this.rate.value = String(RATES.includes(view.play.fps) ? view.play.fps : this.rate.value);
      this.loop.checked = view.play.loop;
    }
  }

  private goTo(frame: number): void {
    this.wanted = frame;
    if (this.sending) {
      return;
    }
    void this.drain();
  }

  private async drain(): Promise<void> {
    this.sending = true;
    try {
      while (this.wanted !== null && this.wanted !== this.view?.frame) {
        const frame = this.wanted;
        await this.send({ op: 'goto_frame', frame });
        if (this.wanted === frame) {
          this.wanted = null;
        }
      }
      this.wanted = null;
    } finally {
      this.sending = false;
    }
  }
}
