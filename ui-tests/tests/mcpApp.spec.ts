/**
 * The molspace MCP App (extension `io.modelcontextprotocol/ui`, spec
 * 2026-01-26) shown by a real MCP Apps host (tests/appHost.ts: the SDK's
 * AppBridge in a host page, the App in a sandbox proxy on another origin
 * under the resource's CSP, the official MCP client 2.x in Node), with no
 * JupyterLab page connected: as a chat client shows a tool result.
 */
import * as fs from 'fs';
import * as path from 'path';
import { expect, test } from '@playwright/test';
import type { Browser } from '@playwright/test';
import type { CallToolResult, Client, Tool } from '@modelcontextprotocol/client';
import { type AppHost, DEFAULT_CSP_TEXT, connectAppHostClient, openAppHost, toolResourceUri, UI_EXTENSION } from './appHost';
import { ROOT, SERVER, TOKEN, deletePath, foregroundFraction, putFile } from './helpers';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { standInMcp } = require('../apphost/fixtures/standin.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { cspHeader } = require('../apphost/server.js');

const STRUCTURES = path.join(ROOT, 'tests', 'data', 'structures');

/**
 * Post a raw message from the App's window (as the View would, through the proxy) and
 * return the host's reply with the same id.
 */
async function postFromApp(host: AppHost, message: Record<string, unknown>): Promise<any> {
  return host.appFrame.evaluate(
    m =>
      new Promise(resolve => {
        window.addEventListener('message', e => {
          if (e.source === window.parent && e.data?.id === m.id && e.data.method === undefined) {
            resolve(e.data);
          }
        });
        window.parent.postMessage(m, '*');
      }),
    message
  );
}

/** The checks of bad input from the App side, shared by the stand-in and the real App: each is refused, located, and the App stays drawn. */
async function expectBadAppInputRefused(host: AppHost): Promise<void> {
  // A resource the server does not have: the server's located error reaches the App unchanged.
  const unknown = await postFromApp(host, {
    jsonrpc: '2.0',
    id: 'test-bad-read',
    method: 'resources/read',
    params: { uri: 'ui://molspace/nope' }
  });
  expect(unknown.error.message).toContain('ui://molspace/nope');
  expect(unknown.error.message).toContain('ui://molspace/viewer');
  // A tools/call of the wrong shape: refused by the bridge before any server call, the field named.
  // (AppBridge 2.0.4 answers a params schema failure with -32603 and the zod issues as the message, not -32602.)
  const calls = host.records.toolCalls.length;
  const badCall = await postFromApp(host, { jsonrpc: '2.0', id: 'test-bad-call', method: 'tools/call', params: { name: 42 } });
  expect([-32602, -32603]).toContain(badCall.error?.code);
  expect(badCall.error.message).toMatch(/"name"[\s\S]*expected string/);
  expect(host.records.toolCalls.length).toBe(calls);
  // Not JSON-RPC at all (a method that is not a string): refused by the host's transport with -32600.
  const notRpc = await postFromApp(host, { jsonrpc: '2.0', id: 'test-bad-shape', method: 7 });
  expect(notRpc.error.code).toBe(-32600);
  expect((await host.wire()).filter(w => w.dir === 'refused')).toHaveLength(1);
  // An unknown method: Method not found.
  const unknownMethod = await postFromApp(host, { jsonrpc: '2.0', id: 'test-bad-method', method: 'molspace/nope', params: {} });
  expect(unknownMethod.error.code).toBe(-32601);
  // The App took none of it as its own and is still drawn.
  expect(await host.appState()).toBe('drawn');
}

/** How many JupyterLab pages the gateway has (the `status` tool, read as an agent reads it). */
async function pagesConnected(client: Client): Promise<boolean> {
  const result = await client.callTool({ name: 'status', arguments: {} });
  return Boolean((result.structuredContent as { pageConnected?: boolean }).pageConnected);
}

test.describe('the test MCP Apps host', () => {
  test("builds the proxy's CSP from the resource's _meta.ui.csp as the spec does", () => {
    // Declared but empty (what molspace declares): nothing beyond the sandbox's own origin.
    expect(cspHeader({ connectDomains: [], resourceDomains: [] })).toBe(
      "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; connect-src 'self'; " +
        "img-src 'self' data:; font-src 'self'; media-src 'self' data:; frame-src 'none'; object-src 'none'; base-uri 'self'"
    );
    // Declared origins are added where the spec puts them; anything that could open a directive is dropped.
    const csp = cspHeader({
      resourceDomains: ['https://cdn.example.org', "'unsafe-eval'", 'x; script-src *'],
      connectDomains: ['wss://api.example.org'],
      frameDomains: ['https://frames.example.org']
    });
    expect(csp).toContain("script-src 'self' 'unsafe-inline' https://cdn.example.org;");
    expect(csp).toContain("connect-src 'self' wss://api.example.org;");
    expect(csp).toContain('frame-src https://frames.example.org;');
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).not.toContain('*');
  });

  test('shows a stand-in App through a cross-origin sandbox under the default CSP', async ({ browser }) => {
    const mcp = standInMcp({ root: ROOT });
    const host = await openAppHost(browser, {
      mcp,
      resourceUri: 'ui://molspace/viewer',
      toolInput: { path: 'tests/data/structures/2c6e_poses.pdb' },
      toolResult: await mcp.callTool({ name: 'open', arguments: { path: 'tests/data/structures/2c6e_poses.pdb' } })
    });
    try {
      await expect.poll(() => host.appState()).toBe('drawn');
      expect(host.records.pageErrors).toEqual([]);
      expect(host.records.console.filter(l => l.startsWith('[error]'))).toEqual([]);
      expect(new URL(host.hostOrigin).origin).not.toBe(new URL(host.sandboxOrigin).origin);
      expect(host.csp).toBe(DEFAULT_CSP_TEXT);
      // The View runs on the proxy's origin, inside the proxy, under its CSP.
      expect(await host.appFrame.evaluate(() => window.location.origin)).toBe(host.sandboxOrigin);
      const probe = await host.appFrame.evaluate(async () => {
        // Probes run from a timer, outside Playwright's evaluation (which DevTools exempts from the eval check).
        const inline = document.createElement('script');
        inline.textContent = `setTimeout(function () {
          var d = document.documentElement.dataset;
          try { eval('1'); d.probeEval = 'allowed'; } catch (e) { d.probeEval = e.name; }
          try { new Function('return 1')(); d.probeFunction = 'allowed'; } catch (e) { d.probeFunction = e.name; }
        });`;
        document.head.appendChild(inline);
        const load = (src: string) =>
          new Promise<string>(resolve => {
            const s = document.createElement('script');
            s.onload = () => resolve('loaded');
            s.onerror = () => resolve('blocked');
            s.src = src;
            document.head.appendChild(s);
          });
        const out: Record<string, string> = {};
        out.blob = await load(URL.createObjectURL(new Blob(['1'], { type: 'text/javascript' })));
        out.data = await load('data:text/javascript,1');
        out.fetch = await fetch(location.origin + '/sandbox.js').then(
          () => 'allowed',
          () => 'blocked'
        );
        const d = document.documentElement.dataset;
        while (d.probeFunction === undefined) {
          await new Promise(r => requestAnimationFrame(r));
        }
        out.eval = d.probeEval!;
        out.newFunction = d.probeFunction;
        return out;
      });
      expect(probe).toEqual({ eval: 'EvalError', newFunction: 'EvalError', blob: 'blocked', data: 'blocked', fetch: 'blocked' });
      // Chromium reports what it blocked; the host records it (the real App's test expects none).
      expect(host.records.cspViolations.length).toBeGreaterThanOrEqual(3);
      // The App's own part came through the host, and its context update was recorded.
      expect(host.records.resourceReads.map(r => r.uri)).toEqual(['ui://molspace/app/standin.js']);
      expect(host.records.modelContext).toHaveLength(1);
      expect(host.records.modelContext[0].structuredContent.title).toBe('2c6e_poses.pdb');
      expect(await foregroundFraction(host.appFrame.locator('canvas'))).toBeGreaterThan(0.005);
      // The handshake came first: the bridge saw no request before ui/notifications/initialized.
      expect(host.records.console.filter(l => l.includes('before ui/notifications/initialized'))).toEqual([]);
      expect(await host.bridgeErrors()).toEqual([]);
      await expectBadAppInputRefused(host);
    } finally {
      await host.close();
    }
  });
});

/** What a test of the real App gets: the host client, the `open` tool, its result and the App showing it. */
interface Shown {
  client: Client;
  open: Tool;
  result: CallToolResult;
  host: AppHost;
}

/** The App's state, with its located message when it is `error`. */
async function appStateOrError(host: AppHost): Promise<string | undefined> {
  const state = await host.appState();
  return state === 'error' ? `error: ${await host.appFrame.locator('#molspace-app-error').textContent()}` : state;
}

/**
 * As a chat client shows a tool result: with no JupyterLab page, `tools/list`, the `open`
 * tool's App, `open {path}` of a structure written into the Jupyter root, the App shown with
 * that result until it is drawn; then `body`, then everything is closed and removed.
 */
async function withStructureShown(browser: Browser, structure: string, body: (shown: Shown) => Promise<void>): Promise<void> {
  const dir = `mcp-app-${Date.now()}`;
  const file = `${dir}/${path.basename(structure)}`;
  await putFile(file, path.join(STRUCTURES, structure));
  const { client, tools } = await connectAppHostClient();
  try {
    // Pages of earlier tests disconnect when their browser page closes.
    await expect.poll(() => pagesConnected(client)).toBe(false);
    // The gateway declares the extension, but the Python SDK sieves `capabilities.extensions`
    // (2026-07-28 vocabulary there) out of a 2025-11-25 initialize result, the version this client
    // speaks: hosts on that wire find the App by the tool's `_meta.ui.resourceUri`, checked below.
    expect(client.getServerCapabilities()?.extensions?.[UI_EXTENSION]).toBeUndefined();
    const open = tools.find(t => t.name === 'open');
    expect(open).toBeDefined();
    const resourceUri = toolResourceUri(open!);
    expect(resourceUri).toBe('ui://molspace/viewer');

    const result = await client.callTool({ name: 'open', arguments: { path: file } });
    expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
    // The model reads a bounded result; the structure travels in _meta for the App alone.
    expect(JSON.stringify(result.structuredContent).length).toBeLessThan(16_384);
    expect(JSON.stringify(result.content)).not.toContain('_atom_site');
    expect(result._meta?.['molspace/structure']).toBeDefined();

    const host = await openAppHost(browser, {
      mcp: client,
      resourceUri: resourceUri!,
      tool: open,
      toolInput: { path: file },
      toolResult: result
    });
    try {
      // Until the App settles (drawn or error), then drawn, with its uncaught errors shown when not.
      await expect.poll(async () => (await host.appState()) ?? 'none', { timeout: 120_000 }).toMatch(/^(drawn|error)$/);
      expect(await appStateOrError(host), `uncaught in the App: ${host.records.pageErrors.join('\n')}`).toBe('drawn');
      await body({ client, open: open!, result, host });
    } finally {
      await host.close();
    }
  } finally {
    await client.close();
    await deletePath(file);
    await deletePath(dir);
  }
}

test.describe('molspace MCP App', () => {
  test('a structure renders in the chat from a tool result with no JupyterLab page', async ({ browser }) => {
    await withStructureShown(browser, '1cbs.cif', async ({ host }) => {
      expect(await foregroundFraction(host.appFrame.locator('canvas').first())).toBeGreaterThan(0.02);
      // The App read its script parts through the host, and nothing broke the CSP or the handshake.
      expect(host.records.resourceReads.filter(r => r.uri.startsWith('ui://molspace/app/')).length).toBeGreaterThan(0);
      expect(host.records.resourceReads.filter(r => r.error)).toEqual([]);
      expect(host.records.cspViolations).toEqual([]);
      expect(host.records.pageErrors).toEqual([]);
      expect(host.records.console.filter(l => l.includes('before ui/notifications/initialized'))).toEqual([]);
      expect(await host.bridgeErrors()).toEqual([]);
    });
  });

  test('a PDB ID renders in the chat with no JupyterLab page: the App downloads it from the mirror; a missing entry is located', async ({
    browser
  }) => {
    // The mirror's URLs, served from the committed copy (nothing leaves the machine); 9xyz is missing there.
    const cif = fs.readFileSync(path.join(STRUCTURES, '1cbs.cif'));
    const served: string[] = [];
    const prepare = async (context: import('@playwright/test').BrowserContext) => {
      await context.route('https://files.rcsb.org/download/**', route => {
        served.push(route.request().url());
        return route.request().url().endsWith('/1CBS.cif')
          ? route.fulfill({ body: cif, contentType: 'text/plain', headers: { 'Access-Control-Allow-Origin': '*' } })
          : route.fulfill({ status: 404, body: 'not here', headers: { 'Access-Control-Allow-Origin': '*' } });
      });
      // PDBj serves from its apex host, which a CSP `https://*.pdbj.org` alone would not admit.
      await context.route('https://pdbj.org/rest/newweb/fetch/**', route => {
        served.push(route.request().url());
        return route.fulfill({ body: cif, contentType: 'text/plain', headers: { 'Access-Control-Allow-Origin': '*' } });
      });
    };
    const { client, tools } = await connectAppHostClient();
    try {
      await expect.poll(() => pagesConnected(client)).toBe(false);
      const open = tools.find(t => t.name === 'open')!;
      const result = await client.callTool({ name: 'open', arguments: { pdbId: '1cbs' } });
      expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
      expect(result.structuredContent).toMatchObject({ app: { format: 'mmcif', title: '1CBS', bytes: 0 } });
      const host = await openAppHost(browser, {
        mcp: client,
        resourceUri: toolResourceUri(open)!,
        tool: open,
        toolResult: result,
        prepare
      });
      try {
        await expect.poll(async () => (await host.appState()) ?? 'none', { timeout: 120_000 }).toMatch(/^(drawn|error)$/);
        expect(await appStateOrError(host), `uncaught in the App: ${host.records.pageErrors.join('\n')}`).toBe('drawn');
        expect(served).toEqual(['https://files.rcsb.org/download/1CBS.cif']);
        expect(await foregroundFraction(host.appFrame.locator('canvas').first())).toBeGreaterThan(0.02);
        await expect.poll(() => host.records.modelContext.map(c => JSON.stringify(c)).join('\n')).toContain('1CBS (mmcif) drawn');
        expect(host.records.cspViolations).toEqual([]);

        // A missing entry, handed to the same App: located in the App and told to the model.
        const missing = await client.callTool({ name: 'open', arguments: { pdbId: '9xyz' } });
        await host.sendToolResult(missing);
        await expect.poll(async () => (await host.appState()) ?? 'none', { timeout: 60_000 }).toBe('error');
        await expect(host.appFrame.locator('#molspace-app-error')).toContainText('NOT_FOUND at /pdbId: ');
        await expect(host.appFrame.locator('#molspace-app-error')).toContainText('files.rcsb.org');
        await expect.poll(() => host.records.modelContext.map(c => JSON.stringify(c)).join('\n')).toContain('NOT_FOUND at /pdbId');

        // The same entry from PDBj, on its apex host: drawn again.
        const pdbj = await client.callTool({ name: 'open', arguments: { pdbId: '1cbs', mirror: 'pdbj' } });
        await host.sendToolResult(pdbj);
        // (From the last result's error, through loading, to drawn; a CSP refusal would end in error.)
        await expect.poll(() => appStateOrError(host), { timeout: 60_000 }).toBe('drawn');
        expect(served.at(-1)).toBe('https://pdbj.org/rest/newweb/fetch/file?cat=pdb&type=mmcif&id=1cbs');
        expect(host.records.cspViolations).toEqual([]);
        expect(host.records.pageErrors).toEqual([]);
      } finally {
        await host.close();
      }
    } finally {
      await client.close();
    }
  });

  test('bad input is located', async ({ browser }) => {
    await withStructureShown(browser, '1cbs.cif', async ({ client, host }) => {
      // From the agent's side: an unknown ui:// resource is a located error naming the App's URI.
      const error = await client.readResource({ uri: 'ui://molspace/nope' }).then(
        () => null,
        (e: { code?: number; message?: string; data?: any }) => e
      );
      // The gateway answers MCP's "resource not found" (-32002); the TypeScript SDK 2.x hands it
      // over as -32602 (invalid params, the 2026 spec's code for it) with the message intact.
      expect(error?.code).toBe(-32602);
      expect(error?.message).toContain('(at /uri)');
      expect(error?.message).toContain('ui://molspace/nope');
      expect(error?.message).toContain('ui://molspace/viewer');
      // From the App's side, through the host: refused, located, and the App stays drawn.
      await expectBadAppInputRefused(host);
    });
  });

  test('a Story plays in the chat with no JupyterLab page: its buttons step it, the model is told, its text stays text', async ({
    browser
  }) => {
    // Two steps over 1cbs, whose remote mmCIF is served from the committed copy (nothing leaves the machine).
    const url = 'https://www.ebi.ac.uk/pdbe/entry-files/download/1cbs.cif';
    const cif = fs.readFileSync(path.join(STRUCTURES, '1cbs.cif'));
    const step = (title: string, key: string, description: string, type: string) => ({
      metadata: { title, key, description, linger_duration_ms: 1000 },
      root: {
        kind: 'root',
        children: [
          {
            kind: 'download',
            params: { url },
            children: [
              {
                kind: 'parse',
                params: { format: 'mmcif' },
                children: [
                  {
                    kind: 'structure',
                    params: { type: 'model' },
                    children: [{ kind: 'component', params: { selector: 'all' }, children: [{ kind: 'representation', params: { type } }] }]
                  }
                ]
              }
            ]
          }
        ]
      }
    });
    const hostile = "<img src=x onerror=\"window.parent.postMessage('pwned', '*')\"> **bold**";
    const story = {
      kind: 'multiple',
      metadata: { title: 'Retinol-binding protein', version: '1' },
      snapshots: [
        step('Overview', 'overview', hostile, 'cartoon'),
        step('Atoms', 'atoms', 'Every atom as balls and sticks.', 'ball_and_stick')
      ]
    };
    const dir = `mcp-app-story-${Date.now()}`;
    const file = `${dir}/rbp.mvsj`;
    const local = path.join(test.info().outputDir, 'rbp.mvsj');
    fs.mkdirSync(path.dirname(local), { recursive: true });
    fs.writeFileSync(local, JSON.stringify(story));
    await putFile(file, local);
    const { client, tools } = await connectAppHostClient();
    try {
      await expect.poll(() => pagesConnected(client)).toBe(false);
      const open = tools.find(t => t.name === 'open')!;
      const result = await client.callTool({ name: 'open', arguments: { path: file } });
      expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
      expect(result.structuredContent).toMatchObject({ app: { format: 'mvsj', title: 'rbp.mvsj' } });
      expect(JSON.stringify(result.content)).not.toContain('onerror');
      const host = await openAppHost(browser, {
        mcp: client,
        resourceUri: toolResourceUri(open)!,
        tool: open,
        toolInput: { path: file },
        toolResult: result,
        prepare: context =>
          context.route(url, route =>
            route.fulfill({ body: cif, contentType: 'text/plain', headers: { 'Access-Control-Allow-Origin': '*' } })
          )
      });
      try {
        const controls = host.appFrame.locator('#molspace-app-story');
        await expect.poll(async () => (await host.appState()) ?? 'none', { timeout: 120_000 }).toMatch(/^(drawn|error)$/);
        expect(await appStateOrError(host), `uncaught in the App: ${host.records.pageErrors.join('\n')}`).toBe('drawn');
        await expect(controls).toHaveAttribute('data-molspace-step-index', '0');
        await expect(controls.locator('.molspace-app-step')).toHaveText('1 / 2: Overview');
        // The description is text: the markup shows as written and nothing of it runs.
        await expect(controls.locator('.molspace-app-description')).toHaveText(hostile);
        expect(await host.appFrame.locator('img').count()).toBe(0);
        expect(await foregroundFraction(host.appFrame.locator('canvas').first())).toBeGreaterThan(0.02);
        await expect(controls.locator('[data-molspace-step="previous"]')).toBeDisabled();

        await controls.locator('[data-molspace-step="next"]').click();
        await expect(controls).toHaveAttribute('data-molspace-step-index', '1');
        await expect.poll(async () => (await host.appState()) ?? 'none', { timeout: 60_000 }).toBe('drawn');
        await expect(controls.locator('.molspace-app-step')).toHaveText('2 / 2: Atoms');
        await expect(controls.locator('[data-molspace-step="next"]')).toBeDisabled();
        // The person's step reached the model's context, bounded, without the Story's file.
        await expect
          .poll(() => host.records.modelContext.map(c => JSON.stringify(c)).find(c => c.includes('step 2 of 2')) ?? '')
          .toContain('moved there by the person');
        const told = host.records.modelContext.map(c => JSON.stringify(c)).join('\n');
        expect(told).not.toContain('"kind":"root"');
        expect(host.records.cspViolations).toEqual([]);
        expect(host.records.pageErrors).toEqual([]);
      } finally {
        await host.close();
      }
    } finally {
      await client.close();
      await deletePath(file);
      await deletePath(dir);
    }
  });

  test("ketcher_open with no JupyterLab page: the server's picture in the App, saying located why it is no editor", async ({ browser }) => {
    const { client, tools } = await connectAppHostClient();
    try {
      await expect.poll(() => pagesConnected(client)).toBe(false);
      const ketcherOpen = tools.find(t => t.name === 'ketcher_open')!;
      expect(toolResourceUri(ketcherOpen)).toBe('ui://molspace/viewer');
      const args = { value: 'CC(=O)Oc1ccccc1C(=O)O', title: 'aspirin' };
      const result = await client.callTool({ name: 'ketcher_open', arguments: args });
      expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
      expect(result.structuredContent).toMatchObject({ app: { formula: 'C9H8O4', atoms: 13 } });
      expect(JSON.stringify(result.content)).not.toContain('<svg');
      const host = await openAppHost(browser, {
        mcp: client,
        resourceUri: 'ui://molspace/viewer',
        tool: ketcherOpen,
        toolInput: args,
        toolResult: result
      });
      try {
        await expect.poll(async () => (await host.appState()) ?? 'none', { timeout: 120_000 }).toMatch(/^(drawn|error)$/);
        expect(await appStateOrError(host), `uncaught in the App: ${host.records.pageErrors.join('\n')}`).toBe('drawn');
        const picture = host.appFrame.locator('img.molspace-app-depiction');
        await expect(picture).toHaveAttribute('alt', 'aspirin: C9H8O4');
        await expect.poll(() => picture.evaluate(img => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(100);
        await expect(host.appFrame.locator('#molspace-app-note')).toContainText('UNSUPPORTED_FORMAT at App: ');
        await expect(host.appFrame.locator('#molspace-app-note')).toContainText('Fix: Open JupyterLab and call ketcher_open again');
        expect(await host.appFrame.locator('canvas').count()).toBe(0);
        await expect.poll(() => host.records.modelContext.map(c => JSON.stringify(c)).join('\n')).toContain('WebAssembly');
        expect(host.records.cspViolations).toEqual([]);
        expect(host.records.pageErrors).toEqual([]);
      } finally {
        await host.close();
      }
    } finally {
      await client.close();
    }
  });
});

test.describe('molspace Panel App', () => {
  test('render_panel with no JupyterLab page renders in the chat: hostile markdown stays inert, a table sorts, a chart draws, a grid shows the server pictures', async ({
    browser
  }) => {
    const { client, tools } = await connectAppHostClient();
    try {
      await expect.poll(() => pagesConnected(client)).toBe(false);
      const renderPanel = tools.find(t => t.name === 'render_panel')!;
      expect(toolResourceUri(renderPanel)).toBe('ui://molspace/panel');
      // Each payload would mark the App's document if it ran.
      const pwn = "document.documentElement.dataset.pwned='1'";
      const hostile = [
        '## Findings',
        '',
        `<img src=x onerror="${pwn}"> <script>${pwn}</script> <svg onload="${pwn}"></svg>`,
        '',
        `<a href="javascript:${pwn}">raw link</a> <b onclick="${pwn}">loud</b> and **bold**`
      ].join('\n');
      const call = async (args: Record<string, unknown>): Promise<CallToolResult> => {
        const result = (await client.callTool({ name: 'render_panel', arguments: args })) as CallToolResult;
        expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
        // The model reads a bounded line; the content travels in _meta for the App alone.
        expect(JSON.stringify(result.content)).not.toContain('onerror');
        return result;
      };
      const notes = await call({ panelId: 'notes', title: 'Notes', content: { type: 'markdown', markdown: hostile } });
      const host = await openAppHost(browser, {
        mcp: client,
        resourceUri: 'ui://molspace/panel',
        tool: renderPanel,
        toolInput: { panelId: 'notes' },
        toolResult: notes
      });
      try {
        const app = host.appFrame;
        const settledState = async () => {
          await expect.poll(async () => (await host.appState()) ?? 'none', { timeout: 120_000 }).toMatch(/^(drawn|error)$/);
          return appStateOrError(host);
        };
        expect(await settledState(), `uncaught in the App: ${host.records.pageErrors.join('\n')}`).toBe('drawn');
        const panel = app.locator('.molspace-panel');
        await expect(panel).toHaveAttribute('data-molspace-ready', 'true');
        await expect(panel.locator('.molspace-panel-title')).toHaveText('Notes');
        const body = panel.locator('.molspace-panel-body');
        await expect(body.locator('h2')).toHaveText(/^Findings/);
        await expect(body.locator('strong')).toHaveText('bold');
        // Sanitized by JupyterLab's sanitizer: no script, no handler, no javascript: link; the
        // image (not a data: URL) replaced by the page's image policy with a note.
        expect(await body.locator('script, [onerror], [onload], [onclick], img').count()).toBe(0);
        expect(await body.locator('a[href^="javascript:" i]').count()).toBe(0);
        await body.getByText('raw link').click();
        await body.getByText('loud').click();
        expect(await app.evaluate(() => document.documentElement.dataset.pwned ?? 'inert')).toBe('inert');
        await expect.poll(() => host.records.modelContext.map(c => JSON.stringify(c)).join('\n')).toContain('panel \\"Notes\\" rendered');

        // A table: text cells, sorted by a header click.
        const table = await call({
          title: 'Contacts',
          content: {
            type: 'table',
            columns: [{ name: 'residue' }, { name: 'distance', type: 'number', unit: 'Å' }],
            rows: [
              ['<b onmouseover=x>ASP 25</b>', 3.4],
              ['GLY 27', 2.9]
            ]
          }
        });
        await host.sendToolResult(table);
        await expect(panel.locator('.molspace-panel-title')).toHaveText('Contacts');
        const rows = panel.locator('table.molspace-panel-table tbody tr');
        await expect(rows).toHaveCount(2);
        await expect(rows.first().locator('td').first()).toHaveText('<b onmouseover=x>ASP 25</b>');
        await panel.getByRole('button', { name: 'distance (Å)' }).click();
        await expect(rows.first().locator('td').first()).toHaveText('GLY 27');

        // A Vega-Lite chart, drawn by JupyterLab's Vega renderer under the App's CSP.
        const chart = await call({
          title: 'RMSD',
          content: {
            type: 'chart',
            spec: {
              $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
              data: { values: [0, 1, 2, 3, 4, 5].map(frame => ({ frame, rmsd: frame * 0.4 + (frame % 2) })) },
              mark: { type: 'line', point: true },
              encoding: { x: { field: 'frame', type: 'quantitative' }, y: { field: 'rmsd', type: 'quantitative' } }
            }
          }
        });
        await host.sendToolResult(chart);
        await expect(panel).toHaveAttribute('data-molspace-type', 'chart');
        await expect(panel).toHaveAttribute('data-molspace-ready', 'true', { timeout: 60_000 });
        expect(await settledState()).toBe('drawn');
        expect(await foregroundFraction(panel.locator('.molspace-panel-chart canvas').first())).toBeGreaterThan(0.01);

        // A chart Vega-Lite cannot compile: located in the panel and told to the model (Vega's
        // message; the page's Ajv schema check cannot run under the App's CSP).
        const bad = await call({
          content: {
            type: 'chart',
            spec: {
              $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
              data: { values: [{ 'a[': 1 }] },
              mark: 'point',
              encoding: { x: { field: 'a[', type: 'quantitative' } }
            }
          }
        });
        await host.sendToolResult(bad);
        // (polled: the App still says drawn, of the chart before, until this result reaches it)
        await expect
          .poll(() => appStateOrError(host), { timeout: 60_000 })
          .toMatch(/^error: VALIDATION_FAILED at \/content\/spec\/encoding\/x\/field: /);
        await expect(panel.locator('.molspace-panel-error')).toContainText('Where: /content/spec/encoding/x/field');
        await expect
          .poll(() => host.records.modelContext.map(c => JSON.stringify(c)).join('\n'))
          .toContain('VALIDATION_FAILED at /content/spec/encoding/x/field');

        // A molecule grid: the server's RDKit picture as an image; a SMILES it could not read as text with a located note.
        const grid = await call({
          content: {
            type: 'molecules',
            molecules: [
              { smiles: 'c1ccccc1O', name: 'phenol', properties: { score: -7.1 } },
              { smiles: 'not((a smiles', name: 'typo' }
            ]
          }
        });
        await host.sendToolResult(grid);
        await expect(panel).toHaveAttribute('data-molspace-type', 'molecules');
        const cells = panel.locator('.molspace-panel-molecule');
        await expect(cells).toHaveCount(2);
        const picture = cells.nth(0).locator('img.molspace-panel-molecule-image');
        await expect(picture).toHaveAttribute('alt', 'c1ccccc1O');
        await expect.poll(() => picture.evaluate(img => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(100);
        await expect(cells.nth(1)).toHaveAttribute('data-molspace-depicted', 'error');
        await expect(cells.nth(1)).toContainText('not((a smiles');
        await expect(cells.nth(1)).toContainText('at /content/molecules/1/smiles');

        // The parts came through the host; nothing broke the CSP or the handshake.
        expect(host.records.resourceReads.filter(r => r.uri.startsWith('ui://molspace/app/panel-')).length).toBeGreaterThan(1);
        expect(host.records.resourceReads.filter(r => r.error)).toEqual([]);
        expect(host.records.cspViolations).toEqual([]);
        expect(host.records.pageErrors).toEqual([]);
        expect(await host.bridgeErrors()).toEqual([]);
      } finally {
        await host.close();
      }
    } finally {
      await client.close();
    }
  });

  test("a later render_panel of the same panelId, with no page, reaches the App that shows it; one the gateway keeps no longer ends the following, located", async ({
    browser
  }) => {
    const { client, tools } = await connectAppHostClient();
    try {
      await expect.poll(() => pagesConnected(client)).toBe(false);
      const renderPanel = tools.find(t => t.name === 'render_panel')!;
      const markdown = (text: string) => ({ type: 'markdown', markdown: text });
      const panelId = `live-${Date.now()}`;
      const render = async (args: Record<string, unknown>): Promise<CallToolResult> => {
        const result = (await client.callTool({ name: 'render_panel', arguments: args })) as CallToolResult;
        expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
        return result;
      };
      const first = await render({ panelId, title: 'Live', content: markdown('first version') });
      const host = await openAppHost(browser, { mcp: client, resourceUri: 'ui://molspace/panel', tool: renderPanel, toolInput: { panelId }, toolResult: first });
      try {
        const app = host.appFrame;
        const doc = app.locator('html');
        const body = app.locator('.molspace-panel .molspace-panel-body');
        await expect(body).toContainText('first version', { timeout: 120_000 });
        await expect(doc).toHaveAttribute('data-molspace-follow', `panel:${panelId}`);
        const seq = Number(await doc.getAttribute('data-molspace-follow-revision'));
        // The model updates it by id (a host shows that result in a new App; this one follows).
        await render({ panelId, title: 'Live, updated', content: markdown('second version') });
        await expect(body).toContainText('second version', { timeout: 30_000 });
        await expect(app.locator('.molspace-panel .molspace-panel-title')).toHaveText('Live, updated');
        expect(Number(await doc.getAttribute('data-molspace-follow-revision'))).toBeGreaterThan(seq);
        // Another panel does not touch it.
        await render({ panelId: `${panelId}-other`, content: markdown('another panel') });
        await render({ content: markdown('a panel with no id') });
        // It read its panel's resource through the host, and nothing else of the panels.
        const followed = `ui://molspace/panels/${panelId}`;
        await expect.poll(() => host.records.resourceReads.filter(r => r.uri === followed).length).toBeGreaterThan(1);
        expect(host.records.resourceReads.filter(r => r.uri.startsWith('ui://molspace/panels/') && r.uri !== followed)).toEqual([]);
        await expect(body).toContainText('second version');
        // 16 later panels: the gateway keeps its panel no longer, and the App says so and stops.
        for (let i = 0; i < 16; i++) {
          await render({ panelId: `${panelId}-${i}`, content: markdown(`filler ${i}`) });
        }
        await expect(doc).not.toHaveAttribute('data-molspace-follow', /panel:/, { timeout: 30_000 });
        await expect(app.locator('#molspace-app-status')).toContainText(`NOT_FOUND at ${followed}`);
        await expect(body).toContainText('second version');
        expect(host.records.pageErrors).toEqual([]);
        expect(host.records.cspViolations).toEqual([]);
      } finally {
        await host.close();
      }
    } finally {
      await client.close();
    }
  });
});
