/**
 * The inline report panel widget (`molspace.Panel` in a cell): model and view.
 *
 * Synced attributes (mirrored by the kernel's traits): `_content` (the
 * {@link PanelContent}; set by the kernel when the widget is made, by the
 * page after), `_depictions` (the kernel's RDKit SVGs by SMILES,
 * kernel-owned), `panel_id`, `title`, `revision`, `ready`, `error` (located
 * error or null) and `last_change`. Later contents arrive through the
 * Dispatcher's `render_panel` (the kernel's `control` messages via a
 * {@link KernelChannel}, or an agent by panel id) and land in
 * {@link PanelModel.applyContent}, which waits until the views have rendered
 * the new revision and sends the state to the kernel.
 */
import { type DOMWidgetModel, DOMWidgetView } from '@jupyter-widgets/base';
import { MolspaceError, PanelContent, type ChangeEntry, type ChangeSource, type PanelState } from '../contract';
import type { IMolspacePage } from '../tokens';
import { renderMimeOf } from '../widgetManager';
import { CHANGE_WAIT_MS, DrawWaiters } from '../widget/drawWaiters';
import { PageWidgetModel, boundModelClass, type KernelTools } from '../widget/pageWidgetModel';
import { checkPanelContent } from './panelContent';
import { ketcherOpener } from './openMolecule';
import { linkFollower } from './panelLinks';
import { PanelRenderer } from './panelRenderer';
import { givenDepictions, type GivenDepictions } from './givenDepictions';
import { panelSummary, type PanelTarget, type PanelUpdate } from './panelTarget';
import { staleLinks } from './panelLinkCheck';
import { policyRenderMime } from '../resources/resourceSanitizer';

export abstract class PanelModel extends PageWidgetModel implements PanelTarget {
  declare private _loaded: Promise<void>;
  /** Calls waiting for a view to render a revision. */
  declare private _waiters: DrawWaiters<number>;
  /** Views that rendered (or tried to). */
  declare private _views: Set<unknown>;
  declare private _depictionsRead: unknown;
  declare private _depictions: GivenDepictions | undefined;
  /** The gateway's depictions of the content an agent set last (none after a cell's or a click's). */
  declare private _relayed: GivenDepictions | undefined;

  get kind(): 'panel' {
    return 'panel';
  }

  protected get label(): string {
    return 'Panel';
  }

  protected get kernelTools(): KernelTools {
    return { tool: 'render_panel' };
  }

  get placement(): 'inline' {
    return 'inline';
  }

  protected setUp(): void {
    this._views = new Set();
    this._waiters = new DrawWaiters(
      revision =>
        new MolspaceError(
          'TIMEOUT',
          `Panel ${this.model_id}: revision ${revision} was not rendered within ${CHANGE_WAIT_MS / 1000} s.`,
          '/content',
          'Check the panel shows no error (observe), then retry.',
          { revision }
        )
    );
    // Set before the widget joins the registry: the read mirror calls whenLoaded() the moment it
    // registers. The check itself runs once set-up is done (it may set and send state).
    this._loaded = Promise.resolve().then(() => this._check());
  }

  /** Check the content the kernel sent; an invalid one becomes the widget's error. */
  private async _check(): Promise<void> {
    const parsed = PanelContent.safeParse(this.get('_content'));
    let error: MolspaceError | null = null;
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      error = new MolspaceError(
        'VALIDATION_FAILED',
        `Panel content is invalid: ${issue?.message ?? 'not a panel content'}.`,
        `/content${issue ? issue.path.map(p => `/${String(p)}`).join('') : ''}`,
        'Pass markdown text, a table (columns and rows) or a Vega-Lite spec.',
        {}
      );
    } else {
      try {
        await checkPanelContent(parsed.data, '/content');
      } catch (e) {
        error = MolspaceError.from(e, `panel ${this.model_id}`);
      }
    }
    if (error) {
      this.set({ error: error.toJSON(), ready: false });
      this.sendState();
    }
  }

  get panelId(): string {
    return this.get('panel_id') || this.model_id;
  }

  whenLoaded(): Promise<void> {
    return this._loaded;
  }

  /**
   * The kernel's RDKit depictions of the grid's molecules (`_depictions`, set
   * with the widget; none after an agent's content unless their SMILES match).
   * Unusable ones are ignored (Indigo draws them) and said in the console.
   */
  depictions(): GivenDepictions {
    if (this._relayed !== undefined) {
      return this._relayed;
    }
    const value: unknown = this.get('_depictions');
    let read = this._depictions;
    if (read === undefined || value !== this._depictionsRead) {
      read = givenDepictions(value);
      this._depictionsRead = value;
      this._depictions = read;
      for (const i of read.ignored) {
        console.warn(`molspace panel ${this.model_id}: kernel depiction at /_depictions${i.where} ignored (Indigo draws it): ${i.reason}`);
      }
    }
    return read;
  }

  content(): PanelContent | null {
    const parsed = PanelContent.safeParse(this.get('_content'));
    return parsed.success ? parsed.data : null;
  }

  state(): PanelState {
    return {
      target: this.model_id,
      kind: 'panel',
      panelId: this.panelId,
      title: this.get('title'),
      placement: 'inline',
      type: this.content()?.type ?? 'markdown',
      ready: this.get('ready'),
      revision: this.get('revision'),
      error: this.error()
    };
  }

  describe(): string {
    return panelSummary(this.state(), this.content(), staleLinks(this.content(), this.services.registry));
  }

  async applyContent(update: PanelUpdate, source: ChangeSource, summary: string): Promise<ChangeEntry> {
    const revision = this.get('revision') + 1;
    const entry: ChangeEntry = { revision, source, summary };
    this.services.registry.touch(this.model_id);
    const rendered = this._views.size === 0 ? Promise.resolve() : this._waiters.wait(revision);
    this._relayed = update.depictions;
    this.set({
      _content: update.content,
      title: update.title ?? this.get('title'),
      revision,
      ready: this._views.size === 0 ? this.get('ready') : false,
      error: null,
      last_change: entry
    });
    try {
      await rendered;
    } finally {
      this.sendState();
    }
    return entry;
  }

  /** Called by a view once it rendered (or failed to render) `revision`. */
  markRendered(view: unknown, revision: number, error: MolspaceError | null): void {
    this._views.add(view);
    if (revision !== this.get('revision')) {
      return;
    }
    this.set({ ready: error === null, error: error ? error.toJSON() : this.get('error') });
    if (!this._waiters.settle(revision, error)) {
      this.sendState();
    }
  }

  forgetView(view: unknown): void {
    this._views.delete(view);
    if (this._views.size === 0) {
      this._waiters.resolveAll();
    }
  }

  protected left(reason: string): void {
    this._waiters.rejectAll(
      () =>
        new MolspaceError(
          'STALE_TARGET',
          `Panel ${this.model_id} was closed before it rendered: ${reason}.`,
          '/target',
          'Call observe to list the widgets that exist now.',
          {
            target: this.model_id,
            reason
          }
        )
    );
  }
}

/** The Panel model class the widget manager instantiates (as `PanelModel`), bound to this page's services. */
export function panelModelClass(services: IMolspacePage): typeof DOMWidgetModel {
  return boundModelClass(PanelModel, services);
}

/** The inline view: one {@link PanelRenderer} in the cell's output. */
export class PanelView extends DOMWidgetView {
  declare model: PanelModel;
  private renderer: PanelRenderer | null = null;
  private ops: Promise<void> = Promise.resolve();

  render(): void {
    super.render();
    this.el.classList.add('molspace-panel-inline');
    this.el.setAttribute('data-molspace-model', this.model.model_id);
    this.renderer = new PanelRenderer(
      () => {
        // Images in panel markdown follow the Story resource hosts (src/resources/resourceSanitizer.ts).
        const rendermime = renderMimeOf(this.model.widget_manager);
        return rendermime && policyRenderMime(rendermime, this.model.services.resourcePolicy);
      },
      ketcherOpener(this.model.services),
      undefined,
      linkFollower(this.model.services)
    );
    this.el.append(this.renderer.node);
    this.model.viewShown(this);
    this.el.addEventListener('pointerdown', () => this.model.touch(), true);
    this.listenTo(this.model, 'change:revision change:_content', () => this.enqueue());
    this.listenTo(this.model, 'change:error', () => this.renderer?.showError(this.model.error()));
    this.listenTo(this.model, 'change:title change:panel_id', () => this.identity());
    this.identity();
    this.enqueue();
  }

  remove(): void {
    this.renderer?.dispose();
    this.renderer = null;
    this.model.viewRemoved(this);
    super.remove();
  }

  private identity(): void {
    this.renderer?.setIdentity(this.model.panelId, this.model.get('title'));
  }

  private enqueue(): void {
    const run = () => this.draw();
    this.ops = this.ops.then(run, run);
  }

  private async draw(): Promise<void> {
    await this.model.whenLoaded();
    const renderer = this.renderer;
    if (!renderer) {
      return;
    }
    const revision: number = this.model.get('revision');
    const content = this.model.content();
    renderer.showError(this.model.error());
    if (content === null || (revision === 0 && this.model.error() !== null)) {
      return; // the error panel says why
    }
    try {
      if (await renderer.render(content, revision, this.model.depictions())) {
        this.model.markRendered(this, revision, null);
      }
    } catch (e) {
      const err = MolspaceError.from(e, `panel ${this.model.model_id}`);
      this.model.markRendered(this, revision, err);
      renderer.showError(err.toJSON());
    }
  }
}
