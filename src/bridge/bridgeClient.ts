/**
 * The page side of the gateway bridge: a websocket from this JupyterLab page
 * to `{base_url}molspace/bridge`, authenticated like JupyterLab's own kernel
 * websockets (token query parameter when the server uses one; cookies
 * otherwise). Calls from agents arrive as `call` frames, run through the
 * page's Dispatcher, and go back as `result` frames. Protocol:
 * `src/contract/bridge.ts`.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';
import { BRIDGE_PROTOCOL_VERSION, GatewayMessage, MolspaceError } from '../contract';
import type { Dispatcher } from '../dispatcher/dispatcher';
import type { WidgetRegistry } from '../dispatcher/registry';
import { MODULE_VERSION } from '../version';

/** Reconnect delays, ms: doubles from the first to the last. */
const RECONNECT_MIN_MS = 500;
const RECONNECT_MAX_MS = 10_000;

export class BridgeClient {
  readonly pageId: string;
  private readonly _settings: ServerConnection.ISettings;
  private readonly _dispatcher: Dispatcher;
  private readonly _registry: WidgetRegistry;
  private _socket: WebSocket | null = null;
  private _delay = RECONNECT_MIN_MS;
  private _disposed = false;
  private _welcomed = false;

  constructor(options: { dispatcher: Dispatcher; registry: WidgetRegistry; settings?: ServerConnection.ISettings }) {
    this._dispatcher = options.dispatcher;
    this._registry = options.registry;
    this._settings = options.settings ?? ServerConnection.makeSettings();
    this.pageId = BridgeClient._pageId();
    this._registry.changed.connect((_, widgets) => this._send({ type: 'summary', widgets }));
    window.addEventListener('focus', this._onFocus);
    window.addEventListener('blur', this._onBlur);
    document.addEventListener('visibilitychange', this._onVisibility);
  }

  /** True once the gateway accepted this page. */
  get connected(): boolean {
    return this._welcomed && this._socket?.readyState === WebSocket.OPEN;
  }

  /** Open the websocket (and keep reopening it until disposed). */
  connect(): void {
    if (this._disposed) {
      return;
    }
    let url = URLExt.join(this._settings.wsUrl, 'molspace', 'bridge');
    const token = this._settings.token;
    if (token !== '' && this._settings.appendToken) {
      url += `?token=${encodeURIComponent(token)}`;
    }
    const socket = new this._settings.WebSocket(url);
    this._socket = socket;
    socket.onopen = () => {
      this._delay = RECONNECT_MIN_MS;
      this._send({
        type: 'hello',
        protocol: BRIDGE_PROTOCOL_VERSION,
        pageId: this.pageId,
        version: MODULE_VERSION,
        focused: document.hasFocus(),
        widgets: this._registry.size
      });
    };
    socket.onmessage = ev => void this._onMessage(ev.data);
    socket.onclose = () => {
      this._welcomed = false;
      if (this._socket === socket) {
        this._socket = null;
      }
      if (!this._disposed) {
        setTimeout(() => this.connect(), this._delay);
        this._delay = Math.min(this._delay * 2, RECONNECT_MAX_MS);
      }
    };
  }

  dispose(): void {
    this._disposed = true;
    window.removeEventListener('focus', this._onFocus);
    window.removeEventListener('blur', this._onBlur);
    document.removeEventListener('visibilitychange', this._onVisibility);
    this._socket?.close();
  }

  private async _onMessage(data: unknown): Promise<void> {
    let msg: GatewayMessage;
    try {
      const parsed = GatewayMessage.safeParse(JSON.parse(String(data)));
      if (!parsed.success) {
        console.warn('molspace bridge: ignored a frame that is not a gateway message', parsed.error.issues[0]);
        return;
      }
      msg = parsed.data;
    } catch {
      console.warn('molspace bridge: ignored a frame that is not JSON');
      return;
    }
    if (msg.type === 'welcome') {
      this._welcomed = true;
      return;
    }
    const { callId, tool, args, context } = msg;
    try {
      const result = await this._dispatcher.execute(tool, args, { source: 'agent', context });
      this._send({ type: 'result', callId, ok: true, structuredContent: result.structuredContent, text: result.text });
    } catch (e) {
      this._send({ type: 'result', callId, ok: false, error: MolspaceError.from(e, tool).toJSON() });
    }
  }

  private _send(frame: Record<string, unknown>): void {
    if (this._socket?.readyState === WebSocket.OPEN) {
      this._socket.send(JSON.stringify(frame));
    }
  }

  private readonly _onFocus = () => this._send({ type: 'focus', focused: true });
  private readonly _onBlur = () => this._send({ type: 'focus', focused: false });
  private readonly _onVisibility = () =>
    this._send({ type: 'focus', focused: document.visibilityState === 'visible' && document.hasFocus() });

  /** A page id that survives reloads of this tab (so a reload replaces, not adds, a page). */
  private static _pageId(): string {
    const KEY = 'molspace:pageId';
    try {
      const known = window.sessionStorage.getItem(KEY);
      if (known) {
        return known;
      }
      const id = `page-${crypto.randomUUID()}`;
      window.sessionStorage.setItem(KEY, id);
      return id;
    } catch {
      return `page-${crypto.randomUUID()}`;
    }
  }
}
