/**
 * The Viewer App: a structure from a tool result, drawn in the agent's chat by the
 * same Mol* Viewer code a notebook's Viewer uses (`MolstarStructureViewer`,
 * `readStructure`, `initialView`), with no JupyterLab page.
 *
 * Each tool result that carries a structure (`_meta["molspace/structure"]`) is read
 * and drawn; its bounded composition goes to the model (`ui/update-model-context`),
 * never the structure text. An error result, or a structure that does not read, is
 * shown located and told to the model the same way.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';

import { MolspaceError, type LocatedError } from '../contract/errors';
import type { ViewerComposition } from '../contract/viewer';
import { initialView } from '../viewer/initialView';
// Mol*'s model and parser modules before its plugin's: the order the page loads them in (the page
// imports the viewer later, on demand); the other order meets a circular import half-initialised.
import { defaultLayers, readStructure } from '../viewer/structureData';
import { MolstarStructureViewer } from '../viewer/molstarStructureViewer';
import { appSourceOf } from './appStructure';
import { appStoryOf } from './appStory';
import { appDepictionOf, NO_EDITOR_NOTE, showDepiction } from './appDepiction';
import { AppStoryPlayer } from './appStoryPlayer';
import { takeHandoff, type AppHandoff } from './appHandoff';
import { markState, showError } from './appStatus';

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

/** The located error of an error result (its second text line is the error as JSON), or null. */
function errorOfResult(result: CallToolResult): LocatedError | null {
  if (!result.isError) {
    return null;
  }
  const text = result.content.find((c: { type: string }) => c.type === 'text');
  const json = text && 'text' in text ? text.text.split('\n')[1] : undefined;
  try {
    return json ? (JSON.parse(json) as LocatedError) : null;
  } catch {
    return null;
  }
}

class ViewerApp {
  private viewer: MolstarStructureViewer | null = null;
  private storyPlayer: AppStoryPlayer | null = null;
  private shown = 0;

  constructor(
    private readonly handoff: AppHandoff,
    private readonly host: HTMLElement
  ) {}

  private get dark(): boolean {
    return this.handoff.dark();
  }

  async show(result: CallToolResult): Promise<void> {
    const n = ++this.shown;
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
        this.storyPlayer ??= new AppStoryPlayer(this.host, this.dark, (text, structured) => this.tell(text, structured));
        await this.storyPlayer.show(story);
        return;
      }
      this.storyPlayer?.dispose();
      this.storyPlayer = null;
      const source = appSourceOf(result);
      if (!source) {
        markState('drawn', 'Shown in JupyterLab.');
        return;
      }
      markState('loading', `Reading ${source.name}…`);
      const data = await readStructure(source.bytes, source.format, source.name, source.coordinates);
      this.viewer ??= await MolstarStructureViewer.create(this.host, { dark: this.dark, policy: { hosts: [], pageOrigin: null } });
      await this.viewer.show(
        {
          bytes: source.bytes,
          format: source.format,
          models: data.composition.shownModels,
          coordinates: data.coordinates,
          frames: data.composition.trajectory !== null && data.coordinates === null
        },
        source.view ?? initialView(defaultLayers(data))
      );
      if (n !== this.shown) {
        return;
      }
      const line = compositionLine(source.title, data.composition);
      markState('drawn', source.title);
      this.tell(line, { composition: data.composition });
    } catch (e) {
      if (n === this.shown) {
        this.tell(showError(MolspaceError.from(e, 'App').toJSON()));
      }
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

const handoff = takeHandoff();
const root = document.getElementById('molspace-app-root');
if (!handoff || !root) {
  showError(
    new MolspaceError(
      'INTERNAL',
      'The Viewer App started without its loader.',
      'App',
      'Open it through its ui://molspace/viewer resource.',
      {}
    ).toJSON()
  );
} else {
  const viewerApp = new ViewerApp(handoff, root);
  markState('loading', 'Waiting for the tool result…');
  handoff.onResult(result => void viewerApp.show(result));
}
