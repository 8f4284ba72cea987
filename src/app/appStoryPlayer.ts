/**
 * A Story in the App (or an exported file): the Story viewer a notebook's Story uses
 * (`MolstarStoryViewer`, `parseStory`), with Previous / Play / Next buttons of its own. Each step
 * is told to the model (`ui/update-model-context`); step descriptions are shown as text (never
 * markup: a Story's text cannot act in the App).
 *
 * With no JupyterLab page the App holds the Story: its buttons step it here. When the Story is
 * also docked in a page ({@link AppStoryPlayer.link}), the docked one is the Story: the buttons
 * call `story_control` through the host with its revision (`expectedRevision`) and an `actionId`,
 * Play plays it there, and the App shows each step the docked Story reaches (`./appFollow.ts`),
 * whoever moved it (the model, a cell, the person in JupyterLab or here).
 */
import type { CallToolResult } from '@modelcontextprotocol/client';

import { errorResultText, MolspaceError, type LocatedError } from '../contract/errors';
import { parseStory, type ParsedStory } from '../molstar/storySource';
import { defaultResourcePolicy } from '../resources/resourcePolicy';
import { MolstarStoryViewer } from '../story/molstarStoryViewer';
import type { AppStorySource } from './appStory';
import { markState, showError } from './appStatus';
import { errorOfResult } from './appResult';
import { newActionId } from './appActionId';

/** Tells the model (`ui/update-model-context`). */
export type TellModel = (text: string, structured?: Record<string, unknown>) => void;

/** The docked Story the App's buttons drive: `story_control` on it through the host. */
export interface StoryLink {
  target: string;
  control(args: Record<string, unknown>): Promise<CallToolResult>;
}

/** Who moved the Story to the step shown. */
type StepSource = 'load' | 'ui' | 'play' | 'docked';

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
  /** The docked Story, its last revision seen and whether it plays; null: the App holds the Story. */
  private linked: (StoryLink & { revision: number; playing: boolean; busy: boolean }) | null = null;
  private readonly note: HTMLElement;

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
    this.note = document.createElement('div');
    this.note.className = 'molspace-app-link-note';
    this.note.hidden = true;
    this.controls.append(this.previous, this.play, this.next, this.stepText, this.description, this.note);
    host.after(this.controls);
  }

  private button(which: 'previous' | 'next', label: string): HTMLButtonElement {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = which === 'previous' ? '◀ Previous' : 'Next ▶';
    b.title = label;
    b.dataset.molspaceStep = which;
    b.addEventListener('click', () => {
      if (this.linked) {
        void this.control({ action: which });
        return;
      }
      this.stopPlaying();
      void this.goto(this.index + (which === 'next' ? 1 : -1));
    });
    return b;
  }

  /** Whether the Story plays (each step stays its `linger_duration_ms`, then the next; it stops at the end). */
  get playing(): boolean {
    return this.linked ? this.linked.playing : this.playTimer !== null;
  }

  private togglePlay(): void {
    if (this.linked) {
      void this.control({ action: this.linked.playing ? 'pause' : 'play' });
      return;
    }
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

  /** Parse and show `source` at step `index` (default the first; a docked Story's current step). */
  async show(source: AppStorySource, index = 0): Promise<void> {
    markState('loading', `Reading ${source.name}…`);
    const story = await parseStory(source.input, defaultResourcePolicy());
    this.viewer ??= await MolstarStoryViewer.create(this.host, { dark: this.dark, policy: defaultResourcePolicy() });
    this.story = story;
    this.title = source.title || story.title;
    this.index = Math.min(Math.max(0, index), Math.max(0, story.snapshots.length - 1));
    this.render(true);
    await this.viewer.load(story, this.index);
    this.drawn('load');
  }

  /**
   * From now on drive the docked Story `link` names (at `revision`) instead of this one: the
   * buttons call `story_control`, and {@link followed} shows the steps it reaches.
   */
  link(link: StoryLink, revision: number): void {
    this.stopPlaying();
    this.linked = { ...link, revision, playing: false, busy: false };
    this.controls.dataset.molspaceLinked = link.target;
    this.render(false);
  }

  /** The docked Story is gone or unreachable: say so located; `ended` gives the Story back to the App's own buttons. */
  unlinked(error: LocatedError, ended: boolean): void {
    this.showNote(error);
    if (ended && this.linked) {
      this.linked = null;
      delete this.controls.dataset.molspaceLinked;
      this.render(false);
    }
  }

  /** The docked Story's state as `story_observe` / `story_control` answer it: show its step. */
  async followed(structured: Record<string, unknown>, source: 'ui' | 'docked' = 'docked'): Promise<void> {
    const state = structured.story as { index?: unknown; revision?: unknown; playing?: unknown } | undefined;
    if (!this.linked || !state || !Number.isSafeInteger(state.index)) {
      return;
    }
    if (source === 'docked' && this.linked.busy) {
      return; // the App's own control call is in flight: its answer shows that step, as the person's
    }
    if (Number.isSafeInteger(state.revision)) {
      this.linked.revision = state.revision as number;
    }
    this.linked.playing = state.playing === true;
    this.showNote(null);
    if (state.index === this.index) {
      this.render(false);
      return;
    }
    await this.goto(state.index as number, source);
  }

  /** One `story_control` call on the docked Story, with its revision and a fresh `actionId`; its answer is shown. */
  private async control(args: Record<string, unknown>): Promise<void> {
    const linked = this.linked;
    if (!linked || linked.busy) {
      return;
    }
    linked.busy = true;
    this.render(true);
    let failed: LocatedError | null = null;
    try {
      const result = await linked.control({ target: linked.target, ...args, expectedRevision: linked.revision, actionId: newActionId() });
      failed = errorOfResult(result);
      if (!failed && !result.isError) {
        linked.busy = false;
        await this.followed((result.structuredContent ?? {}) as Record<string, unknown>, 'ui');
      } else {
        failed ??= new MolspaceError('INTERNAL', 'story_control failed without a located error.', linked.target, 'Try again.', {}).toJSON();
      }
    } catch (e) {
      failed = MolspaceError.from(e, 'App story_control').toJSON();
    } finally {
      linked.busy = false;
      this.render(false);
    }
    if (failed) {
      // e.g. REVISION_CONFLICT when the Story moved meanwhile: the next read shows where it is now.
      this.showNote(failed);
      this.tell(
        `molspace App: the person's ${String(args.action)} on Story "${this.title}" was refused: ${failed.code}: ${failed.message}`
      );
    }
  }

  private showNote(error: LocatedError | null): void {
    this.note.hidden = error === null;
    this.note.textContent = error ? errorResultText(error).split('\n')[0] : '';
  }

  /** Show step `index` (clamped buttons make an out-of-range index a no-op). */
  async goto(index: number, source: StepSource = this.playing ? 'play' : 'ui'): Promise<void> {
    const story = this.story;
    if (!story || !this.viewer || index < 0 || index >= story.snapshots.length || index === this.index) {
      return;
    }
    this.index = index;
    this.render(true);
    try {
      await this.viewer.applySnapshot(index);
      this.drawn(source);
    } catch (e) {
      this.tell(showError(MolspaceError.from(e, `Story step ${index + 1}`).toJSON()));
      this.render(false);
    }
  }

  private drawn(source: StepSource): void {
    const story = this.story!;
    const step = story.snapshots[this.index];
    markState('drawn', this.title);
    this.render(false);
    this.tell(
      `molspace App: Story "${this.title}" at step ${this.index + 1} of ${story.snapshots.length}` +
        (step?.title ? ` ("${step.title}")` : '') +
        (source === 'ui'
          ? ', moved there by the person.'
          : source === 'play'
            ? ', playing.'
            : source === 'docked'
              ? ', as in JupyterLab.'
              : '.'),
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
    busy ||= this.linked?.busy === true;
    this.previous.disabled = busy || this.index <= 0;
    this.next.disabled = busy || this.index >= count - 1;
    this.play.textContent = this.playing ? '❚❚ Pause' : '▶ Play';
    this.play.title = this.playing ? 'Pause' : 'Play the Story';
    this.play.disabled = (busy && this.linked !== null) || count < 2 || (!this.playing && this.index >= count - 1);
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
