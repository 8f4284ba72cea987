/**
 * @jest-environment jsdom
 */
/**
 * `PageWidgetModel.whenSent`: a change is answered only once its state update
 * has left for the kernel. The model base stands in for `@jupyter-widgets/base`
 * (jest cannot load it) with its message throttle as `WidgetModel.sync` and
 * `_handle_status` implement it: one update in flight; later saves are merged
 * into a held buffer, sent through `send_sync_message` when the kernel reports
 * idle for the one in flight. Like `WidgetModel.set` / `save_changes`, it keeps
 * the attributes changed since the last save in `_buffered_state_diff`.
 */
jest.mock('@jupyter-widgets/base', () => {
  const stub = jest.requireActual('../../__tests__/widgetsBaseStub');
  class ThrottledModel extends stub.DOMWidgetModel {
    sentUpdates: Record<string, unknown>[] = [];
    pending = 0;
    held: Record<string, unknown> | null = null;
    _buffered_state_diff: Record<string, unknown> = {};
    set(key: unknown, value?: unknown, options?: unknown): this {
      super.set(key as never, value as never, options as never);
      if (this._buffered_state_diff) {
        Object.assign(this._buffered_state_diff, this.changedAttributes() || {});
      }
      return this;
    }
    save_changes(): void {
      const state = { ...this._buffered_state_diff };
      this._buffered_state_diff = {};
      if (this.pending >= 1) {
        this.held = { ...this.held, ...state };
      } else {
        this.send_sync_message(state);
      }
    }
    send_sync_message(state: Record<string, unknown>): string {
      this.sentUpdates.push(state);
      this.pending++;
      return `msg-${this.sentUpdates.length}`;
    }
    /** The kernel reports idle for the update in flight. */
    idle(): void {
      this.pending--;
      if (this.held !== null && this.pending < 1) {
        const held = this.held;
        this.held = null;
        this.send_sync_message(held);
      }
    }
  }
  return { ...stub, DOMWidgetModel: ThrottledModel };
});

import { WidgetRegistry } from '../../dispatcher/registry';
import { panelModelClass, type PanelModel } from '../../panel/panelModel';
import { pageDispatcher } from '../../tools';
import { SENT_WAIT_MS } from '../pageWidgetModel';

const registry = new WidgetRegistry();
const services = { registry, dispatcher: pageDispatcher(registry), files: {}, viewerBudget: {}, resourcePolicy: {} };

type Throttled = PanelModel & {
  comm_live: boolean;
  sentUpdates: Record<string, unknown>[];
  idle(): void;
  set(name: string, value: unknown): unknown;
};

let count = 0;
function model(): Throttled {
  const Model = panelModelClass(services as never) as unknown as new (a: object, o: object) => Throttled;
  const m = new Model({ _content: { type: 'markdown', markdown: 'a' } }, { model_id: `sent-${++count}`, widget_manager: {} });
  m.comm_live = true;
  return m;
}

/** Save a change as the page does (the model's one way to send its state). */
function save(m: Throttled, text: string): void {
  m.set('title', text);
  (m as unknown as { sendState(): void }).sendState();
}

/** Whether `p` has settled once pending callbacks ran. */
async function settled(p: Promise<void>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await new Promise(resolve => setTimeout(resolve, 0));
  return done;
}

afterEach(() => {
  jest.useRealTimers();
});

test('nothing held: resolves at once', async () => {
  const m = model();
  expect(await settled(m.whenSent())).toBe(true);
  save(m, 'one');
  expect(m.sentUpdates).toHaveLength(1);
  expect(await settled(m.whenSent())).toBe(true);
});

test('a save held behind one in flight: resolves when the held update is sent, with it', async () => {
  const m = model();
  save(m, 'one');
  const first = m.whenSent();
  save(m, 'two'); // held: 'one' is unacknowledged
  const second = m.whenSent();
  expect(await settled(first)).toBe(true);
  expect(await settled(second)).toBe(false);
  save(m, 'three'); // merged into the held update
  const third = m.whenSent();
  m.idle();
  expect(m.sentUpdates.map(u => u.title)).toEqual(['one', 'three']);
  expect(await settled(second)).toBe(true);
  expect(await settled(third)).toBe(true);
});

test("a later save of the draw status alone ('ready') holds no answer; the change it follows still does", async () => {
  const m = model();
  save(m, 'one'); // in flight
  save(m, 'two'); // a change, held
  const change = m.whenSent();
  m.set('ready', true); // the change is drawn: held too, merged
  (m as unknown as { sendState(): void }).sendState();
  expect(await settled(change)).toBe(false);
  expect(await settled(m.whenSent())).toBe(false); // 'two' is still held
  m.idle();
  expect(m.sentUpdates.map(u => u.title)).toEqual(['one', 'two']);
  expect(m.sentUpdates[1].ready).toBe(true);
  expect(await settled(change)).toBe(true);

  // The change left at once; its drawn status is held behind it: nothing to wait for.
  m.idle();
  save(m, 'three');
  m.set('ready', false);
  (m as unknown as { sendState(): void }).sendState();
  expect(m.sentUpdates.map(u => u.title)).toEqual(['one', 'two', 'three']);
  expect(await settled(m.whenSent())).toBe(true);
});

test('the widget leaves with a save held: resolves (nothing more will be sent)', async () => {
  const m = model();
  save(m, 'one');
  save(m, 'two');
  const held = m.whenSent();
  expect(await settled(held)).toBe(false);
  (m as unknown as { trigger(e: string): void }).trigger('comm:close');
  expect(await settled(held)).toBe(true);
});

test('a kernel that never reports idle holds the answer at most SENT_WAIT_MS', async () => {
  jest.useFakeTimers();
  const m = model();
  save(m, 'one');
  save(m, 'two');
  let done = false;
  void m.whenSent().then(() => (done = true));
  jest.advanceTimersByTime(SENT_WAIT_MS - 1);
  await Promise.resolve();
  expect(done).toBe(false);
  jest.advanceTimersByTime(1);
  await Promise.resolve();
  expect(done).toBe(true);
  expect(jest.getTimerCount()).toBe(0);
});
