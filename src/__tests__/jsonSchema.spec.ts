/**
 * The compact JSON Schema the manifest carries (src/contract/jsonSchema.ts)
 * accepts and refuses what zod's full output does, and is smaller.
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import Ajv2020 from 'ajv/dist/2020';
import { z } from 'zod';
import { TOOLS } from '../contract';
import { compactJsonSchema, listedJsonSchema, schemaParts } from '../contract/jsonSchema';

const outputs: Record<string, Record<string, unknown>> = JSON.parse(
  readFileSync(join(__dirname, '../../tests/fixtures/contract/tool-outputs.json'), 'utf8')
);

function validator(schema: object): (v: unknown) => boolean {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const check = ajv.compile(schema);
  return v => check(v) as boolean;
}

function full(t: z.ZodType, io: 'input' | 'output'): object {
  return z.toJSONSchema(t, { io, target: 'draft-2020-12', unrepresentable: 'any' });
}

/** Every path to a nested object value, so each can be broken in turn. */
function objectPaths(v: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (typeof v !== 'object' || v === null) return [];
  const here = Array.isArray(v) ? [] : [path];
  return [...here, ...Object.entries(v).flatMap(([k, x]) => objectPaths(x, [...path, Array.isArray(v) ? Number(k) : k]))];
}

function withExtraKey(v: unknown, path: (string | number)[]): unknown {
  const copy = JSON.parse(JSON.stringify(v));
  let at = copy;
  for (const p of path) at = at[p];
  at.__unexpected = 1;
  return copy;
}

describe('compact tool schemas', () => {
  const pageTools = TOOLS.filter(t => outputs[t.name] !== undefined);

  it('has a sample output for some tools to check against', () => {
    expect(pageTools.length).toBeGreaterThan(0);
  });

  it.each(pageTools.map(t => [t.name, t] as const))(
    '%s: the sample output, and the sample broken at every nested object, are judged alike',
    (name, t) => {
      const compact = validator(compactJsonSchema(t.output, 'output'));
      const original = validator(full(t.output, 'output'));
      const sample = outputs[name];
      expect(compact(sample)).toBe(true);
      for (const path of objectPaths(sample)) {
        const broken = withExtraKey(sample, path);
        expect([path.join('/'), compact(broken)]).toEqual([path.join('/'), original(broken)]);
      }
    }
  );

  it.each(TOOLS.map(t => [t.name, t] as const))("%s: smaller than zod's own output, still an object at the root", (_n, t) => {
    for (const io of ['input', 'output'] as const) {
      const compact = compactJsonSchema(io === 'input' ? t.input : t.output, io);
      expect(compact.type).toBe('object');
      expect(JSON.stringify(compact).length).toBeLessThanOrEqual(JSON.stringify(full(io === 'input' ? t.input : t.output, io)).length);
    }
  });

  it('states a repeated object once under $defs and keeps a property named "description"', () => {
    const Item = z.object({ description: z.string().describe('doc'), n: z.number().int(), label: z.string() });
    const s = compactJsonSchema(z.object({ a: Item, b: z.array(Item), c: Item.nullable() }), 'output');
    const text = JSON.stringify(s);
    expect(Object.keys(s.$defs as object)).toEqual(['A']);
    expect(text.match(/"\$ref":"#\/\$defs\/A"/g)).toHaveLength(3);
    expect(text).toContain('"description":{"type":"string"}');
    expect(text).not.toContain('9007199254740991');
    const check = validator(s);
    expect(check({ a: { description: 'x', n: 1, label: 'l' }, b: [], c: null })).toBe(true);
    expect(check({ a: { description: 'x', n: 1.5, label: 'l' }, b: [], c: null })).toBe(false);
    expect(check({ a: { description: 'x', n: 1, label: 'l' }, b: [{ n: 1 }], c: null })).toBe(false);
  });

  it('keeps input descriptions: agents read them to call', () => {
    const s = JSON.stringify(compactJsonSchema(z.object({ a: z.string().describe('The a.') }), 'input'));
    expect(s).toContain('The a.');
  });
});

describe('listed (brief) tool schemas', () => {
  const inputs: { cases: { tool: string; args: unknown; valid: boolean }[] } = JSON.parse(
    readFileSync(join(__dirname, '../../tests/fixtures/contract/tool-inputs.json'), 'utf8')
  );

  it.each(TOOLS.map(t => [t.name, t] as const))('%s: accepts every valid call and every example', (name, t) => {
    const listed = validator(listedJsonSchema(compactJsonSchema(t.input, 'input')));
    const calls = [...inputs.cases.filter(c => c.tool === name && c.valid).map(c => c.args), ...(t.examples ?? [])];
    for (const args of calls) expect([JSON.stringify(args), listed(args)]).toEqual([JSON.stringify(args), true]);
  });

  it("folds a tagged union into one object whose description names each tag's fields", () => {
    const Op = z.discriminatedUnion('op', [
      z.object({ op: z.literal('paint'), color: z.string(), width: z.number().optional() }).strict(),
      z.object({ op: z.literal('wipe') }).strict()
    ]);
    const s = listedJsonSchema(compactJsonSchema(z.object({ ops: z.array(Op), pageId: z.string().describe('x') }).strict(), 'input'));
    const items = (s.properties as any).ops.items;
    expect(items.properties.op).toEqual({ type: 'string' });
    expect(Object.keys(items.properties)).toEqual(['op', 'color', 'width']);
    expect(items.required).toEqual(['op']);
    expect(items.description).toBe('By op: paint(color,width?); wipe.');
    // The shared arguments' meaning is said once, in the server instructions.
    expect((s.properties as any).pageId).toEqual({ type: 'string' });
    expect(JSON.stringify(s)).not.toContain('$molspaceFolded');
  });

  it('gives each branch of a tagged union as a part, by tag value', () => {
    const act = TOOLS.find(t => t.name === 'act')!;
    const parts = schemaParts(compactJsonSchema(act.input, 'input'));
    expect(parts.set_color.at).toBe('/actions/*');
    expect(parts.set_color.tag).toBe('op');
    expect((parts.set_color.schema as any).required).toEqual(['op', 'selector', 'color']);
    const ok = validator(parts.set_color.schema);
    expect(ok({ op: 'set_color', selector: 'ligand', color: '#ff0000' })).toBe(true);
    expect(ok({ op: 'set_color', selector: 'ligand' })).toBe(false);
  });
});
