/**
 * Fix texts must be literally followable with MCP alone (issue 19, item 2):
 * wherever the source (page and Python side) names a tool with arguments —
 * `story_control {target: …}`, `story_create {path, document}` — or with an
 * operation — `ketcher_control set_structure`, `act apply_mvs` — the tool
 * named must declare those fields, and the operation must be one of its
 * actions or ops. Walks every non-test `.ts` under `src/` and `.py` under
 * `molspace/`.
 */
import { readFileSync, readdirSync, statSync } from 'fs';
import { join } from 'path';
import { z } from 'zod';
import { TOOLS } from '../contract';

const ROOT = join(__dirname, '..', '..');

function sources(dir: string, ext: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (name === '__tests__' || name === 'node_modules' || name === 'labextension' || name.startsWith('.')) {
      continue;
    }
    if (statSync(p).isDirectory()) {
      out.push(...sources(p, ext));
    } else if (name.endsWith(ext)) {
      out.push(p);
    }
  }
  return out;
}

/** Every key and every string enum/const value anywhere in a JSON schema. */
function walk(schema: unknown, fields: Set<string>, words: Set<string>, top: boolean): void {
  if (Array.isArray(schema)) {
    schema.forEach(s => walk(s, fields, words, top));
    return;
  }
  if (typeof schema !== 'object' || schema === null) {
    return;
  }
  const o = schema as Record<string, unknown>;
  if (top && typeof o.properties === 'object' && o.properties !== null) {
    Object.keys(o.properties).forEach(k => fields.add(k));
  }
  for (const v of [o.const, ...(Array.isArray(o.enum) ? o.enum : [])]) {
    if (typeof v === 'string') {
      words.add(v);
    }
  }
  for (const [k, v] of Object.entries(o)) {
    if (k !== 'enum' && k !== 'const') {
      walk(v, fields, words, k === 'properties' ? false : top && (k === 'anyOf' || k === 'allOf' || k === 'oneOf'));
    }
  }
}

const declared = new Map<string, { fields: Set<string>; words: Set<string> }>();
for (const tool of TOOLS) {
  const fields = new Set<string>();
  const words = new Set<string>();
  const schema = z.toJSONSchema(tool.input as z.ZodType, { io: 'input', unrepresentable: 'any' });
  walk(schema, fields, words, true);
  declared.set(tool.name, { fields, words });
}
const names = [...declared.keys()].sort((a, b) => b.length - a.length).join('|');
/** `tool {a: …, b}` (template `${…}` allowed inside), and `tool some_op`. */
const WITH_ARGS = new RegExp(`\\b(${names}) \\{((?:[^{}]|\\$\\{[^}]*\\})*)\\}`, 'g');
const WITH_OP = new RegExp(`\\b(${names}) ([a-z]+_[a-z_]+)\\b`, 'g');

interface Mention {
  file: string;
  text: string;
  tool: string;
  named: string[];
}

function mentions(): Mention[] {
  const files = [...sources(join(ROOT, 'src'), '.ts'), ...sources(join(ROOT, 'molspace'), '.py')];
  const out: Mention[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(WITH_ARGS)) {
      const keys = m[2]
        .replace(/\$\{[^}]*\}/g, '')
        .split(',')
        .map(part => /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?::|$)/.exec(part)?.[1])
        .filter((k): k is string => !!k);
      out.push({ file: file.slice(ROOT.length + 1), text: m[0], tool: m[1], named: keys });
    }
    for (const m of text.matchAll(WITH_OP)) {
      out.push({ file: file.slice(ROOT.length + 1), text: m[0], tool: m[1], named: [m[2]] });
    }
  }
  return out;
}

describe('fix texts name only what the tool declares', () => {
  const found = mentions();

  it('finds the mentions it checks (the walk itself works)', () => {
    const texts = found.map(m => m.text);
    expect(texts.some(t => t.startsWith('story_control {target'))).toBe(true);
    expect(texts.some(t => t.startsWith('ketcher_control set_structure'))).toBe(true);
    expect(found.length).toBeGreaterThan(5);
  });

  it.each(found.map(m => [`${m.file}: ${m.text}`, m] as const))('%s', (_, m) => {
    const tool = declared.get(m.tool)!;
    const unknown = m.named.filter(n => !tool.fields.has(n) && !tool.words.has(n));
    expect(unknown).toEqual([]);
  });
});
