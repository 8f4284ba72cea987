/**
 * Molecule-grid panels end to end: an agent (official TypeScript MCP client)
 * docks a grid of SMILES; the page's one hidden depiction frame (Indigo) draws
 * each as an SVG image, paged; a cell's grid shows the kernel's RDKit
 * depictions of its first page at once (an SVG's script inert, a non-SVG one
 * drawn by Indigo), an agent's the gateway's RDKit ones (the relayed call's
 * context) before any Indigo depiction; a SMILES Indigo cannot read shows a note in its
 * cell; hostile names and properties are text; over a bound: TOO_LARGE.
 */
import { NEW_PAGE, expect, test } from './sharedLab';
import type { Page } from '@playwright/test';
import * as fs from 'fs';
import * as path from 'path';
import { call, mcpClient, ROOT, runCell, setCode } from './helpers';

const HOSTILE = '<img src=x onerror="window.__pwned=\'grid\';alert(1)">';
const BAD_SMILES = 'C1CC(N';

/** 60 molecules: alkyl chains with a varying head group, one bad SMILES (index 1), one hostile name/property (index 2). */
function molecules(): { smiles: string; name?: string; properties?: Record<string, string | number> }[] {
  const heads = ['O', 'N', 'C(=O)O', 'c1ccccc1', 'Cl', 'C#N'];
  const list = Array.from({ length: 60 }, (_, i) => ({
    smiles: 'C'.repeat(1 + (i % 10)) + heads[i % heads.length],
    name: `mol-${i}`,
    properties: { index: i, series: i % 2 ? 'odd' : 'even' } as Record<string, string | number>
  }));
  list[1] = { smiles: BAD_SMILES, name: 'broken', properties: { index: 1, series: 'odd' } };
  list[2] = { smiles: 'c1ccccc1O', name: HOSTILE, properties: { index: 2, note: HOSTILE } };
  return list;
}

function grid(page: Page) {
  return page.locator('.molspace-panel[data-molspace-panel-id="grid"]');
}

/** The SVG text of a depiction `<img>`: the gateway's/kernel's (RDKit, a UTF-8 data URL) or Indigo's (base64). */
function svgOf(src: string): string {
  const data = src.slice(src.indexOf(',') + 1);
  return src.startsWith('data:image/svg+xml;base64,') ? atob(data) : decodeURIComponent(data);
}

test.describe('molecule grid panels', () => {
  test('an agent docks a paged grid of depictions; bad SMILES and hostile text stay in their cells', { tag: NEW_PAGE }, async ({ page }) => {
    const dialogs: string[] = [];
    page.on('dialog', d => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    // Nothing of the depiction engine loads before the first grid.
    await expect(page.locator('iframe.molspace-depict-frame')).toHaveCount(0);
    const client = await mcpClient();
    try {
      const tools = await client.listTools();
      expect(tools.tools.map(t => t.name)).toContain('render_panel');
      await expect.poll(async () => (await call(client, 'status'))[0].pageConnected, { timeout: 60_000 }).toBe(true);
      const list = molecules();
      const [result, isError] = await call(client, 'render_panel', {
        panelId: 'grid',
        title: 'Candidates',
        content: { type: 'molecules', molecules: list, pageSize: 24 }
      });
      expect(isError).toBe(false);
      expect(result).toMatchObject({ created: true, panel: { panelId: 'grid', type: 'molecules', ready: true, error: null } });
      await expect(page.locator('iframe.molspace-depict-frame')).toHaveCount(1);

      const cells = grid(page).locator('.molspace-panel-molecule');
      await expect(cells).toHaveCount(24);
      await expect(grid(page).locator('.molspace-panel-page-label')).toHaveText('Page 1 of 3 (60 molecules)');
      // Every readable SMILES is an <img> of an SVG data URL, alt = the SMILES (the first page's by the gateway's RDKit).
      const images = grid(page).locator('img.molspace-panel-molecule-image');
      await expect(images).toHaveCount(23);
      const srcs = await images.evaluateAll(els => els.map(e => (e as HTMLImageElement).getAttribute('src') ?? ''));
      for (const src of srcs) {
        expect(src).toMatch(/^data:image\/svg\+xml;(base64,[A-Za-z0-9+/=]{200,}|charset=utf-8,%3Csvg.{200,})$/);
        expect(svgOf(src)).toContain('<svg');
      }
      await expect(cells.nth(0).locator('img')).toHaveAttribute('alt', list[0].smiles);
      await expect
        .poll(() => images.evaluateAll(els => els.every(e => (e as HTMLImageElement).complete && (e as HTMLImageElement).naturalWidth > 0)))
        .toBe(true);

      // The bad SMILES: a located note in its own cell, the rest of the grid drawn.
      await expect(cells.nth(1)).toHaveAttribute('data-molspace-depicted', 'error');
      await expect(cells.nth(1).locator('.molspace-panel-molecule-note')).toContainText('Indigo cannot read this SMILES');
      await expect(cells.nth(1).locator('.molspace-panel-molecule-note')).toContainText(`/content/molecules/1/smiles: ${BAD_SMILES}`);

      // Hostile name and property: shown as text, no element made, no script run.
      await expect(cells.nth(2).locator('.molspace-panel-molecule-name')).toHaveText(HOSTILE);
      await expect(cells.nth(2).locator('dd').nth(1)).toHaveText(HOSTILE);
      await expect(grid(page).locator('img[src="x"]')).toHaveCount(0);
      expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
      expect(dialogs).toEqual([]);

      // Paging.
      await grid(page).locator('.molspace-panel-page-next').click();
      await expect(grid(page).locator('.molspace-panel-molecules-grid')).toHaveAttribute('data-molspace-page', '2');
      await expect(cells.first()).toHaveAttribute('data-molspace-index', '24');
      await expect(grid(page).locator('.molspace-panel-molecule[data-molspace-depicted="true"]')).toHaveCount(24);
      // Past the first page Indigo draws those not drawn already (a SMILES of page 1 repeated keeps its picture): base64 SVG data URLs.
      const indigo = grid(page).locator('.molspace-panel-molecule[data-molspace-depiction="indigo"] img');
      expect(await indigo.count()).toBeGreaterThan(0);
      for (const src of await indigo.evaluateAll(els => els.map(e => (e as HTMLImageElement).getAttribute('src') ?? ''))) {
        expect(src).toMatch(/^data:image\/svg\+xml;base64,[A-Za-z0-9+/=]{200,}$/);
      }
      await grid(page).locator('.molspace-panel-page-next').click();
      await expect(cells).toHaveCount(12);
      await expect(grid(page).locator('.molspace-panel-page-next')).toBeDisabled();
      await expect(grid(page).locator('.molspace-panel-molecule[data-molspace-depicted="true"]')).toHaveCount(12);

      // observe lists it.
      const [observed] = await call(client, 'observe');
      expect(JSON.stringify(observed)).toContain('molecule grid, 60 molecules');
    } finally {
      await client.close();
    }
  });

  test("an agent's grid shows the gateway's RDKit pictures of its first page before any Indigo depiction is made", { tag: NEW_PAGE }, async ({ page }) => {
    const client = await mcpClient();
    try {
      await expect.poll(async () => (await call(client, 'status'))[0].pageConnected, { timeout: 60_000 }).toBe(true);
      const list = molecules().filter(m => m.smiles !== BAD_SMILES);
      const [result, isError] = await call(client, 'render_panel', { panelId: 'rdkit-agent', content: { type: 'molecules', molecules: list, pageSize: 12 } });
      expect(isError, JSON.stringify(result)).toBe(false);
      // The model's result is the page's, with no picture in it.
      expect(JSON.stringify(result)).not.toContain('svg');
      const agentGrid = page.locator('.molspace-panel[data-molspace-panel-id="rdkit-agent"]');
      // The call returned once the first page was shown: all 12 by the gateway, and no Indigo frame was ever made.
      await expect(agentGrid).toHaveAttribute('data-molspace-ready', 'true');
      await expect(agentGrid.locator('.molspace-panel-molecule[data-molspace-depiction="gateway"][data-molspace-depicted="true"]')).toHaveCount(12);
      await expect(page.locator('iframe.molspace-depict-frame')).toHaveCount(0);
      const images = agentGrid.locator('img.molspace-panel-molecule-image');
      const srcs = await images.evaluateAll(els => els.map(e => e.getAttribute('src') ?? ''));
      expect(srcs).toHaveLength(12);
      for (const src of srcs) {
        // RDKit's own SVG (its `xmlns:rdkit` namespace), as a UTF-8 data URL; Indigo's are base64 and carry no rdkit namespace.
        expect(src.startsWith('data:image/svg+xml;charset=utf-8,')).toBe(true);
        expect(svgOf(src)).toMatch(/^<svg[^>]*xmlns:rdkit=/);
      }
      await expect
        .poll(() => images.evaluateAll(els => els.every(e => (e as HTMLImageElement).complete && (e as HTMLImageElement).naturalWidth > 0)))
        .toBe(true);
      await expect(agentGrid.locator('.molspace-panel-molecule').first().locator('img')).toHaveAttribute('alt', list[0].smiles);
      // The next page is Indigo's (the gateway sends the first page only).
      await agentGrid.locator('.molspace-panel-page-next').click();
      await expect(agentGrid.locator('.molspace-panel-molecule[data-molspace-depiction="indigo"][data-molspace-depicted="true"]')).toHaveCount(12, {
        timeout: 90_000
      });
      await expect(page.locator('iframe.molspace-depict-frame')).toHaveCount(1);
    } finally {
      await client.close();
    }
  });

  test('over a bound a grid is refused with TOO_LARGE naming the limit', async ({ page }) => {
    const client = await mcpClient();
    try {
      await expect.poll(async () => (await call(client, 'status'))[0].pageConnected, { timeout: 60_000 }).toBe(true);
      const many = Array.from({ length: 501 }, () => ({ smiles: 'C' }));
      const [tooMany, e1] = await call(client, 'render_panel', { panelId: 'big', content: { type: 'molecules', molecules: many } });
      expect(e1).toBe(true);
      expect(tooMany).toMatchObject({ code: 'TOO_LARGE', where: '/content/molecules', details: { limit: 'panelMolecules', max: 500, size: 501 } });
      const [longSmiles, e2] = await call(client, 'render_panel', {
        panelId: 'big',
        content: { type: 'molecules', molecules: [{ smiles: 'C' }, { smiles: 'C'.repeat(2001) }] }
      });
      expect(e2).toBe(true);
      expect(longSmiles).toMatchObject({ code: 'TOO_LARGE', where: '/content/molecules/1/smiles', details: { limit: 'panelSmilesChars' } });
      const props = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`p${i}`, i]));
      const [tooManyProps, e3] = await call(client, 'render_panel', { panelId: 'big', content: { type: 'molecules', molecules: [{ smiles: 'C', properties: props }] } });
      expect(e3).toBe(true);
      expect(tooManyProps).toMatchObject({ code: 'TOO_LARGE', where: '/content/molecules/0/properties', details: { limit: 'panelMoleculeProperties' } });
      await expect(page.locator('.molspace-panel[data-molspace-panel-id="big"]')).toHaveCount(0);
    } finally {
      await client.close();
    }
  });

  test('a cell shows the first 60 molecules of cdk2.sdf read by RDKit as a grid inline', async ({ page, tmpPath }) => {
    await page.contents.uploadFile(path.join(ROOT, 'tests', 'data', 'structures', 'cdk2.sdf'), `${tmpPath}/cdk2.sdf`);
    await page.notebook.createNew('grid.ipynb');
    await setCode(
      page,
      0,
      [
        'import molspace',
        'from rdkit import Chem',
        'mols = [m for m in Chem.SDMolSupplier("cdk2.sdf") if m is not None][:60]',
        'grid = molspace.Panel(mols, title="CDK2 ligands", panel_id="cdk2", page_size=30)',
        'grid'
      ].join('\n')
    );
    await page.notebook.runCell(0, true);
    const cdk2 = page.locator('.molspace-panel[data-molspace-panel-id="cdk2"]');
    await expect(cdk2).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
    const count = Number(await runCell(page, 'print(len(mols))'));
    expect(count).toBeGreaterThan(30);
    await expect(cdk2.locator('.molspace-panel-page-label')).toHaveText(`Page 1 of 2 (${count} molecules)`);
    await expect(cdk2.locator('.molspace-panel-molecule[data-molspace-depicted="true"]')).toHaveCount(30);
    const first = await runCell(page, 'print(Chem.MolToSmiles(mols[0]), mols[0].GetProp("_Name"))');
    const [smiles, name] = first.split(' ');
    await expect(cdk2.locator('img.molspace-panel-molecule-image').first()).toHaveAttribute('alt', smiles);
    await expect(cdk2.locator('.molspace-panel-molecule-name').first()).toHaveText(name);
    expect(await runCell(page, 'print(grid.ready, grid.content["type"], bool(grid.error))')).toBe('True molecules False');
  });

  test("a cell's grid shows the kernel's RDKit depictions of its first page, without the Indigo frame; Indigo draws the next", { tag: NEW_PAGE }, async ({ page }) => {
    await page.notebook.createNew('kernel-depictions.ipynb');
    await setCode(
      page,
      0,
      ['import molspace', 'smiles = ["C" * (1 + i % 10) + h for i, h in enumerate(["O", "N", "Cl"] * 10)]', 'molspace.Panel(smiles, panel_id="rdkit", page_size=12)'].join('\n')
    );
    await page.notebook.runCell(0, true);
    const grid = page.locator('.molspace-panel[data-molspace-panel-id="rdkit"]');
    await expect(grid).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
    const cells = grid.locator('.molspace-panel-molecule');
    await expect(cells).toHaveCount(12);
    await expect(grid.locator('.molspace-panel-molecule[data-molspace-depiction="kernel"][data-molspace-depicted="true"]')).toHaveCount(12);
    const images = grid.locator('img.molspace-panel-molecule-image');
    for (const src of await images.evaluateAll(els => els.map(e => e.getAttribute('src') ?? ''))) {
      expect(src.startsWith('data:image/svg+xml;charset=utf-8,')).toBe(true);
      expect(decodeURIComponent(src.slice(src.indexOf(',') + 1))).toMatch(/^<svg[\s\S]*rdkit/);
    }
    await expect
      .poll(() => images.evaluateAll(els => els.every(e => (e as HTMLImageElement).complete && (e as HTMLImageElement).naturalWidth > 0)))
      .toBe(true);
    await expect(cells.first().locator('img')).toHaveAttribute('alt', 'CO');
    // The first page needed no Indigo: the depiction frame was never made.
    await expect(page.locator('iframe.molspace-depict-frame')).toHaveCount(0);
    // The next page (not sent by the kernel) is drawn by Indigo.
    await grid.locator('.molspace-panel-page-next').click();
    await expect(grid.locator('.molspace-panel-molecule[data-molspace-depiction="indigo"][data-molspace-depicted="true"]')).toHaveCount(12, {
      timeout: 90_000
    });
    await expect(page.locator('iframe.molspace-depict-frame')).toHaveCount(1);
  });

  test("a kernel depiction carrying script stays an inert image; one that is not an SVG is ignored and drawn by Indigo", async ({ page }) => {
    const dialogs: string[] = [];
    page.on('dialog', d => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    const warnings: string[] = [];
    page.on('console', m => {
      if (m.type() === 'warning') warnings.push(m.text());
    });
    await page.notebook.createNew('hostile-depictions.ipynb');
    await setCode(
      page,
      0,
      [
        'import molspace, molspace.panel.widget as w',
        'evil = (\'<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100" onload="window.top.__pwned=1">\'',
        '        \'<script>window.top.__pwned = 2; alert("svg")</script><rect width="100" height="100" fill="red"/></svg>\')',
        'w.grid_depictions = lambda content: {"CCO": evil, "CCN": \'<img src=x onerror="window.top.__pwned=3">\'}',
        'molspace.Panel(["CCO", "CCN"], panel_id="hostile")'
      ].join('\n')
    );
    await page.notebook.runCell(0, true);
    const grid = page.locator('.molspace-panel[data-molspace-panel-id="hostile"]');
    await expect(grid).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
    const cells = grid.locator('.molspace-panel-molecule');
    // The SVG with script: an <img> of it, drawn (an image runs no script), never inline SVG.
    await expect(cells.nth(0)).toHaveAttribute('data-molspace-depiction', 'kernel');
    const img = cells.nth(0).locator('img');
    await expect.poll(() => img.evaluate(e => (e as HTMLImageElement).complete && (e as HTMLImageElement).naturalWidth > 0)).toBe(true);
    expect(await grid.locator('svg, script').count()).toBe(0);
    // Not an SVG: ignored, said in the console with where, and drawn by Indigo.
    await expect(cells.nth(1)).toHaveAttribute('data-molspace-depiction', 'indigo', { timeout: 90_000 });
    await expect(cells.nth(1)).toHaveAttribute('data-molspace-depicted', 'true');
    expect(warnings.some(t => t.includes('/_depictions/CCN ignored') && t.includes('not an SVG document'))).toBe(true);
    expect(await page.evaluate(() => (window as any).__pwned)).toBeUndefined();
    expect(dialogs).toEqual([]);
  });

  test('an agent sends pubchem200.sdf as a grid file: 200 molecules, paged, each with its CID', async ({ page }) => {
    const text = fs.readFileSync(path.join(ROOT, 'tests', 'data', 'structures', 'pubchem200.sdf'), 'utf-8');
    const client = await mcpClient();
    try {
      await expect.poll(async () => (await call(client, 'status'))[0].pageConnected, { timeout: 60_000 }).toBe(true);
      const [result, isError] = await call(client, 'render_panel', {
        panelId: 'pubchem',
        content: { type: 'molecules', file: { format: 'sdf', text }, pageSize: 40 }
      });
      expect(isError, JSON.stringify(result)).toBe(false);
      const grid = page.locator('.molspace-panel[data-molspace-panel-id="pubchem"]');
      await expect(grid).toHaveAttribute('data-molspace-ready', 'true', { timeout: 90_000 });
      await expect(grid.locator('.molspace-panel-page-label')).toHaveText('Page 1 of 5 (200 molecules)');
      await expect(grid.locator('.molspace-panel-molecule[data-molspace-depicted="true"]')).toHaveCount(40, { timeout: 90_000 });
      // The first record's title line is its name and its one data field a property.
      const first = grid.locator('.molspace-panel-molecule').first();
      await expect(first.locator('.molspace-panel-molecule-name')).toHaveText('6603170');
      await expect(first).toContainText('PUBCHEM_COMPOUND_CID');
    } finally {
      await client.close();
    }
  });

  test('a click on a depiction opens that molecule in a docked Ketcher editor', async ({ page }) => {
    const client = await mcpClient();
    try {
      await expect.poll(async () => (await call(client, 'status'))[0].pageConnected, { timeout: 60_000 }).toBe(true);
      const [, isError] = await call(client, 'render_panel', {
        panelId: 'pick',
        content: { type: 'molecules', molecules: [{ smiles: 'CCO', name: 'ethanol' }, { smiles: 'Oc1ccccc1', name: 'phenol' }] }
      });
      expect(isError).toBe(false);
      const pick = page.locator('.molspace-panel[data-molspace-panel-id="pick"]');
      await expect(pick.locator('.molspace-panel-molecule[data-molspace-depicted="true"]')).toHaveCount(2);
      await pick.locator('.molspace-panel-molecule-open').nth(1).click();
      const editor = page.locator('.molspace-ketcher', { has: page.locator('.molspace-ketcher-status', { hasText: 'phenol' }) });
      await expect(editor).toHaveAttribute('data-molspace-ready', 'true', { timeout: 120_000 });
      const [observed] = await call(client, 'observe');
      const ketcher = observed.widgets.find((w: any) => w.kind === 'ketcher');
      expect(ketcher).toBeTruthy();
      const [structure] = await call(client, 'ketcher_control', { target: ketcher.id, action: 'get_structure', format: 'smiles' });
      expect(JSON.stringify(structure)).toMatch(/c1ccccc1|C1=CC=CC=C1/i);
    } finally {
      await client.close();
    }
  });
});
