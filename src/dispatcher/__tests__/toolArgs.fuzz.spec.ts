/**
 * Fuzz (issue 23): MCP tool arguments as the page's Dispatcher checks them.
 * Valid arguments are generated from each page tool's contract (its zod input
 * schema as JSON Schema, plus its examples), near-valid ones one to three
 * mutations away. Property: each is accepted, or refused with a located
 * error of bounded size; a refusal leaves the registry, the Story's revision,
 * change log and step, and the page's lastAction as they were.
 */
import fc from 'fast-check';
import { readFileSync } from 'fs';
import { resolve } from 'path';
import { z } from 'zod';
import { TOOLS, type ToolSpec } from '../../contract';
import { WidgetRegistry } from '../registry';
import { MemoryStory, metas } from '../../__tests__/memoryStory';
import { PAGE_TOOLS, pageDispatcher } from '../../tools';
import { parseStory, type ParsedStory } from '../../molstar/storySource';
import { FUZZ_RUNS, acceptOrRefuse, anyJson, expectLocated, fromSchema, fuzzParams, fuzzTimeout, nearValid } from '../../__tests__/fuzzKit';

const PAGE_SPECS = TOOLS.filter(t => t.runs === 'page');

/** A tool's valid arguments: its examples and values generated from its input schema. */
function validArgs(spec: ToolSpec): fc.Arbitrary<unknown> {
  const schema = z.toJSONSchema(spec.input, { io: 'input', unrepresentable: 'any' });
  const generated = fromSchema(schema);
  const examples = spec.examples ?? [];
  return examples.length ? fc.oneof(fc.constantFrom(...examples), generated) : generated;
}

/** Valid, near-valid and arbitrary arguments for one of `specs`. */
function calls(specs: readonly ToolSpec[]): fc.Arbitrary<{ tool: string; args: unknown; kind: string }> {
  return fc.oneof(
    ...specs.map(spec => {
      const valid = validArgs(spec);
      return fc.oneof(
        { arbitrary: valid.map(args => ({ tool: spec.name, args, kind: 'valid' })), weight: 2 },
        { arbitrary: nearValid(valid).map(args => ({ tool: spec.name, args, kind: 'near-valid' })), weight: 6 },
        { arbitrary: anyJson.map(args => ({ tool: spec.name, args, kind: 'any JSON' })), weight: 1 }
      );
    })
  );
}

describe('tool arguments (fuzz)', () => {
  it(
    "every page tool's check accepts its generated arguments or refuses them, located and bounded",
    () => {
      const handlers = new Map(PAGE_TOOLS.map(h => [h.spec.name, h]));
      let accepted = 0;
      let refused = 0;
      fc.assert(
        fc.property(calls(PAGE_SPECS), ({ tool, args }) => {
          const handler = handlers.get(tool)!;
          try {
            handler.parse(args, 'agent');
            accepted++;
          } catch (e) {
            expectLocated(e, ['INVALID_INPUT']);
            refused++;
          }
        }),
        fuzzParams(FUZZ_RUNS)
      );
      // Both sides are exercised: the generator is not all noise, nor all valid.
      expect(accepted).toBeGreaterThan(FUZZ_RUNS / 20);
      expect(refused).toBeGreaterThan(FUZZ_RUNS / 5);
    },
    fuzzTimeout(60_000)
  );

  it('quotes a 100,000-character target or cursor in a refusal of bounded size (found by the fuzzer)', async () => {
    const registry = new WidgetRegistry();
    registry.register(new MemoryStory('m1', metas(['a'])));
    const dispatcher = pageDispatcher(registry);
    const long = 'x'.repeat(100_000);
    for (const [tool, args] of [
      ['story_observe', { target: long }],
      ['observe', { cursor: long }]
    ] as const) {
      const outcome = await acceptOrRefuse(() => dispatcher.execute(tool, args, { source: 'agent' }));
      expect(outcome.ok).toBe(false);
    }
  });

  /**
   * Tools run in full against an in-memory Story. The tools that make
   * widgets or read files and the network (open, story_create, ketcher_open,
   * render_panel) are left to the check above: their openers are the page's
   * shell.
   */
  const RUN = [
    'observe',
    'story_observe',
    'story_control',
    'story_edit',
    'story_validate',
    'viewer_observe',
    'act',
    'ketcher_control',
    'export'
  ];
  let parsed: ParsedStory;
  beforeAll(async () => {
    parsed = await parseStory({ mvsj: readFileSync(resolve(__dirname, '../../../tests/data/kinase-story.mvsj'), 'utf8') });
  });

  it(
    'a refused call leaves the registry, the Story and lastAction as they were',
    async () => {
      const specs = PAGE_SPECS.filter(s => RUN.includes(s.name));
      expect(specs.map(s => s.name).sort()).toEqual([...RUN].sort());
      let refused = 0;
      await fc.assert(
        fc.asyncProperty(
          calls(specs),
          fc.constantFrom('agent', 'kernel', 'ui') as fc.Arbitrary<'agent' | 'kernel' | 'ui'>,
          async ({ tool, args }, source) => {
            const registry = new WidgetRegistry();
            const story = new MemoryStory('m1', parsed.snapshots.length ? parsed.snapshots : metas(['a', 'b']));
            story.parsedStory = parsed;
            registry.register(story);
            const dispatcher = pageDispatcher(registry);
            // One applied change first, so lastAction and the change log are not empty.
            await dispatcher.execute('story_control', { action: 'next' }, { source: 'ui' });
            // What a refusal must leave as it was: the registry, the Story's state and the last action.
            const seen = () =>
              JSON.stringify({
                ids: registry.list().map(t => t.targetId),
                active: registry.active?.targetId ?? null,
                revision: story.revision,
                log: story.log,
                index: story.index,
                playing: story.playing,
                applied: story.applied.length,
                replaced: story.replaced.length,
                lastAction: dispatcher.lastAction
              });
            const before = seen();
            const outcome = await acceptOrRefuse(() => dispatcher.execute(tool, args, { source }));
            if (!outcome.ok) {
              refused++;
              const after = seen();
              expect(after).toBe(before);
              expect(registry.find('m1')).toBe(story);
            }
          }
        ),
        fuzzParams(FUZZ_RUNS)
      );
      expect(refused).toBeGreaterThan(FUZZ_RUNS / 5);
    },
    fuzzTimeout(80_000)
  );
});
