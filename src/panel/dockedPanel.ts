/**
 * A docked report panel: page-owned (no kernel), shown in JupyterLab's main
 * area, opened by `render_panel` with `placement: "docked"`. Closing its tab
 * removes it from the registry. At most `LIMITS.dockedPanels` per page.
 */
import type { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import type { Message } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';
import { MolspaceError, type ChangeEntry, type ChangeSource, type LocatedError, type PanelContent, type PanelState } from '../contract';
import type { WidgetRegistry } from '../dispatcher/registry';
import type { OpenMolecule } from './moleculeGrid';
import type { ExportPanel } from './exportFromUi';
import type { FollowLink } from './panelLinks';
import type { GivenDepictions } from './givenDepictions';
import { PanelRenderer } from './panelRenderer';
import { panelSummary, type PanelTarget, type PanelUpdate } from './panelTarget';
import { staleLinks } from './panelLinkCheck';

/** The Lumino widget of a docked panel in the main area. */
export class DockedPanelWidget extends Widget {
  readonly renderer: PanelRenderer;
  /** The *Export…* button and its outcome line (`./exportFromUi.ts`); absent without an exporter. */
  readonly exportStatus: HTMLElement;

  constructor(renderer: PanelRenderer, onExport: (() => Promise<string | null>) | null = null) {
    super();
    this.renderer = renderer;
    this.addClass('molspace-docked-panel');
    this.exportStatus = document.createElement('span');
    this.exportStatus.className = 'molspace-panel-export-status';
    this.exportStatus.setAttribute('role', 'status');
    if (onExport !== null) {
      const bar = document.createElement('div');
      bar.className = 'molspace-panel-actions';
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'molspace-panel-export';
      button.textContent = 'Export…';
      button.title = 'Write this panel as a file under the Jupyter root';
      button.addEventListener('click', () => {
        this.exportStatus.textContent = '';
        void onExport().then(line => {
          if (line !== null) {
            this.exportStatus.textContent = line;
          }
        });
      });
      bar.append(button, this.exportStatus);
      this.node.append(bar);
    }
    this.node.append(renderer.node);
    this.title.closable = true;
  }

  /** Closing the tab disposes the panel (a plain Lumino widget would only detach). */
  protected onCloseRequest(msg: Message): void {
    super.onCloseRequest(msg);
    this.dispose();
  }

  dispose(): void {
    this.renderer.dispose();
    super.dispose();
  }
}

export class DockedPanel implements PanelTarget {
  readonly kind = 'panel' as const;
  readonly placement = 'docked' as const;
  readonly notebook = null;
  readonly widget: DockedPanelWidget;
  private _title: string;
  private _content: PanelContent;
  private _revision = 0;
  private _ready = false;
  private _error: LocatedError | null = null;

  constructor(
    readonly panelId: string,
    title: string,
    content: PanelContent,
    rendermime: IRenderMimeRegistry | null,
    private readonly _registry: WidgetRegistry,
    openMolecule: OpenMolecule | null = null,
    followLink: FollowLink | null = null,
    exportPanel: ExportPanel | null = null
  ) {
    this._title = title;
    this._content = content;
    this.widget = new DockedPanelWidget(
      new PanelRenderer(() => rendermime, openMolecule, undefined, followLink),
      exportPanel && (() => exportPanel(this.targetId, this.panelId, this._content))
    );
    this.widget.id = `molspace-panel-${panelId}`;
    this.widget.disposed.connect(() => this._registry.unregister(this.targetId));
    this._identity();
  }

  get targetId(): string {
    return this.panelId;
  }

  whenLoaded(): Promise<void> {
    return Promise.resolve();
  }

  state(): PanelState {
    return {
      target: this.targetId,
      kind: 'panel',
      panelId: this.panelId,
      title: this._title,
      placement: 'docked',
      type: this._content.type,
      ready: this._ready,
      revision: this._revision,
      error: this._error
    };
  }

  content(): PanelContent {
    return this._content;
  }

  describe(): string {
    return panelSummary(this.state(), this._content, staleLinks(this._content, this._registry));
  }

  /** Render the first content as revision 1. */
  async open(source: ChangeSource, summary: string, depictions?: GivenDepictions): Promise<ChangeEntry> {
    return this.applyContent({ content: this._content, title: this._title, depictions }, source, summary);
  }

  async applyContent(update: PanelUpdate, source: ChangeSource, summary: string): Promise<ChangeEntry> {
    if (this.widget.isDisposed) {
      throw new MolspaceError(
        'STALE_TARGET',
        `Panel ${this.panelId} was closed.`,
        '/panelId',
        'Call render_panel again to open a new one.',
        {
          panelId: this.panelId
        }
      );
    }
    // A shown panel whose update fails to render keeps what it shows (content, title, revision):
    // the caller gets the located error and nothing on the page changes.
    const kept = this._ready && this._revision > 0 ? { revision: this._revision, content: this._content, title: this._title } : null;
    this._revision += 1;
    const entry: ChangeEntry = { revision: this._revision, source, summary };
    this._content = update.content;
    this._title = update.title ?? this._title;
    this._identity();
    this._ready = false;
    this._registry.touch(this.targetId);
    try {
      await this.widget.renderer.render(update.content, this._revision, update.depictions);
      this._ready = true;
      this._error = null;
    } catch (e) {
      const err = MolspaceError.from(e, `panel ${this.panelId}`);
      if (kept) {
        ({ revision: this._revision, content: this._content, title: this._title } = kept);
        this._ready = true;
        this._identity();
        this.widget.renderer.showKept(this._revision, this._content.type);
      } else {
        this._error = err.toJSON();
      }
      throw err;
    } finally {
      this.widget.renderer.showError(this._error);
    }
    return entry;
  }

  private _identity(): void {
    this.widget.title.label = this._title;
    this.widget.title.caption = `molspace panel ${this.panelId}`;
    this.widget.renderer.setIdentity(this.panelId, this._title);
  }
}
