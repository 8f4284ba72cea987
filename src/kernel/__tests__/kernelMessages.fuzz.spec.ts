/**
 * Fuzz (issue 23): kernel comm messages as the page reads them. Messages are
 * generated from the contract's `KernelControl` (a Story's `control`) and
 * mutated (near-valid: other tools, bad fields, extra keys), plus any JSON.
 * They run through a `KernelChannel` into the page's real Dispatcher against
 * an in-memory Story. Property: `receive` never rejects; a message with a
 * requestId is answered once with a `KernelResult` for that id (a refusal a
 * located error), anything else is not answered; a refusal leaves the Story
 * as it was.
 */
import fc from 'fast-check';
import { z } from 'zod';
import { KernelControl, KernelRequest, KernelResult, LocatedError, MolspaceError } from '../../contract';
import { KernelChannel } from '../kernelChannel';
import { WidgetRegistry } from '../../dispatcher/registry';
import { MemoryStory, metas } from '../../__tests__/memoryStory';
import { pageDispatcher } from '../../tools';
import { FUZZ_RUNS, anyJson, expectLocated, fromSchema, fuzzParams, fuzzTimeout, nearValid } from '../../__tests__/fuzzKit';

const control = fromSchema(z.toJSONSchema(KernelControl, { io: 'input', unrepresentable: 'any' })).chain(m =>
  fc
    .oneof(
      { arbitrary: fc.constant(undefined), weight: 4 },
      { arbitrary: fc.constantFrom('story_control', 'story_edit', 'story_observe', 'act', 'x'), weight: 1 }
    )
    .map(tool => (tool === undefined ? m : { ...(m as object), tool }))
);
const message = fc.oneof(
  { arbitrary: control, weight: 3 },
  { arbitrary: nearValid(control), weight: 6 },
  { arbitrary: anyJson, weight: 1 }
);

describe('kernel comm messages (fuzz)', () => {
  it(
    'every control message is answered once, as a result or a located error; the rest are ignored',
    async () => {
      const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
      let refused = 0;
      let answeredOk = 0;
      try {
        await fc.assert(
          fc.asyncProperty(message, async msg => {
            const registry = new WidgetRegistry();
            const story = new MemoryStory('m1', metas(['a', 'b', 'c']));
            registry.register(story);
            const sent: unknown[] = [];
            const channel = new KernelChannel({
              targetId: 'm1',
              tool: 'story_control',
              tools: ['story_edit'],
              dispatcher: pageDispatcher(registry),
              send: m => sent.push(m)
            });
            const before = JSON.stringify({ r: story.revision, i: story.index, p: story.playing, log: story.log });
            await channel.receive(msg);
            const request = KernelRequest.safeParse(msg);
            if (!request.success) {
              expect(sent).toEqual([]);
              return;
            }
            expect(sent).toHaveLength(1);
            const result = KernelResult.parse(sent[0]);
            expect(result.requestId).toBe(request.data.requestId);
            if (result.ok) {
              answeredOk++;
            } else {
              refused++;
              const e = LocatedError.parse(result.error);
              expectLocated(new MolspaceError(e.code, e.message, e.where, e.fix, e.details));
              expect(JSON.stringify({ r: story.revision, i: story.index, p: story.playing, log: story.log })).toBe(before);
            }
          }),
          fuzzParams(FUZZ_RUNS)
        );
      } finally {
        warn.mockRestore();
      }
      expect(answeredOk).toBeGreaterThan(FUZZ_RUNS / 50);
      expect(refused).toBeGreaterThan(FUZZ_RUNS / 10);
    },
    fuzzTimeout(60_000)
  );
});
