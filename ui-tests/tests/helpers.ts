/**
 * Shared steps of the molspace Galata tests: put files in the server, run a
 * notebook, talk MCP to the real gateway with the official TypeScript SDK
 * (the client and result reading are ../harness.js, shared with bench/).
 */
import * as fs from 'fs';
import * as path from 'path';
import { IJupyterLabPageFixture, expect } from '@jupyterlab/galata';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { PNG } from 'pngjs';
import type { Locator } from '@playwright/test';
import { MCP_PATH, connectMcp, readToolResult } from '../harness';

export const TOKEN = 'molspace-ui-test-token';
/** The test server (port: MOLSPACE_UI_TEST_PORT, default 8888, as playwright.config.js). */
export const SERVER = `http://localhost:${process.env.MOLSPACE_UI_TEST_PORT || '8888'}`;
export const MCP_URL = `${SERVER}${MCP_PATH}`;
export const ROOT = path.resolve(__dirname, '..', '..');

/** Upload the demo notebook and its Story into the test's folder. */
export async function uploadDemo(page: IJupyterLabPageFixture, tmpPath: string): Promise<void> {
  await page.contents.uploadFile(path.join(ROOT, 'examples', 'demo.ipynb'), `${tmpPath}/demo.ipynb`);
  await page.contents.uploadFile(
    path.join(ROOT, 'examples', 'data', '1cbs-story.mvsx'),
    `${tmpPath}/data/1cbs-story.mvsx`
  );
}

/** Open a notebook, run all its cells, and wait for the first Story to render. */
export async function runNotebook(page: IJupyterLabPageFixture, nbPath: string): Promise<Locator> {
  await page.notebook.openByPath(nbPath);
  await page.notebook.activate(path.basename(nbPath));
  await page.notebook.run();
  const story = page.locator('.molspace-story').first();
  await expect(story).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
  return story;
}

/**
 * Put `source` in code cell `index` of the current notebook through the notebook's model, as
 * opening a file does. Galata's `setCell` and `addCell` type the source key by key, seconds a
 * cell on these machines, and the cell editor is not what these tests test: the kernel and the
 * widgets are. Galata's `runCell` then selects the cell (a click) and runs it with the keyboard,
 * as a person does. Throws when the current widget is not a notebook or has no cell `index`.
 */
export async function setCode(page: IJupyterLabPageFixture, index: number, source: string): Promise<void> {
  await putCode(page, index, source);
}

/** Append a code cell holding `source` to the current notebook (see setCode); returns its index. */
export function addCode(page: IJupyterLabPageFixture, source: string): Promise<number> {
  return putCode(page, -1, source);
}

/** setCode at `index`, or after the last cell when `index` is -1; returns the cell's index. */
async function putCode(page: IJupyterLabPageFixture, index: number, source: string): Promise<number> {
  const [at, problem] = await page.evaluate(
    ([wanted, text]) => {
      const notebook = (window as any).jupyterapp.shell.currentWidget?.content;
      const shared = notebook?.model?.sharedModel;
      if (!shared) {
        return [wanted, 'the current widget is not a notebook'];
      }
      const count = shared.cells.length;
      const cell = wanted === -1 ? count : wanted;
      if (cell < 0 || cell >= count + (wanted === -1 ? 1 : 0)) {
        return [cell, `the notebook has ${count} cells`];
      }
      if (cell < count && shared.getCell(cell).cell_type === 'code') {
        shared.getCell(cell).setSource(text);
      } else {
        if (cell < count) {
          shared.deleteCell(cell);
        }
        shared.insertCell(cell, { cell_type: 'code', source: text });
      }
      notebook.activeCellIndex = cell;
      notebook.mode = 'command';
      return [cell, null];
    },
    [index, source] as [number, string]
  );
  if (problem) {
    throw new Error(`no code cell ${at} to set: ${problem}`);
  }
  return at as number;
}

/** Append a code cell, run it, and return its text output. */
export async function runCell(page: IJupyterLabPageFixture, source: string): Promise<string> {
  const index = await addCode(page, source);
  await page.notebook.runCell(index, true);
  return ((await page.notebook.getCellTextOutput(index)) ?? []).join('').trim();
}

/** Fraction of the element's pixels that differ from its most common colour (the background). */
export async function foregroundFraction(locator: Locator): Promise<number> {
  const png = PNG.sync.read(await locator.screenshot());
  const counts = new Map<number, number>();
  for (let i = 0; i < png.data.length; i += 4) {
    const key = (png.data[i] << 16) | (png.data[i + 1] << 8) | png.data[i + 2];
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const background = Math.max(...counts.values());
  const total = png.width * png.height;
  return (total - background) / total;
}

/**
 * A connected MCP client (official TypeScript SDK 1.x, Streamable HTTP) with the Jupyter token,
 * used as an agent uses it: `tools/list` first, so the client validates every
 * `structuredContent` against the tool's `outputSchema` afterwards.
 */
export function mcpClient(token: string | null = TOKEN): Promise<Client> {
  return connectMcp({ server: SERVER, token, name: 'molspace-ui-tests' });
}

/**
 * Call a tool; return `[structuredContent, false]` on success, or `[located error, true]`
 * read from the error result's text as an agent reads it (summary line, then the JSON).
 */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<[any, boolean]> {
  return readToolResult(await client.callTool({ name, arguments: args }));
}

/** Upload only the demo Story into `${tmpPath}/data/`. */
export async function uploadStory(page: IJupyterLabPageFixture, tmpPath: string): Promise<void> {
  await page.contents.uploadFile(
    path.join(ROOT, 'examples', 'data', '1cbs-story.mvsx'),
    `${tmpPath}/data/1cbs-story.mvsx`
  );
}

/** Create a notebook `name` in the test folder, put `source` in its first cell and run it. */
export async function newNotebookRun(page: IJupyterLabPageFixture, name: string, source: string): Promise<void> {
  await page.notebook.createNew(name);
  await setCode(page, 0, source);
  await page.notebook.runCell(0, true);
}

/** The element's screenshot once two in a row are the same (hover highlights and transitions settled). */
export async function stillPicture(locator: Locator): Promise<Buffer> {
  let picture = await locator.screenshot();
  await expect
    .poll(
      async () => {
        const next = await locator.screenshot();
        const same = Buffer.compare(next, picture) === 0;
        picture = next;
        return same;
      },
      { timeout: 30_000 }
    )
    .toBe(true);
  return picture;
}

/** The element's most common colour (its background) as `[r, g, b]`. */
export async function dominantColour(locator: Locator): Promise<[number, number, number]> {
  const png = PNG.sync.read(await locator.screenshot());
  const counts = new Map<number, number>();
  for (let i = 0; i < png.data.length; i += 4) {
    const key = (png.data[i] << 16) | (png.data[i + 1] << 8) | png.data[i + 2];
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  let best = 0;
  let bestCount = -1;
  for (const [key, n] of counts) {
    if (n > bestCount) {
      best = key;
      bestCount = n;
    }
  }
  return [(best >> 16) & 0xff, (best >> 8) & 0xff, best & 0xff];
}

/** Write a local file into the Jupyter root through the contents API (no page needed). */
export async function putFile(serverPath: string, local: string): Promise<void> {
  const headers = { Authorization: `token ${TOKEN}`, 'Content-Type': 'application/json' };
  const parts = serverPath.split('/');
  for (let i = 1; i < parts.length; i++) {
    const dir = parts.slice(0, i).join('/');
    const r = await fetch(`${SERVER}/api/contents/${dir}`, { method: 'PUT', headers, body: JSON.stringify({ type: 'directory' }) });
    expect(r.ok, `PUT ${dir}: ${r.status}`).toBe(true);
  }
  const body = JSON.stringify({ type: 'file', format: 'base64', content: fs.readFileSync(local).toString('base64') });
  const r = await fetch(`${SERVER}/api/contents/${serverPath}`, { method: 'PUT', headers, body });
  expect(r.ok, `PUT ${serverPath}: ${r.status} ${await r.text()}`).toBe(true);
}

/** Delete a file or folder of the Jupyter root through the contents API. */
export async function deletePath(serverPath: string): Promise<void> {
  await fetch(`${SERVER}/api/contents/${serverPath}`, { method: 'DELETE', headers: { Authorization: `token ${TOKEN}` } });
}
