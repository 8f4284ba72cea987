/**
 * @jest-environment jsdom
 *
 * What in the page's DOM schedules a static fallback (docs/architecture.md, "Static fallback in
 * saved notebooks"): a view turning ready, and a new revision on a ready view, which is how a
 * person's edit in a Ketcher editor shows (it is no Dispatcher call).
 */
import { Signal } from '@lumino/signaling';
import type { PageFallback } from '../../contract';
import { FALLBACK_SETTLE_MS, FallbackReporter } from '../fallbackReporter';

// jsdom has no CSS.escape; the model ids here need no escaping.
(globalThis as unknown as { CSS: { escape(s: string): string } }).CSS ??= { escape: s => s };

test("a person's edit (a new data-molspace-revision on a ready view) sends the editor's fallback again", async () => {
  jest.useFakeTimers();
  const s = { ready: true, structureRevision: 1, interactionRevision: 0, title: 'mol', smiles: 'C', error: null };
  const editor = {
    targetId: 'k1',
    kind: 'ketcher' as const,
    comm_live: true,
    state: () => ({ target: 'k1', kind: 'ketcher', ...s }),
    describe: () => `Ketcher editor: ${s.smiles}`,
    whenLoaded: () => Promise.resolve()
  };
  const view = document.createElement('div');
  view.setAttribute('data-molspace-model', 'k1');
  view.setAttribute('data-molspace-ready', 'true');
  view.setAttribute('data-molspace-revision', '1');
  document.body.append(view);
  const frames: PageFallback[] = [];
  const reporter = new FallbackReporter({
    registry: { find: id => (id === 'k1' ? (editor as never) : undefined), list: () => [editor as never], changed: new Signal({}) },
    executed: new Signal({}),
    send: f => (frames.push(f), true),
    capture: async () => null
  });
  const settle = async () => {
    jest.advanceTimersByTime(FALLBACK_SETTLE_MS);
    for (let i = 0; i < 5; i++) {
      await Promise.resolve();
    }
  };
  await settle();
  expect(frames.map(f => f.state.summary)).toEqual(['Ketcher "mol": Ketcher editor: C']);
  s.structureRevision = 2;
  s.smiles = 'CO';
  view.setAttribute('data-molspace-revision', '2'); // the view shows the person's edit
  await Promise.resolve(); // MutationObserver records are delivered as a microtask
  await settle();
  expect(frames.map(f => f.state.summary)).toEqual(['Ketcher "mol": Ketcher editor: C', 'Ketcher "mol": Ketcher editor: CO']);
  reporter.dispose();
  view.remove();
  jest.useRealTimers();
});
