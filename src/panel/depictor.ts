/**
 * The page's depiction service for molecule-grid panels: one hidden
 * depiction frame (`static/ketcher/depict.html`, Indigo only) per page,
 * created on the first request, so nothing loads on JupyterLab's start path
 * (docs/architecture.md, "Report panels"). Depictions are cached by SMILES
 * (at most `LIMITS.depictCacheEntries`, the least recently used dropped first).
 * The same frame converts SDF records' molfiles to SMILES for grids read
 * from SDF (`./moleculeFile.ts`).
 */
import { MolspaceError } from '../contract/errors';
import { LIMITS } from '../contract/limits';
import { ketcherFrameUrl } from '../ketcher/ketcherFrameHost';
import {
  ConvertReply,
  DEPICT_BATCH,
  DEPICT_TAG,
  DepictEvent,
  DepictReply,
  type Conversion,
  type Depiction
} from '../ketcher/depictMessages';
import type { LocatedError } from '../contract/errors';

/** How long the frame may take to load Indigo, ms. */
export const DEPICT_START_MS = 90_000;
/** How long one batch may take, ms. */
export const DEPICT_BATCH_MS = 120_000;

export type Depict = (smiles: string[]) => Promise<Depiction[]>;

/** Molfiles (SDF records) to SMILES, one {@link Conversion} each, in order. */
export type ToSmiles = (molfiles: string[]) => Promise<Conversion[]>;

/** The URL of the depiction frame's page (beside the editor frame's). */
export function depictFrameUrl(): string {
  return new URL('depict.html', ketcherFrameUrl()).href;
}

/** What to do when the depiction engine does not start or answer: it runs in a hidden frame of this page. */
const ENGINE_FIX = "Reload the page. If it happens again, the browser could not load Indigo's WebAssembly (its console says why).";

/**
 * At most `bound` values by key, the least recently used dropped first (a
 * read counts as a use): the page's depictions, so that a long session of
 * grids does not keep every SVG it ever drew.
 */
export class BoundedCache<V> {
  private readonly _map = new Map<string, V>();

  constructor(readonly bound: number) {}

  get size(): number {
    return this._map.size;
  }

  get(key: string): V | undefined {
    const value = this._map.get(key);
    if (value !== undefined) {
      this._map.delete(key);
      this._map.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this._map.delete(key);
    this._map.set(key, value);
    while (this._map.size > this.bound) {
      this._map.delete(this._map.keys().next().value!);
    }
  }
}

/** A {@link LocatedError} the frame sent, as the error it is. */
function fromLocated(l: LocatedError): MolspaceError {
  return new MolspaceError(l.code, l.message, l.where, l.fix, l.details);
}

class DepictFrame {
  private readonly _node: HTMLIFrameElement;
  private readonly _ready: Promise<void>;
  /** Requests in flight: what each asked for (a reply of the other kind is not its answer) and where its answer goes. */
  private readonly _pending = new Map<number, { kind: 'depict' | 'convert'; settle: (answer: unknown[] | Error) => void }>();
  private readonly _cache = new BoundedCache<Depiction>(LIMITS.depictCacheEntries);
  private _nextId = 1;

  constructor() {
    this._node = document.createElement('iframe');
    this._node.className = 'molspace-depict-frame';
    this._node.title = 'molspace depictions (hidden)';
    this._node.setAttribute('aria-hidden', 'true');
    this._node.tabIndex = -1;
    this._node.style.cssText = 'position:absolute;width:0;height:0;border:0;visibility:hidden;';
    let started: { resolve: () => void; reject: (e: Error) => void };
    this._ready = new Promise<void>((resolve, reject) => (started = { resolve, reject }));
    this._ready.catch(() => undefined);
    const where = depictFrameUrl();
    const timer = setTimeout(
      () =>
        started.reject(
          new MolspaceError('TIMEOUT', `The depiction engine did not start within ${DEPICT_START_MS / 1000} s.`, where, ENGINE_FIX, {
            waitedMs: DEPICT_START_MS
          })
        ),
      DEPICT_START_MS
    );
    window.addEventListener('message', (event: MessageEvent) => {
      if (event.source !== this._node.contentWindow || event.origin !== window.location.origin) {
        return;
      }
      const reply = DepictReply.safeParse(event.data);
      if (
        reply.success &&
        this._answer(reply.data.id, 'depict', reply.data.located ? fromLocated(reply.data.located) : reply.data.images)
      ) {
        return;
      }
      const converted = ConvertReply.safeParse(event.data);
      if (
        converted.success &&
        this._answer(converted.data.id, 'convert', converted.data.located ? fromLocated(converted.data.located) : converted.data.smiles)
      ) {
        return;
      }
      const e = DepictEvent.safeParse(event.data);
      if (e.success) {
        clearTimeout(timer);
        if (e.data.event === 'ready') {
          started.resolve();
        } else {
          started.reject(new MolspaceError('INTERNAL', `The depiction engine failed to start: ${e.data.error}`, where, ENGINE_FIX, {}));
        }
      }
    });
    this._node.src = depictFrameUrl();
    document.body.append(this._node);
  }

  async depict(smiles: string[]): Promise<Depiction[]> {
    // This call's answers, apart from the cache: what it holds may be dropped before the call ends.
    const found = new Map<string, Depiction>();
    for (const s of smiles) {
      const cached = found.has(s) ? undefined : this._cache.get(s);
      if (cached) {
        found.set(s, cached);
      }
    }
    const missing = [...new Set(smiles.filter(s => !found.has(s)))];
    if (missing.length) {
      await this._ready;
      for (let i = 0; i < missing.length; i += DEPICT_BATCH) {
        const batch = missing.slice(i, i + DEPICT_BATCH);
        const images = (await this._request({ smiles: batch })) as Depiction[];
        batch.forEach((s, j) => {
          const depiction = images[j] ?? { svg: null, error: 'no depiction returned' };
          found.set(s, depiction);
          this._cache.set(s, depiction);
        });
      }
    }
    return smiles.map(s => found.get(s)!);
  }

  async toSmiles(molfiles: string[]): Promise<Conversion[]> {
    await this._ready;
    const out: Conversion[] = [];
    for (let i = 0; i < molfiles.length; i += DEPICT_BATCH) {
      const batch = molfiles.slice(i, i + DEPICT_BATCH);
      const answers = (await this._request({ molfiles: batch })) as Conversion[];
      batch.forEach((_, j) => out.push(answers[j] ?? { smiles: null, error: 'no conversion returned' }));
    }
    return out;
  }

  /** Settle request `id` with `answer` when it asked for `kind`; whether it did. */
  private _answer(id: number, kind: 'depict' | 'convert', answer: unknown[] | MolspaceError): boolean {
    const pending = this._pending.get(id);
    if (pending?.kind !== kind) {
      return false;
    }
    this._pending.delete(id);
    pending.settle(answer);
    return true;
  }

  private _request(body: { smiles: string[] } | { molfiles: string[] }): Promise<unknown[]> {
    const id = this._nextId++;
    return new Promise<unknown[]>((resolve, reject) => {
      const timer = setTimeout(() => {
        this._pending.delete(id);
        const items = 'smiles' in body ? body.smiles.length : body.molfiles.length;
        reject(
          new MolspaceError(
            'TIMEOUT',
            `The depiction engine did not answer request ${id} (${items} ${'smiles' in body ? 'SMILES' : 'molfiles'}) within ${DEPICT_BATCH_MS / 1000} s.`,
            depictFrameUrl(),
            `Try again, or show fewer molecules at once (a smaller grid page). ${ENGINE_FIX}`,
            { id, items, waitedMs: DEPICT_BATCH_MS }
          )
        );
      }, DEPICT_BATCH_MS);
      this._pending.set(id, {
        kind: 'smiles' in body ? 'depict' : 'convert',
        settle: answer => {
          clearTimeout(timer);
          if (answer instanceof Error) {
            reject(answer);
          } else {
            resolve(answer);
          }
        }
      });
      this._node.contentWindow?.postMessage({ tag: DEPICT_TAG, id, ...body }, window.location.origin);
    });
  }
}

let frame: DepictFrame | null = null;

/** Depict SMILES with the page's one depiction frame (made on first use). Rejects when the engine does not start. */
export const depictSmiles: Depict = smiles => {
  frame ??= new DepictFrame();
  return frame.depict(smiles);
};

/** Convert molfiles to SMILES with the page's one depiction frame (made on first use). Rejects when the engine does not start. */
export const molfilesToSmiles: ToSmiles = molfiles => {
  frame ??= new DepictFrame();
  return frame.toSmiles(molfiles);
};
