/**
 * @jest-environment jsdom
 */
/**
 * Fuzz (issue 23): what the page accepts for a Ketcher editor. A real
 * `KetcherModel` (ipywidgets' model base replaced by plain Backbone, as jest
 * cannot load `@jupyter-widgets/base`), in the page's registry and
 * Dispatcher, with a real `KetcherFrame` whose iframe is played by the test:
 * a frame that answers like Indigo, or a hostile or broken one.
 *
 * Per input: the frame starts; then messages arrive from it (its events and
 * replies from the contract's `FrameEvent` / `FrameReply`, valid, near-valid,
 * any JSON; from the frame, from another window, from another origin); then
 * one `ketcher_control` call (molecule text of every format from the real
 * files, cut and damaged, and generated strings; highlights, exports) whose
 * request the frame answers well, with a value of the wrong shape, with a
 * refusal, or after stray messages.
 *
 * Property: the call answers or is refused with a located error of bounded
 * size; the editor's state is always a valid `KetcherState`; a refused call
 * changes no structure, revision or highlight; messages not from the frame's
 * own window and origin, and messages off the contract, change nothing.
 */
jest.mock('@jupyter-widgets/base', () => jest.requireActual('../../__tests__/widgetsBaseStub'));

import fc from 'fast-check';
import { readFileSync } from 'fs';
import { TextDecoder, TextEncoder } from 'util';
import { resolve } from 'path';
import { z } from 'zod';
import { KetcherFormat, KetcherState, LIMITS } from '../../contract';
import type { DispatchResult } from '../../dispatcher/dispatcher';
import { WidgetRegistry } from '../../dispatcher/registry';
import { pageDispatcher } from '../../tools';
import { EditorSnapshot, FRAME_TAG, FrameEvent, FrameReply, FrameRequest } from '../frameMessages';
import { KetcherFrame } from '../ketcherFrameHost';
import { ketcherModelClass, type KetcherModel } from '../ketcherModel';
import { FUZZ_RUNS, anyJson, expectLocated, fromSchema, fuzzParams, fuzzTimeout, mutatedBytes, nearValid } from '../../__tests__/fuzzKit';

// jsdom has no TextEncoder; the tool counts bytes with it.
Object.assign(globalThis, { TextEncoder, TextDecoder });

const schema = (s: z.ZodType) => z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' });

// ---------------------------------------------------------------- molecule text
const data = (...p: string[]) => readFileSync(resolve(__dirname, '../../../tests/data', ...p), 'utf8');
const MOLFILE = data('structures', 'small01.mol');
const SDF = data('structures', 'cdk2.sdf').split('$$$$\n').slice(0, 3).join('$$$$\n') + '$$$$\n';
const KET = JSON.stringify({
  root: { nodes: [{ $ref: 'mol0' }] },
  mol0: {
    type: 'molecule',
    atoms: [
      { label: 'C', location: [0, 0, 0] },
      { label: 'O', location: [1, 0, 0] }
    ],
    bonds: [{ type: 1, atoms: [0, 1] }]
  }
});
const RXN = ['$RXN', '', '  molspace', '', '  1  1', '$MOL', MOLFILE.trimEnd(), '$MOL', MOLFILE.trimEnd(), ''].join('\n');
const SMILES = ['CC(=O)Oc1ccccc1C(=O)O', 'c1ccccc1O', 'C[C@H](N)C(=O)O', '[Na+].[Cl-]', 'CC>>CO', 'InChI=1S/CH4/h1H4'];
const FILES = [MOLFILE, SDF, KET, RXN, ...SMILES].map(t => new TextEncoder().encode(t));

const moleculeText: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...FILES.map(b => new TextDecoder().decode(b))), weight: 2 },
  { arbitrary: mutatedBytes(FILES).map(m => new TextDecoder().decode(m.bytes)), weight: 4 },
  { arbitrary: fc.string({ maxLength: 40 }), weight: 1 },
  { arbitrary: fc.string({ maxLength: 20, unit: 'grapheme' }), weight: 1 },
  {
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '\n',
      '\ud800',
      'C'.repeat(LIMITS.ketcherInlineBytes + 1),
      'é'.repeat(LIMITS.ketcherInlineBytes / 2 + 1)
    ),
    weight: 1
  }
);

// ---------------------------------------------------------------- the call
const call = fc.oneof(
  {
    arbitrary: fc.record(
      {
        action: fc.constant('set_structure'),
        value: moleculeText,
        format: fc.option(KetcherFormat.options.length ? fc.constantFrom(...KetcherFormat.options) : fc.constant(undefined), {
          nil: undefined
        })
      },
      { requiredKeys: ['action', 'value'] }
    ),
    weight: 5
  },
  { arbitrary: fc.record({ action: fc.constant('get_structure'), format: fc.constantFrom(...KetcherFormat.options) }), weight: 2 },
  { arbitrary: fc.record({ action: fc.constant('highlight_atoms'), atoms: fc.array(fc.nat({ max: 12 }), { maxLength: 5 }) }), weight: 2 },
  { arbitrary: fc.constant({ action: 'clear_structure' }), weight: 1 },
  { arbitrary: fc.record({ action: fc.constant('set_structure'), value: moleculeText, expectedRevision: fc.nat({ max: 3 }) }), weight: 1 }
);

// ---------------------------------------------------------------- the frame
const snapshot = fromSchema(schema(EditorSnapshot));
const event = fromSchema(schema(FrameEvent));
const reply = fromSchema(schema(FrameReply));
/** A message from the frame: on or off the contract, from the frame's window, another window, or another origin. */
const stray = fc.record({
  data: fc.oneof(
    { arbitrary: event, weight: 2 },
    { arbitrary: nearValid(event), weight: 3 },
    { arbitrary: reply, weight: 1 },
    { arbitrary: nearValid(reply), weight: 1 },
    { arbitrary: anyJson, weight: 1 }
  ),
  from: fc.constantFrom('frame', 'frame', 'frame', 'other window', 'other origin')
});
/** How the frame answers the call's request. */
const answer = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('valid' as const), snapshot, text: fc.string({ maxLength: 30 }) }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('value' as const), value: fc.oneof(anyJson, nearValid(snapshot)) }), weight: 3 },
  {
    arbitrary: fc.record({
      kind: fc.constant('refuse' as const),
      error: fc.oneof(fc.string({ maxLength: 30 }), fc.constant('x'.repeat(100_000)), fc.constant(undefined))
    }),
    weight: 2
  },
  { arbitrary: fc.record({ kind: fc.constant('stray first' as const), before: fc.array(stray, { maxLength: 3 }), snapshot }), weight: 2 }
);

type Stray = { data: unknown; from: string };
function post(frame: KetcherFrame, m: Stray): void {
  const source = m.from === 'other window' ? window : frame.node.contentWindow;
  const origin = m.from === 'other origin' ? 'https://evil.example' : window.location.origin;
  window.dispatchEvent(new MessageEvent('message', { data: m.data, source, origin }));
}

/** Let posted messages and the calls they start run to the end. */
async function settle(): Promise<void> {
  for (let i = 0; i < 30; i++) {
    await Promise.resolve();
  }
}

const STRUCTURE = ['ket', 'smiles', 'molfile', 'atoms', 'bonds', 'formula', 'structure_revision', 'interaction_revision', 'highlighted'];
const structureOf = (m: KetcherModel) => JSON.stringify(STRUCTURE.map(k => m.get(k)));

const READY_SNAPSHOT = { ket: KET, smiles: 'CO', molfile: null, atoms: 2, bonds: 1, formula: 'C H4 O' };

/** What the editor holds (a valid EditorSnapshot whenever it is a valid KetcherState). */
const holding = (m: KetcherModel) => ({
  ket: m.get('ket'),
  smiles: m.get('smiles'),
  molfile: m.get('molfile'),
  atoms: m.get('atoms'),
  bonds: m.get('bonds'),
  formula: m.get('formula')
});

/**
 * One editor for every run (a model and a frame cost milliseconds; runs
 * follow each other as a person's session would): its state carries over,
 * and each run checks what it changed.
 */
const registry = new WidgetRegistry();
const dispatcher = pageDispatcher(registry);
let model: KetcherModel;
let frame: KetcherFrame;
/** How the frame answers the current run's request. */
let how: { kind: string; [k: string]: unknown } = { kind: 'valid', snapshot: READY_SNAPSHOT, text: 'C' };

function respond(request: FrameRequest): void {
  const ok = (value: unknown) => post(frame, { data: { tag: FRAME_TAG, id: request.id, ok: true, value }, from: 'frame' });
  const valid = (s: unknown) =>
    ok(request.op === 'get' ? (typeof how.text === 'string' ? how.text : 'C') : request.op === 'highlight' ? null : s);
  if (how.kind === 'valid') {
    valid(how.snapshot);
  } else if (how.kind === 'value') {
    ok(how.value);
  } else if (how.kind === 'refuse') {
    post(frame, {
      data: { tag: FRAME_TAG, id: request.id, ok: false, ...(how.error === undefined ? {} : { error: how.error }) },
      from: 'frame'
    });
  } else {
    (how.before as Stray[]).forEach(m => post(frame, m));
    valid(how.snapshot);
  }
}

beforeAll(async () => {
  const services = { registry, dispatcher, files: {}, viewerBudget: {}, resourcePolicy: {} };
  const Model = ketcherModelClass(services as never) as unknown as new (a: object, o: object) => KetcherModel;
  model = new Model({}, { model_id: 'k1', widget_manager: {} });
  frame = new KetcherFrame(() => undefined, 'http://localhost/ketcher/index.html');
  // The frame's window: a jsdom window the test plays, answering each request as `how` says.
  const iframe = document.createElement('iframe');
  document.body.appendChild(iframe);
  const frameWindow = iframe.contentWindow!;
  Object.defineProperty(frame.node, 'contentWindow', { get: () => frameWindow });
  frameWindow.postMessage = ((message: unknown) => {
    const request = FrameRequest.parse(message);
    queueMicrotask(() => respond(request));
  }) as typeof window.postMessage;
  model.attachFrame(frame);
  post(frame, { data: { tag: FRAME_TAG, event: 'ready', ketcher: '3', indigo: '1', snapshot: READY_SNAPSHOT }, from: 'frame' });
  await model.whenLoaded();
  expect(model.get('ready')).toBe(true);
  expect(holding(model)).toEqual({ ...READY_SNAPSHOT, molfile: '' });
});

afterAll(() => frame.dispose());

describe('Ketcher editor inputs (fuzz)', () => {
  it(
    'a hostile or broken frame and any molecule text: answered or refused located; the state stays valid',
    async () => {
      const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
      let answered = 0;
      let refused = 0;
      try {
        await fc.assert(
          fc.asyncProperty(
            fc.array(stray, { maxLength: 4 }),
            call,
            answer,
            fc.constantFrom('agent', 'kernel'),
            async (strays, args, answerAs, source) => {
              how = answerAs;
              const started = structureOf(model);
              // Messages from the frame (or posing as it): only a person's drawing on the contract changes the editor.
              const drawn = strays.filter(
                m => m.from === 'frame' && FrameEvent.safeParse(m.data).success && (m.data as { event: string }).event === 'changed'
              );
              strays.forEach(m => post(frame, m));
              await settle();
              expect(KetcherState.safeParse(model.state()).success).toBe(true);
              if (drawn.length === 0) {
                expect(structureOf(model)).toBe(started);
              }
              model.set({ error: null });

              // One call, its request answered by the frame as drawn.
              const before = structureOf(model);
              let outcome: { ok: true; value: DispatchResult } | { ok: false; error: unknown };
              try {
                outcome = { ok: true, value: await dispatcher.execute('ketcher_control', { target: 'k1', ...args }, { source }) };
              } catch (e) {
                outcome = { ok: false, error: e };
              }
              await settle();
              const state = KetcherState.safeParse(model.state());
              expect(state.success ? null : state.error.issues[0]).toBeNull();
              if (!outcome.ok) {
                refused++;
                expectLocated(outcome.error);
                expect(structureOf(model)).toBe(before);
                return;
              }
              answered++;
              if (args.action === 'set_structure' || args.action === 'clear_structure') {
                // What the editor now holds is what the frame answered, and it was a snapshot.
                expect(
                  EditorSnapshot.safeParse({
                    ...holding(model),
                    smiles: model.get('smiles') || null,
                    molfile: model.get('molfile') || null
                  }).success
                ).toBe(true);
                expect(model.get('structure_revision')).toBe(JSON.parse(before)[6] + 1);
              } else if (args.action === 'get_structure') {
                expect(typeof outcome.value.structuredContent.value).toBe('string');
              }
            }
          ),
          fuzzParams(FUZZ_RUNS)
        );
      } finally {
        warn.mockRestore();
      }
      expect(answered).toBeGreaterThan(FUZZ_RUNS / 10);
      expect(refused).toBeGreaterThan(FUZZ_RUNS / 10);
    },
    fuzzTimeout(60_000)
  );
});
