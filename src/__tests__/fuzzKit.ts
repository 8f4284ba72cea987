/**
 * Shared pieces of the page's fuzz specs (`*.fuzz.spec.ts`, issue 23):
 * the run count and seed, arbitraries generated from the contract's JSON
 * Schema (valid) and one mutation away from it (near-valid), byte mutations
 * of real files, and the one check every refusal must pass (a located error
 * of bounded size).
 *
 * CI runs each property `FUZZ_RUNS` times (default 10,000) with seed 42;
 * `bench/fuzz_page.mjs` runs them longer (`FUZZ_RUNS`, `FUZZ_SEED` from the
 * environment).
 */
import fc from 'fast-check';
import { LocatedError, MolspaceError } from '../contract';

/** Generated inputs per property (CI: 10,000). */
export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
/** The seed (CI: fixed; the bench run may pass another). */
export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 42);
/** jest time allowed for one property: ample for the CI count, scaled for longer runs. */
export const fuzzTimeout = (msAtDefault: number): number => Math.max(msAtDefault, (msAtDefault * FUZZ_RUNS) / 10_000);

/** fast-check parameters of every property: fixed seed, `runs` inputs, each within `timeoutMs` (a hang fails). */
export function fuzzParams<T>(runs = FUZZ_RUNS, timeoutMs = 5_000): fc.Parameters<T> {
  return { seed: FUZZ_SEED, numRuns: runs, timeout: timeoutMs, endOnFailure: true };
}

/** The largest a located error may be, bytes of JSON (a refusal's size does not grow with its input). */
export const LOCATED_ERROR_BYTES = 32 * 1024;

/**
 * Assert `e` is a refusal the contract allows: a {@link MolspaceError} whose
 * JSON is a {@link LocatedError} (code, one-sentence message, where, fix) of at
 * most {@link LOCATED_ERROR_BYTES}; `codes`, when given, the codes allowed.
 */
export function expectLocated(e: unknown, codes?: readonly string[]): MolspaceError {
  if (!(e instanceof MolspaceError)) {
    throw new Error(`not a located error: ${e instanceof Error ? `${e.name}: ${e.message}\n${e.stack}` : String(e)}`);
  }
  const json = e.toJSON();
  const parsed = LocatedError.safeParse(json);
  if (!parsed.success) {
    throw new Error(`off the LocatedError schema: ${JSON.stringify(parsed.error.issues[0])}`);
  }
  if (codes && !codes.includes(json.code)) {
    throw new Error(`unexpected code ${json.code} (allowed: ${codes.join(', ')}): ${json.message}`);
  }
  const bytes = Buffer.byteLength(JSON.stringify(json));
  if (bytes > LOCATED_ERROR_BYTES) {
    throw new Error(`a located error of ${bytes} bytes (at most ${LOCATED_ERROR_BYTES}): ${json.code} at ${json.where.slice(0, 80)}`);
  }
  return e;
}

/** Run `f`: its value, or the located error it threw (anything else thrown fails the property). */
export async function acceptOrRefuse<T>(
  f: () => T | Promise<T>,
  codes?: readonly string[]
): Promise<{ ok: true; value: T } | { ok: false; error: MolspaceError }> {
  try {
    return { ok: true, value: await f() };
  } catch (e) {
    return { ok: false, error: expectLocated(e, codes) };
  }
}

// ---------------------------------------------------------------------------
// JSON values from a JSON Schema (the contract's, via zod's toJSONSchema)

type Schema = { [key: string]: unknown };
const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Strings: short and plain, with some that JSON and JavaScript find awkward. */
const oddString = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\ud800',
    '../../etc/passwd',
    '/abs',
    '\\\\host\\x',
    '~1/~0',
    'a'.repeat(300),
    '<script>x</script>',
    '\u202e',
    '😀'
  )
);

/** Any JSON value (small, nested a little). */
export const anyJson: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>(tie => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom(-1, 0, 0.5, 1e308, -0, 2 ** 53, Number.MAX_SAFE_INTEGER + 2),
    oddString,
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(oddString, tie('v'), { maxKeys: 4 })
  )
})).v;

function stringFor(s: Schema): fc.Arbitrary<string> {
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  const max = typeof s.maxLength === 'number' ? s.maxLength : min + 16;
  const cap = Math.min(max, min + 16);
  if (s.format === 'uri' || s.format === 'url') {
    return fc.webUrl();
  }
  if (typeof s.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(s.pattern)).filter(x => x.length >= min && x.length <= max);
    } catch {
      // a pattern fast-check cannot generate from: plain strings (near-valid)
    }
  }
  return fc.oneof(
    fc.string({ minLength: min, maxLength: cap }),
    fc.constant('x'.repeat(Math.max(min, 1))).filter(x => x.length <= max)
  );
}

function numberFor(s: Schema, integer: boolean): fc.Arbitrary<number> {
  const lo =
    typeof s.minimum === 'number' ? s.minimum : typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + (integer ? 1 : 1e-9) : -1e6;
  const hi =
    typeof s.maximum === 'number' ? s.maximum : typeof s.exclusiveMaximum === 'number' ? s.exclusiveMaximum - (integer ? 1 : 1e-9) : 1e6;
  if (integer) {
    const min = Math.ceil(Math.max(lo, -(2 ** 31)));
    const max = Math.floor(Math.min(hi, 2 ** 31));
    // Mostly small (indices, counts, revisions are small), sometimes anywhere in range.
    return fc.oneof(
      { arbitrary: fc.integer({ min, max: Math.min(max, min + 5) }), weight: 3 },
      { arbitrary: fc.integer({ min, max }), weight: 1 }
    );
  }
  return fc.double({ min: Math.max(lo, -1e9), max: Math.min(hi, 1e9), noNaN: true, noDefaultInfinity: true });
}

/**
 * Values of `schema` (JSON Schema draft 2020-12 as zod writes it): mostly
 * valid, since a generator from a schema cannot follow every refinement
 * (cross-field checks, patterns it cannot invert); whatever it makes, the
 * page must accept or refuse with a located error.
 */
export function fromSchema(schema: unknown, defs: Record<string, unknown> = {}, depth = 0): fc.Arbitrary<unknown> {
  if (!isSchema(schema) || depth > 8) {
    return anyJson;
  }
  const allDefs = isSchema(schema.$defs) ? { ...defs, ...schema.$defs } : defs;
  const next = (s: unknown) => fromSchema(s, allDefs, depth + 1);
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.replace(/^#\/\$defs\//, '');
    return name in allDefs ? fc.constant(null).chain(() => next(allDefs[name])) : anyJson;
  }
  if ('const' in schema) {
    return fc.constant(schema.const);
  }
  if (Array.isArray(schema.enum)) {
    return fc.constantFrom(...(schema.enum as unknown[]));
  }
  for (const k of ['anyOf', 'oneOf'] as const) {
    const list = schema[k];
    if (Array.isArray(list) && list.length) {
      return fc.oneof(...list.map(next));
    }
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length) {
    return next(schema.allOf[0]);
  }
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return stringFor(schema);
    case 'integer':
      return numberFor(schema, true);
    case 'number':
      return numberFor(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
      const max = Math.min(typeof schema.maxItems === 'number' ? schema.maxItems : min + 3, min + 3);
      if (Array.isArray(schema.prefixItems)) {
        return fc.tuple(...schema.prefixItems.map(next));
      }
      return fc.array(next(schema.items), { minLength: min, maxLength: max });
    }
    case 'object': {
      const props = isSchema(schema.properties) ? schema.properties : {};
      const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(props)) {
        record[k] = next(v);
      }
      const optional = Object.keys(props).filter(k => !required.has(k));
      if (Object.keys(props).length === 0 && isSchema(schema.additionalProperties)) {
        return fc.dictionary(fc.string({ maxLength: 8 }), next(schema.additionalProperties), { maxKeys: 3 });
      }
      // Each subset of the optional keys alike (fc.record alone keeps most of them).
      return fc.tuple(fc.record(record), fc.subarray(optional)).map(([o, kept]) => {
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(o)) {
          if (required.has(k) || kept.includes(k)) {
            out[k] = v;
          }
        }
        return out;
      });
    }
    default:
      return anyJson;
  }
}

/** Paths to every value inside `v` (objects and arrays), the root first. */
function pathsOf(v: unknown, at: (string | number)[] = [], out: (string | number)[][] = [], depth = 0): (string | number)[][] {
  out.push(at);
  if (depth > 10) {
    return out;
  }
  if (Array.isArray(v)) {
    v.forEach((x, i) => pathsOf(x, [...at, i], out, depth + 1));
  } else if (isSchema(v)) {
    for (const [k, x] of Object.entries(v)) {
      pathsOf(x, [...at, k], out, depth + 1);
    }
  }
  return out;
}

function getAt(v: unknown, path: (string | number)[]): unknown {
  return path.reduce<unknown>((o, k) => (o as Record<string | number, unknown>)[k], v);
}

/** `v` with the value at `path` replaced by what `f` makes of it (a structural copy). */
function setAt(v: unknown, path: (string | number)[], f: (old: unknown) => unknown): unknown {
  if (path.length === 0) {
    return f(v);
  }
  const [k, ...rest] = path;
  if (Array.isArray(v)) {
    const copy = [...v];
    copy[k as number] = setAt(v[k as number], rest, f);
    return copy;
  }
  const copy = { ...(v as Record<string, unknown>) };
  copy[k] = setAt((v as Record<string, unknown>)[k], rest, f);
  return copy;
}

const DELETE = Symbol('delete');

/** One mutation of a value (what a near-valid call gets wrong). */
const mutation: fc.Arbitrary<(old: unknown) => unknown> = fc.oneof(
  anyJson.map(x => () => x),
  fc.constant(() => DELETE),
  fc.constantFrom<(old: unknown) => unknown>(
    () => undefined,
    () => null,
    () => '',
    () => -1,
    () => 1.5,
    () => 2 ** 60,
    () => 'x'.repeat(100_000),
    old => (typeof old === 'string' ? old + '\ud800' : old),
    old => (typeof old === 'number' ? -old - 1 : old),
    old => (typeof old === 'number' ? String(old) : old),
    old => (typeof old === 'string' ? old.repeat(3) : old),
    old => (Array.isArray(old) ? [...old, ...old, ...old] : old),
    old => (Array.isArray(old) ? Array.from({ length: 1000 }, () => old[0] ?? null) : old),
    old => (Array.isArray(old) ? [] : old),
    old => [old],
    old => ({ value: old })
  ),
  fc.tuple(oddString, anyJson).map(
    ([k, x]) =>
      (old: unknown) =>
        isSchema(old) ? { ...old, [k]: x } : old
  )
);

/** `valid` one to three mutations away: near-valid values. */
export function nearValid(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.tuple(valid, fc.array(fc.tuple(fc.nat(), mutation), { minLength: 1, maxLength: 3 })).map(([v, ms]) => {
    let out = v;
    for (const [n, m] of ms) {
      const paths = pathsOf(out);
      const path = paths[n % paths.length];
      if (path.length && m(getAt(out, path)) === DELETE) {
        const parent = path.slice(0, -1);
        const key = path[path.length - 1];
        out = setAt(out, parent, p => {
          if (Array.isArray(p)) {
            return p.filter((_, i) => i !== key);
          }
          const { [key]: _gone, ...rest } = p as Record<string, unknown>;
          return rest;
        });
      } else {
        out = setAt(out, path, old => {
          const r = m(old);
          return r === DELETE ? old : r;
        });
      }
    }
    return out;
  });
}

// ---------------------------------------------------------------------------
// Bytes of real files, mutated

/** One mutation of a file's bytes: cut, flipped bytes, binary inside, a duplicated or dropped slice. */
export function mutatedBytes(files: readonly Uint8Array[]): fc.Arbitrary<{ file: number; bytes: Uint8Array; how: string }> {
  const pick = fc.nat({ max: files.length - 1 });
  return fc.oneof(
    fc.tuple(pick, fc.double({ min: 0, max: 1, noNaN: true })).map(([f, at]) => {
      const b = files[f];
      const n = Math.floor(b.length * at);
      return { file: f, bytes: b.slice(0, n), how: `cut at ${n}` };
    }),
    fc
      .tuple(
        pick,
        fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 })
      )
      .map(([f, flips]) => {
        const b = files[f].slice();
        for (const [at, v] of flips) {
          b[Math.min(b.length - 1, Math.floor(b.length * at))] = v;
        }
        return { file: f, bytes: b, how: `${flips.length} bytes set` };
      }),
    fc.tuple(pick, fc.double({ min: 0, max: 1, noNaN: true }), fc.uint8Array({ minLength: 1, maxLength: 64 })).map(([f, at, junk]) => {
      const b = files[f];
      const n = Math.floor(b.length * at);
      const out = new Uint8Array(b.length + junk.length);
      out.set(b.subarray(0, n));
      out.set(junk, n);
      out.set(b.subarray(n), n + junk.length);
      return { file: f, bytes: out, how: `${junk.length} bytes inserted at ${n}` };
    }),
    fc.tuple(pick, fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true })).map(([f, a, z]) => {
      const b = files[f];
      const [lo, hi] = [Math.floor(b.length * Math.min(a, z)), Math.floor(b.length * Math.max(a, z))];
      const out = new Uint8Array(b.length - (hi - lo));
      out.set(b.subarray(0, lo));
      out.set(b.subarray(hi), lo);
      return { file: f, bytes: out, how: `bytes ${lo}..${hi} dropped` };
    })
  );
}
