/**
 * The test MCP Apps host, in the host page (bundled by ../server.js): the
 * official `AppBridge` (@modelcontextprotocol/ext-apps/app-bridge) talking to
 * the View through the sandbox proxy on another origin, with the View's MCP
 * requests answered by the Playwright side (tests/appHost.ts) through the
 * exposed function `molspaceHostCall`.
 *
 * Order (spec 2026-01-26, "Lifecycle"): load the proxy, wait for its
 * `ui/notifications/sandbox-proxy-ready`, connect the bridge, send
 * `ui/notifications/sandbox-resource-ready` {html, csp, permissions}; the View
 * sends `ui/initialize` (answered by the bridge with hostInfo, capabilities,
 * hostContext) then `ui/notifications/initialized`; only then the host sends
 * `ui/notifications/tool-input` and, when given, `ui/notifications/tool-result`.
 */
import { AppBridge, buildAllowAttribute } from '@modelcontextprotocol/ext-apps/app-bridge';
import type {
  McpUiHostContext,
  McpUiResourceCsp,
  McpUiResourcePermissions,
  McpUiHostContextChangedNotification
} from '@modelcontextprotocol/ext-apps/app-bridge';
import { parseJSONRPCMessage } from '@modelcontextprotocol/client';
import type { CallToolResult, JSONRPCMessage, Transport } from '@modelcontextprotocol/client';

/** What the Node side answers: a result, or a JSON-RPC error to send back to the View as is. */
type Reply = { result: unknown } | { error: { code: number; message: string; data?: unknown } };

/** One message on the host ↔ proxy wire, or one the host refused. */
export interface WireRecord {
  dir: 'in' | 'out' | 'refused';
  at: number;
  message: unknown;
  why?: string;
}

export interface StartConfig {
  /** The proxy's URL (its `?csp=` query chosen by server.js from the resource's `_meta.ui.csp`). */
  sandboxUrl: string;
  html: string;
  csp?: McpUiResourceCsp;
  permissions?: McpUiResourcePermissions;
  hostContext: McpUiHostContext;
  /** The outer iframe's CSS size; a flexible dimension follows the View's size-changed notifications. */
  width: number;
  height: number;
  toolInput?: Record<string, unknown>;
  toolResult?: CallToolResult;
}

declare global {
  interface Window {
    molspaceHostCall(kind: string, payload: unknown): Promise<Reply>;
    molspaceAppHost: typeof api;
  }
}

const HOST_INFO = { name: 'molspace-test-host', version: '0.1.0' };

const state = {
  sandboxReady: false,
  initialized: false,
  toolInputSent: false,
  toolResultSent: false,
  appInfo: undefined as unknown,
  appCapabilities: undefined as unknown,
  wire: [] as WireRecord[],
  errors: [] as string[]
};

let bridge: AppBridge | null = null;
let iframe: HTMLIFrameElement | null = null;

function record(dir: WireRecord['dir'], message: unknown, why?: string): void {
  state.wire.push({ dir, at: Date.now(), message, ...(why === undefined ? {} : { why }) });
}

/** Ask the Node side; a JSON-RPC error it returns is thrown with its code and data, which the bridge sends back unchanged. */
async function ask<T>(kind: string, payload: unknown): Promise<T> {
  const reply = await window.molspaceHostCall(kind, payload);
  if ('error' in reply) {
    const error = new Error(reply.error.message) as Error & { code?: number; data?: unknown };
    error.code = reply.error.code;
    error.data = reply.error.data;
    throw error;
  }
  return reply.result as T;
}

/**
 * The host side of the postMessage channel to one proxy: messages only from
 * that iframe's window and the proxy's origin, posted only to that origin;
 * anything that is not JSON-RPC 2.0 is refused (and answered with -32600 when
 * it carries an id), and every message is recorded.
 */
class ProxyTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  constructor(
    private readonly target: Window,
    private readonly origin: string
  ) {}

  private readonly listener = (event: MessageEvent): void => {
    if (event.source !== this.target) {
      return;
    }
    if (event.origin !== this.origin) {
      record('refused', event.data, `origin ${event.origin} is not the proxy's ${this.origin}`);
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(event.data);
    } catch (e) {
      const why = `not a JSON-RPC 2.0 message: ${e instanceof Error ? e.message.slice(0, 300) : String(e)}`;
      record('refused', event.data, why);
      const id = (event.data as { id?: unknown } | null)?.id;
      if (typeof id === 'string' || typeof id === 'number') {
        void this.send({ jsonrpc: '2.0', id, error: { code: -32600, message: `Invalid Request: ${why}` } });
      }
      this.onerror?.(new Error(why));
      return;
    }
    record('in', message);
    this.onmessage?.(message);
  };

  async start(): Promise<void> {
    window.addEventListener('message', this.listener);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    record('out', message);
    this.target.postMessage(message, this.origin);
  }

  async close(): Promise<void> {
    window.removeEventListener('message', this.listener);
    this.onclose?.();
  }
}

function newBridge(cfg: StartConfig, frame: HTMLIFrameElement): AppBridge {
  const b = new AppBridge(
    null,
    HOST_INFO,
    {
      openLinks: {},
      serverTools: {},
      serverResources: {},
      logging: {},
      updateModelContext: { text: {}, structuredContent: {} },
      message: { text: {} },
      sandbox: {
        ...(cfg.csp === undefined ? {} : { csp: cfg.csp }),
        ...(cfg.permissions === undefined ? {} : { permissions: cfg.permissions })
      }
    },
    { hostContext: cfg.hostContext }
  );
  // Every handler before connect(): the View may ask as soon as it is initialised.
  b.oncalltool = params => ask<CallToolResult>('tools/call', params);
  b.onreadresource = params => ask('resources/read', params);
  b.onlistresources = params => ask('resources/list', params);
  b.onupdatemodelcontext = async params => {
    await ask('record', { kind: 'modelContext', params });
    return {};
  };
  b.onmessage = async params => {
    await ask('record', { kind: 'message', params });
    return {};
  };
  b.onopenlink = async params => {
    await ask('record', { kind: 'openLink', params });
    return {};
  };
  b.addEventListener('loggingmessage', params => void ask('record', { kind: 'log', params }));
  b.addEventListener('requestteardown', params => void ask('record', { kind: 'requestTeardown', params }));
  b.addEventListener('sizechange', ({ width, height }) => {
    void ask('record', { kind: 'size', params: { width, height } });
    const dims = (cfg.hostContext.containerDimensions ?? {}) as Record<string, number | undefined>;
    if (height !== undefined && dims.height === undefined) {
      frame.style.height = `${Math.min(height, dims.maxHeight ?? Infinity)}px`;
    }
    if (width !== undefined && dims.width === undefined) {
      frame.style.width = `${Math.min(width, dims.maxWidth ?? Infinity)}px`;
    }
  });
  b.addEventListener('initialized', () => {
    state.initialized = true;
    state.appInfo = b.getAppVersion();
    state.appCapabilities = b.getAppCapabilities();
    void (async () => {
      try {
        if (cfg.toolInput !== undefined) {
          await b.sendToolInput({ arguments: cfg.toolInput });
          state.toolInputSent = true;
        }
        if (cfg.toolResult !== undefined) {
          await b.sendToolResult(cfg.toolResult);
          state.toolResultSent = true;
        }
      } catch (e) {
        state.errors.push(`sending the tool input/result failed: ${String(e)}`);
      }
    })();
  });
  b.onerror = error => {
    state.errors.push(error.message);
  };
  return b;
}

async function start(cfg: StartConfig): Promise<void> {
  if (iframe !== null) {
    throw new Error('this host page shows one App; open another page for another');
  }
  const sandboxOrigin = new URL(cfg.sandboxUrl).origin;
  if (sandboxOrigin === window.location.origin) {
    throw new Error('the sandbox proxy must be on another origin than the host');
  }
  const frame = document.createElement('iframe');
  iframe = frame;
  frame.id = 'molspace-app-sandbox';
  frame.title = 'MCP App';
  frame.setAttribute('sandbox', 'allow-scripts allow-same-origin allow-forms');
  const allow = buildAllowAttribute(cfg.permissions);
  if (allow) {
    frame.setAttribute('allow', allow);
  }
  frame.style.width = `${cfg.width}px`;
  frame.style.height = `${cfg.height}px`;

  const proxyReady = new Promise<void>(resolve => {
    const listener = (event: MessageEvent): void => {
      if (
        event.source === frame.contentWindow &&
        event.origin === sandboxOrigin &&
        event.data?.method === 'ui/notifications/sandbox-proxy-ready'
      ) {
        window.removeEventListener('message', listener);
        resolve();
      }
    };
    window.addEventListener('message', listener);
  });
  frame.src = cfg.sandboxUrl;
  document.getElementById('molspace-tool-turn')!.appendChild(frame);
  await proxyReady;
  state.sandboxReady = true;

  bridge = newBridge(cfg, frame);
  await bridge.connect(new ProxyTransport(frame.contentWindow!, sandboxOrigin));
  await bridge.sendSandboxResourceReady({
    html: cfg.html,
    ...(cfg.csp === undefined ? {} : { csp: cfg.csp }),
    ...(cfg.permissions === undefined ? {} : { permissions: cfg.permissions })
  });
}

function live(): AppBridge {
  if (bridge === null || !state.initialized) {
    throw new Error('the App has not initialised: the host sends nothing before ui/notifications/initialized');
  }
  return bridge;
}

const api = {
  state,
  start,
  sendToolInput: (args: Record<string, unknown>) => live().sendToolInput({ arguments: args }),
  sendToolInputPartial: (args: Record<string, unknown>) => live().sendToolInputPartial({ arguments: args }),
  sendToolResult: (result: CallToolResult) => live().sendToolResult(result),
  sendToolCancelled: (reason: string) => live().sendToolCancelled({ reason }),
  sendHostContextChange: (params: McpUiHostContextChangedNotification['params']) => live().sendHostContextChange(params),
  teardown: (reason: string) => live().teardownResource({ reason }),
  /** Post a raw message to the View as the host would (through the proxy); for tests of bad input. */
  postRaw: (message: unknown) => {
    if (iframe === null) {
      throw new Error('no App');
    }
    iframe.contentWindow!.postMessage(message, new URL(iframe.src).origin);
  }
};

window.molspaceAppHost = api;
