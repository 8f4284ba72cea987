/**
 * A widget is in the page while one of its views is displayed, and leaves
 * for good when its comm closes or its kernel goes (src/dispatcher/widgetPresence.ts).
 * The real models are exercised by ui-tests/tests/lifecycle.spec.ts.
 */
import { WidgetRegistry } from '../registry';
import { LEFT_CLOSED, LEFT_KERNEL, LEFT_NOT_DISPLAYED, WidgetPresence } from '../widgetPresence';
import { MemoryStory, metas } from '../../__tests__/memoryStory';
import { expectFailure } from '../../__tests__/expectFailure';

/** The events of an ipywidgets model the presence listens to. */
class FakeModel {
  private readonly handlers = new Map<string, (() => void)[]>();
  private _live = true;
  get comm_live(): boolean {
    return this._live;
  }
  set comm_live(v: boolean) {
    this._live = v;
    this.trigger('comm_live_update');
  }
  on(event: string, cb: () => void): void {
    this.handlers.set(event, [...(this.handlers.get(event) ?? []), cb]);
  }
  once(event: string, cb: () => void): void {
    const wrapped = () => {
      this.handlers.set(
        event,
        (this.handlers.get(event) ?? []).filter(h => h !== wrapped)
      );
      cb();
    };
    this.on(event, wrapped);
  }
  trigger(event: string): void {
    for (const h of this.handlers.get(event) ?? []) h();
  }
}

function setup() {
  const registry = new WidgetRegistry();
  const target = new MemoryStory('m1', metas(['a']));
  const model = new FakeModel();
  const gone: string[] = [];
  const presence = new WidgetPresence(registry, target, model, reason => gone.push(reason));
  return { registry, target, model, presence, gone };
}

async function staleReason(registry: WidgetRegistry): Promise<string> {
  const e = await expectFailure(Promise.resolve().then(() => registry.get('m1', 'story')));
  expect(e.code).toBe('STALE_TARGET');
  return e.details.reason as string;
}

it('is in the page while a view is displayed; leaves with the last view; comes back when shown again', async () => {
  const { registry, presence, target, gone } = setup();
  const other = new MemoryStory('m0', metas(['x']));
  registry.register(other);
  registry.touch('m0');
  presence.shown('view-1');
  presence.shown('view-2');
  expect(registry.active?.targetId).toBe('m1'); // the most recently displayed
  presence.removed('view-1');
  expect(registry.find('m1')).toBe(target);
  presence.removed('view-2');
  expect(registry.find('m1')).toBeUndefined();
  expect(await staleReason(registry)).toBe(LEFT_NOT_DISPLAYED);
  presence.shown('view-3');
  expect(registry.get('m1', 'story')).toBe(target);
  expect(gone).toEqual([]);
});

it('leaves for good when its kernel goes (comm_live true to false), once, and is not brought back by a view', async () => {
  const { registry, model, presence, gone } = setup();
  presence.shown('view-1');
  model.comm_live = false;
  expect(gone).toEqual([LEFT_KERNEL]);
  expect(presence.gone).toBe(true);
  expect(await staleReason(registry)).toBe(LEFT_KERNEL);
  model.trigger('comm:close');
  model.trigger('destroy');
  expect(gone).toEqual([LEFT_KERNEL]);
  presence.shown('view-2');
  expect(registry.find('m1')).toBeUndefined();
});

it('leaves for good when its comm closes', async () => {
  const { registry, model, gone } = setup();
  model.trigger('comm:close');
  expect(gone).toEqual([LEFT_CLOSED]);
  expect(await staleReason(registry)).toBe(LEFT_CLOSED);
});
