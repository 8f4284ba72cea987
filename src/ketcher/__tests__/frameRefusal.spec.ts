/**
 * @jest-environment jsdom
 */
/**
 * A request that carries the editor frame's tag but fails its schema (a page
 * and a frame of different builds), and one beyond the frame's backlog while
 * Ketcher starts, are answered at once with a located refusal, and the page
 * rejects the request with it: no 30 s TIMEOUT.
 */
import { LIMITS } from '../../contract/limits';
import { MolspaceError } from '../../contract/errors';
import { FRAME_TAG, FrameReply, FrameRequest } from '../frameMessages';
import { Backlog, backlogRefusal } from '../frame/backlog';
import { MISFIT_FIX, editorRefusal } from '../frame/inbox';
import { KetcherFrame } from '../ketcherFrameHost';

const ORIGIN = 'http://localhost';
const PARENT = { name: 'parent' };

describe('the editor frame refuses, located, a tagged request it cannot read', () => {
  it('names the JSON path of the first schema issue, what failed and what would fix it', () => {
    const reply = FrameReply.parse(
      editorRefusal({ source: PARENT, origin: ORIGIN, data: { tag: FRAME_TAG, id: 7, op: 'get', format: 'png' } }, PARENT, ORIGIN)
    );
    expect(reply).toMatchObject({ tag: FRAME_TAG, id: 7, ok: false });
    expect(reply.located).toMatchObject({ code: 'INVALID_INPUT', where: '/format', fix: MISFIT_FIX });
    expect(reply.located!.message).toMatch(/^The editor frame cannot read request 7: .+ at \/format\.$/);
    // The text alone (what a page of an older build reads) says the same.
    expect(reply.error).toBe(`INVALID_INPUT at /format: ${reply.located!.message} Fix: ${MISFIT_FIX}`);

    const nested = editorRefusal(
      { source: PARENT, origin: ORIGIN, data: { tag: FRAME_TAG, id: 8, op: 'highlight', atoms: [1, -2], color: '#f00' } },
      PARENT,
      ORIGIN
    );
    expect(nested?.located?.where).toBe('/atoms/1');
  });

  it('ignores what is not ours or names no id a reply can carry, and takes what parses', () => {
    const bad = { tag: FRAME_TAG, id: 7, op: 'paint' };
    expect(editorRefusal({ source: PARENT, origin: ORIGIN, data: { ...bad, tag: 'molspace-ketcher/2' } }, PARENT, ORIGIN)).toBeNull();
    expect(editorRefusal({ source: { name: 'other' }, origin: ORIGIN, data: bad }, PARENT, ORIGIN)).toBeNull();
    expect(editorRefusal({ source: PARENT, origin: 'https://evil.example', data: bad }, PARENT, ORIGIN)).toBeNull();
    expect(editorRefusal({ source: PARENT, origin: ORIGIN, data: { ...bad, id: '7' } }, PARENT, ORIGIN)).toBeNull();
    expect(editorRefusal({ source: PARENT, origin: ORIGIN, data: { ...bad, id: Infinity } }, PARENT, ORIGIN)).toBeNull();
    expect(editorRefusal({ source: PARENT, origin: ORIGIN, data: { tag: FRAME_TAG, id: 7, op: 'snapshot' } }, PARENT, ORIGIN)).toBeNull();
  });
});

describe("the editor frame's backlog while Ketcher starts", () => {
  it('holds at most its bound, oldest first, and refuses the newest beyond it with TOO_LARGE', () => {
    const backlog = new Backlog<number>(LIMITS.ketcherFrameBacklog);
    for (let i = 0; i < LIMITS.ketcherFrameBacklog; i++) {
      expect(backlog.offer(i)).toBe(true);
    }
    expect(backlog.offer(-1)).toBe(false);
    expect(backlog.size).toBe(LIMITS.ketcherFrameBacklog);
    const held = backlog.drain();
    expect(held).toEqual(Array.from({ length: LIMITS.ketcherFrameBacklog }, (_, i) => i));
    expect(backlog.size).toBe(0);
    expect(backlog.offer(99)).toBe(true);

    const reply = FrameReply.parse(backlogRefusal(12, LIMITS.ketcherFrameBacklog));
    expect(reply).toMatchObject({ tag: FRAME_TAG, id: 12, ok: false, located: { code: 'TOO_LARGE', details: { id: 12 } } });
    expect(reply.located!.message).toContain(`${LIMITS.ketcherFrameBacklog} requests`);
  });
});

describe('the page rejects at once with the refusal the frame sent', () => {
  const READY = { ketcher: '3', indigo: '1', snapshot: { ket: '{}', smiles: '', molfile: null, atoms: 0, bonds: 0, formula: null } };
  const sent: unknown[] = [];
  let frame: KetcherFrame;
  let frameWindow: Window;
  const deliver = (data: unknown) =>
    window.dispatchEvent(new MessageEvent('message', { data, source: frameWindow, origin: window.location.origin }));

  beforeAll(async () => {
    frame = new KetcherFrame(() => undefined, 'http://localhost/ketcher/index.html');
    const iframe = document.createElement('iframe');
    document.body.appendChild(iframe);
    frameWindow = iframe.contentWindow!;
    Object.defineProperty(frame.node, 'contentWindow', { get: () => frameWindow });
    frameWindow.postMessage = ((message: unknown) => sent.push(message)) as typeof window.postMessage;
    deliver({ tag: FRAME_TAG, event: 'ready', ...READY });
    await frame.ready;
  });

  afterAll(() => frame.dispose());

  async function refusedWith(reply: (id: number) => unknown): Promise<MolspaceError> {
    const before = sent.length;
    const asked = frame.request({ op: 'snapshot' }, '/call');
    for (let i = 0; i < 10 && sent.length === before; i++) {
      await Promise.resolve();
    }
    const { id } = FrameRequest.parse(sent[before]);
    deliver(reply(id));
    const e = await asked.catch((error: unknown) => error);
    expect(e).toBeInstanceOf(MolspaceError);
    return e as MolspaceError;
  }

  it('a request the frame cannot read: INVALID_INPUT at the path the frame named', async () => {
    const e = await refusedWith(id =>
      editorRefusal({ source: PARENT, origin: ORIGIN, data: { tag: FRAME_TAG, id, op: 'paint' } }, PARENT, ORIGIN)!
    );
    expect(e.toJSON()).toMatchObject({ code: 'INVALID_INPUT', where: '/op', fix: MISFIT_FIX });
  });

  it('a request over the backlog: TOO_LARGE', async () => {
    const e = await refusedWith(id => backlogRefusal(id, 64));
    expect(e.code).toBe('TOO_LARGE');
  });
});
