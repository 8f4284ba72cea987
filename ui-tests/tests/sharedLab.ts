/**
 * One JupyterLab page for the tests of a spec file: Galata's `test` with its `page` fixture
 * replaced by a page that a worker keeps, so each test starts in a loaded JupyterLab instead of
 * a new browser context that fetches and starts JupyterLab again (seconds per test on 2 cores).
 *
 * Each test still gets its own `tmpPath` (Galata's), and the file browser opens there, so
 * `page.notebook.createNew` puts its notebook in that folder as before. After each test the page
 * is put back: the routes and page listeners the test added are removed, every main-area tab is
 * closed without saving, and the server's sessions (with their kernels) are shut down. A spec file
 * starts with a fresh load (`?reset`), so nothing passes from one file to the next, and a failed
 * test ends its worker, so the next test gets a new page too.
 *
 * Use it where a test needs nothing but a JupyterLab page: a test that reloads the page, opens a
 * second page or context, changes the browser context (`context.route`, offline, clock), or asks
 * what loads at JupyterLab's start keeps Galata's own `test` (a new page per test).
 */
import { expect, galata, test as base } from '@jupyterlab/galata';
import type { IJupyterLabPage, IJupyterLabPageFixture } from '@jupyterlab/galata';
import type { BrowserContext, Page } from '@playwright/test';
import { SERVER, TOKEN } from './helpers';

/**
 * The tag of a test that needs a page no earlier test used (`test(title, { tag: NEW_PAGE }, …)`),
 * e.g. one that asks whether something page-wide (a depiction frame, a chunk) was made.
 */
export const NEW_PAGE = '@newPage';

interface SharedLab {
  context: BrowserContext;
  /** The page of the spec file now running, or null before its first test. */
  page: IJupyterLabPageFixture | null;
  /** The spec file and settings (`test.use({ mockSettings })`) `page` was opened for. */
  key: string | null;
  /** A test added an init script to `page`: the next test needs a new page. */
  spoiled: boolean;
}

/** Galata's own wait for JupyterLab (its `waitForApplication` fixture): splash gone, Launcher active. */
async function waitForLab(page: Page, helpers: IJupyterLabPage): Promise<void> {
  await page.locator('#jupyterlab-splash').waitFor({ state: 'detached' });
  await helpers.waitForCondition(() => helpers.activity.isTabActive('Launcher'));
  if (!(await helpers.isInSimpleMode())) {
    await helpers.activity.activateTab('Launcher');
  }
}

/** The server's REST API with the test token. */
async function api(method: 'GET' | 'DELETE', route: string): Promise<any> {
  const r = await fetch(`${SERVER}/api/${route}`, { method, headers: { Authorization: `token ${TOKEN}` } });
  return method === 'GET' && r.ok ? r.json() : null;
}

/**
 * Close every main-area tab without a save prompt, shut down every session and kernel, and check
 * that nothing of the test is left in the page (a test after it fails here rather than seeing it).
 */
async function putBack(page: IJupyterLabPageFixture): Promise<void> {
  while ((await page.locator('.jp-Dialog').count()) > 0) {
    await page.keyboard.press('Escape');
  }
  await page.evaluate(() => {
    const app = (window as any).jupyterapp;
    for (const widget of Array.from(app.shell.widgets('main')) as any[]) {
      if (widget.context?.model) {
        widget.context.model.dirty = false;
      }
      widget.close();
    }
  });
  for (const session of (await api('GET', 'sessions')) ?? []) {
    await api('DELETE', `sessions/${session.id}`);
  }
  for (const kernel of (await api('GET', 'kernels')) ?? []) {
    await api('DELETE', `kernels/${kernel.id}`);
  }
  // Galata removes the test's folder after this: the file browser leaves it first, or its next
  // refresh of a folder that is gone (a 404) shows JupyterLab's "Directory not found" dialog, which
  // can land in the next test and close the menu that test opened.
  await page.evaluate(() =>
    (window as any).jupyterapp.commands.execute('filebrowser:go-to-path', { path: '/', dontShowBrowser: true })
  );
  await expect.poll(() => page.filebrowser.getCurrentDirectory(), { message: 'the file browser back at the root' }).toBe('');
  // JupyterLab opens a Launcher once the main area is empty (a debounced layout change, then a
  // command), as a fresh page has: the next test starts after it is there, not while it arrives.
  await expect
    .poll(
      () =>
        page.evaluate(() =>
          Array.from((window as any).jupyterapp.shell.widgets('main') as any[]).map(w =>
            w.id.startsWith('launcher') ? 'Launcher' : `${w.id} "${w.title.label}"`
          )
        ),
      { message: 'main-area tabs left after the test (a fresh page holds only the Launcher)' }
    )
    .toEqual(['Launcher']);
  await page.waitForCondition(() => page.activity.isTabActive('Launcher'));
  await expect(page.locator('.molspace-viewer, .molspace-story, .molspace-ketcher, .molspace-panel, .jp-Notebook')).toHaveCount(0);
  expect(await api('GET', 'kernels'), 'kernels left after the test').toEqual([]);
}

/**
 * The page a test sees: the shared page, with the routes and listeners the test adds recorded.
 * They are added to and removed from Playwright's own page (`page.page`): through Galata's proxy,
 * `unroute` would store the remaining routes on the proxy's target, where routing never reads them.
 * An init script cannot be taken back: a test that adds one leaves the page `spoiled`, and the
 * next test gets a new page.
 */
function recording(lab: SharedLab, page: IJupyterLabPageFixture, undo: (() => Promise<unknown>)[]): IJupyterLabPageFixture {
  // Galata's JupyterLabPage keeps Playwright's page as `page` (not in the fixture's type)
  const raw = (page as unknown as { page: Page }).page;
  const adders: Record<string, (event: any, handler: any) => Promise<unknown>> = {
    route: (url, handler) => raw.unroute(url, handler),
    on: async (event, handler) => raw.off(event, handler),
    once: async (event, handler) => raw.off(event, handler),
    addListener: async (event, handler) => raw.off(event, handler)
  };
  return new Proxy(page, {
    get(target, prop, receiver) {
      if (prop === 'addInitScript') {
        lab.spoiled = true;
      } else if (typeof prop === 'string' && prop in adders) {
        return (first: any, handler: any, ...rest: any[]) => {
          undo.push(() => adders[prop](first, handler));
          return (raw as any)[prop](first, handler, ...rest);
        };
      }
      return Reflect.get(target, prop, receiver);
    }
  });
}

/** A new JupyterLab page in `context`, opened at `tmpPath` (Galata's mocks: settings, state, user in memory). */
async function openLab(
  context: BrowserContext,
  tmpPath: string,
  mockSettings: boolean | Record<string, unknown>
): Promise<IJupyterLabPageFixture> {
  const page = await galata.initTestPage(
    '/lab',
    false,
    SERVER,
    true,
    mockSettings,
    true,
    true,
    await context.newPage(),
    null,
    null,
    tmpPath,
    waitForLab
  );
  await page.goto(`tree/${tmpPath}?reset`);
  return page;
}

export const test = base.extend<object, { sharedLab: SharedLab }>({
  sharedLab: [
    async ({ browser }, use, workerInfo) => {
      const options = workerInfo.project.use;
      const context = await browser.newContext({
        viewport: options.viewport,
        extraHTTPHeaders: options.extraHTTPHeaders ?? { Authorization: `token ${TOKEN}` }
      });
      const lab: SharedLab = { context, page: null, key: null, spoiled: false };
      await use(lab);
      await context.close();
    },
    { scope: 'worker' }
  ],
  page: async ({ sharedLab, tmpPath, mockSettings, viewport, actionTimeout }, use, testInfo) => {
    const key = JSON.stringify([testInfo.file, mockSettings]);
    if (sharedLab.page === null || sharedLab.key !== key || sharedLab.spoiled || testInfo.tags.includes(NEW_PAGE)) {
      // a new page for each spec file and settings: the settings a test changed (Galata keeps
      // them in memory per page) stay there; the context's HTTP cache is what the next page keeps
      await sharedLab.page?.close();
      sharedLab.page = await openLab(sharedLab.context, tmpPath, mockSettings);
      sharedLab.key = key;
      sharedLab.spoiled = false;
    } else {
      // the file browser's folder is where File > New puts a notebook: the test's folder, set
      // through JupyterLab's command (Galata's openDirectory clicks through the listing)
      await sharedLab.page.evaluate(
        path => (window as any).jupyterapp.commands.execute('filebrowser:go-to-path', { path, dontShowBrowser: true }),
        tmpPath
      );
      await expect.poll(() => sharedLab.page!.filebrowser.getCurrentDirectory()).toBe(tmpPath);
    }
    const page = sharedLab.page;
    // the options a spec file sets with test.use, as Playwright's own page fixture applies them
    if (viewport) {
      await page.setViewportSize(viewport);
    }
    page.setDefaultTimeout(actionTimeout || 0);
    const undo: (() => Promise<unknown>)[] = [];
    try {
      await use(recording(sharedLab, page, undo));
    } finally {
      for (const step of undo.reverse()) {
        await step().catch(() => undefined);
      }
      await putBack(page);
    }
  }
});

export { expect };
