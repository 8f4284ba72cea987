/**
 * @jest-environment jsdom
 *
 * Fuzz (issue 23): bridge frames as the page reads them. Frames are generated
 * from the contract's `GatewayMessage` (welcome, call, served) and mutated
 * (near-valid), plus their JSON text cut and bytes changed. A call runs
 * through the page's real Dispatcher against an in-memory Story. Property:
 * the client never throws or rejects; it stays connected; every frame it
 * sends is a `PageMessage`; a well-formed call is answered once, with its
 * callId, either a result or a located error; anything else is ignored.
 */
import fc from 'fast-check';
import { Signal } from '@lumino/signaling';
import { z } from 'zod';
import { GatewayMessage, PageMessage, LocatedError } from '../../contract';
import { BridgeClient, type BridgeSocket } from '../bridgeClient';
import { WidgetRegistry } from '../../dispatcher/registry';
import { MemoryStory, metas } from '../../__tests__/memoryStory';
import { pageDispatcher } from '../../tools';
import { FUZZ_RUNS, anyJson, expectLocated, fromSchema, fuzzParams, fuzzTimeout, nearValid } from '../../__tests__/fuzzKit';
import { MolspaceError } from '../../contract';

class FakeSocket implements BridgeSocket {
  readyState = 1;
  sent: string[] = [];
  onopen: ((ev: Event) => void) | null = null;
  onmessage: ((ev: MessageEvent) => void) | null = null;
  onclose: ((ev: CloseEvent) => void) | null = null;
  constructor(readonly url: string) {}
  send(data: string): void {
    this.sent.push(data);
  }
  close(): void {
    this.readyState = 3;
  }
}

/** Page tools safe to run here (the others make widgets or fetch); a call naming another becomes an unknown tool. */
const RUN = ['observe', 'story_observe', 'story_control', 'viewer_observe', 'act', 'ketcher_control', 'export'];

const frameSchema = z.toJSONSchema(GatewayMessage, { io: 'input', unrepresentable: 'any' });
const validFrame = fromSchema(frameSchema).chain(f =>
  // Calls name a tool the test runs, with arguments from anywhere.
  typeof f === 'object' && f !== null && (f as { type?: unknown }).type === 'call'
    ? fc
        .tuple(fc.constantFrom(...RUN, 'no_such_tool'), anyJson)
        .map(([tool, args]) => ({ ...f, tool, args: typeof args === 'object' && args && !Array.isArray(args) ? args : {} }))
    : fc.constant(f)
);

/** The text of a frame: valid, near-valid, cut, or not JSON at all. */
const frameText: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: validFrame.map(f => JSON.stringify(f)), weight: 3 },
  { arbitrary: nearValid(validFrame).map(f => JSON.stringify(f) ?? 'undefined'), weight: 5 },
  {
    arbitrary: fc.tuple(validFrame, fc.double({ min: 0, max: 1, noNaN: true })).map(([f, at]) => {
      const t = JSON.stringify(f);
      return t.slice(0, Math.floor(t.length * at));
    }),
    weight: 1
  },
  { arbitrary: fc.string({ maxLength: 40 }), weight: 1 }
);

describe('bridge frames (fuzz)', () => {
  it(
    'every frame is answered as the contract says or ignored; the client never throws and stays connected',
    async () => {
      const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
      let answered = 0;
      try {
        await fc.assert(
          fc.asyncProperty(frameText, async text => {
            const registry = new WidgetRegistry();
            const story = new MemoryStory('m1', metas(['a', 'b', 'c']));
            registry.register(story);
            const dispatcher = pageDispatcher(registry);
            const sockets: FakeSocket[] = [];
            const client = new BridgeClient({
              dispatcher,
              widgets: { size: 1, changed: new Signal<unknown, number>({}) },
              url: 'ws://server/molspace/bridge',
              WebSocket: class extends FakeSocket {
                constructor(url: string) {
                  super(url);
                  sockets.push(this);
                }
              },
              pageIds: { get: () => 'p1', renew: () => 'p1' }
            });
            try {
              client.connect();
              const onMessage = (data: string) => (client as unknown as { _onMessage(d: unknown): Promise<void> })._onMessage(data);
              await onMessage(JSON.stringify({ type: 'welcome', pageId: 'p1' }));
              expect(client.connected).toBe(true);
              const sentBefore = sockets[0].sent.length;
              await onMessage(text);
              expect(client.connected).toBe(true);
              const sent = sockets[0].sent.slice(sentBefore).map(t => JSON.parse(t) as unknown);
              for (const frame of sent) {
                expect(PageMessage.safeParse(frame).success).toBe(true);
              }
              let json: unknown;
              try {
                json = JSON.parse(text);
              } catch {
                json = undefined;
              }
              const msg = GatewayMessage.safeParse(json);
              if (msg.success && msg.data.type === 'call') {
                expect(sent).toHaveLength(1);
                const result = sent[0] as { callId: string; ok: boolean; error?: unknown };
                expect(result.callId).toBe(msg.data.callId);
                if (!result.ok) {
                  const e = LocatedError.parse(result.error);
                  expectLocated(new MolspaceError(e.code, e.message, e.where, e.fix, e.details));
                }
                answered++;
              } else {
                expect(sent).toEqual([]);
              }
            } finally {
              client.dispose();
            }
          }),
          fuzzParams(FUZZ_RUNS)
        );
      } finally {
        warn.mockRestore();
      }
      expect(answered).toBeGreaterThan(FUZZ_RUNS / 20);
    },
    fuzzTimeout(60_000)
  );
});
