/**
 * @jest-environment jsdom
 */
/**
 * The page's depiction reader (`../depictor.ts`): its failures are located
 * (`MolspaceError`: the engine not starting, failing to start, not answering,
 * refusing a request it could not read), and its cache of depictions is
 * bounded. A fresh module per test (the reader is one per page).
 */
import { LIMITS } from '../../contract/limits';
import type * as ErrorsModule from '../../contract/errors';
import { DEPICT_TAG, DepictRequest, ConvertRequest } from '../../ketcher/depictMessages';
import { depictRefusal, MISFIT_FIX } from '../../ketcher/frame/inbox';
import type * as DepictorModule from '../depictor';

let depictor: typeof DepictorModule;
/** The errors module the fresh reader sees (its MolspaceError class). */
let errors: typeof ErrorsModule;
let frameWindow: Window;
const sent: unknown[] = [];

/** A fresh reader; its first call makes its frame, whose window the test plays. */
function start<T>(first: (d: typeof DepictorModule) => Promise<T>): Promise<T> {
  jest.isolateModules(() => {
    // A fresh module (and its own errors module) per test: the reader is one per page.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    depictor = require('../depictor');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    errors = require('../../contract/errors');
  });
  const called = first(depictor);
  called.catch(() => undefined);
  const nodes = document.querySelectorAll('iframe.molspace-depict-frame');
  const node = nodes[nodes.length - 1] as HTMLIFrameElement;
  frameWindow = node.contentWindow!;
  frameWindow.postMessage = ((message: unknown) => sent.push(message)) as typeof window.postMessage;
  return called;
}

function fromFrame(data: unknown): void {
  window.dispatchEvent(new MessageEvent('message', { data, source: frameWindow, origin: window.location.origin }));
}

async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) {
    await Promise.resolve();
  }
}

async function located(p: Promise<unknown>): Promise<ErrorsModule.MolspaceError> {
  const e = await p.then(
    () => null,
    (error: unknown) => error
  );
  expect(e).toBeInstanceOf(errors.MolspaceError);
  return e as ErrorsModule.MolspaceError;
}

beforeEach(() => {
  sent.length = 0;
  document.querySelectorAll('iframe').forEach(n => n.remove());
});

afterEach(() => jest.useRealTimers());

describe('depictor: located failures', () => {
  it('an engine that does not start: TIMEOUT at the frame, with a fix', async () => {
    jest.useFakeTimers();
    const called = start(d => d.depictSmiles(['C']));
    jest.advanceTimersByTime(90_000);
    const e = await located(called);
    expect(e.toJSON()).toMatchObject({ code: 'TIMEOUT', where: depictor.depictFrameUrl(), details: { waitedMs: 90_000 } });
    expect(e.message).toContain('did not start within 90 s');
    expect(e.fix).toMatch(/Reload the page/);
  });

  it('an engine that fails to start: INTERNAL with its error', async () => {
    const called = start(d => d.molfilesToSmiles(['M  END']));
    fromFrame({ tag: DEPICT_TAG, event: 'failed', error: 'no WebAssembly' });
    const e = await located(called);
    expect(e.code).toBe('INTERNAL');
    expect(e.message).toBe('The depiction engine failed to start: no WebAssembly');
    expect(e.where).toBe(depictor.depictFrameUrl());
  });

  it('a request the engine does not answer: TIMEOUT naming the request', async () => {
    jest.useFakeTimers();
    const called = start(d => d.depictSmiles(['C', 'CC']));
    fromFrame({ tag: DEPICT_TAG, event: 'ready', indigo: '1' });
    await settle();
    const { id } = DepictRequest.parse(sent[0]);
    jest.advanceTimersByTime(120_000);
    const e = await located(called);
    expect(e.toJSON()).toMatchObject({ code: 'TIMEOUT', details: { id, items: 2, waitedMs: 120_000 } });
    expect(e.message).toContain(`request ${id} (2 SMILES)`);
  });

  it('a request the frame could not read: rejected at once with its located refusal', async () => {
    const called = start(d => d.molfilesToSmiles(['M  END']));
    fromFrame({ tag: DEPICT_TAG, event: 'ready', indigo: '1' });
    await settle();
    const { id } = ConvertRequest.parse(sent[0]);
    // The frame (of another build) reads the page's request as malformed: a molfile that is not a string.
    const refusal = depictRefusal({ source: 'p', origin: 'o', data: { tag: DEPICT_TAG, id, molfiles: [5] } }, 'p', 'o');
    fromFrame(refusal);
    const e = await located(called);
    expect(e.toJSON()).toMatchObject({ code: 'INVALID_INPUT', where: '/molfiles/0', fix: MISFIT_FIX });
  });
});

describe('depictor: the cache of depictions is bounded', () => {
  it('keeps at most its bound, the least recently used dropped first', () => {
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      depictor = require('../depictor');
    });
    const cache = new depictor.BoundedCache<number>(3);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect(cache.get('a')).toBe(1); // a is now the most recent
    cache.set('d', 4);
    expect(cache.size).toBe(3);
    expect(cache.get('b')).toBeUndefined();
    expect([cache.get('a'), cache.get('c'), cache.get('d')]).toEqual([1, 3, 4]);
  });

  it(`the page's reader holds at most LIMITS.depictCacheEntries (${LIMITS.depictCacheEntries}) and asks again for one it dropped`, async () => {
    const n = LIMITS.depictCacheEntries + 1;
    const all = Array.from({ length: n }, (_, i) => `C${i}`);
    const called = start(d => d.depictSmiles(all));
    fromFrame({ tag: DEPICT_TAG, event: 'ready', indigo: '1' });
    // Answer every batch as it is asked for.
    for (let answered = 0; answered < sent.length || answered === 0; answered++) {
      await settle();
      const r = DepictRequest.parse(sent[answered]);
      fromFrame({ tag: DEPICT_TAG, id: r.id, images: r.smiles.map(() => ({ svg: 'PHN2Zy8+', error: null })) });
      await settle();
    }
    const images = await called;
    expect(images).toHaveLength(n); // the call itself gets every answer, even those the cache dropped
    const asked = sent.length;
    // The newest are kept; the first one was dropped and is asked for again.
    const again = depictor.depictSmiles([all[n - 1], all[0]]);
    await settle();
    expect(sent.length).toBe(asked + 1);
    expect(DepictRequest.parse(sent[asked]).smiles).toEqual([all[0]]);
    fromFrame({ tag: DEPICT_TAG, id: DepictRequest.parse(sent[asked]).id, images: [{ svg: 'PHN2Zy8+', error: null }] });
    await expect(again).resolves.toHaveLength(2);
  });
});
