/**
 * @jest-environment jsdom
 */
/**
 * Fuzz (issue 23): the page reading what the Ketcher frames answer. A real
 * `KetcherFrame` (`../ketcherFrameHost.ts`) and the page's real depiction
 * reader (`../../panel/depictor.ts`), each with its iframe played by the
 * test: requests of every kind are sent, then messages arrive (the contract's
 * `FrameReply` / `FrameEvent`, `DepictReply` / `ConvertReply` / `DepictEvent`,
 * valid and near-valid, naming the requests in flight or other ids; wrong
 * tags, huge strings, odd unicode, prototype keys, wrong types, any JSON; from
 * the frame, another window, no window, another origin), then the frame
 * answers each request (well, with a value off its contract, with a refusal,
 * with the other kind of reply, with too few or too many items).
 *
 * Property: no throw escapes; every request settles, decided by the first
 * reply of its kind from the frame's own window and origin that names it:
 * an editor request gets a value of its `FrameValue` schema, a located
 * VALIDATION_FAILED (a value off its contract), the frame's own located
 * refusal as it was sent (`located`: a request it could not read) or the
 * editor's refusal (`FrameError`, which the model locates); a depiction
 * request gets one `Depiction` per SMILES and a conversion one `Conversion`
 * per molfile, or the located refusal the frame sent naming it.
 * Everything else is ignored and changes nothing: no other request, no
 * change report (only a `changed` event from the frame is one), the cache.
 */
// The cache's bound is tested on its own (src/panel/__tests__/depictor.spec.ts); here every depiction stays, so "a SMILES the page had depicted keeps its depiction" holds over all runs.
jest.mock('../../contract/limits', () => {
  const actual = jest.requireActual('../../contract/limits');
  return { ...actual, LIMITS: { ...actual.LIMITS, depictCacheEntries: Number.MAX_SAFE_INTEGER } };
});

import fc from 'fast-check';
import { z } from 'zod';
import { FUZZ_RUNS, anyJson, expectLocated, fromSchema, fuzzParams, fuzzTimeout, nearValid } from '../../__tests__/fuzzKit';
import { LocatedError } from '../../contract/errors';
import { depictSmiles, molfilesToSmiles } from '../../panel/depictor';
import {
  Conversion,
  ConvertReply,
  ConvertRequest,
  DEPICT_TAG,
  DepictEvent,
  DepictReply,
  DepictRequest,
  Depiction
} from '../depictMessages';
import { EditorSnapshot, FRAME_TAG, FrameEvent, FrameReply, FrameRequest, FrameValue, type FrameOp } from '../frameMessages';
import { FrameError, KetcherFrame } from '../ketcherFrameHost';

const schema = (s: z.ZodType) => z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' });

// ---------------------------------------------------------------- odd pieces
const oddText = fc.oneof(
  fc.string({ maxLength: 16, unit: 'binary' }),
  fc.string({ maxLength: 8, unit: 'grapheme' }),
  fc.constantFrom('', '\u0000', '\ud800', '\u202e', '\ufeff', 'e\u0301', '😀', 'x'.repeat(1_000_000))
);
const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: anyJson, weight: 3 },
  { arbitrary: oddText, weight: 2 },
  { arbitrary: fc.constantFrom(NaN, Infinity, -0, undefined, 2 ** 53 + 1), weight: 1 },
  { arbitrary: fc.bigInt(), weight: 1 },
  { arbitrary: fc.array(anyJson, { maxLength: 3 }).map(a => new Map(a.map((v, i) => [i, v]))), weight: 1 }
);
const wrongTag = fc.oneof(
  fc.constantFrom(FRAME_TAG, DEPICT_TAG, 'molspace-ketcher/2', 'MOLSPACE-DEPICT/1', `${FRAME_TAG}\u200b`, `${DEPICT_TAG} `, ''),
  oddText
);
const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'];

/** Messages about `valid`: as they are, near-valid, a field odd, a prototype key, another tag; `others`; any value. */
function messages(valid: fc.Arbitrary<unknown>[], others: fc.Arbitrary<unknown>[]): fc.Arbitrary<unknown> {
  const ours = fc.oneof(...valid);
  const asObject = (m: unknown) => (typeof m === 'object' && m !== null && !Array.isArray(m) ? (m as Record<string, unknown>) : null);
  return fc.oneof(
    { arbitrary: ours, weight: 5 },
    { arbitrary: nearValid(ours), weight: 4 },
    {
      arbitrary: fc
        .tuple(ours, fc.constantFrom('tag', 'id', 'ok', 'value', 'error', 'event', 'snapshot', 'images', 'smiles'), oddValue)
        .map(([m, k, v]) => (asObject(m) ? { ...asObject(m), [k]: v } : m)),
      weight: 2
    },
    {
      arbitrary: fc.tuple(ours, fc.constantFrom(...PROTO_KEYS), oddValue).map(([m, k, v]) => {
        const o = asObject(m);
        if (!o) {
          return m;
        }
        const out = { ...o };
        Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
        return out;
      }),
      weight: 1
    },
    { arbitrary: fc.tuple(ours, wrongTag).map(([m, tag]) => (asObject(m) ? { ...asObject(m), tag } : m)), weight: 2 },
    { arbitrary: fc.oneof(...others), weight: 2 },
    { arbitrary: oddValue, weight: 1 }
  );
}

type From = 'frame' | 'other window' | 'no window' | 'other origin';
const from = fc.constantFrom<From>('frame', 'frame', 'frame', 'other window', 'no window', 'other origin');
/** A message, the request it names (an index into those in flight; null: its own id), where it comes from. */
const noise = (data: fc.Arbitrary<unknown>) => fc.record({ data, slot: fc.option(fc.nat(), { nil: null }), from });
type Noise = { data: unknown; slot: number | null; from: From };

/** `n.data` naming the request in flight its slot picks. */
function naming(n: Noise, ids: number[]): unknown {
  const d = n.data;
  if (n.slot === null || ids.length === 0 || typeof d !== 'object' || d === null || Array.isArray(d)) {
    return d;
  }
  return { ...d, id: ids[n.slot % ids.length] };
}

function deliver(frameWindow: Window, data: unknown, f: From): void {
  const source = f === 'other window' ? window : f === 'no window' ? null : frameWindow;
  const origin = f === 'other origin' ? 'https://evil.example' : window.location.origin;
  window.dispatchEvent(new MessageEvent('message', { data, source, origin }));
}

/** Let posted messages and what they start run to the end. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) {
    await Promise.resolve();
  }
}

// ================================================================ the editor frame
describe('Ketcher editor frame: its answers as the page reads them (fuzz)', () => {
  const READY = { ketcher: '3', indigo: '1', snapshot: { ket: '{}', smiles: '', molfile: null, atoms: 0, bonds: 0, formula: null } };
  const changed: EditorSnapshot[] = [];
  const sent: unknown[] = [];
  let frame: KetcherFrame;
  let frameWindow: Window;

  beforeAll(async () => {
    frame = new KetcherFrame(s => changed.push(s), 'http://localhost/ketcher/index.html');
    const iframe = document.createElement('iframe');
    document.body.appendChild(iframe);
    frameWindow = iframe.contentWindow!;
    Object.defineProperty(frame.node, 'contentWindow', { get: () => frameWindow });
    frameWindow.postMessage = ((message: unknown) => sent.push(message)) as typeof window.postMessage;
    deliver(frameWindow, { tag: FRAME_TAG, event: 'ready', ...READY }, 'frame');
    await expect(frame.ready).resolves.toEqual(READY);
  });

  afterAll(() => frame.dispose());

  const op: fc.Arbitrary<FrameOp> = fromSchema(schema(FrameRequest)).map(r => {
    const { tag: _tag, id: _id, ...rest } = r as Record<string, unknown>;
    return rest as FrameOp;
  });
  const snapshot = fromSchema(schema(EditorSnapshot));
  const stray = messages(
    [
      fromSchema(schema(FrameReply)),
      fromSchema(schema(FrameEvent)),
      snapshot.map(s => ({ tag: FRAME_TAG, event: 'changed', snapshot: s }))
    ],
    [fromSchema(schema(DepictReply)), fromSchema(schema(FrameRequest))]
  );
  /** The frame's own answer to a request. */
  const answer = fc.oneof(
    {
      arbitrary: fc.record({ ok: fc.constant(true), value: fc.oneof(snapshot, fc.string({ maxLength: 20 }), fc.constant(null)) }),
      weight: 4
    },
    { arbitrary: fc.record({ ok: fc.constant(true), value: fc.oneof(oddValue, nearValid(snapshot)) }), weight: 2 },
    {
      arbitrary: fc.record({
        ok: fc.constant(false),
        error: fc.option(fc.oneof(oddText, fc.constant('y'.repeat(100_000))), { nil: undefined })
      }),
      weight: 2
    }
  );

  it(
    'every request settles as the first reply naming it says; nothing else changes anything',
    async () => {
      const counts = { resolved: 0, offContract: 0, refused: 0, located: 0, messages: 0 };
      await fc.assert(
        fc.asyncProperty(
          fc.array(op, { minLength: 1, maxLength: 3 }),
          fc.array(noise(stray), { maxLength: 6 }),
          fc.array(answer, { minLength: 3, maxLength: 3 }),
          async (ops, strays, answers) => {
            const changedBefore = changed.length;
            const sentBefore = sent.length;
            const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown } | null)[] = ops.map(() => null);
            ops.forEach((o, i) =>
              frame.request(o, `/where/${i}`).then(
                value => (outcomes[i] = { ok: true, value }),
                error => (outcomes[i] = { ok: false, error })
              )
            );
            await settle();
            // What the page sent: one schema-valid request per op, in order.
            const requests = sent.slice(sentBefore).map(m => FrameRequest.parse(m));
            expect(requests.map(r => r.op)).toEqual(ops.map(o => o.op));
            const ids = requests.map(r => r.id);

            // The oracle: the first reply from the frame naming each request; the frame's `changed` events.
            const deciding = new Map<number, FrameReply>();
            let changes = 0;
            for (const s of strays) {
              const data = naming(s, ids);
              deliver(frameWindow, data, s.from);
              counts.messages++;
              if (s.from !== 'frame') {
                continue;
              }
              const reply = FrameReply.safeParse(data);
              if (reply.success && ids.includes(reply.data.id) && !deciding.has(reply.data.id)) {
                deciding.set(reply.data.id, reply.data);
              }
              const event = FrameEvent.safeParse(data);
              if (!reply.success && event.success && event.data.event === 'changed') {
                changes++;
              }
            }
            await settle();
            ids.forEach((id, i) => {
              const a = answers[i];
              const reply = { tag: FRAME_TAG, id, ...a };
              deliver(frameWindow, reply, 'frame');
              if (!deciding.has(id)) {
                deciding.set(id, FrameReply.parse(reply));
              }
            });
            await settle();

            expect(changed.length - changedBefore).toBe(changes);
            ops.forEach((o, i) => {
              const got = outcomes[i];
              expect(got).not.toBeNull();
              const reply = deciding.get(ids[i])!;
              if (!reply.ok && reply.located) {
                // The frame's own refusal: the page rejects with it as it was sent.
                counts.located++;
                expect(got!.ok).toBe(false);
                const e = expectLocated((got as { error: unknown }).error);
                expect(e.toJSON()).toEqual(LocatedError.parse(e.toJSON()));
                expect(e.code).toBe(reply.located.code);
                expect(e.where).toBe(reply.located.where);
                expect(e.message).toBe(reply.located.message);
                return;
              }
              if (!reply.ok) {
                counts.refused++;
                expect(got!.ok).toBe(false);
                const e = (got as { error: unknown }).error;
                expect(e).toBeInstanceOf(FrameError);
                expect((e as FrameError).message).toBe(reply.error ?? 'the editor refused the request');
                return;
              }
              const value = (FrameValue[o.op] as z.ZodType).safeParse(reply.value);
              if (value.success) {
                counts.resolved++;
                expect(got).toEqual({ ok: true, value: value.data });
              } else {
                counts.offContract++;
                expect(got!.ok).toBe(false);
                const e = expectLocated((got as { error: unknown }).error, ['VALIDATION_FAILED']);
                expect(e.where).toBe(`/where/${i}`);
              }
            });
            // The editor stays started as it was.
            await expect(frame.ready).resolves.toEqual(READY);
          }
        ),
        fuzzParams(FUZZ_RUNS)
      );
      console.log(
        `editor frame replies: ${FUZZ_RUNS} runs, ${counts.messages} stray messages; requests: ${counts.resolved} taken, ${counts.offContract} off contract, ${counts.refused} refused, ${counts.located} refused located by the frame`
      );
      expect(counts.resolved).toBeGreaterThan(FUZZ_RUNS / 10);
      expect(counts.offContract).toBeGreaterThan(FUZZ_RUNS / 10);
      expect(counts.refused).toBeGreaterThan(FUZZ_RUNS / 10);
      expect(counts.located).toBeGreaterThan(FUZZ_RUNS / 100);
    },
    fuzzTimeout(90_000)
  );
});

// ================================================================ the depiction frame
describe('Depiction frame: its answers as the page reads them (fuzz)', () => {
  const sent: unknown[] = [];
  let frameWindow: Window;
  /** What each SMILES was depicted as, once the page has it (the page caches depictions). */
  const known = new Map<string, Depiction>();

  beforeAll(async () => {
    const first = depictSmiles(['C']);
    const node = document.querySelector('iframe.molspace-depict-frame') as HTMLIFrameElement;
    frameWindow = node.contentWindow!;
    frameWindow.postMessage = ((message: unknown) => sent.push(message)) as typeof window.postMessage;
    deliver(frameWindow, { tag: DEPICT_TAG, event: 'ready', indigo: '1' }, 'frame');
    await settle();
    const r = DepictRequest.parse(sent[0]);
    deliver(frameWindow, { tag: DEPICT_TAG, id: r.id, images: [{ svg: 'PHN2Zy8+', error: null }] }, 'frame');
    await expect(first).resolves.toEqual([{ svg: 'PHN2Zy8+', error: null }]);
    known.set('C', { svg: 'PHN2Zy8+', error: null });
  });

  const item = fc.oneof(fc.constantFrom('C', 'CCO', 'c1ccccc1', '[Na+].[Cl-]', '__proto__', 'constructor', ''), oddText);
  const call = fc.record({ kind: fc.constantFrom('depict' as const, 'convert' as const), items: fc.array(item, { maxLength: 5 }) });
  const stray = messages(
    [fromSchema(schema(DepictReply)), fromSchema(schema(ConvertReply)), fromSchema(schema(DepictEvent))],
    [fromSchema(schema(FrameReply)), fromSchema(schema(ConvertRequest))]
  );
  const depiction = fromSchema(schema(Depiction));
  const conversion = fromSchema(schema(Conversion));
  /** How the frame answers a request: its kind of reply (item count off by -2..2), the other kind, off its schema. */
  const answer = fc.record({
    how: fc.constantFrom('right', 'right', 'right', 'other kind', 'off schema'),
    extra: fc.integer({ min: -2, max: 2 }),
    images: fc.array(depiction, { maxLength: 8 }),
    smiles: fc.array(conversion, { maxLength: 8 }),
    junk: oddValue
  });
  type Answer = { how: string; extra: number; images: unknown[]; smiles: unknown[]; junk: unknown };

  function reply(request: { id: number; smiles?: string[]; molfiles?: string[] }, a: Answer, kind: 'depict' | 'convert'): unknown {
    const n = Math.max(0, (request.smiles ?? request.molfiles ?? []).length + a.extra);
    const fill = <T>(pool: T[], fallback: T) => Array.from({ length: n }, (_, i) => pool[i] ?? fallback);
    const images = { tag: DEPICT_TAG, id: request.id, images: fill(a.images, { svg: 'PHN2Zy8+', error: null }) };
    const smiles = { tag: DEPICT_TAG, id: request.id, smiles: fill(a.smiles, { smiles: 'C', error: null }) };
    if (a.how === 'off schema') {
      return { tag: DEPICT_TAG, id: request.id, [kind === 'depict' ? 'images' : 'smiles']: [a.junk] };
    }
    return (a.how === 'right') === (kind === 'depict') ? images : smiles;
  }

  it(
    'every call gets one depiction or conversion per item; stray messages change nothing',
    async () => {
      const counts = { depicted: 0, converted: 0, requests: 0, messages: 0, located: 0 };
      await fc.assert(
        fc.asyncProperty(
          fc.array(call, { minLength: 1, maxLength: 3 }),
          fc.array(noise(stray), { maxLength: 6 }),
          fc.array(answer, { minLength: 1, maxLength: 4 }),
          async (calls, strays, answers) => {
            const outcomes: ({ ok: true; value: unknown[] } | { ok: false; error: unknown } | null)[] = calls.map(() => null);
            const knownBefore = new Map(
              calls.flatMap(c => (c.kind === 'depict' ? c.items : [])).flatMap(s => (known.has(s) ? [[s, known.get(s)!]] : []))
            );
            calls.forEach((c, i) =>
              (c.kind === 'depict' ? depictSmiles(c.items) : molfilesToSmiles(c.items)).then(
                value => (outcomes[i] = { ok: true, value }),
                error => (outcomes[i] = { ok: false, error })
              )
            );
            let seen = sent.length;
            await settle();
            const inFlight = () =>
              sent.slice(seen).map(m => {
                const convert = ConvertRequest.safeParse(m);
                return convert.success
                  ? { kind: 'convert' as const, ...convert.data }
                  : { kind: 'depict' as const, ...DepictRequest.parse(m) };
              });
            // Stray messages while the first requests are in flight.
            const ids = inFlight().map(r => r.id);
            /** The located refusals the frame sent naming a request in flight: a call may end with one of them. */
            const refusals = new Set<string>();
            for (const s of strays) {
              const data = naming(s, ids);
              deliver(frameWindow, data, s.from);
              counts.messages++;
              const refused = s.from === 'frame' ? (DepictReply.safeParse(data).data ?? ConvertReply.safeParse(data).data) : undefined;
              if (refused?.located && ids.includes(refused.id)) {
                refusals.add(`${refused.located.code} ${refused.located.message}`);
              }
            }
            await settle();
            // The frame answers each request as drawn, then well (the page ignores an answer to a request it no longer waits for).
            for (let round = 0; round < 4 && outcomes.some(o => o === null); round++) {
              const requests = inFlight();
              seen = sent.length;
              counts.requests += requests.length;
              requests.forEach((r, i) => {
                deliver(frameWindow, reply(r, answers[i % answers.length], r.kind), 'frame');
                deliver(frameWindow, reply(r, { how: 'right', extra: 0, images: [], smiles: [], junk: null }, r.kind), 'frame');
              });
              await settle();
            }
            calls.forEach((c, i) => {
              const got = outcomes[i];
              expect(got).not.toBeNull();
              if (!got!.ok) {
                const e = expectLocated(got!.error);
                expect(refusals.has(`${e.code} ${e.message}`)).toBe(true);
                counts.located++;
                return;
              }
              const values = (got as { value: unknown[] }).value;
              expect(values).toHaveLength(c.items.length);
              const item = c.kind === 'depict' ? Depiction : Conversion;
              values.forEach(v => {
                const checked = item.safeParse(v);
                expect(checked.success ? null : { v, issue: checked.error.issues[0] }).toBeNull();
              });
              if (c.kind === 'depict') {
                counts.depicted += values.length;
                c.items.forEach((s, j) => {
                  // A SMILES the page had depicted keeps its depiction; the same SMILES gets the same one.
                  if (knownBefore.has(s)) {
                    expect(values[j]).toEqual(knownBefore.get(s));
                  }
                  expect(values[j]).toEqual(values[c.items.indexOf(s)]);
                });
              } else {
                counts.converted += values.length;
              }
            });
            // What the page holds now; a SMILES two calls of this run asked for may hold either's answer.
            const askedBy = new Map<string, number>();
            calls.forEach(c => c.kind === 'depict' && new Set(c.items).forEach(s => askedBy.set(s, (askedBy.get(s) ?? 0) + 1)));
            calls.forEach((c, i) => {
              if (c.kind === 'depict' && outcomes[i]!.ok) {
                c.items.forEach((s, j) => {
                  if (!knownBefore.has(s)) {
                    if (askedBy.get(s) === 1) {
                      known.set(s, (outcomes[i] as { value: Depiction[] }).value[j]);
                    } else {
                      known.delete(s);
                    }
                  }
                });
              }
            });
          }
        ),
        fuzzParams(FUZZ_RUNS)
      );
      console.log(
        `depiction replies: ${FUZZ_RUNS} runs, ${counts.requests} requests answered, ${counts.messages} stray messages; ${counts.depicted} depictions, ${counts.converted} conversions, ${counts.located} calls refused located by the frame`
      );
      expect(counts.depicted).toBeGreaterThan(FUZZ_RUNS / 10);
      expect(counts.converted).toBeGreaterThan(FUZZ_RUNS / 10);
      expect(counts.located).toBeGreaterThan(FUZZ_RUNS / 100);
    },
    fuzzTimeout(90_000)
  );
});
