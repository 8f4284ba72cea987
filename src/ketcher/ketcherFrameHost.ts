/**
 * The parent side of one Ketcher editor frame: the iframe, its requests and
 * its events (messages: `./frameMessages.ts`; docs/architecture.md, "Ketcher").
 *
 * The frame's page is `static/ketcher/index.html` of this extension, found
 * from the extension bundle's own public path, so it loads under any
 * `base_url` (JupyterHub included) and from nowhere else.
 *
 * One spare frame per page: once an editor of the page is ready (its structure
 * loaded), the page starts one more frame, out of sight, in idle time; the next editor takes it
 * (`takeKetcherFrame`) and moves it into its view with `moveBefore`, which keeps
 * a frame's document, so that editor is ready without loading Ketcher and
 * Indigo again (docs/architecture.md, "Ketcher"; docs/benchmarks.md). Once ready, the spare runs
 * a warm-up (`warm`: Indigo's load and snapshot paths on a sample, the editor untouched), so the
 * next editor's first structure does not pay for Indigo's first calls.
 */
import type { z } from 'zod';
import { MolspaceError } from '../contract';
import { MODULE_VERSION } from '../version';
import { EditorSnapshot, FRAME_TAG, FrameEvent, FrameReply, FrameValue, type FrameOp } from './frameMessages';

declare const __webpack_public_path__: string;

/** How long an editor may take to load Ketcher and Indigo, ms. */
export const FRAME_START_MS = 90_000;
/** How long one request may take once the editor is ready, ms (the frame retries an engine call once within it). */
export const FRAME_REQUEST_MS = 30_000;

/**
 * The URL of the editor frame's page. Jupyter serves extension assets as
 * immutable for a year; the page's own name carries no hash, so the version
 * in the query makes an upgraded molspace load its new frame.
 */
export function ketcherFrameUrl(): string {
  const base = typeof __webpack_public_path__ === 'string' && __webpack_public_path__ ? __webpack_public_path__ : '/';
  const url = new URL('ketcher/index.html', new URL(base, window.location.href));
  url.searchParams.set('v', MODULE_VERSION);
  return url.href;
}

/** What the frame reports once Ketcher and its Indigo engine answer. */
export interface FrameReady {
  ketcher: string;
  indigo: string;
  snapshot: EditorSnapshot;
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (e: Error) => void;
  timer: ReturnType<typeof setTimeout>;
  op: FrameOp['op'];
  where: string;
}

export class KetcherFrame {
  /** The iframe; the caller places it in the DOM. */
  readonly node: HTMLIFrameElement;
  /** Resolves once the editor and its engine are ready; rejects (located) when it fails to start. */
  readonly ready: Promise<FrameReady>;
  private readonly _pending = new Map<number, Pending>();
  private _onChanged: (snapshot: EditorSnapshot) => void;
  /** Whether the frame started, failed, or neither yet. */
  private _state: 'starting' | 'ready' | 'failed' = 'starting';
  private readonly _url: string;
  private _nextId = 1;
  private _disposed = false;
  private _started: { resolve: (r: FrameReady) => void; reject: (e: MolspaceError) => void } | null = null;
  private readonly _listener = (event: MessageEvent) => this._receive(event);

  /**
   * @param onChanged - a person changed the drawing (programmatic loads are not reported).
   * @param url - the frame page (default: {@link ketcherFrameUrl}).
   */
  constructor(onChanged: (snapshot: EditorSnapshot) => void, url: string = ketcherFrameUrl()) {
    this._onChanged = onChanged;
    this._url = url;
    this.node = document.createElement('iframe');
    this.node.className = 'molspace-ketcher-frame';
    this.node.title = 'Ketcher chemical editor';
    this.ready = new Promise<FrameReady>((resolve, reject) => {
      this._started = { resolve, reject };
    });
    this.ready.then(
      () => (this._state = 'ready'),
      () => (this._state = 'failed')
    );
    const timer = setTimeout(
      () =>
        this._fail(
          `The Ketcher editor did not start within ${FRAME_START_MS / 1000} s (its page is ${this._url}).`,
          'Check the browser console for a failed request of the editor frame, its worker or its WASM; reinstall molspace if they are missing.'
        ),
      FRAME_START_MS
    );
    void this.ready.finally(() => clearTimeout(timer)).catch(() => undefined);
    window.addEventListener('message', this._listener);
    this.node.src = this._url;
  }

  /**
   * Send one request; waits for the editor to be ready first.
   *
   * @throws MolspaceError `VALIDATION_FAILED` with the editor's message when it refuses;
   *   `TIMEOUT` when it does not answer; `STALE_TARGET` when the frame is closed first.
   */
  async request<T = unknown>(op: FrameOp, where: string): Promise<T> {
    await this.ready;
    const id = this._nextId++;
    const target = this.node.contentWindow;
    if (this._disposed || !target) {
      throw closed(where);
    }
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this._pending.delete(id);
        reject(
          new MolspaceError(
            'TIMEOUT',
            `The Ketcher editor did not answer "${op.op}" within ${FRAME_REQUEST_MS / 1000} s.`,
            where,
            'Retry; if it persists, reload the editor.',
            {
              op: op.op
            }
          )
        );
      }, FRAME_REQUEST_MS);
      this._pending.set(id, { resolve: v => resolve(v as T), reject, timer, op: op.op, where });
      target.postMessage({ ...op, tag: FRAME_TAG, id }, window.location.origin);
    });
  }

  /** Whether the frame failed to start (or was closed). */
  get failed(): boolean {
    return this._state === 'failed' || this._disposed;
  }

  /** A spare frame becomes an editor's: its drawings go to `onChanged` from now on. */
  adopt(onChanged: (snapshot: EditorSnapshot) => void): void {
    this._onChanged = onChanged;
    this.node.className = 'molspace-ketcher-frame';
  }

  dispose(): void {
    if (this._disposed) {
      return;
    }
    this._disposed = true;
    window.removeEventListener('message', this._listener);
    this._fail('The Ketcher editor was closed before it started.', 'Show the editor again.');
    for (const [id, p] of this._pending) {
      clearTimeout(p.timer);
      p.reject(closed('/target'));
      this._pending.delete(id);
    }
    this.node.remove();
  }

  private _fail(message: string, fix: string): void {
    const started = this._started;
    this._started = null;
    started?.reject(new MolspaceError('VALIDATION_FAILED', message, 'ketcher', fix, { url: this._url }));
  }

  private _receive(event: MessageEvent): void {
    if (event.source !== this.node.contentWindow || event.origin !== window.location.origin) {
      return;
    }
    const reply = FrameReply.safeParse(event.data);
    if (reply.success) {
      const pending = this._pending.get(reply.data.id);
      if (pending) {
        this._pending.delete(reply.data.id);
        clearTimeout(pending.timer);
        if (reply.data.ok) {
          // What the editor holds comes from here: a value off the contract is refused, never taken.
          const value = (FrameValue[pending.op] as z.ZodType).safeParse(reply.data.value);
          if (value.success) {
            pending.resolve(value.data);
          } else {
            pending.reject(offContract(pending, value.error.issues[0]));
          }
        } else if (reply.data.located) {
          // The frame's own refusal (a request it cannot read, or over its backlog): located there.
          const l = reply.data.located;
          pending.reject(new MolspaceError(l.code, l.message, l.where, l.fix, l.details));
        } else {
          pending.reject(new FrameError(reply.data.error ?? 'the editor refused the request'));
        }
      }
      return;
    }
    const e = FrameEvent.safeParse(event.data);
    if (!e.success) {
      return;
    }
    if (e.data.event === 'ready') {
      const started = this._started;
      this._started = null;
      started?.resolve({ ketcher: e.data.ketcher, indigo: e.data.indigo, snapshot: e.data.snapshot });
    } else if (e.data.event === 'failed') {
      this._fail(
        `The Ketcher editor failed to start: ${e.data.error}.`,
        'Reload the page; check the browser console for the editor frame.'
      );
    } else {
      this._onChanged(e.data.snapshot);
    }
  }
}

/** The page's spare frame (not yet any editor's), and the out-of-sight element that holds it. */
let spare: KetcherFrame | null = null;
let spareHolder: HTMLElement | null = null;
let spareWanted = false;
/** Frames handed to editor views whose editor is not ready yet: no spare starts while one is starting. */
const starting = new Set<KetcherFrame>();

/** `Element.moveBefore` (Chromium 133+): a frame moved with it keeps its document; `append` would reload it. */
type Movable = HTMLElement & { moveBefore(node: Node, child: Node | null): void };
function canMove(parent: HTMLElement): parent is Movable {
  return typeof (parent as Partial<Movable>).moveBefore === 'function';
}

/**
 * The frame for a new editor view, placed in `parent`: the page's spare when
 * there is one that has not failed and `parent` is in the document (moved there,
 * so it keeps its loaded Ketcher and Indigo), else a new frame. The view calls
 * {@link keepSpareFrame} once its editor is ready, and {@link releaseKetcherFrame} when it closes.
 */
export function takeKetcherFrame(parent: HTMLElement, onChanged: (snapshot: EditorSnapshot) => void): KetcherFrame {
  const taken = spare;
  let frame: KetcherFrame;
  if (taken && !taken.failed && parent.isConnected && canMove(parent)) {
    spare = null;
    parent.moveBefore(taken.node, null);
    taken.adopt(onChanged);
    frame = taken;
  } else {
    frame = new KetcherFrame(onChanged);
    parent.append(frame.node);
  }
  starting.add(frame);
  return frame;
}

/** Whether a view made now could take a spare frame (it waits until it is in the document to take it). */
export function hasSpareFrame(): boolean {
  return spare !== null && !spare.failed;
}

/** A view closed its editor `frame`. */
export function releaseKetcherFrame(frame: KetcherFrame): void {
  starting.delete(frame);
}

/**
 * The editor of `frame` is ready: once no other editor of this page is starting, start a spare
 * frame in idle time (so it does not slow an editor's own start), unless one exists, this browser cannot move a frame without
 * reloading it, or `localStorage["molspace.ketcherSpare"]` is `"off"` (the benchmark's control, bench/ketcher.mjs;
 * `"unwarmed"`: a spare without its warm-up).
 */
export function keepSpareFrame(frame: KetcherFrame): void {
  starting.delete(frame);
  if (starting.size > 0 || spareWanted || hasSpareFrame() || !canMove(document.body) || spareSetting() === 'off') {
    return;
  }
  spareWanted = true;
  const start = () => {
    spareWanted = false;
    if (hasSpareFrame() || starting.size > 0) {
      return;
    }
    spare?.dispose();
    if (!spareHolder?.isConnected) {
      spareHolder = document.createElement('div');
      spareHolder.className = 'molspace-ketcher-spare';
      spareHolder.setAttribute('aria-hidden', 'true');
      spareHolder.inert = true;
      document.body.append(spareHolder);
    }
    const holder = spareHolder;
    const frame = new KetcherFrame(() => undefined);
    frame.node.className = 'molspace-ketcher-spare-frame';
    frame.node.tabIndex = -1;
    spare = frame;
    holder.dataset.molspaceReady = 'false';
    delete holder.dataset.molspaceWarm;
    // Ready once its engine has run the load and snapshot paths once; the holder's
    // `data-molspace-warm` says how the warm-up went.
    warmUp(frame).then(
      how => {
        if (spare === frame) {
          holder.dataset.molspaceWarm = how;
          holder.dataset.molspaceReady = 'true';
        }
      },
      () => {
        if (spare === frame) {
          holder.dataset.molspaceReady = 'failed';
        }
      }
    );
    holder.append(frame.node);
  };
  if (typeof window.requestIdleCallback === 'function') {
    window.requestIdleCallback(start, { timeout: 10_000 });
  } else {
    setTimeout(start, 1000);
  }
}

/**
 * Once `frame` is ready, its warm-up (`warm`): "true" when it ran, "failed" when the frame refused
 * it (the editor is still usable: the next editor's first load pays, as without it), "off" with
 * `localStorage["molspace.ketcherSpare"] = "unwarmed"`. Rejects only when the frame fails to start.
 */
async function warmUp(frame: KetcherFrame): Promise<'true' | 'failed' | 'off'> {
  await frame.ready;
  if (spareSetting() === 'unwarmed') {
    return 'off';
  }
  try {
    await frame.request({ op: 'warm' }, 'ketcher');
    return 'true';
  } catch (e) {
    console.warn('molspace: the spare Ketcher frame did not warm up; the next editor starts without it.', e);
    return 'failed';
  }
}

/** `localStorage["molspace.ketcherSpare"]`: "off" (no spare) and "unwarmed" (a spare, no warm-up) are the benchmark's controls. */
function spareSetting(): string | null {
  try {
    return window.localStorage?.getItem('molspace.ketcherSpare') ?? null;
  } catch {
    return null;
  }
}

/** The editor's own refusal (Indigo's or Ketcher's message); the caller locates it. */
export class FrameError extends Error {}

function closed(where: string): MolspaceError {
  return new MolspaceError(
    'STALE_TARGET',
    'The Ketcher editor view was closed.',
    where,
    'Call observe to list the editors that exist now.',
    {}
  );
}

/** The frame answered `pending` with a value its reply schema ({@link FrameValue}) does not allow. */
function offContract(pending: Pending, issue: z.core.$ZodIssue | undefined): MolspaceError {
  const at = issue ? `${issue.path.map(String).join('/') || 'value'}: ${issue.message}` : 'value';
  return new MolspaceError(
    'VALIDATION_FAILED',
    `The Ketcher editor answered "${pending.op}" with a value off its contract (${at.slice(0, 200)}).`,
    pending.where,
    'Reload the page so the editor frame and the page are of one molspace version, then retry.',
    { op: pending.op }
  );
}
