/**
 * A Story in the App (or an exported file): the Story viewer a notebook's Story uses
 * (`MolstarStoryViewer`, `parseStory`), with Previous / Play / Next buttons of its own, since no JupyterLab page holds
 * the Story. Each step the person takes is told to the model (`ui/update-model-context`);
 * step descriptions are shown as text (never markup: a Story's text cannot act in the App).
 */
import { MolspaceError } from '../contract/errors';
import { parseStory, type ParsedStory } from '../molstar/storySource';
import { defaultResourcePolicy } from '../resources/resourcePolicy';
import { MolstarStoryViewer } from '../story/molstarStoryViewer';
import type { AppStorySource } from './appStory';
import { markState, showError } from './appStatus';

/** Tells the model (`ui/update-model-context`). */
export type TellModel = (text: string, structured?: Record<string, unknown>) => void;

export class AppStoryPlayer {
  private viewer: MolstarStoryViewer | null = null;
  private story: ParsedStory | null = null;
  private title = '';
  private index = 0;
  private readonly controls: HTMLElement;
  private readonly stepText: HTMLElement;
  private readonly description: HTMLElement;
  private readonly previous: HTMLButtonElement;
  private readonly next: HTMLButtonElement;
  private readonly play: HTMLButtonElement;
  private playTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly host: HTMLElement,
    private readonly dark: boolean,
    private readonly tell: TellModel
  ) {
    this.controls = document.createElement('div');
    this.controls.id = 'molspace-app-story';
    this.previous = this.button('previous', 'Previous step');
    this.next = this.button('next', 'Next step');
    this.play = document.createElement('button');
    this.play.type = 'button';
    this.play.dataset.molspaceStep = 'play';
    this.play.addEventListener('click', () => this.togglePlay());
    this.stepText = document.createElement('span');
    this.stepText.className = 'molspace-app-step';
    this.description = document.createElement('div');
    this.description.className = 'molspace-app-description';
    this.controls.append(this.previous, this.play, this.next, this.stepText, this.description);
    host.after(this.controls);
  }

  private button(which: 'previous' | 'next', label: string): HTMLButtonElement {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = which === 'previous' ? '◀ Previous' : 'Next ▶';
    b.title = label;
    b.dataset.molspaceStep = which;
    b.addEventListener('click', () => {
      this.stopPlaying();
      void this.goto(this.index + (which === 'next' ? 1 : -1));
    });
    return b;
  }

  /** Whether the Story plays (each step stays its `linger_duration_ms`, then the next; it stops at the end). */
  get playing(): boolean {
    return this.playTimer !== null;
  }

  private togglePlay(): void {
    if (this.playing) {
      this.stopPlaying();
    } else {
      this.scheduleNext();
    }
    this.render(false);
  }

  private scheduleNext(): void {
    const story = this.story;
    if (!story || this.index >= story.snapshots.length - 1) {
      // At the end: Play stops (and says so).
      this.stopPlaying();
      this.render(false);
      return;
    }
    const linger = story.snapshots[this.index]?.linger_duration_ms || 3000;
    this.playTimer = setTimeout(() => {
      void this.goto(this.index + 1).then(() => (this.playTimer !== null ? this.scheduleNext() : undefined));
    }, linger);
  }

  private stopPlaying(): void {
    if (this.playTimer !== null) {
      clearTimeout(this.playTimer);
      this.playTimer = null;
    }
  }

  /** Parse and show `source` at its first step. */
  async show(source: AppStorySource): Promise<void> {
    markState('loading', `Reading ${source.name}…`);
    const story = await parseStory(source.input, defaultResourcePolicy());
    this.viewer ??= await MolstarStoryViewer.create(this.host, { dark: this.dark, policy: defaultResourcePolicy() });
    this.story = story;
    this.title = source.title || story.title;
    this.index = 0;
    this.render(true);
    await this.viewer.load(story, 0);
    this.drawn('load');
  }

  /** Show step `index` (clamped buttons make an out-of-range index a no-op). */
  async goto(index: number): Promise<void> {
    const story = this.story;
    if (!story || !this.viewer || index < 0 || index >= story.snapshots.length || index === this.index) {
      return;
    }
    this.index = index;
    this.render(true);
    try {
      await this.viewer.applySnapshot(index);
      this.drawn(this.playing ? 'play' : 'ui');
    } catch (e) {
      this.tell(showError(MolspaceError.from(e, `Story step ${index + 1}`).toJSON()));
      this.render(false);
    }
  }

  private drawn(source: 'load' | 'ui' | 'play'): void {
    const story = this.story!;
    const step = story.snapshots[this.index];
    markState('drawn', this.title);
    this.render(false);
    this.tell(
      `molspace App: Story "${this.title}" at step ${this.index + 1} of ${story.snapshots.length}` +
        (step?.title ? ` ("${step.title}")` : '') +
        (source === 'ui' ? ', moved there by the person.' : source === 'play' ? ', playing.' : '.'),
      { story: { title: this.title, step: this.index, key: step?.key ?? '', steps: story.snapshots.length } }
    );
  }

  private render(busy: boolean): void {
    const story = this.story;
    const count = story?.snapshots.length ?? 0;
    const step = story?.snapshots[this.index];
    this.controls.dataset.molspaceStepIndex = String(this.index);
    this.stepText.textContent = count ? `${this.index + 1} / ${count}${step?.title ? `: ${step.title}` : ''}` : '';
    this.description.textContent = step?.description ?? '';
    this.previous.disabled = busy || this.index <= 0;
    this.next.disabled = busy || this.index >= count - 1;
    this.play.textContent = this.playing ? '❚❚ Pause' : '▶ Play';
    this.play.title = this.playing ? 'Pause' : 'Play the Story';
    this.play.disabled = count < 2 || (!this.playing && this.index >= count - 1);
    this.controls.dataset.molspacePlaying = String(this.playing);
  }

  /** Dispose the viewer and remove the controls (another result shows a structure). */
  dispose(): void {
    this.stopPlaying();
    this.viewer?.dispose();
    this.viewer = null;
    this.controls.remove();
  }
}
