/**
 * The Ketcher editor lives well inside JupyterLab (issue 7, item 4), with the
 * real Ketcher and Indigo in their frames and a real kernel: its CSS stays in
 * its frame (macromolecules mode included); a person's edits keep reaching
 * the kernel after a mode switch and after an S-group edit; the dark theme
 * stays readable; the editor area resizes. And docked widgets (Viewer,
 * Ketcher) closed by their tab leave `observe` and answer STALE_TARGET.
 */
import * as fs from 'fs';
import * as path from 'path';
import { expect, test } from './sharedLab';
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import type { Frame, Locator } from '@playwright/test';
import { ROOT, call, dominantColour, mcpClient, newNotebookRun, runCell, setCode } from './helpers';

// Tall enough that the editor can be dragged 200 px taller inside the window.
test.use({ viewport: { width: 1280, height: 1200 }, actionTimeout: 60_000 });

function editor(page: IJupyterLabPageFixture, title: string): Locator {
  return page.locator('.molspace-ketcher', { has: page.locator('.molspace-ketcher-status', { hasText: title }) });
}

async function editorFrame(e: Locator): Promise<Frame> {
  const handle = await e.locator('iframe.molspace-ketcher-frame').elementHandle();
  return (await handle!.contentFrame())!;
}

async function ready(e: Locator): Promise<void> {
  await expect(e).toHaveAttribute('data-molspace-ready', 'true', { timeout: 120_000 });
}

/** Ketcher's mode switcher (its top toolbar's `polymer-toggler`): to macromolecules or back. */
async function switchMode(f: Frame, mode: 'macromolecules' | 'molecules'): Promise<void> {
  await f.locator('[data-testid="polymer-toggler"]:visible').first().click();
  await f.getByTestId(`${mode}_mode`).click();
  if (mode === 'macromolecules') {
    await expect(f.getByTestId('monomer-library')).toBeVisible({ timeout: 60_000 });
  } else {
    await expect(f.getByTestId('monomer-library')).toBeHidden();
    await expect(f.locator('[data-testid="template-0"]:visible')).toHaveCount(1);
  }
}

/**
 * Computed styles of JupyterLab's own elements (and how many style sheets and
 * rules the page has): Ketcher's CSS, if it leaked, would change them.
 */
async function jupyterStyles(page: IJupyterLabPageFixture): Promise<Record<string, unknown>> {
  return page.evaluate(() => {
    const props = [
      'font-family',
      'font-size',
      'font-weight',
      'line-height',
      'color',
      'background-color',
      'padding-top',
      'padding-left',
      'margin-top',
      'border-top-width',
      'box-sizing',
      'letter-spacing',
      'text-transform',
      'overflow'
    ];
    const of = (selector: string) => {
      const el = document.querySelector(selector);
      if (!el) {
        return `missing ${selector}`;
      }
      const cs = getComputedStyle(el);
      return props.map(p => `${p}:${cs.getPropertyValue(p)}`).join('; ');
    };
    const height = (selector: string) => document.querySelector(selector)?.getBoundingClientRect().height ?? -1;
    let rules = 0;
    let ketcherRules = 0;
    for (const sheet of Array.from(document.styleSheets)) {
      try {
        for (const rule of Array.from(sheet.cssRules)) {
          rules++;
          // Ketcher's CSS modules and its root class; molspace's own `.molspace-ketcher*` rules do not count.
          if (/Ketcher-root|-module_|MuiPopover|\.ketcher|StructEditor/.test(rule.cssText.replace(/molspace-ketcher/g, ''))) {
            ketcherRules++;
          }
        }
      } catch {
        // a cross-origin sheet: not Ketcher's (the frame is same-origin)
      }
    }
    return {
      html: of('html'),
      body: of('body'),
      toolbarButton: of('.jp-NotebookPanel-toolbar .jp-ToolbarButtonComponent'),
      toolbarButtonHeight: height('.jp-NotebookPanel-toolbar .jp-ToolbarButtonComponent'),
      cellEditor: of('.jp-Cell .cm-content'),
      prompt: of('.jp-InputPrompt'),
      menu: of('#jp-MainMenu .lm-MenuBar-itemLabel'),
      tab: of('.lm-DockPanel-tabBar .lm-TabBar-tab'),
      fileBrowserButton: of('.jp-FileBrowser-toolbar .jp-ToolbarButtonComponent'),
      statusBar: of('#jp-main-statusbar'),
      topPanelHeight: height('#jp-top-panel'),
      emotionStyles: document.querySelectorAll('style[data-emotion]').length,
      ketcherRules,
      // Not compared with the state before any widget is shown (widget CSS loads with the first widget).
      sheets: `${document.styleSheets.length} sheets, ${rules} rules`
    };
  });
}

/** WCAG contrast ratio of two `rgb(...)` colours. */
function contrast(a: string, b: string): number {
  const lum = (c: string) => {
    const [r, g, bl] = c.match(/[\d.]+/g)!.slice(0, 3).map(Number).map(v => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** Relative luminance of an `[r, g, b]` colour (0 black … 1 white). */
function luminance([r, g, b]: [number, number, number]): number {
  return contrast(`rgb(${r},${g},${b})`, 'rgb(0,0,0)') * 0.05 - 0.05;
}

test("Ketcher's CSS stays in its frame, macromolecules mode included", async ({ page }) => {
  await page.notebook.createNew('ketcher-css.ipynb');
  await setCode(page, 0, 'import molspace\nk = molspace.Ketcher("c1ccccc1O", title="css")\n# the cell editor whose font is compared');
  const { sheets: _unloaded, ...before } = await jupyterStyles(page);
  expect(before.ketcherRules).toBe(0);
  await setCode(page, 0, 'import molspace\nk = molspace.Ketcher("c1ccccc1O", title="css")\nk');
  await page.notebook.runCell(0, true);
  const e = editor(page, 'css');
  await ready(e);
  const f = await editorFrame(e);
  // Ketcher's own styles are in its frame's document ...
  expect(await f.evaluate(() => document.querySelectorAll('style').length)).toBeGreaterThan(0);
  // ... and JupyterLab's elements are styled exactly as before.
  const shown = await jupyterStyles(page);
  expect(shown).toEqual({ ...before, sheets: shown.sheets });

  await switchMode(f, 'macromolecules');
  expect(await jupyterStyles(page)).toEqual(shown);
  // The mode-switch dropdown (a Material UI popover) opened in the frame, not in JupyterLab.
  await f.locator('[data-testid="polymer-toggler"]:visible').first().click();
  await expect(f.getByTestId('molecules_mode')).toBeVisible();
  expect(await page.locator('.MuiPopover-root, [data-testid="molecules_mode"]').count()).toBe(0);
  expect(await jupyterStyles(page)).toEqual(shown);
  await f.getByTestId('molecules_mode').click();
  await expect(f.locator('[data-testid="template-0"]:visible')).toHaveCount(1);
  expect(await jupyterStyles(page)).toEqual(shown);
});

test("a person's edits reach the kernel after a mode switch and back, and after an S-group edit", async ({ page }) => {
  await newNotebookRun(page, 'ketcher-events.ipynb', 'import molspace\nk = molspace.Ketcher("CCO", title="events")\nk');
  const e = editor(page, 'events');
  await ready(e);
  const f = await editorFrame(e);
  await switchMode(f, 'macromolecules');
  await switchMode(f, 'molecules');
  const revision = () => e.getAttribute('data-molspace-revision').then(Number);

  // A benzene template dropped on the canvas: a `ui` change the kernel sees.
  const afterSwitch = await revision();
  await f.locator('[data-testid="template-0"]:visible').click();
  const canvas = f.locator('[data-testid="ketcher-canvas"]:visible').first();
  const box = (await canvas.boundingBox())!;
  await canvas.click({ position: { x: box.width * 0.75, y: box.height * 0.75 } });
  await expect(e.locator('.molspace-ketcher-status')).toContainText('9 atoms', { timeout: 30_000 });
  await expect.poll(revision).toBeGreaterThan(afterSwitch);
  const drawn = await revision();
  expect(await runCell(page, `print(k.structure_revision == ${drawn}, k.last_change["source"], k.atoms)`)).toBe('True ui 9');

  // A data S-group over everything (select all, the S-group tool, a field in its dialog, Apply).
  await f.locator('[data-testid="hand"]:visible').first().click();
  await canvas.click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('Control+a');
  await f.locator('[data-testid="sgroup"]:visible').first().click();
  await expect(f.getByText('S-Group Properties')).toBeVisible();
  await f.getByPlaceholder('Enter name').fill('origin');
  await f.getByPlaceholder('Enter value').fill('drawn');
  await f.getByTestId('OK').click();
  await expect(f.getByText('S-Group Properties')).toBeHidden();
  await expect.poll(revision, { timeout: 30_000 }).toBeGreaterThan(drawn);
  const grouped = await revision();
  expect(
    await runCell(page, `print(k.structure_revision == ${grouped}, k.last_change["source"], k.atoms, "M  STY" in k.molfile or "BEGIN SGROUP" in k.molfile, "drawn" in k.molfile)`)
  ).toBe('True ui 9 True True');

  // And after the S-group edit, a further drawing is still reported.
  await f.locator('[data-testid="template-0"]:visible').click();
  await canvas.click({ position: { x: box.width * 0.3, y: box.height * 0.3 } });
  await expect.poll(revision, { timeout: 30_000 }).toBeGreaterThan(grouped);
  expect(await runCell(page, 'print(k.last_change["source"], k.atoms)')).toBe('ui 15');
});

test('a monomer a person places in macromolecules mode reaches the kernel when they switch back', async ({ page }) => {
  await newNotebookRun(page, 'ketcher-macro.ipynb', 'import molspace\nk = molspace.Ketcher("CCO", title="macro")\nk');
  const e = editor(page, 'macro');
  await ready(e);
  const f = await editorFrame(e);
  await switchMode(f, 'macromolecules');
  // Alanine dragged from the monomer library's peptides onto the canvas.
  await f.getByRole('tab', { name: 'Peptides' }).click();
  const canvas = f.locator('[data-testid="ketcher-canvas"]:visible').first();
  const box = (await canvas.boundingBox())!;
  await f.getByTestId('A___Alanine').dragTo(canvas, { targetPosition: { x: box.width * 0.3, y: box.height * 0.3 } });
  await switchMode(f, 'molecules');
  await expect(e).toHaveAttribute('data-molspace-revision', '1', { timeout: 30_000 });
  expect(await runCell(page, 'print(k.structure_revision, k.last_change["source"], k.atoms > 3, "monomer" in k.ket, k.smiles.startswith("CCO."))')).toBe(
    '1 ui True True True'
  );
});

test('the dark theme keeps the editor readable: status text contrasts, the drawing is dark on a light canvas', async ({ page }) => {
  await newNotebookRun(page, 'ketcher-dark.ipynb', 'import molspace\nk = molspace.Ketcher("c1ccccc1O", title="dark")\nk');
  const e = editor(page, 'dark');
  await ready(e);
  await page.evaluate(() => (window as any).jupyterapp.commands.execute('apputils:change-theme', { theme: 'JupyterLab Dark' }));
  await expect(page.locator('body')).toHaveAttribute('data-jp-theme-light', 'false', { timeout: 30_000 });
  await expect(page.locator('body')).toHaveAttribute('data-jp-theme-name', 'JupyterLab Dark');
  // JupyterLab shows its splash screen while it changes theme; it fades out after.
  await expect(page.locator('#jupyterlab-splash')).toHaveCount(0);

  // The status line against the background it is drawn on (the first opaque one above it).
  const [text, background] = await e.locator('.molspace-ketcher-status').evaluate(node => {
    let el: Element | null = node;
    let bg = 'rgba(0, 0, 0, 0)';
    while (el) {
      const c = getComputedStyle(el).backgroundColor;
      if (c !== 'rgba(0, 0, 0, 0)' && c !== 'transparent') {
        bg = c;
        break;
      }
      el = el.parentElement;
    }
    return [getComputedStyle(node).color, bg];
  });
  expect(luminance(background.match(/\d+/g)!.slice(0, 3).map(Number) as [number, number, number])).toBeLessThan(0.2); // the theme is dark
  expect(contrast(text, background), `${text} on ${background}`).toBeGreaterThanOrEqual(4.5);

  // The frame area as drawn: a light canvas ...
  const body = e.locator('.molspace-ketcher-body');
  const canvasColour = await dominantColour(body);
  expect(luminance(canvasColour), String(canvasColour)).toBeGreaterThan(0.7);
  // ... with Ketcher's own text and bonds dark on it.
  const f = await editorFrame(e);
  const inFrame = await f.evaluate(() => {
    const opaque = (start: Element | null) => {
      for (let el = start; el; el = el.parentElement) {
        const c = getComputedStyle(el).backgroundColor;
        if (c !== 'rgba(0, 0, 0, 0)' && c !== 'transparent') {
          return c;
        }
      }
      return 'rgb(255, 255, 255)'; // the frame's canvas: Chromium paints an unstyled document white
    };
    // The molecules editor's canvas (the macromolecules editor's, hidden, has one too).
    const canvas = Array.from(document.querySelectorAll('[data-testid="ketcher-canvas"]')).find(c => c.getClientRects().length > 0) ?? null;
    // Bonds: the most common stroke colour of the canvas's paths.
    const strokes = new Map<string, number>();
    for (const p of Array.from(canvas?.querySelectorAll('path') ?? [])) {
      const s = getComputedStyle(p).stroke;
      if (s && s !== 'none') {
        strokes.set(s, (strokes.get(s) ?? 0) + 1);
      }
    }
    const bond = [...strokes].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
    const zoom = document.querySelector('[data-testid="zoom-selector"]') ?? document.querySelector('button');
    return {
      canvasBackground: opaque(canvas),
      bond,
      strokes: Object.fromEntries(strokes),
      label: zoom ? getComputedStyle(zoom).color : null,
      labelBackground: opaque(zoom)
    };
  });
  expect(inFrame.bond, JSON.stringify(inFrame)).not.toBeNull();
  expect(contrast(inFrame.bond!, inFrame.canvasBackground), JSON.stringify(inFrame)).toBeGreaterThanOrEqual(4.5);
  expect(contrast(inFrame.label!, inFrame.labelBackground), JSON.stringify(inFrame)).toBeGreaterThanOrEqual(4.5);
  // the tests after this one share the page (./sharedLab.ts): give them the light theme back
  await page.evaluate(() => (window as any).jupyterapp.commands.execute('apputils:change-theme', { theme: 'JupyterLab Light' }));
  await expect(page.locator('body')).toHaveAttribute('data-jp-theme-light', 'true', { timeout: 30_000 });
  await expect(page.locator('#jupyterlab-splash')).toHaveCount(0);
});

test('dragging the editor taller resizes its frame and Ketcher canvas', async ({ page }) => {
  await newNotebookRun(page, 'ketcher-resize.ipynb', 'import molspace\nk = molspace.Ketcher("c1ccccc1O", title="resize")\nk');
  const e = editor(page, 'resize');
  await ready(e);
  const body = e.locator('.molspace-ketcher-body');
  await body.scrollIntoViewIfNeeded();
  const f = await editorFrame(e);
  const canvas = f.locator('[data-testid="ketcher-canvas"]:visible').first();
  const frameBox = () => e.locator('iframe.molspace-ketcher-frame').boundingBox().then(b => b!);
  const before = (await body.boundingBox())!;
  const frameBefore = await frameBox();
  const canvasBefore = (await canvas.boundingBox())!;
  expect(frameBefore.height).toBeGreaterThan(before.height - 4);

  // The person drags the resize handle (bottom-right corner) 200 px down.
  await page.mouse.move(before.x + before.width - 3, before.y + before.height - 3);
  await page.mouse.down();
  await page.mouse.move(before.x + before.width - 3, before.y + before.height + 100, { steps: 5 });
  await page.mouse.move(before.x + before.width - 3, before.y + before.height + 197, { steps: 5 });
  await page.mouse.up();

  await expect.poll(async () => (await body.boundingBox())!.height).toBeGreaterThan(before.height + 150);
  const after = (await body.boundingBox())!;
  // The frame follows the body (its border aside) ...
  await expect.poll(async () => (await frameBox()).height).toBeGreaterThan(after.height - 4);
  // ... and Ketcher's canvas inside it grows by as much.
  await expect.poll(async () => (await canvas.boundingBox())!.height).toBeGreaterThan(canvasBefore.height + 150);
  // The editor still takes a drawing at the new bottom of its canvas.
  const grown = (await canvas.boundingBox())!;
  await f.locator('[data-testid="template-0"]:visible').click();
  await canvas.click({ position: { x: grown.width * 0.5, y: grown.height - 60 } });
  await expect(e.locator('.molspace-ketcher-status')).toContainText('13 atoms', { timeout: 30_000 });
});

test('a docked Viewer closed by its tab leaves observe, and act naming it is STALE_TARGET', async ({ page }) => {
  const text = fs.readFileSync(path.join(ROOT, 'tests', 'data', 'structures', '2c6e_poses.pdb'), 'utf8');
  const client = await mcpClient();
  try {
    const [opened, openError] = await call(client, 'open', { text, format: 'pdb', title: 'to-close' });
    expect(openError, JSON.stringify(opened)).toBe(false);
    const target = opened.viewer.target;
    const [listed] = await call(client, 'observe');
    expect(listed.widgets.map((w: { id: string }) => w.id)).toContain(target);

    await page.locator('.lm-TabBar-tab', { hasText: 'to-close' }).locator('.lm-TabBar-tabCloseIcon').click();
    await expect(page.locator('.lm-TabBar-tab', { hasText: 'to-close' })).toHaveCount(0);
    const [after] = await call(client, 'observe');
    expect(after.widgets.map((w: { id: string }) => w.id)).not.toContain(target);
    const [stale, isError] = await call(client, 'act', { target, actions: [{ op: 'reset_camera' }] });
    expect(isError).toBe(true);
    expect(stale).toMatchObject({ code: 'STALE_TARGET', where: '/target' });
  } finally {
    await client.close();
  }
});

test('a docked Ketcher closed by its tab leaves observe, and ketcher_control naming it is STALE_TARGET', async ({ page }) => {
  const client = await mcpClient();
  try {
    const [opened, openError] = await call(client, 'ketcher_open', { value: 'CCO', title: 'ketcher-to-close' });
    expect(openError, JSON.stringify(opened)).toBe(false);
    const target = opened.editor.target;
    await ready(editor(page, 'ketcher-to-close'));

    await page.locator('.lm-TabBar-tab', { hasText: 'ketcher-to-close' }).locator('.lm-TabBar-tabCloseIcon').click();
    await expect(page.locator('.lm-TabBar-tab', { hasText: 'ketcher-to-close' })).toHaveCount(0);
    await expect(page.locator('iframe.molspace-ketcher-frame')).toHaveCount(0);
    const [after] = await call(client, 'observe');
    expect(after.widgets.map((w: { id: string }) => w.id)).not.toContain(target);
    const [stale, isError] = await call(client, 'ketcher_control', { target, action: 'get_structure' });
    expect(isError).toBe(true);
    expect(stale).toMatchObject({ code: 'STALE_TARGET', where: '/target' });
  } finally {
    await client.close();
  }
});

test('a structure set by an agent while the person is in macromolecules mode is what the editor holds after the switch back', async ({ page }) => {
  await newNotebookRun(page, 'ketcher-macro-set.ipynb', 'import molspace\nk = molspace.Ketcher("CCO", title="macroset")\nk');
  const e = editor(page, 'macroset');
  await ready(e);
  const f = await editorFrame(e);
  await switchMode(f, 'macromolecules');
  const client = await mcpClient();
  try {
    const target = await e.getAttribute('data-molspace-model');
    const [set, setError] = await call(client, 'ketcher_control', { target, action: 'set_structure', value: 'c1ccccc1O', expectedRevision: 0 });
    expect(setError, JSON.stringify(set)).toBe(false);
    expect(set.editor).toMatchObject({ structureRevision: 1, atoms: 7 });
    const phenol = async (smiles: string) =>
      runCell(page, `from rdkit import Chem\nprint(Chem.CanonSmiles(${JSON.stringify(smiles)}) == Chem.CanonSmiles("Oc1ccccc1"))`);
    const [got] = await call(client, 'ketcher_control', { target, action: 'get_structure' });
    expect(await phenol(got.value), got.value).toBe('True');
    const [inchi] = await call(client, 'ketcher_control', { target, action: 'get_structure', format: 'inchi' });
    expect(inchi.value).toBe('InChI=1S/C6H6O/c7-6-4-2-1-3-5-6/h1-5,7H');
    await switchMode(f, 'molecules');
    // Back in molecules mode the editor, the kernel and the agent all hold the phenol.
    const [after] = await call(client, 'ketcher_control', { target, action: 'get_structure' });
    expect(await phenol(after.value), after.value).toBe('True');
    expect(await runCell(page, 'print(k.atoms, k.formula)')).toBe('7 C6 H6 O');
  } finally {
    await client.close();
  }
});
