/**
 * The Ketcher editor end to end (real Ketcher and Indigo in their frames, a
 * real kernel, the official TS MCP client): two editors side by side; a
 * cell, an agent and a person's drawing each seen by the other two and never
 * by the other editor; every typed failure; a save the person confirms or
 * refuses; round trips checked by RDKit in the kernel; nothing of Ketcher on
 * JupyterLab's start path.
 */
import * as path from 'path';
import { expect, test } from '@jupyterlab/galata';
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import type { Frame, Locator, Request } from '@playwright/test';
import { ROOT, call, mcpClient, runCell, setCode, addCode } from './helpers';

const MOLECULES = path.join(ROOT, 'tests', 'data', 'structures');

function editor(page: IJupyterLabPageFixture, title: string): Locator {
  return page.locator('.molspace-ketcher', { has: page.locator('.molspace-ketcher-status', { hasText: title }) });
}

async function editorFrame(page: IJupyterLabPageFixture, e: Locator): Promise<Frame> {
  const handle = await e.locator('iframe.molspace-ketcher-frame').elementHandle();
  const frame = await handle!.contentFrame();
  return frame!;
}

async function ready(e: Locator): Promise<void> {
  await expect(e).toHaveAttribute('data-molspace-ready', 'true', { timeout: 120_000 });
}

test('nothing of Ketcher loads at start; two editors: a cell, an agent and a person each seen by the others', async ({ page }) => {
  // Ketcher, Indigo's worker and WASM are the editor frame's (static/ketcher/); none loads before an editor is shown.
  const frameAssets = (names: string[]) => names.filter(n => n.includes('/static/ketcher/') || /indigo/i.test(n));
  expect(frameAssets(await page.evaluate(() => performance.getEntriesByType('resource').map(r => r.name)))).toEqual([]);

  const requests: string[] = [];
  page.on('request', r => requests.push(r.url()));
  await page.notebook.createNew('ketcher.ipynb');
  await setCode(
    page,
    0,
    'import molspace, ipywidgets\nk1 = molspace.Ketcher("O=C(O)[C@@]([H])(N)C", title="first")\nk2 = molspace.Ketcher(title="second")\nipywidgets.HBox([k1, k2])'
  );
  await page.notebook.runCell(0, true);
  const e1 = editor(page, 'first');
  const e2 = editor(page, 'second');
  await ready(e1);
  await ready(e2);
  // The worker's WASM is fetched from this extension's own static assets (not from elsewhere).
  const wasm = requests.filter(n => n.endsWith('.wasm'));
  expect(wasm.length).toBeGreaterThan(0);
  expect(wasm[0]).toMatch(/\/lab\/extensions\/molspace\/static\/ketcher\/indigo-ketcher-[^/]+\.wasm$/);

  // The cell's structure, read back by the kernel, keeps its stereo centre (RDKit compares).
  expect(
    await runCell(
      page,
      'from rdkit import Chem\ncan = lambda s: Chem.MolToSmiles(Chem.MolFromSmiles(s))\nprint(can(k1.smiles) == can("O=C(O)[C@@]([H])(N)C"), k1.atoms, k1.formula, k1.structure_revision, k2.atoms)'
    )
  ).toBe('True 7 C3 H7 N O2 0 0');

  const client = await mcpClient();
  try {
    const [observed] = await call(client, 'observe');
    const editors = observed.widgets.filter((w: { kind: string }) => w.kind === 'ketcher');
    expect(editors).toHaveLength(2);
    const first = editors.find((w: { title: string }) => w.title === 'first');
    const second = editors.find((w: { title: string }) => w.title === 'second');
    expect(first.summary).toContain('C3 H7 N O2, 7 atoms, 6 bonds');

    // An agent sets the second editor: the kernel sees it, the first editor does not change.
    const [set, setError] = await call(client, 'ketcher_control', {
      target: second.id,
      action: 'set_structure',
      value: 'c1ccccc1O',
      expectedRevision: 0,
      actionId: 'phenol-1'
    });
    expect(setError).toBe(false);
    expect(set.editor).toMatchObject({ structureRevision: 1, atoms: 7 });
    await expect(e2).toHaveAttribute('data-molspace-revision', '1');
    expect(
      await runCell(
        page,
        'print(k2.structure_revision, k2.last_change["source"], can(k2.smiles) == can("Oc1ccccc1"), k1.structure_revision)'
      )
    ).toBe('1 agent True 0');
    // A retried actionId is not applied again.
    const [again] = await call(client, 'ketcher_control', {
      target: second.id,
      action: 'set_structure',
      value: 'c1ccccc1O',
      expectedRevision: 0,
      actionId: 'phenol-1'
    });
    expect(again.replayed).toBe(true);

    // A cell edits the first: the agent sees the new revision; the second is untouched.
    await runCell(page, 'k1.set_structure("F/C=C/F")');
    await expect(e1).toHaveAttribute('data-molspace-revision', '1');
    const [fromCell] = await call(client, 'ketcher_control', { target: first.id, action: 'get_structure', format: 'smiles' });
    expect(fromCell.value).toBe('F/C=C/F');
    expect(fromCell.editor.structureRevision).toBe(1);

    // A person draws in the first editor (a benzene template on the canvas).
    const f1 = await editorFrame(page, e1);
    await f1.getByTestId('template-0').click();
    const canvas = f1.locator('[data-testid="ketcher-canvas"]:visible').first();
    const box = (await canvas.boundingBox())!;
    await canvas.click({ position: { x: box.width * 0.75, y: box.height * 0.75 } });
    await expect(e1).toHaveAttribute('data-molspace-revision', '2', { timeout: 30_000 });
    expect(await runCell(page, 'print(k1.structure_revision, k1.last_change["source"], k1.atoms, k2.structure_revision, k2.atoms)')).toBe(
      '2 ui 10 1 7'
    );
    const [drawn] = await call(client, 'ketcher_control', { target: first.id, action: 'get_structure', format: 'smiles' });
    expect(await runCell(page, `print(sorted(can(s) for s in ${JSON.stringify(drawn.value)}.split(".")))`)).toBe("['F/C=C/F', 'c1ccccc1']");
    // The person's own undo takes back the drawing (one step in that editor), seen by the kernel.
    await f1.locator('[data-testid="undo"]:visible').first().click();
    await expect(e1).toHaveAttribute('data-molspace-revision', '3', { timeout: 30_000 });
    expect(await runCell(page, 'print(k1.atoms, k1.smiles)')).toBe('4 F/C=C/F');

    // Keys typed in the editor never reach notebook shortcuts (command mode "a", "b", "d d").
    const cells = await page.notebook.getCellCount();
    await f1.locator('[data-testid="hand"]:visible').first().click();
    await canvas.click({ position: { x: 5, y: 5 } });
    for (const key of ['a', 'b', 'd', 'd', 'm']) {
      await page.keyboard.press(key);
    }
    expect(await page.notebook.getCellCount()).toBe(cells);
    const revision = Number(await e1.getAttribute('data-molspace-revision'));

    // Highlights advance only the interaction revision.
    const [lit] = await call(client, 'ketcher_control', {
      target: first.id,
      action: 'highlight_atoms',
      atoms: [0, 1],
      expectedRevision: revision
    });
    expect(lit.editor).toMatchObject({ structureRevision: revision, interactionRevision: 1, highlighted: [0, 1] });
    expect(await runCell(page, 'print(k1.interaction_revision, k1.structure_revision == ' + revision + ', k1.highlighted)')).toBe(
      '1 True [0, 1]'
    );
  } finally {
    await client.close();
  }
});

test("a second editor takes the page's spare frame: ready with no request for Ketcher or Indigo, and it is the person's editor", async ({
  page
}) => {
  await page.notebook.createNew('ketcher-spare.ipynb');
  await setCode(page, 0, 'import molspace\nk1 = molspace.Ketcher("CCO", title="one")\nk1');
  await page.notebook.runCell(0, true);
  await ready(editor(page, 'one'));
  // Once an editor started, the page starts one spare frame out of sight (ketcherFrameHost.ts).
  const holder = page.locator('.molspace-ketcher-spare');
  await expect(holder).toHaveAttribute('data-molspace-ready', 'true', { timeout: 120_000 });
  // It ran its warm-up (Indigo's load and snapshot paths on a sample) and left its editor as it was:
  // nothing drawn, no undo step.
  await expect(holder).toHaveAttribute('data-molspace-warm', 'true');
  const spare = await (await holder.locator('iframe').elementHandle())!.contentFrame();
  expect(
    await spare!.evaluate(() => {
      const editor = (window as unknown as { ketcher: { editor: { struct(): { atoms: { size: number } }; historyStack: unknown[] } } }).ketcher
        .editor;
      return [editor.struct().atoms.size, editor.historyStack.length];
    })
  ).toEqual([0, 0]);
  await spare!.evaluate(() => ((window as unknown as { spareMark: string }).spareMark = 'the spare document'));

  // Until the second editor is ready: every request, with its frame (a worker's has none).
  const requests: { url: string; frame: Frame | null }[] = [];
  const record = (r: Request) => {
    let frame: Frame | null = null;
    try {
      frame = r.frame();
    } catch {
      frame = null;
    }
    requests.push({ url: r.url(), frame });
  };
  page.on('request', record);
  await addCode(page, 'k2 = molspace.Ketcher("c1ccccc1O", title="two")\nk2');
  await page.notebook.runCell(1, true);
  const e2 = editor(page, 'two');
  await ready(e2);
  page.off('request', record);
  // The second editor is the spare's document, moved (not reloaded): its frame requested nothing.
  // (The page's depiction frame may load Indigo meanwhile for the notebook's static fallback, and the
  // next spare starts once this editor is ready: neither is this editor's.)
  const f2 = await editorFrame(page, e2);
  expect(await f2.evaluate(() => (window as unknown as { spareMark?: string }).spareMark)).toBe('the spare document');
  expect(requests.filter(r => r.frame === f2).map(r => r.url)).toEqual([]);
  expect(await runCell(page, 'print(k2.atoms, k2.formula, k1.atoms)')).toBe('7 C6 H6 O 3');

  // It is the person's editor now: a drawing in it reaches its kernel object, not the other editor.
  await f2.getByTestId('template-0').click();
  const canvas = f2.locator('[data-testid="ketcher-canvas"]:visible').first();
  const box = (await canvas.boundingBox())!;
  await canvas.click({ position: { x: box.width * 0.75, y: box.height * 0.75 } });
  await expect(e2).toHaveAttribute('data-molspace-revision', '1', { timeout: 30_000 });
  expect(await runCell(page, 'print(k2.structure_revision, k2.last_change["source"], k2.atoms, k1.structure_revision, k1.atoms)')).toBe(
    '1 ui 13 0 3'
  );
  // The taken frame is the editor's; the page starts another spare for the next editor.
  await expect(page.locator('.molspace-ketcher iframe.molspace-ketcher-frame')).toHaveCount(2);
  await expect(holder).toHaveAttribute('data-molspace-ready', 'true', { timeout: 120_000 });
});

test('every typed failure of ketcher_control is located, and nothing is lost', async ({ page }) => {
  await page.notebook.createNew('ketcher-errors.ipynb');
  await setCode(page, 0, 'import molspace\nk = molspace.Ketcher("CCO", title="errors")\nk');
  await page.notebook.runCell(0, true);
  const e = editor(page, 'errors');
  await ready(e);
  const client = await mcpClient();
  try {
    const [observed] = await call(client, 'observe');
    const target = observed.widgets.find((w: { kind: string }) => w.kind === 'ketcher').id;
    const expectError = async (args: Record<string, unknown>, code: string, where: string) => {
      const [err, isError] = await call(client, 'ketcher_control', { target, ...args });
      expect(isError, JSON.stringify(args)).toBe(true);
      expect(err.code, JSON.stringify(err)).toBe(code);
      expect(err.where).toBe(where);
      expect(err.fix.length).toBeGreaterThan(0);
      return err;
    };
    const bad = await expectError({ action: 'set_structure', value: 'C1CC(' }, 'VALIDATION_FAILED', '/value');
    expect(bad.message).toContain('cycle 1 not closed');
    // Text Indigo's check accepts but Ketcher cannot load as SMILES: refused, not answered as a load.
    const unloadable = await expectError({ action: 'set_structure', value: 'not a molecule at all' }, 'VALIDATION_FAILED', '/value');
    expect(unloadable.message).toContain('state its format');
    // Over the declared bounds (maxLength 65536, maxItems 256: the limits the tool states) the gateway refuses the
    // arguments; within 65536 characters but over 64 KiB of UTF-8 the tool's byte limit is TOO_LARGE.
    const long = await expectError({ action: 'set_structure', value: 'C'.repeat(70_000) }, 'INVALID_INPUT', '/value');
    expect(long.message).toContain('at most 65536');
    await expectError({ action: 'set_structure', value: 'é'.repeat(40_000) }, 'TOO_LARGE', '/value');
    const many = await expectError(
      { action: 'highlight_atoms', atoms: Array.from({ length: 300 }, (_, i) => i) },
      'INVALID_INPUT',
      '/atoms'
    );
    expect(many.message).toContain('at most 256');
    const range = await expectError({ action: 'highlight_atoms', atoms: [0, 3] }, 'VALIDATION_FAILED', '/atoms/1');
    expect(range.message).toContain('has 3 atoms');
    const conflict = await expectError(
      { action: 'set_structure', value: 'CCN', expectedRevision: 5 },
      'REVISION_CONFLICT',
      '/expectedRevision'
    );
    expect(conflict.details.currentRevision).toBe(0);
    await expectError({ action: 'request_persist', path: 'mol.png' }, 'UNSUPPORTED_FORMAT', '/path');
    await expectError({ action: 'request_persist', path: '../outside.mol' }, 'FORBIDDEN', '/path');
    // A large structure (a 600-carbon chain) fits as SMILES but its KET export is over 64 KiB.
    const [big, bigError] = await call(client, 'ketcher_control', {
      target,
      action: 'set_structure',
      value: 'C'.repeat(600),
      format: 'smiles'
    });
    expect(bigError, JSON.stringify(big)).toBe(false);
    await expectError({ action: 'get_structure', format: 'ket' }, 'TOO_LARGE', '/format');
    // Nothing was lost: the failed calls changed nothing; the kernel agrees.
    expect(await runCell(page, 'print(k.structure_revision, k.atoms)')).toBe('1 600');
    // A re-run cell retires the editor: calls naming it are STALE_TARGET.
    await page.notebook.runCell(0, true);
    await ready(editor(page, 'errors'));
    await expectError({ action: 'get_structure' }, 'STALE_TARGET', '/target');
  } finally {
    await client.close();
  }
});

test('request_persist saves only after the person confirms; a refusal is reported; ketcher_open docks an editor', async ({
  page,
  tmpPath
}) => {
  const client = await mcpClient();
  try {
    const [opened, openError] = await call(client, 'ketcher_open', { value: 'O=C(O)[C@@]([H])(N)C', title: 'docked' });
    expect(openError, JSON.stringify(opened)).toBe(false);
    expect(opened.editor).toMatchObject({ ready: true, atoms: 7, formula: 'C3 H7 N O2', structureRevision: 0 });
    const target = opened.editor.target;
    const e = editor(page, 'docked');
    await ready(e);

    const file = `${tmpPath}/alanine.mol`;
    const persistNode = e.locator('.molspace-ketcher-persist');
    // Waiting for the person is a pending success, not an error: what to do and when to ask again.
    const [wait, waitError] = await call(client, 'ketcher_control', { target, action: 'request_persist', path: file });
    expect(waitError, JSON.stringify(wait)).toBe(false);
    expect(wait).toMatchObject({ status: 'pending', retryAfterMs: expect.any(Number), waitingFor: expect.stringContaining('Save') });
    expect(wait.editor.persist).toMatchObject({ status: 'awaiting', path: file });
    await expect(page.contents.fileExists(file)).resolves.toBe(false);
    // A bounded wait without an answer ends pending (still not isError).
    const [still, stillError] = await call(client, 'ketcher_control', { target, action: 'request_persist', path: file, waitMs: 1000 });
    expect(stillError, JSON.stringify(still)).toBe(false);
    expect(still.status).toBe('pending');
    // The person presses Save while a call waits: that very call returns saved.
    const waiting = call(client, 'ketcher_control', { target, action: 'request_persist', path: file, waitMs: 20_000 });
    await expect(persistNode).toHaveAttribute('data-waiting', 'true');
    await e.locator('.molspace-ketcher-save').click();
    const [saved, savedError] = await waiting;
    expect(savedError, JSON.stringify(saved)).toBe(false);
    expect(saved.status).toBe('done');
    expect(saved.editor.persist).toMatchObject({ status: 'saved', path: file, format: 'molfile' });
    expect(saved.editor.dirty).toBe(false);
    await expect(persistNode).toHaveAttribute('data-status', 'saved');
    await expect(page.contents.fileExists(file)).resolves.toBe(true);

    // A refusal while a call waits is FORBIDDEN with details.refused, to that call.
    const other = `${tmpPath}/refused.sdf`;
    const asking = call(client, 'ketcher_control', { target, action: 'request_persist', path: other, waitMs: 20_000 });
    await expect(persistNode).toHaveAttribute('data-waiting', 'true');
    await e.locator('.molspace-ketcher-refuse').click();
    const [refused, refusedError] = await asking;
    expect(refusedError, JSON.stringify(refused)).toBe(true);
    expect(refused).toMatchObject({ code: 'FORBIDDEN', details: { refused: true } });
    await expect(page.contents.fileExists(other)).resolves.toBe(false);
    // An existing file is not replaced without overwrite.
    const [exists] = await call(client, 'ketcher_control', { target, action: 'set_structure', value: 'CCO' });
    expect(exists.editor.dirty).toBe(true);
    const [noOverwrite] = await call(client, 'ketcher_control', { target, action: 'request_persist', path: file });
    expect(noOverwrite).toMatchObject({ code: 'FORBIDDEN', where: '/overwrite' });
  } finally {
    await client.close();
  }
});

test('round trips keep stereo, double-bond geometry, charges, isotopes and explicit hydrogens (RDKit compares)', async ({
  page,
  tmpPath
}) => {
  for (const name of ['cdk2.sdf', 'small01.mol', 'small03.mol2']) {
    await page.contents.uploadFile(path.join(MOLECULES, name), `${tmpPath}/${name}`);
  }
  await page.notebook.createNew('ketcher-roundtrip.ipynb');
  await setCode(page, 0, 'import molspace\nk = molspace.Ketcher(title="roundtrip")\nk');
  await page.notebook.runCell(0, true);
  await ready(editor(page, 'roundtrip'));
  await runCell(
    page,
    [
      'from rdkit import Chem',
      'can = lambda m: Chem.MolToSmiles(m) if m is not None else None',
      'smiles = ["O=C(O)[C@@]([H])(N)C", "F/C=C\\\\F", "C[N+](C)(C)C.[Cl-]", "[13CH3]O", "[2H]C([2H])([2H])O", "C[C@H](O)[C@@H](N)C(=O)O"]',
      'mols = [m for m in Chem.SDMolSupplier("cdk2.sdf")][:5] + [Chem.MolFromMolFile("small01.mol")] + [Chem.MolFromMol2File("small03.mol2")]',
      'cases = [(s, "smiles") for s in smiles] + [(m, "molfile") for m in mols]',
      'results = []'
    ].join('\n')
  );
  await runCell(
    page,
    [
      'want_of = lambda src, kind: can(Chem.MolFromSmiles(src)) if kind == "smiles" else can(src)',
      'got_of = lambda kind: can(Chem.MolFromSmiles(k.smiles)) if kind == "smiles" else can(Chem.MolFromMolBlock(k.molfile))',
      'check = lambda i: results.append((want_of(*cases[i]) == got_of(cases[i][1]), want_of(*cases[i]), got_of(cases[i][1])))'
    ].join('\n')
  );
  const total = Number(await runCell(page, 'print(len(cases))'));
  // One cell a case: it checks what the page sent back for the case before (the kernel handles the
  // page's answer between cells), then sets the next.
  for (let i = 0; i < total; i++) {
    await runCell(page, `${i ? `check(${i - 1}); ` : ''}k.set_structure(cases[${i}][0])`);
    await expect(editor(page, 'roundtrip')).toHaveAttribute('data-molspace-revision', String(i + 1), { timeout: 30_000 });
  }
  await runCell(page, `check(${total - 1})`);
  expect(await runCell(page, 'print(len(results), [r for r in results if not r[0]])')).toBe(`${total} []`);
});

test("an agent opens an editor's molecule in 3D in a Viewer, as one call; each bad source is located", async ({ page }) => {
  const client = await mcpClient();
  try {
    const [opened] = await call(client, 'ketcher_open', { value: 'O=C(O)[C@@]([H])(N)C', title: 'sketch' });
    const target = opened.editor.target;
    await ready(editor(page, 'sketch'));
    const [viewer, viewerError] = await call(client, 'open', { ketcher: target });
    expect(viewerError, JSON.stringify(viewer)).toBe(false);
    // 7 atoms drawn (one explicit H); RDKit's embedding adds the other six hydrogens.
    expect(viewer.composition).toMatchObject({ format: 'sdf', modelCount: 1, atoms: 13 });
    expect(viewer.viewer).toMatchObject({ title: 'sketch (3D)', ready: true, error: null });
    const docked = page.locator(`#${viewer.viewer.target} .molspace-viewer`);
    await expect(docked).toHaveAttribute('data-molspace-ready', 'true');
    await expect(docked.locator('canvas').first()).toBeVisible();
    await expect(docked.locator('.molspace-viewer-summary')).toContainText('13 atoms');

    const expectError = async (args: Record<string, unknown>, code: string, where: string) => {
      const [error, isError] = await call(client, 'open', args);
      expect(isError, JSON.stringify(error)).toBe(true);
      expect(error, JSON.stringify(error)).toMatchObject({ code, where });
      expect(error.fix.length).toBeGreaterThan(0);
    };
    await expectError({ ketcher: 'no-such-editor' }, 'NOT_FOUND', '/ketcher');
    await expectError({ ketcher: viewer.viewer.target }, 'NOT_FOUND', '/ketcher');
    await expectError({ ketcher: target, text: 'CCO', format: 'sdf' }, 'INVALID_INPUT', '/ketcher');
    await call(client, 'ketcher_control', { target, action: 'clear_structure' });
    await expectError({ ketcher: target }, 'VALIDATION_FAILED', '/ketcher');
  } finally {
    await client.close();
  }
});
