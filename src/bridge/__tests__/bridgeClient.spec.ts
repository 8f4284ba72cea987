/**
 * @jest-environment jsdom
 *
 * The bridge client against a fake WebSocket: hello, calls and results,
 * reconnect with backoff, and the gateway's close codes.
 */
import { Signal } from '@lumino/signaling';
import { BRIDGE_CLOSE_CODES, BRIDGE_PROTOCOL_VERSION, LIMITS, MolspaceError, type ServedRead } from '../../contract';
import type { DispatchOptions, DispatchResult } from '../../dispatcher/dispatcher';
import { BridgeClient, RECONNECT_MAX_MS, RECONNECT_MIN_MS, callDeadline, type BridgeSocket, type PageIdStore } from '../bridgeClient';

class FakeSocket implements BridgeSocket {
  static all: FakeSocket[] = [];
  readyState = 0;
  sent: Record<string, unknown>[] = [];
  closedByClient = false;
  onopen: ((ev: Event) => void) | null = null;
  onmessage: ((ev: MessageEvent) => void) | null = null;
  onclose: ((ev: CloseEvent) => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.all.push(this);
  }
  static get last(): FakeSocket {
    return FakeSocket.all[FakeSocket.all.length - 1];
  }
  send(data: string): void {
    this.sent.push(JSON.parse(data));
  }
  close(): void {
    this.closedByClient = true;
    this.readyState = 3;
  }
  /** The server accepts the connection. */
  open(): void {
    this.readyState = 1;
    this.onopen?.(new Event('open'));
  }
  /** The server sends a frame. */
  receive(frame: unknown): void {
    this.onmessage?.(new MessageEvent('message', { data: JSON.stringify(frame) }));
  }
  /** The connection closes (the server closed it, or it was lost). */
  drop(code: number, reason = ''): void {
    this.readyState = 3;
    this.onclose?.(new CloseEvent('close', { code, reason }));
  }
}

class Widgets {
  size = 2;
  readonly changed = new Signal<this, number>(this);
}

class PageIds implements PageIdStore {
  n = 1;
  get(): string {
    return `page-${this.n}`;
  }
  renew(): string {
    this.n += 1;
    return this.get();
  }
}

type Execute = (tool: string, args: unknown, options: DispatchOptions) => Promise<DispatchResult>;

function setup(execute: Execute = async () => ({ structuredContent: { a: 1 }, text: 'ok' })) {
  FakeSocket.all = [];
  const widgets = new Widgets();
  const pageIds = new PageIds();
  const calls: { tool: string; args: unknown; options: DispatchOptions }[] = [];
  const served: ServedRead[][] = [];
  const client = new BridgeClient({
    dispatcher: {
      execute: (tool, args, options) => {
        calls.push({ tool, args, options });
        return execute(tool, args, options);
      },
      noteServed: reads => served.push([...reads])
    },
    widgets,
    url: 'ws://server/molspace/bridge?token=t',
    WebSocket: FakeSocket,
    pageIds
  });
  client.connect();
  return { client, widgets, pageIds, calls, served };
}

/** Let pending promise callbacks run. */
const settle = () => new Promise<void>(resolve => jest.requireActual<typeof import('timers')>('timers').setImmediate(resolve));

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

it('says hello with the page id, protocol and widget count, and is connected once welcomed', () => {
  const { client } = setup();
  const socket = FakeSocket.last;
  expect(socket.url).toBe('ws://server/molspace/bridge?token=t');
  socket.open();
  expect(socket.sent[0]).toMatchObject({ type: 'hello', protocol: BRIDGE_PROTOCOL_VERSION, pageId: 'page-1', widgets: 2 });
  expect(client.state).toBe('connecting');
  socket.receive({ type: 'welcome', pageId: 'page-1' });
  expect(client.connected).toBe(true);
});

it('hands reads the gateway answered from the mirror to the Dispatcher records, running nothing', () => {
  const { calls, served } = setup();
  const socket = FakeSocket.last;
  socket.open();
  socket.receive({ type: 'welcome', pageId: 'page-1' });
  const read = { tool: 'observe', args: {}, client: { name: 'claude-code', version: '2' }, startedAt: 1, durationMs: 0.2 };
  socket.receive({ type: 'served', reads: [read, { ...read, client: null }], dropped: 0 });
  // Not a gateway frame: ignored.
  socket.receive({ type: 'served', reads: [{ tool: 'observe' }], dropped: 0 });
  expect(served).toEqual([[read, { ...read, client: null }]]);
  expect(calls).toEqual([]);
  expect(socket.sent.filter(f => f.type === 'result')).toEqual([]);
});

it('runs a call through the Dispatcher as an agent and answers with a result frame', async () => {
  const { calls } = setup();
  const socket = FakeSocket.last;
  socket.open();
  socket.receive({ type: 'welcome', pageId: 'page-1' });
  const context = { pageId: 'page-1', pages: [] };
  socket.receive({ type: 'call', callId: 'c1', tool: 'observe', args: { limit: 3 }, context, deadlineMs: 600_000 });
  await settle();
  expect(calls).toEqual([{ tool: 'observe', args: { limit: 3 }, options: { source: 'agent', context, deadline: expect.any(Number) } }]);
  // The page's deadline is the gateway's deadlineMs from when the frame arrived.
  const deadline = (calls[0].options as { deadline: number }).deadline;
  expect(deadline - Date.now()).toBeGreaterThan(500_000);
  expect(deadline - Date.now()).toBeLessThanOrEqual(600_000);
  expect(socket.sent[1]).toEqual({ type: 'result', callId: 'c1', ok: true, structuredContent: { a: 1 }, text: 'ok' });
});

it('answers a failed call with its located error', async () => {
  setup(async () => {
    throw new MolspaceError('NOT_FOUND', 'no such widget', '/target', 'call observe');
  });
  const socket = FakeSocket.last;
  socket.open();
  socket.receive({ type: 'call', callId: 'c2', tool: 'story_control', args: {}, context: { pageId: 'p', pages: [] }, deadlineMs: 1 });
  await settle();
  expect(socket.sent[1]).toMatchObject({ type: 'result', callId: 'c2', ok: false, error: { code: 'NOT_FOUND', where: '/target' } });
});

it('answers a result larger than a bridge frame with TOO_LARGE', async () => {
  setup(async () => ({ structuredContent: { big: 'x'.repeat(LIMITS.bridgeFrameBytes) }, text: 'big' }));
  const socket = FakeSocket.last;
  socket.open();
  socket.receive({ type: 'call', callId: 'c3', tool: 'observe', args: {}, context: { pageId: 'p', pages: [] }, deadlineMs: 1 });
  await settle();
  expect(socket.sent[1]).toMatchObject({ type: 'result', callId: 'c3', ok: false, error: { code: 'TOO_LARGE' } });
});

it('reports the widget count when it changes', () => {
  const { widgets } = setup();
  const socket = FakeSocket.last;
  socket.open();
  widgets.changed.emit(5);
  expect(socket.sent[1]).toEqual({ type: 'summary', widgets: 5 });
});

it('ignores frames that are not gateway messages', () => {
  const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  const { client } = setup();
  const socket = FakeSocket.last;
  socket.open();
  socket.onmessage?.(new MessageEvent('message', { data: 'not json' }));
  socket.receive({ type: 'welcome' });
  expect(client.state).toBe('connecting');
  expect(warn).toHaveBeenCalledTimes(2);
  warn.mockRestore();
});

it('reconnects a lost connection with a doubling delay up to the maximum, back to the minimum once welcomed', () => {
  const { client } = setup();
  const delays: number[] = [];
  for (let i = 0; i < 8; i++) {
    FakeSocket.last.drop(1006);
    expect(client.state).toBe('waiting');
    const count = FakeSocket.all.length;
    delays.push(client.reconnectDelay);
    jest.advanceTimersByTime(Math.min(RECONNECT_MIN_MS * 2 ** i, RECONNECT_MAX_MS) - 1);
    expect(FakeSocket.all).toHaveLength(count);
    jest.advanceTimersByTime(1);
    expect(FakeSocket.all).toHaveLength(count + 1);
  }
  expect(delays).toEqual([1000, 2000, 4000, 8000, 10000, 10000, 10000, 10000]);
  // An open socket that the server closes before its welcome keeps backing off.
  FakeSocket.last.open();
  FakeSocket.last.drop(1011);
  expect(client.reconnectDelay).toBe(RECONNECT_MAX_MS);
  jest.advanceTimersByTime(RECONNECT_MAX_MS);
  FakeSocket.last.open();
  FakeSocket.last.receive({ type: 'welcome', pageId: 'page-1' });
  expect(client.reconnectDelay).toBe(RECONNECT_MIN_MS);
  FakeSocket.last.drop(1006);
  const count = FakeSocket.all.length;
  jest.advanceTimersByTime(RECONNECT_MIN_MS);
  expect(FakeSocket.all).toHaveLength(count + 1);
});

it('stops for good with a located error when the server speaks another protocol (4001)', () => {
  const error = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  const { client } = setup();
  FakeSocket.last.open();
  FakeSocket.last.drop(BRIDGE_CLOSE_CODES.unsupportedProtocol, 'protocol 2 expected');
  expect(client.state).toBe('stopped');
  expect(client.error).toMatchObject({ code: 'UNSUPPORTED_FORMAT', where: 'bridge' });
  expect(client.error?.fix).toMatch(/Reload the page/);
  jest.advanceTimersByTime(10 * RECONNECT_MAX_MS);
  expect(FakeSocket.all).toHaveLength(1);
  client.connect();
  expect(FakeSocket.all).toHaveLength(1);
  expect(error).toHaveBeenCalledTimes(1);
  error.mockRestore();
});

describe('where no gateway serves the page (JupyterLite, the server extension off)', () => {
  function probing(status: number | null) {
    FakeSocket.all = [];
    const probes: number[] = [];
    const stopped: unknown[] = [];
    const client = new BridgeClient({
      dispatcher: { execute: async () => ({ structuredContent: {}, text: '' }), noteServed: () => undefined },
      widgets: new Widgets(),
      url: 'ws://server/base/molspace/bridge?token=secret',
      WebSocket: FakeSocket,
      pageIds: new PageIds(),
      probe: async () => {
        probes.push(1);
        return status;
      },
      onStopped: error => stopped.push(error)
    });
    client.connect();
    return { client, probes, stopped };
  }

  it('stops after a 404 of the bridge URL, located, told once, with no more sockets', async () => {
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { client, probes, stopped } = probing(404);
    FakeSocket.last.drop(1006);
    await settle();
    expect(probes).toHaveLength(1);
    expect(client.state).toBe('stopped');
    expect(client.error).toMatchObject({
      code: 'NOT_FOUND',
      where: 'bridge',
      details: { url: 'ws://server/base/molspace/bridge', status: 404 }
    });
    expect(client.error?.fix).toMatch(/JupyterLite there is no server/);
    expect(JSON.stringify(client.error)).not.toContain('secret');
    expect(stopped).toEqual([client.error]);
    jest.advanceTimersByTime(10 * RECONNECT_MAX_MS);
    expect(FakeSocket.all).toHaveLength(1);
    expect(warn).toHaveBeenCalledTimes(1);
    warn.mockRestore();
  });

  it.each([
    ['answers 400 (a gateway that wants a websocket)', 400],
    ['cannot be read (the server is down)', null]
  ])('keeps reconnecting when the bridge URL %s, asking once', async (_name, status) => {
    const { client, probes, stopped } = probing(status);
    FakeSocket.last.drop(1006);
    await settle();
    jest.advanceTimersByTime(RECONNECT_MIN_MS);
    FakeSocket.last.drop(1006);
    await settle();
    jest.advanceTimersByTime(2 * RECONNECT_MIN_MS);
    expect(FakeSocket.all).toHaveLength(3);
    expect(probes).toHaveLength(1);
    expect(client.state).toBe('connecting');
    expect(stopped).toEqual([]);
  });

  it('never asks once the gateway welcomed the page: a lost socket then is a server restart', async () => {
    const { client, probes } = probing(404);
    FakeSocket.last.open();
    FakeSocket.last.receive({ type: 'welcome', pageId: 'page-1' });
    FakeSocket.last.drop(1006);
    await settle();
    jest.advanceTimersByTime(RECONNECT_MIN_MS);
    expect(probes).toEqual([]);
    expect(FakeSocket.all).toHaveLength(2);
    expect(client.state).toBe('connecting');
  });
});

it.each([
  ['replaced by another tab', BRIDGE_CLOSE_CODES.replaced],
  ['page id of another user', BRIDGE_CLOSE_CODES.pageIdTaken]
])('reconnects under a new page id when the gateway closes with %s', (_name, code) => {
  const { client } = setup();
  FakeSocket.last.open();
  expect(FakeSocket.last.sent[0]).toMatchObject({ pageId: 'page-1' });
  FakeSocket.last.drop(code);
  expect(client.pageId).toBe('page-2');
  jest.advanceTimersByTime(RECONNECT_MIN_MS);
  FakeSocket.last.open();
  expect(FakeSocket.last.sent[0]).toMatchObject({ type: 'hello', pageId: 'page-2' });
});

it('stops reconnecting once disposed, and ignores the close of a socket it left', () => {
  const { client } = setup();
  const first = FakeSocket.last;
  first.open();
  client.dispose();
  expect(first.closedByClient).toBe(true);
  first.drop(1000);
  jest.advanceTimersByTime(10 * RECONNECT_MAX_MS);
  expect(FakeSocket.all).toHaveLength(1);
  expect(client.state).toBe('stopped');
});

describe('callDeadline: a relayed call counts its deadline from when the gateway sent it', () => {
  it('is the earlier of read + deadlineMs and sentAt (server clock, less the offset) + deadlineMs', () => {
    // the page clock runs 5 s behind the server's; the call was sent 40 s ago (a frozen page), deadline 30 s
    const offset = 5_000;
    const now = 1_000_000;
    const sentAt = now + offset - 40_000;
    expect(callDeadline(now, 30_000, sentAt, offset)).toBe(now - 10_000);
    expect(callDeadline(now, 30_000, sentAt, offset)).toBeLessThan(now); // passed: the Dispatcher refuses it, TIMEOUT
    // read at once: the deadline is read + deadlineMs
    expect(callDeadline(now, 30_000, now + offset, offset)).toBe(now + 30_000);
    // a gateway that sends no time, or no welcome clock: counted from the read
    expect(callDeadline(now, 30_000, undefined, offset)).toBe(now + 30_000);
    expect(callDeadline(now, 30_000, sentAt, null)).toBe(now + 30_000);
  });
});
