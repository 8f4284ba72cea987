/**
 * The contract fixtures (tests/fixtures/contract/tool-inputs.json) through zod.
 * The gateway's pytest suite feeds the same fixtures through its JSON Schema
 * validation of the generated manifest.
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import {
  errorResultText,
  ERROR_CODES,
  KernelControl,
  KernelResult,
  LocatedError,
  PageResult,
  StoryControlInput,
  TOOLS,
  errorCodesOf,
  findTool
} from '../contract';
import { invalidInput } from '../dispatcher/dispatcher';

interface Case {
  tool: string;
  args: unknown;
  valid: boolean;
  pointer?: string;
  zodOnly?: boolean;
}

const fixtures: { cases: Case[] } = JSON.parse(readFileSync(join(__dirname, '../../tests/fixtures/contract/tool-inputs.json'), 'utf8'));

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

describe('LocatedError', () => {
  it('accepts every error code and refuses an unknown one', () => {
    for (const code of ERROR_CODES) {
      expect(LocatedError.safeParse({ code, message: 'm', where: '/x', fix: 'f' }).success).toBe(true);
    }
    expect(LocatedError.safeParse({ code: 'OOPS', message: 'm', where: '/x', fix: 'f' }).success).toBe(false);
    expect(LocatedError.safeParse({ code: 'INTERNAL', message: '', where: '/x', fix: 'f' }).success).toBe(false);
  });
});

describe('error codes per tool', () => {
  it('gives every page tool the gateway-level codes and each tool its own', () => {
    for (const t of TOOLS) {
      const codes = errorCodesOf(t);
      expect(codes).toEqual(ERROR_CODES.filter(c => codes.includes(c)));
      const base = t.runs === 'page' ? ['NO_PAGE', 'TIMEOUT', 'INVALID_INPUT', 'INTERNAL'] : ['INVALID_INPUT', 'INTERNAL'];
      expect(codes).toEqual(expect.arrayContaining(base));
    }
    expect(errorCodesOf(findTool('status')!)).toEqual(['INVALID_INPUT', 'INTERNAL']);
    expect(errorCodesOf(findTool('story_control')!)).toEqual(
      expect.arrayContaining(['NOT_FOUND', 'STALE_TARGET', 'REVISION_CONFLICT', 'VALIDATION_FAILED'])
    );
  });
});

describe('kernel messages', () => {
  it('accept what molspace.Story sends and carry the fields of story_control', () => {
    // molspace/story/widget.py: {"type": "control", "requestId": <hex>, "action": ..., **args}
    const sent = [
      { type: 'control', requestId: 'a1', action: 'next' },
      { type: 'control', requestId: 'a2', action: 'goto', index: 2 },
      { type: 'control', requestId: 'a3', action: 'goto', key: 'ligand', expectedRevision: 4 }
    ];
    for (const m of sent) {
      expect(KernelControl.safeParse(m).success).toBe(true);
      const { type: _t, requestId: _r, ...args } = m;
      expect(StoryControlInput.safeParse(args).success).toBe(true);
    }
    expect(KernelControl.safeParse({ type: 'control', requestId: 'a4', action: 'goto' }).success).toBe(false);
    const kernelFields = Object.keys(KernelControl.shape).filter(k => k !== 'type' && k !== 'requestId');
    const toolFields = Object.keys(StoryControlInput.shape);
    expect(toolFields.filter(k => !kernelFields.includes(k)).sort()).toEqual(['pageId', 'target']);
  });

  it('answer with the same fields as the bridge result, keyed by requestId', () => {
    const ok = { type: 'result', ok: true, structuredContent: { a: 1 }, text: 't' };
    const failed = { type: 'result', ok: false, error: { code: 'NOT_FOUND', message: 'm', where: '/key', fix: 'f', details: {} } };
    for (const body of [ok, failed]) {
      expect(KernelResult.safeParse({ ...body, requestId: 'r1' }).success).toBe(true);
      expect(PageResult.safeParse({ ...body, callId: 'c1' }).success).toBe(true);
    }
    expect(KernelResult.safeParse({ type: 'result', ok: true, requestId: 'r1', result: {}, text: 't' }).success).toBe(false);
  });
});

describe('error result text', () => {
  it('is the format the gateway writes (tests/fixtures/contract/error-text.json)', () => {
    const fixture = JSON.parse(readFileSync(join(__dirname, '../../tests/fixtures/contract/error-text.json'), 'utf8'));
    expect(errorResultText(fixture.error)).toBe(fixture.text);
  });
});
