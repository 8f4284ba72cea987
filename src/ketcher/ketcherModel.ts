/**
 * The Ketcher editor widget model: the synced state of one editor, and the
 * editor as a Dispatcher target (docs/architecture.md, "Ketcher").
 *
 * Synced attributes, kernel -> page: `_initial` (a structure to start with),
 * `_initial_format`, `title`. Page-owned (mirrored read-only by the kernel's
 * `molspace.Ketcher`): `ready`, `error`, `revision`, `structure_revision`,
 * `interaction_revision`, `dirty`, `ket`, `smiles`, `molfile`, `atoms`,
 * `bonds`, `formula`, `highlighted`, `persist`, `last_change`, `summary`,
 * `ketcher_version`.
 *
 * Each view holds one editor frame (`./ketcherFrameHost.ts`); the first ready
 * frame converts. A structure set by a cell or an agent is loaded into every
 * frame; a person's drawing in one frame is run through the Dispatcher as a
 * `ui` `set_structure` and loaded into the other frames only, so the
 * drawing frame keeps its own undo history.
 */
import type { DOMWidgetModel } from '@jupyter-widgets/base';
import {
  LIMITS,
  MolspaceError,
  PersistRequest,
  type ChangeEntry,
  type ChangeSource,
  type KetcherFormat,
  type KetcherState
} from '../contract';
import type { IMolspacePage } from '../tokens';
import { PageWidgetModel, boundModelClass, type KernelTools } from '../widget/pageWidgetModel';
import type { EditorSnapshot } from './frameMessages';
import { FrameError, FRAME_START_MS, type KetcherFrame } from './ketcherFrameHost';
import type { KetcherTarget } from './ketcherTarget';
import { ketcherSummary } from './ketcherText';

export abstract class KetcherModel extends PageWidgetModel implements KetcherTarget {
  /** Live frames, oldest first; the first ready one converts. */
  declare private _frames: KetcherFrame[];
  /** People's drawings waiting for their `ui` call, by KET: the frame they came from. */
  declare private _drawn: Map<string, { frame: KetcherFrame; snapshot: EditorSnapshot }>;
  declare private _loaded: Promise<void>;
  declare private _markLoaded: () => void;
  declare private _overwrite: boolean;
  declare private _highlightColor: string;

  get kind(): 'ketcher' {
    return 'ketcher';
  }

  protected get label(): string {
    return 'Ketcher';
  }

  protected get kernelTools(): KernelTools {
    return { tool: 'ketcher_control' };
  }

  protected setUp(): void {
    this._frames = [];
    this._drawn = new Map();
    this._overwrite = false;
    this.persistWaiters = 0;
    this._highlightColor = '#ffb000';
    this._loaded = new Promise<void>(resolve => (this._markLoaded = resolve));
  }

  /** Resolves once a frame has started (and loaded the initial structure) or failed to; never rejects. */
  whenLoaded(): Promise<void> {
    return this._loaded;
  }

  state(): KetcherState {
    const smiles: string | null = this.get('smiles') || null;
    return {
      target: this.model_id,
      kind: 'ketcher',
      title: this.get('title') || 'Ketcher',
      ready: this.get('ready'),
      revision: this.get('structure_revision'),
      structureRevision: this.get('structure_revision'),
      interactionRevision: this.get('interaction_revision'),
      dirty: this.get('dirty'),
      atoms: this.get('atoms'),
      bonds: this.get('bonds'),
      formula: this.get('formula'),
      smiles: smiles !== null && smiles.length <= LIMITS.ketcherSummarySmilesChars ? smiles : null,
      highlighted: [...(this.get('highlighted') as number[])],
      persist: this._persist(),
      error: this.error()
    };
  }

  describe(): string {
    return ketcherSummary(this.state());
  }

  // ------------------------------------------------------------------ KetcherTarget
  async setStructure(value: string, format: KetcherFormat | null, source: ChangeSource, summary: string): Promise<ChangeEntry> {
    const drawn = source === 'ui' ? this._drawn.get(value) : undefined;
    let snapshot: EditorSnapshot;
    let origin: KetcherFrame | null = null;
    if (drawn) {
      this._drawn.delete(value);
      snapshot = drawn.snapshot;
      origin = drawn.frame;
    } else {
      const primary = this._primary('/value');
      origin = primary;
      snapshot = await this._request<EditorSnapshot>(primary, { op: 'set', value, format }, '/value');
    }
    await Promise.all(
      this._frames
        .filter(f => f !== origin)
        .map(f =>
          f
            .request({ op: 'set', value: snapshot.ket, format: 'ket' }, '/value')
            .catch(e => console.warn('molspace: a Ketcher view did not take the new structure', e))
        )
    );
    const revision = this.get('structure_revision') + 1;
    const entry: ChangeEntry = { revision, source, summary };
    this.services.registry.touch(this.model_id);
    this._setSnapshot(snapshot, { structure_revision: revision, revision, dirty: true, highlighted: [], last_change: entry, error: null });
    return entry;
  }

  async highlight(atoms: number[], color: string, source: ChangeSource): Promise<void> {
    this._primary('/atoms');
    await Promise.all(this._frames.map(f => this._request(f, { op: 'highlight', atoms, color }, '/atoms')));
    const revision = this.get('interaction_revision') + 1;
    this.services.registry.touch(this.model_id);
    this._highlightColor = color;
    this.set({ interaction_revision: revision, highlighted: [...atoms] });
    this.set({ summary: this.describe() });
    this.sendState();
    void source;
  }

  async export(format: KetcherFormat): Promise<string> {
    return this._request<string>(this._primary('/format'), { op: 'get', format }, '/format');
  }

  persistRequest(path: string): PersistRequest | null {
    const p = this._persist();
    return p && p.path === path ? p : null;
  }

  askPersist(path: string, format: KetcherFormat, overwrite: boolean, forget: boolean): void {
    this._overwrite = overwrite;
    if (forget) {
      this.set({ persist: null });
      this.set({ summary: this.describe() });
      this.sendState();
      return;
    }
    const request: PersistRequest = {
      path,
      format,
      status: 'awaiting',
      revision: this.get('structure_revision'),
      message: `An agent asks to save this structure to ${path} (${format}).`
    };
    this.set({ persist: request });
    this.set({ summary: this.describe() });
    this.sendState();
  }

  /** Calls now waiting for the person's answer to the save request (the view says so). */
  declare persistWaiters: number;

  whenPersistAnswered(path: string, ms: number): Promise<void> {
    return new Promise<void>(resolve => {
      const settled = () => {
        const p = this._persist();
        return !p || p.path !== path || p.status !== 'awaiting';
      };
      if (settled() || ms <= 0) {
        resolve();
        return;
      }
      const done = () => {
        clearTimeout(timer);
        this.off('change:persist', check);
        this.off('comm:close destroy', done);
        this.persistWaiters--;
        this.trigger('persist:waiting');
        resolve();
      };
      const check = () => (settled() ? done() : undefined);
      const timer = setTimeout(done, ms);
      this.on('change:persist', check);
      this.on('comm:close destroy', done);
      this.persistWaiters++;
      this.trigger('persist:waiting');
    });
  }

  /**
   * The person's answer to the pending save request (the view's buttons).
   * Saving writes through JupyterLab's contents manager; its failure is
   * recorded in the request, never thrown.
   */
  async answerPersist(save: boolean): Promise<void> {
    const request = this._persist();
    if (!request || request.status !== 'awaiting') {
      return;
    }
    let next: PersistRequest;
    if (!save) {
      next = { ...request, status: 'refused', message: `The person refused to save to ${request.path}.` };
    } else {
      try {
        const text = await this.export(request.format);
        await this.services.files.writeStoryFile(request.path, text, true);
        next = { ...request, status: 'saved', revision: this.get('structure_revision'), message: `Saved to ${request.path}.` };
        this.set({ dirty: false });
      } catch (e) {
        const err = MolspaceError.from(e, request.path);
        next = { ...request, status: 'failed', message: `Saving to ${request.path} failed: ${err.message}` };
      }
    }
    this.set({ persist: next });
    this.set({ summary: this.describe() });
    this.sendState();
  }

  /** Whether the pending request may replace an existing file. */
  get persistOverwrite(): boolean {
    return this._overwrite;
  }

  // ------------------------------------------------------------------ views
  /** A view's frame: loads what the editor holds once ready; reports its drawings. */
  attachFrame(frame: KetcherFrame): void {
    this._frames.push(frame);
    frame.ready.then(
      async ready => {
        if (!this._frames.includes(frame)) {
          return;
        }
        const first = !this.get('ready');
        this.set({ ketcher_version: ready.ketcher });
        try {
          if (first && this.get('ket') === '' && this.get('_initial')) {
            const snapshot = await this._request<EditorSnapshot>(
              frame,
              { op: 'set', value: this.get('_initial'), format: this.get('_initial_format') },
              '/value'
            );
            this._setSnapshot(snapshot, { error: null });
          } else if (this.get('ket')) {
            await frame.request({ op: 'set', value: this.get('ket'), format: 'ket' }, '/value');
            const atoms = this.get('highlighted') as number[];
            if (atoms.length) {
              await frame.request({ op: 'highlight', atoms, color: this._highlightColor }, '/atoms');
            }
          } else if (first) {
            this._setSnapshot(ready.snapshot, {});
          }
          this.set({ ready: true });
        } catch (e) {
          this.set({ ready: true, error: MolspaceError.from(e, `Ketcher ${this.model_id}`).toJSON() });
        }
        this.set({ summary: this.describe() });
        this.sendState();
        this._markLoaded();
      },
      (e: unknown) => {
        this.set({ error: MolspaceError.from(e, `Ketcher ${this.model_id}`).toJSON() });
        this.set({ summary: this.describe() });
        this.sendState();
        this._markLoaded();
      }
    );
  }

  detachFrame(frame: KetcherFrame): void {
    this._frames = this._frames.filter(f => f !== frame);
    for (const [ket, d] of this._drawn) {
      if (d.frame === frame) {
        this._drawn.delete(ket);
      }
    }
  }

  /** A person changed the drawing in `frame`: one `ui` call through the Dispatcher. */
  personDrew(frame: KetcherFrame, snapshot: EditorSnapshot): void {
    this._drawn.set(snapshot.ket, { frame, snapshot });
    this.services.dispatcher
      .execute('ketcher_control', { target: this.model_id, action: 'set_structure', value: snapshot.ket, format: 'ket' }, { source: 'ui' })
      .catch(e => {
        this._drawn.delete(snapshot.ket);
        this.set({ error: MolspaceError.from(e, `Ketcher ${this.model_id}`).toJSON() });
        this.set({ summary: this.describe() });
        this.sendState();
      });
  }

  // ------------------------------------------------------------------ internals
  private _persist(): PersistRequest | null {
    const parsed = PersistRequest.safeParse(this.get('persist'));
    return parsed.success ? parsed.data : null;
  }

  /** @throws MolspaceError `STALE_TARGET` when no view holds an editor. */
  private _primary(where: string): KetcherFrame {
    const frame = this._frames[0];
    if (!frame) {
      throw new MolspaceError(
        'STALE_TARGET',
        `Ketcher editor ${this.model_id} has no live view to convert with.`,
        where,
        'Display the editor again (run its cell), then retry.',
        { target: this.model_id }
      );
    }
    return frame;
  }

  /** A frame request whose refusal becomes a located VALIDATION_FAILED at `where`. */
  private async _request<T>(frame: KetcherFrame, op: Parameters<KetcherFrame['request']>[0], where: string): Promise<T> {
    try {
      return await frame.request<T>(op, where);
    } catch (e) {
      if (e instanceof FrameError) {
        throw new MolspaceError(
          'VALIDATION_FAILED',
          op.op === 'get'
            ? `Indigo could not write the structure as ${op.format}: ${e.message}`
            : `The editor could not load the structure: ${e.message}`,
          where,
          op.op === 'get' ? 'Choose another format (molfile and ket carry every drawing).' : 'Check the structure text and its format.',
          { op: op.op }
        );
      }
      throw e;
    }
  }

  private _setSnapshot(s: EditorSnapshot, extra: Record<string, unknown>): void {
    this.set({
      ket: s.ket,
      smiles: s.smiles ?? '',
      molfile: s.molfile ?? '',
      atoms: s.atoms,
      bonds: s.bonds,
      formula: s.formula,
      ...extra
    });
    this.set({ summary: this.describe() });
    this.sendState();
  }

  protected left(): void {
    this._markLoaded();
  }
}

/** How long a call waits for an editor to start, ms (then it fails located). */
export const KETCHER_START_MS = FRAME_START_MS;

/** The Ketcher model class the widget manager instantiates, bound to this page's services. */
export function ketcherModelClass(services: IMolspacePage): typeof DOMWidgetModel {
  return boundModelClass(KetcherModel, services);
}
