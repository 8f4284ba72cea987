/**
 * @jest-environment jsdom
 *
 * The page-wide budget of live WebGL viewers, with fake views and a fake
 * IntersectionObserver that the test drives.
 */
import { DEFAULT_MAX_LIVE, ViewerBudget, type ViewerHandle } from '../viewerBudget';

/** Stands in for the browser's IntersectionObserver; `show` reports an element (in)visible. */
class FakeIntersectionObserver {
  static current: FakeIntersectionObserver | null = null;
  readonly observed = new Set<Element>();
  constructor(private readonly callback: (entries: { target: Element; isIntersecting: boolean }[]) => void) {
    FakeIntersectionObserver.current = this;
  }
  observe(el: Element): void {
    this.observed.add(el);
  }
  unobserve(el: Element): void {
    this.observed.delete(el);
  }
  disconnect(): void {
    this.observed.clear();
  }
  static show(el: Element, isIntersecting: boolean): void {
    FakeIntersectionObserver.current?.callback([{ target: el, isIntersecting }]);
  }
}

/** A view with a viewer that parks and restores at once (or when `hold` is set, when released). */
class FakeView implements ViewerHandle {
  static clock = 0;
  readonly element = document.createElement('div');
  isLive = false;
  lastUsed = 0;
  parks = 0;
  restores = 0;
  constructor(readonly name: string) {}
  /** Become live through the budget, as a view creating its viewer does. */
  async start(budget: ViewerBudget): Promise<void> {
    const release = await budget.reserve(this);
    this.isLive = true;
    this.use();
    release();
  }
  use(): void {
    this.lastUsed = ++FakeView.clock;
  }
  async park(): Promise<void> {
    this.parks += 1;
    this.isLive = false;
  }
  async restore(): Promise<void> {
    this.restores += 1;
  }
}

const live = (views: FakeView[]) => views.filter(v => v.isLive).map(v => v.name);

beforeEach(() => {
  Object.assign(globalThis, { IntersectionObserver: FakeIntersectionObserver });
  FakeIntersectionObserver.current = null;
});

it('starts with the default maximum and refuses a maximum below one', () => {
  const budget = new ViewerBudget();
  expect(budget.max).toBe(DEFAULT_MAX_LIVE);
  budget.setMaxLive(0);
  expect(budget.max).toBe(DEFAULT_MAX_LIVE);
  budget.setMaxLive(3.7);
  expect(budget.max).toBe(3);
});

it('parks the least recently used viewer to make room for a new one', async () => {
  const budget = new ViewerBudget();
  budget.setMaxLive(2);
  const views = ['a', 'b', 'c'].map(n => new FakeView(n));
  views.forEach(v => budget.register(v));
  await views[0].start(budget);
  await views[1].start(budget);
  views[0].use();
  await views[2].start(budget);
  expect(live(views)).toEqual(['a', 'c']);
  expect(views[1].parks).toBe(1);
});

it('parks viewers out of view before others, least recently used first', async () => {
  const budget = new ViewerBudget();
  budget.setMaxLive(3);
  const views = ['a', 'b', 'c', 'd'].map(n => new FakeView(n));
  views.forEach(v => budget.register(v));
  for (const v of views.slice(0, 3)) {
    await v.start(budget);
  }
  // b is neither the least nor the most recently used, but it is out of view.
  FakeIntersectionObserver.show(views[1].element, false);
  await views[3].start(budget);
  expect(live(views)).toEqual(['a', 'c', 'd']);
});

it('parks extra viewers at once when the maximum is lowered', async () => {
  const budget = new ViewerBudget();
  const views = ['a', 'b', 'c', 'd'].map(n => new FakeView(n));
  views.forEach(v => budget.register(v));
  for (const v of views) {
    await v.start(budget);
  }
  budget.setMaxLive(1);
  await budget.enforce();
  expect(live(views)).toEqual(['d']);
});

it('keeps a viewer live out of view while the budget has room, and restores a parked one in view', async () => {
  jest.useFakeTimers();
  try {
    const budget = new ViewerBudget();
    budget.setMaxLive(2);
    const [a, b, c] = ['a', 'b', 'c'].map(n => new FakeView(n));
    [a, b, c].forEach(v => budget.register(v));
    await a.start(budget);
    // Scrolled away (or taken out of the DOM by JupyterLab's full windowing) for a long time.
    FakeIntersectionObserver.show(a.element, false);
    jest.advanceTimersByTime(10 * 60_000);
    expect(a.parks).toBe(0);
    expect(a.isLive).toBe(true);
    // Back in view: still live, nothing to restore.
    FakeIntersectionObserver.show(a.element, true);
    expect(a.restores).toBe(0);
    // Room is needed: the viewer out of view goes first, even though it was used last.
    await b.start(budget);
    FakeIntersectionObserver.show(b.element, false);
    a.use();
    await c.start(budget);
    expect(live([a, b, c])).toEqual(['a', 'c']);
    expect(b.parks).toBe(1);
    // The parked one comes back when it comes into view.
    FakeIntersectionObserver.show(b.element, true);
    expect(b.restores).toBe(1);
  } finally {
    jest.useRealTimers();
  }
});

it('counts viewers still being created, so that simultaneous starts stay within the budget', async () => {
  const budget = new ViewerBudget();
  budget.setMaxLive(2);
  const views = ['a', 'b', 'c'].map(n => new FakeView(n));
  views.forEach(v => budget.register(v));
  const releases = await Promise.all(views.slice(0, 2).map(v => budget.reserve(v)));
  // Two viewers are being created and none is live yet: the third waits for one of them.
  let third: (() => void) | null = null;
  const waiting = budget.reserve(views[2]).then(release => (third = release));
  await new Promise<void>(resolve => setTimeout(resolve, 0)); // let pending callbacks run
  expect(third).toBeNull();
  views[0].isLive = true;
  views[0].use();
  releases[0]();
  views[1].isLive = true;
  views[1].use();
  releases[1]();
  await waiting;
  expect(third).not.toBeNull();
  // Making room for the third parked the least recently used live viewer.
  expect(live(views)).toEqual(['b']);
});

it('stops tracking an unregistered view', async () => {
  const budget = new ViewerBudget();
  budget.setMaxLive(1);
  const a = new FakeView('a');
  const b = new FakeView('b');
  const unregister = budget.register(a);
  budget.register(b);
  await a.start(budget);
  unregister();
  expect(FakeIntersectionObserver.current?.observed.has(a.element)).toBe(false);
  await b.start(budget);
  expect(a.parks).toBe(0);
});

it('keeps a viewer drawn out of view for a call live until room is needed, then parks it first', async () => {
  const budget = new ViewerBudget();
  budget.setMaxLive(2);
  const [a, b, c] = ['a', 'b', 'c'].map(n => new FakeView(n));
  [a, b, c].forEach(v => budget.register(v));
  await b.start(budget);
  // a is out of view; a call has it draw (it becomes the most recently used).
  FakeIntersectionObserver.show(a.element, false);
  await a.start(budget);
  expect(live([a, b, c])).toEqual(['a', 'b']);
  await c.start(budget);
  expect(live([a, b, c])).toEqual(['b', 'c']);
  expect(a.parks).toBe(1);
});
