/**
 * The contract fixtures (tests/fixtures/contract/tool-inputs.json) through zod.
 * The gateway's pytest suite feeds the same fixtures through its JSON Schema
 * validation of the generated manifest.
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import { findTool, TOOLS, ToolError, ERROR_CODES } from '../contract';
import { invalidInput } from '../dispatcher/dispatcher';

interface Case {
  tool: string;
  args: unknown;
  valid: boolean;
  pointer?: string;
  zodOnly?: boolean;
}

const fixtures: { cases: Case[] } = JSON.parse(
  readFileSync(join(__dirname, '../../tests/fixtures/contract/tool-inputs.json'), 'utf8')
);

describe('contract fixtures through zod', () => {
  it.each(fixtures.cases.map(c => [`${c.tool} ${JSON.stringify(c.args)}`, c] as const))('%s', (_name, c) => {
    const spec = findTool(c.tool);
    expect(spec).toBeDefined();
    const result = spec!.input.safeParse(c.args);
    expect(result.success).toBe(c.valid);
    if (!result.success && c.pointer !== undefined) {
      const err = invalidInput(c.tool, result.error);
      expect(err.code).toBe('INVALID_INPUT');
      expect(err.where === '/' ? '' : err.where).toBe(c.pointer);
      expect(err.fix.length).toBeGreaterThan(0);
    }
  });

  it('covers every tool of the contract', () => {
    const covered = new Set(fixtures.cases.map(c => c.tool));
    for (const t of TOOLS) {
      expect(covered.has(t.name)).toBe(true);
    }
  });
});

describe('ToolError', () => {
  it('accepts every error code and refuses an unknown one', () => {
    for (const code of ERROR_CODES) {
      expect(ToolError.safeParse({ code, message: 'm', where: '/x', fix: 'f' }).success).toBe(true);
    }
    expect(ToolError.safeParse({ code: 'OOPS', message: 'm', where: '/x', fix: 'f' }).success).toBe(false);
    expect(ToolError.safeParse({ code: 'INTERNAL', message: '', where: '/x', fix: 'f' }).success).toBe(false);
  });
});
