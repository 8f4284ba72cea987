/**
 * The Viewer App: a structure from a tool result, drawn in the agent's chat by the
 * same Mol* Viewer code a notebook's Viewer uses (`MolstarStructureViewer`,
 * `readStructure`, `initialView`), with no JupyterLab page.
 *
 * Each tool result that carries a structure (`_meta["molspace/structure"]`) is read
 * and drawn; its bounded composition goes to the model (`ui/update-model-context`),
 * never the structure text. An error result, or a structure that does not read, is
 * shown located and told to the model the same way.
 *
 * A result that names a widget docked in a JupyterLab page (`open` with a page open) makes the
 * App follow it through the host (`./appFollow.ts`): the model's later `act` and `story_control`
 * calls, a cell's changes and clicks in JupyterLab redraw the App, and a Story's buttons drive the
 * docked Story (`story_control` with its revision and an `actionId`).
 */
import type { CallToolResult } from '@modelcontextprotocol/client';

import { MolspaceError, type LocatedError } from '../contract/errors';
import type { ViewerComposition, ViewerViewState } from '../contract/viewer';
import { initialView } from '../viewer/initialView';
// Mol*'s model and parser modules before its plugin's: the order the page loads them in (the page
// imports the viewer later, on demand); the other order meets a circular import half-initialised.
import { defaultLayers, readStructure } from '../viewer/structureData';
import { MolstarStructureViewer, type ViewerSource } from '../viewer/molstarStructureViewer';
import { appSourceOf, appStructureBytes } from './appStructure';
import { appStoryOf } from './appStory';
import { appDepictionOf, NO_EDITOR_NOTE, showDepiction } from './appDepiction';
import { AppStoryPlayer } from './appStoryPlayer';
import type { AppHandoff } from './appHandoff';
import { markState, showError, startApp } from './appStatus';
import { AppFollower } from './appFollow';
import { dockedOf, errorOfResult, type DockedWidget } from './appResult';

function compositionLine(title: string, c: ViewerComposition): string {
  const parts = [`${c.atoms} atoms`, `${c.residues} residues`, `${c.chainCount} chains`];
  if (c.ligandCount) {
    parts.push(`${c.ligandCount} ligands`);
  }
  if (c.trajectory) {
    parts.push(`${c.trajectory.frames} frames`);
  }
  return `molspace App: ${title} (${c.format}) drawn: ${parts.join(', ')}.`;
}

class ViewerApp {
  private viewer: MolstarStructureViewer | null = null;
  private storyPlayer: AppStoryPlayer | null = null;
  private shown = 0;
  /** The structure drawn (the same object, so a followed view change redraws only what changed). */
  private source: ViewerSource | null = null;
  private follower: AppFollower | null = null;

  constructor(
    private readonly handoff: AppHandoff,
    private readonly host: HTMLElement
  ) {}

  private get dark(): boolean {
    return this.handoff.dark();
  }

  async show(result: CallToolResult): Promise<void> {
    const n = ++this.shown;
    this.unfollow();
    try {
      const failed = errorOfResult(result);
      if (failed) {
        this.tell(showError(failed));
        return;
      }
      const depiction = appDepictionOf(result);
      if (depiction) {
        this.clear();
        this.host.hidden = true;
        const box = document.getElementById('molspace-app-picture') ?? document.createElement('div');
        box.id = 'molspace-app-picture';
        this.host.after(box);
        showDepiction(box, depiction);
        markState('drawn', depiction.title);
        this.tell(
          `molspace App: ${depiction.title} (${depiction.formula}) shown as the server's picture. ${NO_EDITOR_NOTE.message} ${NO_EDITOR_NOTE.fix}`
        );
        return;
      }
      document.getElementById('molspace-app-picture')?.remove();
      this.host.hidden = false;
      const story = appStoryOf(result);
      if (story) {
        this.viewer?.dispose();
        this.viewer = null;
        const player = (this.storyPlayer ??= new AppStoryPlayer(this.host, this.dark, (text, structured) => this.tell(text, structured)));
        await player.show(story);
        const docked = dockedOf(result);
        const call = this.handoff.call;
        if (n === this.shown && call && docked?.kind === 'story') {
          player.link({ target: docked.target, control: args => call('story_control', args) }, docked.revision);
          this.follow(
            docked,
            s => player.followed(s),
            (e, ended) => player.unlinked(e, ended)
          );
        }
        return;
      }
      this.storyPlayer?.dispose();
      this.storyPlayer = null;
      this.source = null;
      const source = appSourceOf(result);
      if (!source) {
        markState('drawn', 'Shown in JupyterLab.');
        return;
      }
      markState(
        'loading',
        source.download ? `Downloading ${source.download.pdbId} from ${new URL(source.name).host}…` : `Reading ${source.name}…`
      );
      const bytes = await appStructureBytes(source);
      if (n !== this.shown) {
        return;
      }
      const data = await readStructure(bytes, source.format, source.name, source.coordinates);
      const viewer = (this.viewer ??= await MolstarStructureViewer.create(this.host, {
        dark: this.dark,
        policy: { hosts: [], pageOrigin: null }
      }));
      const shown: ViewerSource = {
        bytes,
        format: source.format,
        models: data.composition.shownModels,
        coordinates: data.coordinates,
        frames: data.composition.trajectory !== null && data.coordinates === null
      };
      this.source = shown;
      await viewer.show(shown, source.view ?? initialView(defaultLayers(data)));
      if (n !== this.shown) {
        return;
      }
      const line = compositionLine(source.title, data.composition);
      markState('drawn', source.title);
      this.tell(line, { composition: data.composition });
      const docked = dockedOf(result);
      if (docked?.kind === 'viewer') {
        this.follow(
          docked,
          async s => {
            const view = s.view as ViewerViewState | undefined;
            if (view && this.viewer === viewer && this.source === shown) {
              await viewer.show(shown, view);
              markState('drawn', source.title);
            }
          },
          e => this.noteFollow(e)
        );
      }
    } catch (e) {
      if (n === this.shown) {
        this.tell(showError(MolspaceError.from(e, 'App').toJSON()));
      }
    }
  }

  /**
   * Follow `docked` through the host (none where the App has no host to call: an exported file).
   * The document's `data-molspace-follow` names it (`viewer:<id>`) and
   * `data-molspace-follow-revision` is the revision last drawn (test hooks).
   */
  private follow(
    docked: DockedWidget,
    changed: (s: Record<string, unknown>) => Promise<void>,
    lost: (e: LocatedError, ended: boolean) => void
  ): void {
    const call = this.handoff.call;
    if (!call) {
      return;
    }
    const root = document.documentElement;
    root.dataset.molspaceFollow = `${docked.kind}:${docked.target}`;
    root.dataset.molspaceFollowRevision = String(docked.revision);
    this.follower = new AppFollower({
      call,
      widget: docked,
      changed: async s => {
        await changed(s);
        const revision = (s[docked.kind] as { revision?: number } | undefined)?.revision;
        root.dataset.molspaceFollowRevision = String(revision ?? '');
      },
      lost: (e, ended) => {
        if (ended) {
          delete root.dataset.molspaceFollow;
        }
        lost(e, ended);
      }
    });
  }

  private unfollow(): void {
    this.follower?.stop();
    this.follower = null;
    delete document.documentElement.dataset.molspaceFollow;
    delete document.documentElement.dataset.molspaceFollowRevision;
  }

  /** A followed Viewer's read failed: shown in the status line, located (the view drawn stays). */
  private noteFollow(e: LocatedError): void {
    const status = document.getElementById('molspace-app-status');
    if (status) {
      status.textContent = `Not following JupyterLab's Viewer: ${e.code} at ${e.where}: ${e.message} Fix: ${e.fix}`;
    }
  }

  /** Dispose what is shown (a depiction replaces a 3D view). */
  private clear(): void {
    this.viewer?.dispose();
    this.viewer = null;
    this.storyPlayer?.dispose();
    this.storyPlayer = null;
  }

  /** Tell the model (a host without model context ignores it). */
  tell(text: string, structured?: Record<string, unknown>): void {
    this.handoff.tell(text, structured);
  }
}

const started = startApp('Viewer', 'ui://molspace/viewer');
if (started) {
  const { handoff, root } = started;
  const viewerApp = new ViewerApp(handoff, root);
  markState('loading', 'Waiting for the tool result…');
  handoff.onResult(result => void viewerApp.show(result));
}
