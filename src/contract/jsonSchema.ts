/**
 * The contract's schemas as the compact JSON Schema (draft 2020-12) that the
 * manifest carries and `tools/list` hands every agent on every connection
 * (docs/architecture.md, "The contract").
 *
 * zod's `toJSONSchema` output is made smaller without changing what it
 * accepts: the safe-integer bounds zod puts on every `.int()` are dropped
 * (JSON numbers past 2^53 do not reach the page as integers anyway), a
 * subschema that occurs more than once in one tool's schema is stated once
 * under `$defs` and referenced, and, for output schemas, `description`
 * annotations are dropped (they document results, which the text summary and
 * the docs explain; input descriptions stay, agents need them to call).
 */
import { z } from 'zod';

/** A JSON Schema object as plain JSON. */
export type JsonSchema = { [key: string]: unknown };

const SAFE_INT = Number.MAX_SAFE_INTEGER;
/** Keywords whose value is one subschema. */
const ONE = ['items', 'additionalProperties', 'propertyNames', 'not', 'contains', 'unevaluatedProperties'];
/** Keywords whose value is a list of subschemas. */
const LIST = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
/** Keywords whose value maps names to subschemas. */
const MAP = ['properties', 'patternProperties', '$defs'];
/** The smallest subschema (JSON characters) worth a `$defs` entry. */
const MIN_SHARED_CHARS = 120;

function isSchema(v: unknown): v is JsonSchema {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Apply `f` to each direct subschema of `s` (by keyword), returning a new schema. */
function mapChildren(s: JsonSchema, f: (child: JsonSchema, name: string) => unknown): JsonSchema {
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(s)) {
    if (ONE.includes(k) && isSchema(v)) {
      out[k] = f(v, k);
    } else if (LIST.includes(k) && Array.isArray(v)) {
      out[k] = v.map(x => (isSchema(x) ? f(x, k) : x));
    } else if (MAP.includes(k) && isSchema(v)) {
      out[k] = Object.fromEntries(Object.entries(v).map(([n, x]) => [n, isSchema(x) ? f(x, n) : x]));
    } else {
      out[k] = v;
    }
  }
  return out;
}

/** Drop zod's safe-integer bounds and, if asked, `description` annotations, everywhere. */
function trim(s: JsonSchema, dropDescriptions: boolean): JsonSchema {
  const own: JsonSchema = {};
  for (const [k, v] of Object.entries(s)) {
    if ((k === 'maximum' && v === SAFE_INT) || (k === 'minimum' && v === -SAFE_INT)) continue;
    if (dropDescriptions && k === 'description' && typeof v === 'string') continue;
    own[k] = v;
  }
  return mapChildren(own, c => trim(c, dropDescriptions));
}

/** Each object or union subschema below the root, as canonical JSON, with the first name it was met under. */
function countObjects(s: JsonSchema, seen: Map<string, { n: number; name: string }>, name: string): void {
  mapChildren(s, (c, childName) => {
    if ((c.type === 'object' && isSchema(c.properties)) || Array.isArray(c.anyOf) || Array.isArray(c.oneOf)) {
      const key = JSON.stringify(c);
      const own = LIST.includes(childName) ? name : childName === 'items' ? `${name}Item` : childName;
      const entry = seen.get(key) ?? { n: 0, name: own };
      entry.n += 1;
      seen.set(key, entry);
    }
    countObjects(c, seen, LIST.includes(childName) ? name : childName);
    return c;
  });
}

function replaceShared(s: JsonSchema, refs: Map<string, string>): JsonSchema {
  return mapChildren(s, c => {
    const ref = refs.get(JSON.stringify(c));
    return ref ? { $ref: `#/$defs/${ref}` } : replaceShared(c, refs);
  });
}

/**
 * State each object or union subschema that occurs twice or more (and is not tiny)
 * once under the root's `$defs`, largest first, until none repeats.
 */
function shareRepeated(root: JsonSchema): JsonSchema {
  let out = root;
  const defs: Record<string, JsonSchema> = {};
  for (;;) {
    const seen = new Map<string, { n: number; name: string }>();
    countObjects({ ...out, $defs: defs }, seen, 'root');
    const repeated = [...seen.entries()]
      .filter(([json, e]) => e.n > 1 && json.length >= MIN_SHARED_CHARS)
      .sort((a, b) => b[0].length - a[0].length);
    if (repeated.length === 0) break;
    const [json, { name }] = repeated[0];
    let id = name.charAt(0).toUpperCase() + name.slice(1);
    for (let i = 2; defs[id] !== undefined; i++) id = `${name}${i}`;
    const refs = new Map([[json, id]]);
    for (const [k, d] of Object.entries(defs)) defs[k] = replaceShared(d, refs);
    out = replaceShared(out, refs);
    defs[id] = JSON.parse(json);
  }
  return Object.keys(defs).length ? { ...out, $defs: defs } : out;
}

/**
 * The compact JSON Schema of a contract schema.
 *
 * @param t - a zod schema of the contract.
 * @param io - `input` (arguments: defaults optional, descriptions kept) or
 *   `output` (results: descriptions dropped).
 * @returns draft 2020-12 JSON Schema accepting exactly what zod's own
 *   `toJSONSchema` output accepts (for integers within 2^53).
 */
export function compactJsonSchema(t: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const full = z.toJSONSchema(t, { io, target: 'draft-2020-12', unrepresentable: 'any' }) as JsonSchema;
  return shareRepeated(trim(full, io === 'output'));
}
