/**
 * The Ketcher editor frame: one Ketcher (ketcher-react with the standalone
 * Indigo engine) in a document of its own, driven by its parent view through
 * the messages of `../frameMessages.ts` (docs/architecture.md, "Ketcher").
 *
 * Built by `scripts/build-ketcher-frame.mjs` into the extension's static
 * assets (`static/ketcher/`), not into the JupyterLab extension: nothing of
 * Ketcher or Indigo loads until a Ketcher widget is shown. The Indigo worker
 * and its WASM are emitted beside this bundle and resolved from the bundle's
 * own URL, so they load under any `base_url`.
 */
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { Editor } from 'ketcher-react';
import { StandaloneStructServiceProvider } from 'ketcher-standalone/dist/binaryWasm';
import {
  ChemicalMimeType,
  KetSerializer,
  KetcherAsyncEvents,
  SupportedFormat,
  identifyStructFormat,
  prepareStructToRender,
  type Ketcher
} from 'ketcher-core';
import 'ketcher-react/dist/index.css';
import { EditorSnapshot, FRAME_TAG, type FrameRequest, type FrameEvent, type FrameReply, type KetcherFormat } from '../frameMessages';
import { engine, messageOf, serial } from './engineQueue';
import { LIMITS } from '../../contract/limits';
import { Backlog, backlogRefusal } from './backlog';
import { editorRefusal, editorRequest } from './inbox';

/** The bundled Ketcher's version, set by the frame build. */
declare const __KETCHER_VERSION__: string;

/** Quiet time after a person's last edit before it is reported, ms. */
const CHANGE_SETTLE_MS = 150;

let ketcher: Ketcher | null = null;
/** The KET the parent knows this editor holds: changes that lead back to it are not reported. */
let knownKet = '';
let settleTimer: ReturnType<typeof setTimeout> | null = null;
/** Requests that arrived before the engine was ready; run once it is (bounded: see ./backlog.ts). */
const pending = new Backlog<FrameRequest>(LIMITS.ketcherFrameBacklog);

function post(message: FrameEvent | FrameReply): void {
  window.parent.postMessage(message, window.location.origin);
}

async function optional(read: () => Promise<string>): Promise<string | null> {
  try {
    return await engine(read);
  } catch {
    return null;
  }
}

/**
 * The KET converted by Indigo. In macromolecules mode Ketcher's own writers
 * refuse most formats ("SMILES format is not available in macro mode") and
 * its molecules-mode struct is stale, so the frame converts the KET, which
 * Ketcher writes from whichever editor is shown.
 */
async function fromKet(k: Ketcher, outputFormat: ChemicalMimeType): Promise<string> {
  return ketTo(k, await k.getKet(), outputFormat);
}

/** `ket` converted by Indigo to `outputFormat`. */
async function ketTo(k: Ketcher, ket: string, outputFormat: ChemicalMimeType): Promise<string> {
  return (await k.indigo.convert(ket, { inputFormat: ChemicalMimeType.KET, outputFormat })).struct;
}

/** Indigo's gross formula of `ket` (e.g. "C3 H7 N O2"); Ketcher's `calculate` refuses macromolecules mode. */
async function grossFormula(k: Ketcher, ket: string): Promise<string | null> {
  const calc = await engine(() => k.indigo.calculate(ket, { properties: ['gross'] }));
  return typeof calc.gross === 'string' ? calc.gross.replace(/<[^>]*>/g, '') : null;
}

async function snapshot(k: Ketcher): Promise<EditorSnapshot> {
  const ket = await engine(() => k.getKet());
  // In macromolecules mode the drawing is the macromolecules editor's: count it from its KET.
  const struct = macromoleculesMode ? new KetSerializer().deserialize(ket) : k.editor.struct();
  const atoms = struct.atoms.size;
  let formula: string | null = null;
  if (atoms > 0) {
    try {
      formula = await grossFormula(k, ket);
    } catch {
      formula = null;
    }
  }
  const smiles = () => (macromoleculesMode ? fromKet(k, ChemicalMimeType.DaylightSmiles) : k.getSmiles());
  const bonds = struct.bonds.size;
  // Ketcher's own V2000 writer (JavaScript, no Indigo call; what get_structure's 'molfile' returns too)
  // where V2000 can hold the drawing; else Indigo's choice of V2000 or V3000.
  const v2000 = !macromoleculesMode && atoms <= MOLFILE_V2000_MAX && bonds <= MOLFILE_V2000_MAX;
  return EditorSnapshot.parse({
    ket,
    smiles: atoms > 0 ? await optional(smiles) : '',
    molfile: await optional(() => (v2000 ? k.getMolfile('v2000') : k.getMolfile())),
    atoms,
    bonds,
    formula
  });
}

/** Most atoms (and bonds) a V2000 Molfile's counts line holds. */
const MOLFILE_V2000_MAX = 999;

/** Formats Ketcher 3.18 writes in macromolecules mode too; the others are converted from its KET there. */
const MACRO_MODE_WRITERS: ReadonlySet<KetcherFormat> = new Set(['molfile', 'molfile-v3000', 'ket']);

async function read(k: Ketcher, format: KetcherFormat): Promise<string> {
  if (macromoleculesMode && !MACRO_MODE_WRITERS.has(format)) {
    return fromKet(k, INPUT_FORMATS[format]);
  }
  switch (format) {
    case 'smiles':
      return k.getSmiles();
    case 'molfile':
      return k.getMolfile('v2000');
    case 'molfile-v3000':
      return k.getMolfile('v3000');
    case 'ket':
      return k.getKet();
    case 'sdf':
      return k.getSdf();
    case 'smarts':
      return k.getSmarts();
    case 'inchi':
      return k.getInchi();
    case 'cml':
      return k.getCml();
  }
}

/** Indigo's input format for each molspace format name (so a stated format is checked, not guessed). */
const INPUT_FORMATS: Record<KetcherFormat, ChemicalMimeType> = {
  smiles: ChemicalMimeType.DaylightSmiles,
  molfile: ChemicalMimeType.Mol,
  'molfile-v3000': ChemicalMimeType.Mol,
  ket: ChemicalMimeType.KET,
  sdf: ChemicalMimeType.SDF,
  smarts: ChemicalMimeType.DaylightSmarts,
  inchi: ChemicalMimeType.InChI,
  cml: ChemicalMimeType.CML
};

/**
 * The sample a spare frame warms up on: a ring, a stereocentre, N, O and S, so that Indigo's
 * SMILES reader, layout, KET and Molfile writers and gross formula each run once.
 */
const WARM_UP_SMILES = 'C[C@@H](C(=O)O)Nc1ccc(cc1)S(N)(=O)=O';

/**
 * What a `set` and its snapshot run, on {@link WARM_UP_SMILES}, with the editor left as it is (no
 * drawing, no undo step): Indigo compiles its WebAssembly lazily, function by function, and a
 * first call of each path pays for it (docs/benchmarks.md, "a spare frame for the next editor").
 */
async function warmUp(k: Ketcher): Promise<void> {
  await engine(() => k.indigo.convert(WARM_UP_SMILES, { outputFormat: ChemicalMimeType.KET }));
  const struct = await engine(() => prepareStructToRender(WARM_UP_SMILES, k.structService, k));
  const ket = new KetSerializer().serialize(struct);
  await grossFormula(k, ket);
  await engine(() => ketTo(k, ket, ChemicalMimeType.DaylightSmiles));
  await engine(() => ketTo(k, ket, ChemicalMimeType.Mol));
}

/** Indigo's check of `value`: it throws Indigo's own message on a structure it cannot read. */
function check(k: Ketcher, value: string, format: KetcherFormat | null | undefined): Promise<unknown> {
  const inputFormat = format ? INPUT_FORMATS[format] : undefined;
  return engine(() => k.indigo.convert(value, { outputFormat: ChemicalMimeType.KET, ...(inputFormat ? { inputFormat } : {}) }));
}

/**
 * Whether Ketcher's `setMolecule` reads `value` through Indigo itself, so that a separate check
 * would read it twice: a one-line text Ketcher takes for SMILES (Indigo lays it out) where no
 * other format was stated, in the molecules editor. Ketcher reads Molfiles and KET in
 * JavaScript, and its macromolecules editor clears the canvas before it reads: those are
 * checked by Indigo first.
 */
function readByIndigoOnLoad(value: string, format: KetcherFormat | null | undefined): boolean {
  return !macromoleculesMode && (format == null || format === 'smiles') && identifyStructFormat(value) === SupportedFormat.smiles;
}

/**
 * Load `value` into the editor, or throw Indigo's message and leave the editor as it was.
 * The original text is what is loaded: Ketcher lays it out keeping its stereo, which the KET
 * Indigo makes of a SMILES (without coordinates) would not. Ketcher's `setMolecule` reports a
 * failure only as a FAILURE event (its message goes to its log), so where the load is the
 * check ({@link readByIndigoOnLoad}) a failed load is checked again for the message.
 *
 * @returns performance.now() when the check ended (the load's start).
 */
async function load(k: Ketcher, value: string, format: KetcherFormat | null | undefined, t0: number): Promise<number> {
  if (!readByIndigoOnLoad(value, format)) {
    await check(k, value, format);
    const t1 = performance.now();
    measure('check', t0, t1);
    await engine(() => k.setMolecule(value));
    return t1;
  }
  measure('check', t0, t0);
  let failed = false;
  const onFailure = (): void => {
    failed = true;
  };
  k.eventBus.on(KetcherAsyncEvents.FAILURE, onFailure);
  try {
    await engine(() => k.setMolecule(value));
  } finally {
    k.eventBus.removeListener(KetcherAsyncEvents.FAILURE, onFailure);
  }
  if (failed) {
    await check(k, value, format);
    throw new Error(
      "Indigo reads this text, but Ketcher's load of it as SMILES failed (the browser console has Ketcher's log); if it is not SMILES, state its format"
    );
  }
  return t0;
}

/** Ketcher's highlighter (ketcher-react's `Editor.highlights`, not in ketcher-core's Editor type). */
function highlights(k: Ketcher): { clear(): void; create(h: object): void } {
  return (k.editor as unknown as { highlights: { clear(): void; create(h: object): void } }).highlights;
}

/**
 * User timing of the last `set`'s phases (`molspace.ketcher.set.check` / `.load` / `.snapshot`, ms;
 * read by bench/ketcher.mjs): only the last of each is kept.
 */
function measure(phase: 'check' | 'load' | 'snapshot', start: number, end: number = performance.now()): void {
  const name = `molspace.ketcher.set.${phase}`;
  performance.clearMeasures(name);
  performance.measure(name, { start, end });
}

async function answer(k: Ketcher, request: FrameRequest): Promise<void> {
  try {
    let value: unknown;
    if (request.op === 'set') {
      const t0 = performance.now();
      highlights(k).clear();
      if (request.value.trim() === '') {
        k.editor.clear();
      } else {
        const t1 = await load(k, request.value, request.format, t0);
        measure('load', t1);
      }
      const t2 = performance.now();
      const after = await snapshot(k);
      measure('snapshot', t2);
      knownKet = after.ket;
      value = after;
    } else if (request.op === 'get') {
      value = await engine(() => read(k, request.format));
    } else if (request.op === 'snapshot') {
      value = await snapshot(k);
    } else if (request.op === 'warm') {
      await warmUp(k);
      value = null;
    } else {
      const highlighter = highlights(k);
      highlighter.clear();
      if (request.atoms.length) {
        highlighter.create({ atoms: request.atoms, bonds: [], rgroupAttachmentPoints: [], color: request.color });
      }
      value = null;
    }
    post({ tag: FRAME_TAG, id: request.id, ok: true, value });
  } catch (e) {
    post({ tag: FRAME_TAG, id: request.id, ok: false, error: messageOf(e) });
  }
}

function onChange(): void {
  if (settleTimer !== null) {
    clearTimeout(settleTimer);
  }
  settleTimer = setTimeout(() => {
    settleTimer = null;
    const k = ketcher;
    if (!k) {
      return;
    }
    // The KET alone first: a mode switch that changed nothing stops here, before Indigo is asked.
    void serial(async () => ((await engine(() => k.getKet())) === knownKet ? null : snapshot(k))).then(
      s => {
        if (s && s.ket !== knownKet) {
          knownKet = s.ket;
          post({ tag: FRAME_TAG, event: 'changed', snapshot: s });
        }
      },
      () => undefined
    );
  }, CHANGE_SETTLE_MS);
}

window.addEventListener('message', (event: MessageEvent) => {
  const request = editorRequest(event, window.parent, window.location.origin);
  if (!request) {
    // Ours but unreadable (a page of another build): refused at once, located, not left to time out.
    const refusal = editorRefusal(event, window.parent, window.location.origin);
    if (refusal) {
      post(refusal);
    }
    return;
  }
  const k = ketcher;
  if (k) {
    void serial(() => answer(k, request));
  } else if (!pending.offer(request)) {
    post(backlogRefusal(request.id, pending.bound));
  }
});

async function started(k: Ketcher): Promise<void> {
  // The engine answers once its worker and WASM have loaded: a first conversion proves both.
  const info = await serial(() => engine(() => k.indigo.info())).catch(() => null);
  ketcher = k;
  const first = await serial(() => snapshot(k));
  knownKet = first.ket;
  k.changeEvent.add(onChange);
  post({
    tag: FRAME_TAG,
    event: 'ready',
    ketcher: __KETCHER_VERSION__,
    indigo: String(info?.indigoVersion ?? 'unknown'),
    snapshot: first
  });
  for (const request of pending.drain()) {
    void serial(() => answer(k, request));
  }
}

/**
 * Ketcher's mode switch (ketcher-react's Editor) sets `window.isPolymerEditorTurnedOn`, and
 * moves the macromolecules editor's drawing into the molecules editor without a change event
 * (Ketcher's `changeEvent` comes from the molecules editor's history only). Each switch is
 * therefore treated as a possible change: what a person drew in macromolecules mode is
 * reported once they switch back.
 */
let macromoleculesMode = false;
Object.defineProperty(window, 'isPolymerEditorTurnedOn', {
  configurable: true,
  get: () => macromoleculesMode,
  set: (on: unknown) => {
    macromoleculesMode = Boolean(on);
    onChange();
  }
});

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    createElement(Editor, {
      staticResourcesUrl: new URL('.', window.location.href).href,
      structServiceProvider: new StandaloneStructServiceProvider(),
      errorHandler: (message: string) => console.warn('molspace Ketcher:', message),
      disableMacromoleculesEditor: false,
      onInit: (k: Ketcher) => {
        // Ketcher's own UI reads its instance from `window.ketcher` (settings, dialogs).
        (window as unknown as { ketcher: Ketcher }).ketcher = k;
        started(k).catch(e => post({ tag: FRAME_TAG, event: 'failed', error: messageOf(e) }));
      }
    })
  );
}
