/**
 * @jest-environment jsdom
 *
 * The page's spare Mol* WebGL contexts, with stand-in contexts (the real
 * hand-over is checked in Galata: ui-tests/tests/scrollback.spec.ts).
 */
import type { Canvas3DContext } from 'molstar/lib/mol-canvas3d/canvas3d';

import { MAX_SPARE, SPARE_KEEP_MS, giveSpareContext, spareContextCount, takeSpareContext } from '../webglContextPool';

/** A stand-in context: a canvas, a lost flag, and a count of disposals. */
function fakeContext(lost = false): Canvas3DContext & { disposed: number } {
  const ctx = {
    canvas: document.createElement('canvas'),
    webgl: { isContextLost: lost },
    disposed: 0,
    dispose() {
      ctx.disposed += 1;
    }
  };
  return ctx as unknown as Canvas3DContext & { disposed: number };
}

afterEach(() => {
  while (takeSpareContext()) {
    // empty the pool between tests
  }
});

it("hands a parked viewer's context to the next viewer, and keeps at most MAX_SPARE", () => {
  expect(MAX_SPARE).toBe(1);
  const a = fakeContext();
  const b = fakeContext();
  const container = document.createElement('div');
  container.append(a.canvas!);
  document.body.append(container);
  giveSpareContext(a);
  expect(container.isConnected).toBe(false);
  expect(a.canvas!.parentElement).toBe(container);
  giveSpareContext(b);
  expect(b.disposed).toBe(1);
  expect(spareContextCount()).toBe(1);
  expect(takeSpareContext()).toBe(a);
  expect(a.disposed).toBe(0);
  expect(takeSpareContext()).toBeNull();
});

it('never keeps or hands out a lost context', () => {
  const lost = fakeContext(true);
  giveSpareContext(lost);
  expect(lost.disposed).toBe(1);
  expect(takeSpareContext()).toBeNull();
  const later = fakeContext();
  giveSpareContext(later);
  (later.webgl as { isContextLost: boolean }).isContextLost = true;
  expect(takeSpareContext()).toBeNull();
  expect(later.disposed).toBe(1);
});

it('frees a spare nobody took after SPARE_KEEP_MS', () => {
  jest.useFakeTimers();
  try {
    const a = fakeContext();
    giveSpareContext(a);
    jest.advanceTimersByTime(SPARE_KEEP_MS - 1);
    expect(a.disposed).toBe(0);
    jest.advanceTimersByTime(1);
    expect(a.disposed).toBe(1);
    expect(spareContextCount()).toBe(0);
  } finally {
    jest.useRealTimers();
  }
});
