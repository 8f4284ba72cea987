/**
 * The page's read mirror with the real Dispatcher and an in-memory Story: the
 * answers it pushes are the handlers' own, they follow every change, and the
 * bridge sends them before the result of the call that changed them. The
 * real page, gateway and official client: ui-tests/tests/readMirror.spec.ts.
 */
import { Signal } from '@lumino/signaling';
import { TOOLS } from '../../contract';
import { Dispatcher } from '../../dispatcher/dispatcher';
import { WidgetRegistry } from '../../dispatcher/registry';
import { MemoryStory, metas } from '../../__tests__/memoryStory';
import { BridgeClient, type BridgeSocket } from '../bridgeClient';
import { ReadMirror, readKey } from '../readMirror';
import { pageDispatcher } from '../../tools';

const settle = () => new Promise<void>(resolve => setImmediate(resolve));
type Frame = { type: string; [k: string]: unknown };

function setup() {
  const registry = new WidgetRegistry();
  const story = new MemoryStory('m1', metas(['a', 'b', 'c']));
  registry.register(story);
  const dispatcher = pageDispatcher(registry);
  const mirror = new ReadMirror({ registry, dispatcher });
  const frames: Frame[] = [];
  mirror.attach('page-1', f => frames.push(f as Frame));
  /** What the gateway holds after the frames so far. */
  const held = () => {
    const m = new Map<string, unknown>();
    for (const f of frames) {
      for (const d of f.drop as { tool: string; args: Record<string, unknown> }[]) m.delete(readKey(d.tool, d.args));
      for (const s of f.set as { tool: string; args: Record<string, unknown>; structuredContent: unknown }[]) {
        m.set(readKey(s.tool, s.args), s);
      }
    }
    return m;
  };
  return { registry, story, dispatcher, mirror, frames, held };
}

const relayed = (dispatcher: Dispatcher, tool: string, args: Record<string, unknown>) =>
  dispatcher.execute(tool, args, { source: 'agent', context: { pageId: 'page-1', pages: [] } });

describe('ReadMirror', () => {
  it('mirrors the contract tools marked mirrored, and only read tools', () => {
    const { mirror } = setup();
    const names = mirror.specs.map(s => s.name);
    expect(names).toEqual(TOOLS.filter(t => t.mirrored).map(t => t.name));
    expect(names).toEqual(expect.arrayContaining(['observe', 'story_observe', 'viewer_observe']));
    expect(mirror.specs.every(s => !s.mutating && s.runs === 'page')).toBe(true);
  });

  it('pushes what the handlers answer, for {} and {target}, equal to a relayed call', async () => {
    const { dispatcher, mirror, held } = setup();
    await settle();
    await mirror.flush();
    const h = held();
    for (const [tool, args] of [
      ['observe', {}],
      ['story_observe', {}],
      ['story_observe', { target: 'm1' }]
    ] as const) {
      const entry = h.get(readKey(tool, args)) as { structuredContent: unknown; text: string };
      const r = await relayed(dispatcher, tool, args);
      expect(entry).toMatchObject({ structuredContent: r.structuredContent, text: r.text });
    }
    expect(h.get(readKey('observe', {}))).toMatchObject({ pages: { complete: true } });
  });

  it('follows a change made through the Dispatcher, and drops a removed widget', async () => {
    const { dispatcher, registry, mirror, held } = setup();
    await settle();
    await relayed(dispatcher, 'story_control', { action: 'next' });
    await mirror.flush();
    expect(held().get(readKey('story_observe', { target: 'm1' }))).toMatchObject({
      structuredContent: { story: { index: 1, revision: 1 } }
    });
    registry.unregister('m1');
    await settle();
    await mirror.flush();
    expect(held().has(readKey('story_observe', { target: 'm1' }))).toBe(false);
    expect(held().get(readKey('observe', {}))).toMatchObject({ structuredContent: { widgets: [], total: 0 } });
  });

  it('pushes nothing when nothing changed, and everything again after a new attach', async () => {
    const { mirror, frames } = setup();
    await settle();
    await mirror.flush();
    const n = frames.length;
    await mirror.flush();
    expect(frames.length).toBe(n);
    const again: Frame[] = [];
    mirror.attach('page-1', f => again.push(f as Frame));
    await mirror.flush();
    expect((again[0].set as unknown[]).length).toBe(3);
  });
});

describe('BridgeClient with a read mirror', () => {
  // The client listens to window focus (node environment: jsdom has no TextEncoder for the budget).
  const listeners = { addEventListener: () => undefined, removeEventListener: () => undefined };
  Object.assign(globalThis, { window: listeners, document: { ...listeners, hasFocus: () => true } });
  class Socket implements BridgeSocket {
    static last: Socket;
    readyState = 0;
    sent: Frame[] = [];
    onopen: ((ev: Event) => void) | null = null;
    onmessage: ((ev: MessageEvent) => void) | null = null;
    onclose: ((ev: CloseEvent) => void) | null = null;
    constructor(readonly url: string) {
      Socket.last = this;
    }
    send(data: string): void {
      this.sent.push(JSON.parse(data));
    }
    close(): void {
      this.readyState = 3;
    }
  }

  it('sends the reads a call changed before its result, and only when the gateway asks for a mirror', async () => {
    const { registry, dispatcher } = setup();
    const mirror = new ReadMirror({ registry, dispatcher });
    const client = new BridgeClient({
      dispatcher,
      widgets: { size: 1, changed: new Signal<unknown, number>({}) },
      url: 'ws://x',
      WebSocket: Socket,
      pageIds: { get: () => 'page-1', renew: () => 'page-2' },
      mirror
    });
    client.connect();
    const socket = Socket.last;
    socket.readyState = 1;
    socket.onopen?.(new Event('open'));
    socket.onmessage?.(new MessageEvent('message', { data: JSON.stringify({ type: 'welcome', pageId: 'page-1', mirror: true }) }));
    await settle();
    expect(socket.sent.some(f => f.type === 'reads')).toBe(true);
    socket.sent = [];
    const context = { pageId: 'page-1', pages: [] };
    socket.onmessage?.(
      new MessageEvent('message', {
        data: JSON.stringify({ type: 'call', callId: 'c1', tool: 'story_control', args: { action: 'next' }, context, deadlineMs: 5000 })
      })
    );
    await settle();
    const kinds = socket.sent.map(f => f.type);
    expect(kinds).toEqual(['reads', 'result']);
    const reads = socket.sent[0].set as { tool: string; args: unknown; structuredContent: { story?: { revision: number } } }[];
    expect(
      reads.find(r => r.tool === 'story_observe' && JSON.stringify(r.args) === '{"target":"m1"}')?.structuredContent.story?.revision
    ).toBe(1);
    client.dispose();
  });

  it('pushes nothing to a gateway that relays every read (welcome without mirror)', async () => {
    const { registry, dispatcher } = setup();
    const client = new BridgeClient({
      dispatcher,
      widgets: { size: 1, changed: new Signal<unknown, number>({}) },
      url: 'ws://x',
      WebSocket: Socket,
      pageIds: { get: () => 'page-1', renew: () => 'page-2' },
      mirror: new ReadMirror({ registry, dispatcher })
    });
    client.connect();
    const socket = Socket.last;
    socket.readyState = 1;
    socket.onopen?.(new Event('open'));
    socket.onmessage?.(new MessageEvent('message', { data: JSON.stringify({ type: 'welcome', pageId: 'page-1', mirror: false }) }));
    await dispatcher.execute('story_control', { action: 'next' }, { source: 'ui' });
    await settle();
    expect(socket.sent.map(f => f.type)).toEqual(['hello']);
    client.dispose();
  });
});
