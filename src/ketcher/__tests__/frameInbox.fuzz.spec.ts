/**
 * Fuzz (issue 23): what the Ketcher frames take from their parent page. The
 * editor frame's and the depiction frame's message gates (`../frame/inbox.ts`,
 * the first step of each frame's `message` listener) and the depiction frame's
 * work on a request (`../frame/depictWork.ts`) with a stand-in Indigo engine;
 * Ketcher and Indigo themselves run only in Galata.
 *
 * Inputs: the contract's `FrameRequest`, `DepictRequest` and `ConvertRequest`
 * (valid, near-valid), the other frame's messages and both frames' replies and
 * events, wrong tags (another version, case, invisible characters), huge
 * strings, odd unicode (lone surrogates, bidi, NUL), prototype keys
 * (`__proto__`, `constructor`), wrong types and what structured clone carries
 * beside JSON (NaN, BigInt, Map, Set, Date, typed arrays, sparse arrays,
 * cycles), each as `postMessage` delivers it (a structured clone), from the
 * parent, another window or no window, of this or another origin.
 *
 * Property: no throw escapes; a message is taken only from the parent window
 * and the frame's own origin, and only when it is a request of the schema; one
 * from there that carries the frame's tag and a finite id but fails the schema
 * is refused with a located reply (INVALID_INPUT at the JSON pointer of its
 * first schema issue, fix: reload the page) that the page reads as a failure,
 * and anything else is ignored (not ours); what is taken is a fresh, schema-valid
 * request with no keys beside the schema's; the message itself and
 * `Object.prototype` are left as they were. The depiction frame answers
 * every request it took with one reply that the page's reader accepts (one
 * depiction or conversion per item, in order), whatever the engine answers or
 * throws.
 */
// ketcher-core's index loads its editor (d3, ESM) that jest does not read; the work needs only this name.
jest.mock('ketcher-core', () => ({ ChemicalMimeType: { DaylightSmiles: 'chemical/x-daylight-smiles' } }));

import fc from 'fast-check';
import { isDeepStrictEqual } from 'util';
import { z } from 'zod';
import { ConvertReply, ConvertRequest, DEPICT_BATCH, DEPICT_TAG, DepictEvent, DepictReply, DepictRequest } from '../depictMessages';
import { FRAME_TAG, FrameEvent, FrameReply, FrameRequest } from '../frameMessages';
import { answerDepict, type DepictService } from '../frame/depictWork';
import {
  MISFIT_FIX,
  depictRefusal,
  depictRequest,
  editorRefusal,
  editorRequest,
  type DepictFrameRequest,
  type Inbound
} from '../frame/inbox';
import { LocatedError } from '../../contract/errors';
import { FUZZ_RUNS, anyJson, fromSchema, fuzzParams, fuzzTimeout, nearValid } from '../../__tests__/fuzzKit';

const schema = (s: z.ZodType) => z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' });

const ORIGIN = 'http://localhost:8888';
/** The frame's parent window, and another one (identity is all the gates compare). */
const PARENT = { name: 'parent' };
const OTHER = { name: 'other window' };

// ---------------------------------------------------------------- odd pieces
const HUGE = 'x'.repeat(1_000_000);
const oddText = fc.oneof(
  fc.string({ maxLength: 20, unit: 'binary' }),
  fc.string({ maxLength: 10, unit: 'grapheme' }),
  fc.constantFrom(
    '',
    '\u0000',
    '\ud800',
    '\udfff\ud800',
    '\u202e\u2066',
    '\ufeff',
    'é',
    'e\u0301',
    '😀'.repeat(50),
    HUGE,
    'C'.repeat(100_001)
  )
);
/** A tag that is almost one of ours. */
const wrongTag = fc.oneof(
  fc.constantFrom(
    FRAME_TAG,
    DEPICT_TAG,
    'molspace-ketcher/2',
    'molspace-ketcher/0',
    'MOLSPACE-KETCHER/1',
    ` ${FRAME_TAG}`,
    `${FRAME_TAG}\u200b`,
    `${FRAME_TAG}\u0000`,
    FRAME_TAG.normalize('NFD').replace('/', '\u2215'),
    'molspace-depict/2',
    'molspace',
    ''
  ),
  oddText,
  anyJson
);
/** Values structured clone carries that JSON does not. */
const cloneOnly: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(NaN, Infinity, -Infinity, -0, undefined, 2 ** 53 + 1, Number.MIN_VALUE),
  fc.bigInt(),
  fc.date({ noInvalidDate: false }),
  fc.uint8Array({ maxLength: 8 }),
  fc.array(anyJson, { maxLength: 3 }).map(a => new Set(a)),
  fc.array(fc.tuple(anyJson, anyJson), { maxLength: 3 }).map(a => new Map(a)),
  fc.nat({ max: 1000 }).map(n => {
    const sparse: unknown[] = [];
    sparse[n] = 'C';
    return sparse;
  }),
  fc.constant(null).map(() => {
    const cycle: Record<string, unknown> = { tag: FRAME_TAG, id: 1, op: 'snapshot' };
    cycle.self = cycle;
    return cycle;
  }),
  fc.constant(null).map(() => new Error('not a request')),
  fc.constant(null).map(() => /molspace/g)
);
const oddValue = fc.oneof({ arbitrary: anyJson, weight: 3 }, { arbitrary: oddText, weight: 2 }, { arbitrary: cloneOnly, weight: 2 });

/** `base` with a prototype key or an inherited-looking key added, as JSON.parse or a clone makes it (own properties). */
const withProtoKeys = (base: fc.Arbitrary<unknown>) =>
  fc
    .tuple(base, fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'), oddValue)
    .map(([b, key, v]) => {
      if (typeof b !== 'object' || b === null || Array.isArray(b)) {
        return b;
      }
      const out = JSON.parse(JSON.stringify(b, (_k, x) => (typeof x === 'bigint' ? String(x) : x)) ?? 'null') as Record<string, unknown>;
      Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
      return out;
    });

/** `message` with one field set to an odd value (wrong type, huge, odd unicode, a clone-only value). */
const withOddField = (base: fc.Arbitrary<unknown>) =>
  fc
    .tuple(base, fc.constantFrom('tag', 'id', 'op', 'value', 'format', 'atoms', 'color', 'smiles', 'molfiles'), oddValue)
    .map(([b, key, v]) => (typeof b === 'object' && b !== null && !Array.isArray(b) ? { ...b, [key]: v } : b));

function messages(valid: fc.Arbitrary<unknown>[], others: fc.Arbitrary<unknown>[]): fc.Arbitrary<unknown> {
  const ours = fc.oneof(...valid);
  return fc.oneof(
    { arbitrary: ours, weight: 4 },
    { arbitrary: nearValid(ours), weight: 4 },
    { arbitrary: withOddField(ours), weight: 2 },
    { arbitrary: withProtoKeys(ours), weight: 1 },
    { arbitrary: fc.tuple(ours, wrongTag).map(([m, tag]) => ({ ...(m as object), tag })), weight: 2 },
    { arbitrary: fc.oneof(...others), weight: 2 },
    { arbitrary: oddValue, weight: 1 }
  );
}

/** As `postMessage` delivers `data`: a structured clone (what cannot be cloned is never delivered; kept as is). */
function delivered(data: unknown): unknown {
  try {
    return structuredClone(data);
  } catch {
    return data;
  }
}

const from = fc.constantFrom(
  { source: PARENT, origin: ORIGIN },
  { source: PARENT, origin: ORIGIN },
  { source: PARENT, origin: ORIGIN },
  { source: OTHER, origin: ORIGIN },
  { source: null, origin: ORIGIN },
  { source: PARENT, origin: 'https://evil.example' },
  { source: PARENT, origin: 'null' },
  { source: PARENT, origin: `${ORIGIN}/` },
  { source: PARENT, origin: '' }
);

const PROTO_KEYS = Object.getOwnPropertyNames(Object.prototype).sort().join();

/** No key beside the schema's (zod strips unknown keys), and a plain object. */
/** The JSON pointer of a zod issue's path. */
const pointer = (path: readonly PropertyKey[]) => path.map(p => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

/** Is `data` tagged `tag` with an id a reply can name (the frame answers it, located, when it fails the schema)? */
function refusable(data: unknown, tag: string): data is { id: number } {
  const d = data as { tag?: unknown; id?: unknown } | null;
  return typeof d === 'object' && d !== null && d.tag === tag && typeof d.id === 'number' && Number.isFinite(d.id);
}

/** `located` is the located refusal of a request that failed its schema with `issues`. */
function expectMisfit(located: unknown, issues: readonly { path: PropertyKey[]; message: string }[]): void {
  const l = LocatedError.parse(located);
  expect(l.code).toBe('INVALID_INPUT');
  expect(l.where).toBe(pointer(issues[0].path).slice(0, 1000));
  expect(l.fix).toBe(MISFIT_FIX);
  expect(l.message).toContain(issues[0].message.slice(0, 100));
}

function expectPlain(taken: object, keys: readonly string[]): void {
  expect(Object.getPrototypeOf(taken)).toBe(Object.prototype);
  expect(Object.keys(taken).filter(k => !keys.includes(k))).toEqual([]);
}

const REQUEST_KEYS: Record<FrameRequest['op'], readonly string[]> = {
  set: ['tag', 'id', 'op', 'value', 'format'],
  get: ['tag', 'id', 'op', 'format'],
  snapshot: ['tag', 'id', 'op'],
  highlight: ['tag', 'id', 'op', 'atoms', 'color'],
  warm: ['tag', 'id', 'op']
};

describe('Ketcher frames: messages from the parent page (fuzz)', () => {
  afterAll(() => {
    expect(Object.getOwnPropertyNames(Object.prototype).sort().join()).toBe(PROTO_KEYS);
  });

  it(
    "the editor frame takes only its parent's schema-valid requests, and changes nothing",
    () => {
      const input = messages(
        [fromSchema(schema(FrameRequest))],
        [
          fromSchema(schema(FrameReply)),
          fromSchema(schema(FrameEvent)),
          fromSchema(schema(DepictRequest)),
          fromSchema(schema(ConvertRequest))
        ]
      );
      let taken = 0;
      let refusedOurs = 0;
      let ignored = 0;
      fc.assert(
        fc.property(input, from, (raw, sender) => {
          const data = delivered(raw);
          const copy = delivered(data);
          const event: Inbound = { ...sender, data };
          const request = editorRequest(event, PARENT, ORIGIN);
          const refusal = editorRefusal(event, PARENT, ORIGIN);
          expect(isDeepStrictEqual(data, copy)).toBe(true);
          const parsed = FrameRequest.safeParse(data);
          const fromParent = sender.source === PARENT && sender.origin === ORIGIN;
          if (!fromParent || !parsed.success) {
            expect(request).toBeNull();
            if (fromParent && refusable(data, FRAME_TAG)) {
              // Ours but unreadable: refused at once, located, in the reply the page reads for failures.
              const reply = FrameReply.parse(refusal);
              expect(reply).toMatchObject({ tag: FRAME_TAG, id: data.id, ok: false });
              expectMisfit(reply.located, parsed.error!.issues);
              expect(reply.error).toContain(reply.located!.where);
              refusedOurs++;
            } else {
              expect(refusal).toBeNull();
            }
            ignored++;
            return;
          }
          taken++;
          expect(refusal).toBeNull();
          expect(request).not.toBeNull();
          expect(request).not.toBe(data);
          expect(request).toEqual(parsed.data);
          expect(FrameRequest.safeParse(request).success).toBe(true);
          expect(request!.tag).toBe(FRAME_TAG);
          expectPlain(request!, REQUEST_KEYS[request!.op]);
          expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        }),
        fuzzParams(FUZZ_RUNS)
      );
      console.log(
        `editor frame gate: ${FUZZ_RUNS} messages, ${taken} taken, ${ignored} ignored (${refusedOurs} of them ours: refused, located)`
      );
      expect(taken).toBeGreaterThan(FUZZ_RUNS / 10);
      expect(refusedOurs).toBeGreaterThan(FUZZ_RUNS / 50);
    },
    fuzzTimeout(60_000)
  );

  it(
    "the depiction frame takes only its parent's schema-valid requests, and changes nothing",
    () => {
      const input = messages(
        [fromSchema(schema(DepictRequest)), fromSchema(schema(ConvertRequest))],
        [
          fromSchema(schema(DepictReply)),
          fromSchema(schema(ConvertReply)),
          fromSchema(schema(DepictEvent)),
          fromSchema(schema(FrameRequest)),
          // Over the batch, and both lists in one message.
          fc.constant({ tag: DEPICT_TAG, id: 1, smiles: Array.from({ length: DEPICT_BATCH + 1 }, () => 'C') }),
          fc.constant({ tag: DEPICT_TAG, id: 1, molfiles: Array.from({ length: DEPICT_BATCH + 1 }, () => '') }),
          fc.constant({ tag: DEPICT_TAG, id: 2, smiles: ['C'], molfiles: ['M  END'] })
        ]
      );
      let taken = 0;
      let ignored = 0;
      let refused = 0;
      fc.assert(
        fc.property(input, from, (raw, sender) => {
          const data = delivered(raw);
          const copy = delivered(data);
          const request = depictRequest({ ...sender, data }, PARENT, ORIGIN);
          const refusal = depictRefusal({ ...sender, data }, PARENT, ORIGIN);
          expect(isDeepStrictEqual(data, copy)).toBe(true);
          const convert = ConvertRequest.safeParse(data);
          const depict = DepictRequest.safeParse(data);
          const fromParent = sender.source === PARENT && sender.origin === ORIGIN;
          if (!fromParent || !(convert.success || depict.success)) {
            expect(request).toBeNull();
            if (fromParent && refusable(data, DEPICT_TAG)) {
              // Ours but unreadable: one reply the page reads as either kind, and the located refusal it rejects with.
              const asDepict = DepictReply.parse(refusal);
              const asConvert = ConvertReply.parse(refusal);
              expect(asDepict.id).toBe(data.id);
              expect(asConvert.located).toEqual(asDepict.located);
              const wantsConvert = typeof data === 'object' && 'molfiles' in data;
              expectMisfit(asDepict.located, (wantsConvert ? convert : depict).error!.issues);
              expect(asDepict.images.length).toBeLessThanOrEqual(DEPICT_BATCH);
              expect(asDepict.images.every(i => i.error?.includes(asDepict.located!.message))).toBe(true);
              refused++;
            } else {
              expect(refusal).toBeNull();
            }
            ignored++;
            return;
          }
          taken++;
          expect(refusal).toBeNull();
          if (convert.success) {
            expect(request).toEqual({ op: 'convert', id: convert.data.id, molfiles: convert.data.molfiles });
          } else if (depict.success) {
            expect(request).toEqual({ op: 'depict', id: depict.data.id, smiles: depict.data.smiles });
          }
          const list = request!.op === 'convert' ? request!.molfiles : request!.smiles;
          expect(list.length).toBeLessThanOrEqual(DEPICT_BATCH);
          expect(list.every(s => typeof s === 'string')).toBe(true);
          expect(Number.isFinite(request!.id)).toBe(true);
          expectPlain(request!, ['op', 'id', request!.op === 'convert' ? 'molfiles' : 'smiles']);
        }),
        fuzzParams(FUZZ_RUNS)
      );
      console.log(
        `depiction frame gate: ${FUZZ_RUNS} messages, ${taken} taken, ${ignored} ignored (${refused} of them ours: refused, located)`
      );
      expect(taken).toBeGreaterThan(FUZZ_RUNS / 10);
      expect(ignored).toBeGreaterThan(FUZZ_RUNS / 10);
      expect(refused).toBeGreaterThan(FUZZ_RUNS / 50);
    },
    fuzzTimeout(60_000)
  );

  it(
    'the depiction frame answers every request it took with one reply the page accepts, whatever the engine does',
    async () => {
      /** What the stand-in engine does for one item. */
      const outcome = fc.oneof(
        fc.record({
          kind: fc.constant('answer' as const),
          value: fc.oneof(
            oddText,
            fc.constant('<svg xmlns="x"/>'),
            oddText.map(t => `<svg>${t}</svg>`)
          )
        }),
        fc.record({ kind: fc.constant('blank' as const), value: fc.constantFrom('', ' ', '\n\t') }),
        fc.record({ kind: fc.constant('odd' as const), value: oddValue }),
        fc.record({
          kind: fc.constant('throw' as const),
          value: fc.oneof(
            oddText.map(t => new Error(t)),
            oddText,
            oddValue,
            fc.constant(null).map(() => {
              const cycle: Record<string, unknown> = {};
              cycle.self = cycle;
              return cycle;
            }),
            fc.constant({
              toJSON() {
                throw new Error('unserializable');
              }
            })
          )
        })
      );
      const request: fc.Arbitrary<DepictFrameRequest> = fc.oneof(
        fc.record({
          op: fc.constant('depict' as const),
          id: fc.double({ noNaN: true, noDefaultInfinity: true }),
          smiles: fc.array(oddText, { maxLength: 6 })
        }),
        fc.record({
          op: fc.constant('convert' as const),
          id: fc.double({ noNaN: true, noDefaultInfinity: true }),
          molfiles: fc.array(oddText, { maxLength: 6 })
        })
      );
      let items = 0;
      let errors = 0;
      await fc.assert(
        fc.asyncProperty(request, fc.array(outcome, { minLength: 1, maxLength: 6 }), async (req, outcomes) => {
          let n = 0;
          const next = async (): Promise<unknown> => {
            const o = outcomes[n++ % outcomes.length];
            if (o.kind === 'throw') {
              throw o.value;
            }
            return o.value;
          };
          const service = {
            generateImageAsBase64: () => next(),
            convert: async () => {
              const v = await next();
              return typeof v === 'string' ? { struct: v } : (v as never);
            }
          } as unknown as DepictService;
          const reply = await answerDepict(service, req);
          const list = req.op === 'convert' ? req.molfiles : req.smiles;
          // What the page's reader (src/panel/depictor.ts) takes: anything else it drops, and the request would wait out its deadline.
          const checked = req.op === 'convert' ? ConvertReply.safeParse(reply) : DepictReply.safeParse(reply);
          expect(checked.success ? null : checked.error.issues[0]).toBeNull();
          expect((reply as { id: number }).id).toBe(req.id);
          const answers = req.op === 'convert' ? (reply as ConvertReply).smiles : (reply as DepictReply).images;
          expect(answers).toHaveLength(list.length);
          items += answers.length;
          errors += answers.filter(a => a.error !== null).length;
        }),
        fuzzParams(FUZZ_RUNS)
      );
      console.log(`depiction frame work: ${FUZZ_RUNS} requests, ${items} items, ${errors} refused by the engine`);
      expect(errors).toBeGreaterThan(0);
      expect(errors).toBeLessThan(items);
    },
    fuzzTimeout(60_000)
  );
});
