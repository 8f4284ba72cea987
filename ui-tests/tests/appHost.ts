/**
 * A real MCP Apps host (extension `io.modelcontextprotocol/ui`, spec
 * 2026-01-26) for the Galata tests: the SDK's `AppBridge` in a host page
 * (ui-tests/apphost/), the View in a sandbox proxy on another origin under the
 * resource's CSP, and the View's MCP requests (`tools/call`, `resources/read`)
 * answered by the official TypeScript MCP client 2.x here in Node, as a chat
 * client that shows Apps does. No JupyterLab page is involved: the host page
 * opens in a browser context of its own.
 */
import type { Browser, BrowserContext, Frame, Page } from '@playwright/test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult, ReadResourceResult, Tool } from '@modelcontextprotocol/client';
import { MCP_PATH } from '../harness';
import { SERVER, TOKEN } from './helpers';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startAppHostServers, DEFAULT_CSP } = require('../apphost/server.js');

/** The CSP the proxy applies to an App resource that declares no `_meta.ui.csp` (the spec's restrictive default). */
export const DEFAULT_CSP_TEXT: string = DEFAULT_CSP;

/** The MCP Apps extension identifier and the MIME type of an App's HTML. */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';

/** What the host needs of an MCP connection: the official client, or a stand-in with the same calls. */
export interface McpLike {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<CallToolResult>;
  readResource(params: { uri: string }): Promise<ReadResourceResult>;
  listResources?(params?: Record<string, unknown>): Promise<unknown>;
}

/**
 * The official MCP client 2.x (Streamable HTTP) connected to the molspace
 * gateway with the Jupyter token, declaring MCP Apps support as a host that
 * renders Apps does; `tools/list` comes first, as an agent's does.
 */
export async function connectAppHostClient(token: string = TOKEN): Promise<{ client: Client; tools: Tool[] }> {
  const client = new Client(
    { name: 'molspace-test-host', version: '0.1.0' },
    { capabilities: { extensions: { [UI_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } } } }
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${SERVER}${MCP_PATH}`), { requestInit: { headers: { Authorization: `token ${token}` } } })
  );
  const { tools } = await client.listTools();
  return { client, tools };
}

/** A tool's App (`_meta.ui.resourceUri`, or the deprecated flat `_meta["ui/resourceUri"]`), as the SDK's getToolUiResourceUri reads it. */
export function toolResourceUri(tool: Tool): string | undefined {
  const meta = (tool._meta ?? {}) as Record<string, any>;
  const uri = meta.ui?.resourceUri ?? meta['ui/resourceUri'];
  if (uri !== undefined && (typeof uri !== 'string' || !uri.startsWith('ui://'))) {
    throw new Error(`tool ${tool.name}: _meta.ui.resourceUri is not a ui:// URI: ${JSON.stringify(uri)}`);
  }
  return uri;
}

/** The one App resource of a `resources/read`, checked as the spec requires of a host. */
export interface AppResource {
  uri: string;
  html: string;
  csp?: Record<string, string[]>;
  permissions?: Record<string, object>;
  /** The whole content, `_meta` included. */
  content: Record<string, unknown>;
}

export async function readAppResource(mcp: McpLike, uri: string): Promise<AppResource> {
  const { contents } = await mcp.readResource({ uri });
  if (contents.length !== 1) {
    throw new Error(`${uri}: an App resource has one content, not ${contents.length}`);
  }
  const content = contents[0] as Record<string, any>;
  if (content.mimeType !== APP_MIME_TYPE) {
    throw new Error(`${uri}: mimeType ${JSON.stringify(content.mimeType)} is not ${APP_MIME_TYPE}`);
  }
  if (content.uri !== uri) {
    throw new Error(`${uri}: the content's uri is ${JSON.stringify(content.uri)}`);
  }
  const html = typeof content.text === 'string' ? content.text : Buffer.from(String(content.blob), 'base64').toString('utf8');
  return { uri, html, csp: content._meta?.ui?.csp, permissions: content._meta?.ui?.permissions, content };
}

/** A JSON-RPC error as the View receives it. */
export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** What the View did through the host, in order. */
export interface AppHostRecords {
  toolCalls: Array<{ params: any; reply: { result?: CallToolResult; error?: RpcError } }>;
  resourceReads: Array<{ uri: string; error?: RpcError }>;
  modelContext: any[];
  messages: any[];
  openLinks: any[];
  logs: any[];
  sizes: Array<{ width?: number; height?: number }>;
  requestTeardown: any[];
  /** Console lines of the host page and its frames ("[type] text"). */
  console: string[];
  /** CSP violations reported by Chromium in any frame. */
  cspViolations: string[];
  /** Uncaught errors of the host page and its frames (the View's too), with the first stack lines. */
  pageErrors: string[];
}

export interface OpenAppHostOptions {
  mcp: McpLike;
  /** The tool's `_meta.ui.resourceUri`. */
  resourceUri: string;
  /** The tool the View is shown for (hostContext.toolInfo.tool). */
  tool?: Tool;
  /** Sent as `ui/notifications/tool-input` once the View is initialised. */
  toolInput?: Record<string, unknown>;
  /** Sent as `ui/notifications/tool-result` after the input; omit to send it later (the tool still running). */
  toolResult?: CallToolResult;
  /** hostContext.containerDimensions; default a fixed 720 × 480 (the View fills it). */
  containerDimensions?: Record<string, number>;
  theme?: 'light' | 'dark';
  /** Wait for `ui/notifications/initialized` this long (default 90 s). */
  initTimeoutMs?: number;
  /** Set up the host's browser context first (e.g. serve a Story's remote URLs from local copies). */
  prepare?: (context: BrowserContext) => Promise<void>;
}

export interface AppHost {
  page: Page;
  context: BrowserContext;
  /** The proxy's frame (sandbox origin) and the View's frame inside it (same origin, under the CSP). */
  sandboxFrame: Frame;
  appFrame: Frame;
  resource: AppResource;
  /** The origins used: the host page's and the sandbox proxy's (different, as the spec requires). */
  hostOrigin: string;
  sandboxOrigin: string;
  /** The Content-Security-Policy header the proxy was served with. */
  csp: string;
  records: AppHostRecords;
  /** The host ↔ proxy JSON-RPC log kept in the page (`refused`: what the host's transport dropped). */
  wire(): Promise<Array<{ dir: 'in' | 'out' | 'refused'; message: any; why?: string }>>;
  /** Errors the bridge reported (bad messages, failed handlers). */
  bridgeErrors(): Promise<string[]>;
  /** `document.documentElement.dataset.molspaceApp` of the View (undefined until it sets it). */
  appState(): Promise<string | undefined>;
  sendToolInput(args: Record<string, unknown>): Promise<void>;
  sendToolResult(result: CallToolResult): Promise<void>;
  sendToolCancelled(reason: string): Promise<void>;
  sendHostContextChange(params: Record<string, unknown>): Promise<void>;
  teardown(reason: string): Promise<unknown>;
  close(): Promise<void>;
}

function rpcError(e: unknown): RpcError {
  const err = e as { code?: unknown; message?: unknown; data?: unknown };
  const code = Number.isSafeInteger(err?.code) ? (err.code as number) : -32603;
  const message = typeof err?.message === 'string' ? err.message : String(e);
  return { code, message, ...(err?.data === undefined ? {} : { data: err.data }) };
}

/**
 * Show the App of `resourceUri` in a new host page, as a chat client shows a
 * tool result: read the resource, load the sandbox proxy (another origin,
 * the resource's CSP), hand it the HTML, answer `ui/initialize`, then send
 * the tool input and result. Resolves once the View is initialised and the
 * input/result are sent; throws with the frames' console and the wire log
 * when the View never initialises.
 */
export async function openAppHost(browser: Browser, opts: OpenAppHostOptions): Promise<AppHost> {
  const resource = await readAppResource(opts.mcp, opts.resourceUri);
  const servers = await startAppHostServers();
  const context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
  await opts.prepare?.(context);
  const records: AppHostRecords = {
    toolCalls: [],
    resourceReads: [],
    modelContext: [],
    messages: [],
    openLinks: [],
    logs: [],
    sizes: [],
    requestTeardown: [],
    console: [],
    cspViolations: [],
    pageErrors: []
  };
  const close = async (): Promise<void> => {
    await context.close().catch(() => undefined);
    await servers.close();
  };
  try {
    const page = await context.newPage();
    page.on('console', msg => {
      const line = `[${msg.type()}] ${msg.text()}`;
      records.console.push(line);
      if (/Content Security Policy/i.test(msg.text())) {
        records.cspViolations.push(msg.text());
      }
    });
    // Uncaught errors of every frame, the View's included, with where they were thrown.
    page.on('pageerror', error => records.pageErrors.push(`${error}\n${(error.stack ?? '').split('\n').slice(1, 4).join('\n')}`));
    // A binding is installed in every frame of the page; only the host page's own may use it
    // (the View reaches the host by postMessage alone, as in a real host).
    await page.exposeBinding('molspaceHostCall', async (source, kind: string, payload: any) => {
      if (source.frame !== page.mainFrame()) {
        records.console.push(`[refused] molspaceHostCall from ${source.frame.url()}`);
        return { error: { code: -32600, message: 'not the host page' } };
      }
      try {
        switch (kind) {
          case 'tools/call': {
            const result = await opts.mcp.callTool(payload);
            records.toolCalls.push({ params: payload, reply: { result } });
            return { result };
          }
          case 'resources/read': {
            const result = await opts.mcp.readResource(payload);
            records.resourceReads.push({ uri: payload?.uri });
            return { result };
          }
          case 'resources/list': {
            if (!opts.mcp.listResources) {
              return { error: { code: -32601, message: 'Method not found' } };
            }
            return { result: await opts.mcp.listResources(payload) };
          }
          case 'record': {
            const list = {
              modelContext: records.modelContext,
              message: records.messages,
              openLink: records.openLinks,
              log: records.logs,
              size: records.sizes,
              requestTeardown: records.requestTeardown
            }[payload.kind as string];
            list?.push(payload.params);
            return { result: {} };
          }
          default:
            return { error: { code: -32601, message: `Method not found: ${kind}` } };
        }
      } catch (e) {
        const error = rpcError(e);
        if (kind === 'tools/call') {
          records.toolCalls.push({ params: payload, reply: { error } });
        } else if (kind === 'resources/read') {
          records.resourceReads.push({ uri: payload?.uri, error });
        }
        return { error };
      }
    });
    await page.goto(servers.hostUrl);
    const dims = opts.containerDimensions ?? { width: 720, height: 480 };
    const hostContext = {
      ...(opts.tool ? { toolInfo: { tool: opts.tool } } : {}),
      theme: opts.theme ?? 'light',
      displayMode: 'inline',
      availableDisplayModes: ['inline'],
      containerDimensions: dims,
      locale: 'en-US',
      timeZone: 'UTC',
      platform: 'web',
      userAgent: 'molspace-test-host',
      deviceCapabilities: { touch: false, hover: true }
    };
    // The host page's start(): see apphost/src/host.ts (StartConfig).
    const config: Record<string, unknown> = {
      sandboxUrl: servers.sandboxUrl(resource.csp),
      html: resource.html,
      csp: resource.csp,
      permissions: resource.permissions,
      hostContext,
      width: dims.width ?? dims.maxWidth ?? 720,
      height: dims.height ?? Math.min(dims.maxHeight ?? 480, 480),
      toolInput: opts.toolInput,
      toolResult: opts.toolResult
    };
    await page.evaluate(cfg => window.molspaceAppHost.start(cfg), config);
    try {
      await page.waitForFunction(
        ([input, result]) => {
          const s = window.molspaceAppHost.state;
          return s.initialized && (!input || s.toolInputSent) && (!result || s.toolResultSent);
        },
        [opts.toolInput !== undefined, opts.toolResult !== undefined],
        { timeout: opts.initTimeoutMs ?? 90_000 }
      );
    } catch (e) {
      const wire = await page.evaluate(() => window.molspaceAppHost.state.wire).catch(() => []);
      throw new Error(
        `the App ${opts.resourceUri} did not initialise: ${String(e).split('\n')[0]}\n` +
          `console:\n${records.console.slice(-40).join('\n')}\n` +
          `wire:\n${wire
            .slice(-20)
            .map(w => `${w.dir} ${JSON.stringify(w.message).slice(0, 300)}`)
            .join('\n')}`
      );
    }
    const sandboxFrame = await (await page.locator('iframe#molspace-app-sandbox').elementHandle())!.contentFrame();
    const appFrame = await (await sandboxFrame!.locator('iframe#molspace-app-view').elementHandle())!.contentFrame();
    const served = servers.served.filter((s: { csp?: string }) => s.csp !== undefined);
    const host = (name: string, ...args: unknown[]): Promise<any> =>
      page.evaluate(([n, a]) => (window.molspaceAppHost as any)[n as string](...(a as unknown[])), [name, args] as const);
    return {
      page,
      context,
      sandboxFrame: sandboxFrame!,
      appFrame: appFrame!,
      resource,
      hostOrigin: servers.hostOrigin,
      sandboxOrigin: servers.sandboxOrigin,
      csp: served[served.length - 1].csp,
      records,
      wire: () => page.evaluate(() => window.molspaceAppHost.state.wire),
      bridgeErrors: () => page.evaluate(() => window.molspaceAppHost.state.errors),
      appState: () => appFrame!.evaluate(() => document.documentElement.dataset.molspaceApp),
      sendToolInput: args => host('sendToolInput', args),
      sendToolResult: result => host('sendToolResult', result),
      sendToolCancelled: reason => host('sendToolCancelled', reason),
      sendHostContextChange: params => host('sendHostContextChange', params),
      teardown: reason => host('teardown', reason),
      close
    };
  } catch (e) {
    await close();
    throw e;
  }
}

declare global {
  interface Window {
    molspaceAppHost: {
      state: {
        sandboxReady: boolean;
        initialized: boolean;
        toolInputSent: boolean;
        toolResultSent: boolean;
        appInfo: unknown;
        appCapabilities: unknown;
        wire: Array<{ dir: 'in' | 'out' | 'refused'; message: any; why?: string }>;
        errors: string[];
      };
      start(cfg: unknown): Promise<void>;
    };
  }
}
