/**
 * The page side of the gateway bridge: a websocket from this JupyterLab page
 * to `{base_url}molspace/bridge`. Calls from agents arrive as `call` frames,
 * run through the page's Dispatcher, and go back as `result` frames; reads the
 * gateway answered from the page's read mirror arrive as `served` frames and
 * are handed to the Dispatcher's activity records.
 * Protocol and close codes: `src/contract/bridge.ts`.
 *
 * A lost connection is reopened with exponential backoff
 * ({@link RECONNECT_MIN_MS} doubling to {@link RECONNECT_MAX_MS}; back to the
 * minimum once the gateway welcomes the page). The gateway's own close codes
 * are honoured: `replaced` / `pageIdTaken` reconnect under a new page id
 * (another tab holds this one), `unsupportedProtocol` stops for good with a
 * located {@link BridgeClient.error} (the page must be reloaded).
 */
import { Signal, type ISignal } from '@lumino/signaling';
import {
  BRIDGE_CLOSE_CODES,
  BRIDGE_PROTOCOL_VERSION,
  GatewayMessage,
  LIMITS,
  MolspaceError,
  type LocatedError,
  type PageFallback,
  type PageMessage,
  type ServedRead
} from '../contract';
import type { DispatchOptions, DispatchResult } from '../dispatcher/dispatcher';
import type { ReadMirror } from './readMirror';
import { MODULE_VERSION } from '../version';

/** `WebSocket.OPEN`. */
const OPEN = 1;

/** First reconnect delay, ms. */
export const RECONNECT_MIN_MS = 500;
/** Longest reconnect delay, ms. */
export const RECONNECT_MAX_MS = 10_000;

/** What the bridge needs from the Dispatcher. */
export interface BridgeDispatcher {
  execute(tool: string, rawArgs: unknown, options: DispatchOptions): Promise<DispatchResult>;
  /** Reads the gateway answered from this page's read mirror (a `served` frame), for the activity panel. */
  noteServed(reads: readonly ServedRead[]): void;
}

/** What the bridge needs from the widget registry: the count it reports. */
export interface BridgeWidgets {
  readonly size: number;
  readonly changed: ISignal<unknown, number>;
}

/** Where the page id lives: it survives reloads of this tab, so a reload replaces, not adds, a page. */
export interface PageIdStore {
  /** The current page id. */
  get(): string;
  /** Choose a new page id (another tab or user holds the current one) and return it. */
  renew(): string;
}

/** What the bridge uses of a WebSocket. */
export interface BridgeSocket {
  readonly readyState: number;
  send(data: string): void;
  close(): void;
  onopen: ((ev: Event) => void) | null;
  onmessage: ((ev: MessageEvent) => void) | null;
  onclose: ((ev: CloseEvent) => void) | null;
}

/** A WebSocket constructor (JupyterLab's `ServerConnection.ISettings.WebSocket`, or a fake in tests). */
export type WebSocketFactory = new (url: string) => BridgeSocket;

export interface BridgeClientOptions {
  dispatcher: BridgeDispatcher;
  widgets: BridgeWidgets;
  /** The bridge websocket URL, with the token query parameter when the server needs one. */
  url: string;
  WebSocket: WebSocketFactory;
  /** Default: this tab's `sessionStorage`. */
  pageIds?: PageIdStore;
  /**
   * The read mirror to push once welcomed (docs/architecture.md, "Read
   * mirror"); flushed before every `result`. None: the gateway relays every read.
   */
  mirror?: ReadMirror;
  /**
   * The HTTP status of a plain GET of the bridge's URL, or null when it could not be read.
   * Asked once, after the first socket closed before any `welcome`: a 404 means no molspace
   * gateway serves this page (JupyterLite, or the server extension is off), and the bridge
   * stops with a located {@link BridgeClient.error} instead of retrying forever. None: never asked.
   */
  probe?: () => Promise<number | null>;
  /** Told once when the bridge stops for good with a located error (no gateway, another protocol). */
  onStopped?: (error: LocatedError) => void;
}

/**
 * `connecting`: a socket is opening or awaits `welcome`; `connected`: welcomed;
 * `waiting`: closed, a reconnect is scheduled; `stopped`: disposed, or refused for good.
 */
export type BridgeState = 'connecting' | 'connected' | 'waiting' | 'stopped';

export class BridgeClient {
  private readonly _options: BridgeClientOptions;
  private readonly _pageIds: PageIdStore;
  private _socket: BridgeSocket | null = null;
  private _delay = RECONNECT_MIN_MS;
  private _timer: ReturnType<typeof setTimeout> | null = null;
  private _state: BridgeState = 'waiting';
  /** The gateway's clock less this page's (ms), from its last `welcome`; null before one that says it. */
  private _clockOffset: number | null = null;
  private _error: LocatedError | null = null;
  /** True once the gateway welcomed this page (then a lost socket is a server restart, not a missing gateway). */
  private _everWelcomed = false;
  private _probed = false;
  private readonly _welcomed = new Signal<this, void>(this);

  constructor(options: BridgeClientOptions) {
    this._options = options;
    this._pageIds = options.pageIds ?? sessionPageIds();
    options.widgets.changed.connect(this._onWidgets);
    window.addEventListener('focus', this._onFocus);
    window.addEventListener('blur', this._onBlur);
    document.addEventListener('visibilitychange', this._onVisibility);
  }

  /** This page's id at the gateway. */
  get pageId(): string {
    return this._pageIds.get();
  }

  get state(): BridgeState {
    return this._state;
  }

  /** True once the gateway accepted this page. */
  get connected(): boolean {
    return this._state === 'connected';
  }

  /** Why the bridge stopped for good (e.g. the server speaks another protocol), or null. */
  get error(): LocatedError | null {
    return this._error;
  }

  /** Emits each time the gateway welcomes this page (first connect and every reconnect). */
  get welcomed(): ISignal<this, void> {
    return this._welcomed;
  }

  /**
   * Send a notebook widget's static fallback (`src/contract/staticFallback.ts`).
   *
   * @returns false when the bridge is not connected or the frame is over
   *   `LIMITS.bridgeFrameBytes` (nothing is sent).
   */
  sendFallback(frame: PageFallback): boolean {
    const text = JSON.stringify(frame);
    if (!this.connected || this._socket?.readyState !== OPEN || utf8Length(text) > LIMITS.bridgeFrameBytes) {
      return false;
    }
    this._sendText(text);
    return true;
  }

  /** The delay before the next reconnect, ms. */
  get reconnectDelay(): number {
    return this._delay;
  }

  /** Open the websocket, and reopen it after a lost connection until disposed or refused. */
  connect(): void {
    if (this._state === 'stopped' || this._socket !== null) {
      return;
    }
    this._clearTimer();
    this._state = 'connecting';
    const socket = new this._options.WebSocket(this._options.url);
    this._socket = socket;
    socket.onopen = () => {
      this._send({
        type: 'hello',
        protocol: BRIDGE_PROTOCOL_VERSION,
        pageId: this.pageId,
        version: MODULE_VERSION,
        focused: document.hasFocus(),
        widgets: this._options.widgets.size
      });
    };
    socket.onmessage = ev => void this._onMessage(ev.data);
    socket.onclose = ev => this._onClose(socket, ev.code, ev.reason);
  }

  /** Close the socket and stop reconnecting. */
  dispose(): void {
    this._stop();
    this._options.widgets.changed.disconnect(this._onWidgets);
    window.removeEventListener('focus', this._onFocus);
    window.removeEventListener('blur', this._onBlur);
    document.removeEventListener('visibilitychange', this._onVisibility);
  }

  private _onClose(socket: BridgeSocket, code: number, reason: string): void {
    if (socket !== this._socket) {
      return; // a socket this client already left
    }
    this._socket = null;
    this._options.mirror?.detach();
    if (this._state === 'stopped') {
      return;
    }
    if (code === BRIDGE_CLOSE_CODES.unsupportedProtocol) {
      this._error = new MolspaceError(
        'UNSUPPORTED_FORMAT',
        `The molspace server speaks another bridge protocol than this page (${BRIDGE_PROTOCOL_VERSION})${reason ? `: ${reason}` : ''}.`,
        'bridge',
        'Reload the page so that it loads the molspace version the server runs.',
        { protocol: BRIDGE_PROTOCOL_VERSION, closeCode: code, reason }
      ).toJSON();
      console.error(`molspace: ${this._error.message} ${this._error.fix}`);
      this._stopWith(this._error);
      return;
    }
    if (!this._everWelcomed && !this._probed && this._options.probe) {
      this._probed = true;
      void this._probeGateway(this._options.probe);
    }
    if (code === BRIDGE_CLOSE_CODES.replaced || code === BRIDGE_CLOSE_CODES.pageIdTaken) {
      // Another tab (a duplicate shares sessionStorage) or user holds this page id.
      this._pageIds.renew();
    }
    this._state = 'waiting';
    this._timer = setTimeout(() => {
      this._timer = null;
      this.connect();
    }, this._delay);
    this._delay = Math.min(this._delay * 2, RECONNECT_MAX_MS);
  }

  /** Ask whether a gateway serves the bridge's URL at all; a 404 stops the retries, located. */
  private async _probeGateway(probe: () => Promise<number | null>): Promise<void> {
    const status = await probe().catch(() => null);
    if (status !== 404 || this._everWelcomed || this._state === 'stopped') {
      return;
    }
    const error = new MolspaceError(
      'NOT_FOUND',
      'No molspace gateway serves this page (HTTP 404 at molspace/bridge): agents cannot reach it over MCP. The widgets work.',
      'bridge',
      'Run JupyterLab on a server with molspace installed (`jupyter server extension list` shows molspace enabled), then reload. In JupyterLite there is no server: agents in the browser call the page tools directly.',
      { url: this._options.url.replace(/\?.*$/, ''), status }
    ).toJSON();
    console.warn(`molspace: ${error.message} ${error.fix}`);
    this._stopWith(error);
  }

  private _stopWith(error: LocatedError): void {
    this._error = error;
    this._stop();
    this._options.onStopped?.(error);
  }

  private _stop(): void {
    this._state = 'stopped';
    this._options.mirror?.detach();
    this._clearTimer();
    const socket = this._socket;
    this._socket = null;
    socket?.close();
  }

  private _clearTimer(): void {
    if (this._timer !== null) {
      clearTimeout(this._timer);
      this._timer = null;
    }
  }

  private async _onMessage(data: unknown): Promise<void> {
    let json: unknown;
    try {
      json = JSON.parse(String(data));
    } catch {
      console.warn('molspace bridge: ignored a frame that is not JSON');
      return;
    }
    const parsed = GatewayMessage.safeParse(json);
    if (!parsed.success) {
      console.warn('molspace bridge: ignored a frame that is not a gateway message', parsed.error.issues[0]);
      return;
    }
    const msg = parsed.data;
    if (msg.type === 'welcome') {
      // the server's clock less the page's, measured when the page is awake (its error: one frame's latency)
      this._clockOffset = msg.serverTime !== undefined ? msg.serverTime - Date.now() : null;
      if (this._state === 'connecting') {
        this._state = 'connected';
        this._everWelcomed = true;
        this._delay = RECONNECT_MIN_MS;
        if (msg.mirror === true) {
          this._options.mirror?.attach(msg.pageId, frame => this._send(frame));
        }
        this._welcomed.emit();
      }
      return;
    }
    if (msg.type === 'served') {
      this._options.dispatcher.noteServed(msg.reads);
      return;
    }
    const { callId, tool, args, context, deadlineMs, sentAt } = msg;
    try {
      const deadline = callDeadline(Date.now(), deadlineMs, sentAt, this._clockOffset);
      const result = await this._options.dispatcher.execute(tool, args, { source: 'agent', context, deadline });
      await this._sendResult({
        type: 'result',
        callId,
        ok: true,
        structuredContent: result.structuredContent,
        text: result.text,
        ...(result.images ? { images: result.images } : {})
      });
    } catch (e) {
      await this._sendResult({ type: 'result', callId, ok: false, error: MolspaceError.from(e, tool).toJSON() });
    }
  }

  /**
   * Send a result, after the read-mirror answers the call changed (same
   * socket, so the gateway has them first); one larger than a bridge frame
   * may be is answered with a located TOO_LARGE instead.
   */
  private async _sendResult(frame: Extract<PageMessage, { type: 'result' }>): Promise<void> {
    await this._options.mirror?.flush().catch(e => console.warn('molspace bridge: read mirror not pushed', e));
    const text = JSON.stringify(frame);
    const bytes = utf8Length(text);
    if (bytes <= LIMITS.bridgeFrameBytes) {
      this._sendText(text);
      return;
    }
    this._send({
      type: 'result',
      callId: frame.callId,
      ok: false,
      error: new MolspaceError(
        'TOO_LARGE',
        `The answer is ${bytes} bytes; a bridge frame holds at most ${LIMITS.bridgeFrameBytes} bytes.`,
        '/',
        'Ask for less: pass a smaller limit, or page through the results with offset or cursor.',
        { bytes, limit: LIMITS.bridgeFrameBytes }
      ).toJSON()
    });
  }

  private _send(frame: PageMessage): void {
    this._sendText(JSON.stringify(frame));
  }

  private _sendText(text: string): void {
    if (this._socket?.readyState === OPEN) {
      this._socket.send(text);
    }
  }

  private readonly _onWidgets = (_: unknown, widgets: number) => this._send({ type: 'summary', widgets });
  private readonly _onFocus = () => this._send({ type: 'focus', focused: true });
  private readonly _onBlur = () => this._send({ type: 'focus', focused: false });
  private readonly _onVisibility = () =>
    this._send({ type: 'focus', focused: document.visibilityState === 'visible' && document.hasFocus() });
}

/** Bytes of `text` in UTF-8. */
/**
 * When the page stops trying to apply a relayed call (ms since the epoch, page clock): `deadlineMs`
 * from when the gateway sent it (`sentAt`, server clock, less `clockOffset`), so a page that was
 * frozen (a sleeping laptop, a paused debugger) and reads the call after the gateway answered
 * TIMEOUT does not apply it; at most `deadlineMs` from when the page reads it.
 */
export function callDeadline(now: number, deadlineMs: number, sentAt: number | undefined, clockOffset: number | null): number {
  const fromRead = now + deadlineMs;
  return sentAt === undefined || clockOffset === null ? fromRead : Math.min(fromRead, sentAt - clockOffset + deadlineMs);
}

function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) {
      n += 1;
    } else if (c < 0x800) {
      n += 2;
    } else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4; // a surrogate pair: one 4-byte code point
      i++;
    } else {
      n += 3;
    }
  }
  return n;
}

/** Page ids kept in this tab's sessionStorage (a fresh one when storage is unavailable). */
export function sessionPageIds(): PageIdStore {
  const KEY = 'molspace:pageId';
  let fallback: string | null = null;
  const fresh = () => `page-${crypto.randomUUID()}`;
  const store = (id: string) => {
    fallback = id;
    try {
      window.sessionStorage.setItem(KEY, id);
    } catch {
      // storage unavailable: keep it in memory
    }
    return id;
  };
  return {
    get() {
      try {
        const known = window.sessionStorage.getItem(KEY);
        if (known) {
          return known;
        }
      } catch {
        // storage unavailable
      }
      return fallback ?? store(fresh());
    },
    renew: () => store(fresh())
  };
}
