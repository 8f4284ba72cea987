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

// ---------------------------------------------------------------- the listed (lean) form

/**
 * Arguments many tools share; `tools/list` gives their type only, the server
 * instructions say once what they mean (`src/contract/instructions.ts`).
 */
export const SHARED_ARGUMENTS = ['pageId', 'target', 'expectedRevision', 'actionId'];

/** `{$ref: '#/$defs/X'}` replaced by the definition, everywhere (the contract has no recursive schema). */
export function inlineRefs(s: JsonSchema, defs: Record<string, JsonSchema> = {}, depth = 0): JsonSchema {
  const own = { ...((s.$defs as Record<string, JsonSchema> | undefined) ?? {}), ...defs };
  if (depth > 32) throw new Error('inlineRefs: schema nests deeper than 32 (a recursive $ref?)');
  const ref = typeof s.$ref === 'string' ? s.$ref.replace('#/$defs/', '') : null;
  if (ref !== null) {
    const target = own[ref];
    if (!target) throw new Error(`inlineRefs: no $defs entry ${ref}`);
    const { $ref: _r, ...rest } = s;
    return inlineRefs({ ...target, ...rest }, own, depth + 1);
  }
  const { $defs: _d, ...body } = s;
  return mapChildren(body, c => inlineRefs(c, own, depth + 1));
}

/** The tag property of a union whose branches are all objects with a string `const` under one name. */
export function unionTag(branches: unknown[]): string | null {
  if (branches.length < 2 || !branches.every(b => isSchema(b) && isSchema(b.properties))) return null;
  const first = (branches[0] as JsonSchema).properties as Record<string, JsonSchema>;
  for (const name of Object.keys(first)) {
    if (branches.every(b => typeof (((b as JsonSchema).properties as Record<string, JsonSchema>)[name] ?? {}).const === 'string')) {
      return name;
    }
  }
  return null;
}

/** Marks a folded union (and its tag) while the listed form is built; removed before it is returned. */
const FOLDED = '$molspaceFolded';

/** `{a, b?}` for a branch: its fields other than the tag, optional ones marked. */
function branchFields(b: JsonSchema, tag: string): string {
  const required = new Set((b.required as string[] | undefined) ?? []);
  const names = Object.keys(b.properties as object).filter(n => n !== tag);
  return names.length ? `(${names.map(n => (required.has(n) ? n : `${n}?`)).join(',')})` : '';
}

/**
 * A tagged union (every branch an object, one property a string `const`)
 * folded into one object: the tag a string, every branch's fields as
 * optional properties, and a description naming each tag's fields. It
 * accepts every value the union accepts (and more: the full schema decides).
 */
function foldTaggedUnion(branches: JsonSchema[], tag: string): JsonSchema {
  const properties: Record<string, JsonSchema> = {
    // The values are named in the description, each with its fields; an enum would name them twice.
    [tag]: { type: 'string', [FOLDED]: true }
  };
  for (const b of branches) {
    for (const [name, p] of Object.entries(b.properties as Record<string, JsonSchema>)) {
      if (name === tag) continue;
      const had = properties[name];
      if (had === undefined) properties[name] = p;
      else if (JSON.stringify(had) !== JSON.stringify(p)) {
        const options = Array.isArray(had.anyOf) && had.$folded ? (had.anyOf as JsonSchema[]) : [had];
        if (!options.some(o => JSON.stringify(o) === JSON.stringify(p))) options.push(p);
        properties[name] = { anyOf: options, $folded: true };
      }
    }
  }
  for (const [name, p] of Object.entries(properties)) if (name !== tag) delete p.$folded;
  const byTag = branches.map(b => `${(b.properties as Record<string, JsonSchema>)[tag].const}${branchFields(b, tag)}`);
  return {
    type: 'object',
    description: `By ${tag}: ${byTag.join('; ')}.`,
    properties,
    required: [tag]
  };
}

/**
 * Drop what a caller can do without: `minLength: 1`, `propertyNames: {type:
 * string}`, `additionalProperties` (`{}` says nothing; `false` is enforced by
 * the full schema, whose INVALID_INPUT names the allowed fields).
 */
function dropNoise(s: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'minLength' && v === 1) continue;
    if (k === 'propertyNames' && isSchema(v) && Object.keys(v).length === 1 && v.type === 'string') continue;
    if (k === 'additionalProperties' && (v === false || (isSchema(v) && Object.keys(v).length === 0))) continue;
    out[k] = v;
  }
  return out;
}

/** The JSON types a schema's values may have (its `type`, an enum's, or its branches'). */
function typesOf(s: JsonSchema): string[] {
  if (typeof s.type === 'string') return [s.type];
  if (Array.isArray(s.type)) return s.type as string[];
  if (Array.isArray(s.enum) || typeof s.const === 'string') return ['string'];
  const branches = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined;
  return Array.isArray(branches) ? [...new Set(branches.flatMap(b => (isSchema(b) ? typesOf(b) : [])))] : [];
}

/**
 * A nested subschema bigger than this (JSON characters) is listed by its
 * types and description only; `describe` gives it whole.
 */
const LISTED_NESTED_CHARS = 160;

/** `s` by its types and description alone, when it is nested and large. */
function brief(s: JsonSchema, depth: number): JsonSchema {
  // A folded union (its description names each tag's fields) stays: its fields are briefed instead.
  if (depth < 2 || s[FOLDED] === true || JSON.stringify(s).length <= LISTED_NESTED_CHARS) return s;
  const types = typesOf(s);
  return {
    ...(types.length ? { type: types.length === 1 ? types[0] : types } : {}),
    ...(typeof s.description === 'string' ? { description: s.description } : {})
  };
}

function unmark(s: JsonSchema): JsonSchema {
  const { [FOLDED]: _f, ...rest } = s;
  return mapChildren(rest, c => unmark(c));
}

function lean(s: JsonSchema, depth: number): JsonSchema {
  let own = dropNoise(s);
  for (const key of ['oneOf', 'anyOf'] as const) {
    const branches = own[key];
    if (Array.isArray(branches)) {
      const tag = unionTag(branches);
      if (tag !== null) {
        const { [key]: _u, ...rest } = own;
        const folded = foldTaggedUnion(branches as JsonSchema[], tag);
        const description = typeof rest.description === 'string' ? `${rest.description} ` : '';
        own = { ...rest, ...folded, description: description + folded.description, [FOLDED]: true };
      }
    }
  }
  return mapChildren(own, (c, name) => {
    const child = brief(lean(c, depth + 1), depth + 1);
    // The shared arguments' meaning is said once, in the server instructions; below the arguments
    // (depth 2 on), only a folded union keeps its description, the map of each tag's fields.
    const silent = (depth === 0 && SHARED_ARGUMENTS.includes(name)) || (depth + 1 >= 2 && child[FOLDED] !== true);
    if (silent && typeof child.description === 'string') {
      const { description: _d, ...rest } = child;
      return rest;
    }
    return child;
  });
}

/**
 * The input schema `tools/list` lists: the compact schema with each tagged
 * union folded into one object whose description names each tag's fields,
 * descriptions on the arguments only (and on folded unions), the shared
 * arguments' left to the server instructions, and no `$schema` or no-op
 * keywords. It accepts every argument object the full
 * schema accepts; the gateway still validates against the full schema, and
 * `describe` returns it, one part at a time (docs/architecture.md, "The
 * contract").
 *
 * @param full - a compact input schema ({@link compactJsonSchema}).
 */
export function listedJsonSchema(full: JsonSchema): JsonSchema {
  const { $schema: _s, ...body } = inlineRefs(full);
  return shareRepeated(unmark(lean(body, 0)));
}

/** One tagged-union branch of a tool's input, as `describe` gives it. */
export interface SchemaPart {
  /** JSON pointer (in arguments) of the value the branch describes, `*` for any array index. */
  at: string;
  /** The tag property, e.g. `op`. */
  tag: string;
  /** The branch's compact schema. */
  schema: JsonSchema;
}

/**
 * Each branch of each tagged union in a tool's input, by tag value (e.g.
 * `act`'s `set_color`, `render_panel`'s `table`): the parts `describe`
 * returns one at a time. A value met twice keeps its first branch.
 */
export function schemaParts(full: JsonSchema): Record<string, SchemaPart> {
  const parts: Record<string, SchemaPart> = {};
  const walk = (s: JsonSchema, at: string): void => {
    for (const key of ['oneOf', 'anyOf'] as const) {
      const branches = s[key];
      if (!Array.isArray(branches)) continue;
      const tag = unionTag(branches);
      for (const b of branches) {
        if (!isSchema(b)) continue;
        if (tag !== null) {
          const value = String((b.properties as Record<string, JsonSchema>)[tag].const);
          if (parts[value] === undefined) parts[value] = { at, tag, schema: shareRepeated(b) };
        }
        walk(b, at);
      }
    }
    if (isSchema(s.properties)) {
      for (const [name, p] of Object.entries(s.properties)) if (isSchema(p)) walk(p, `${at}/${name}`);
    }
    if (isSchema(s.items)) walk(s.items, `${at}/*`);
  };
  walk(inlineRefs(full), '');
  return parts;
}
