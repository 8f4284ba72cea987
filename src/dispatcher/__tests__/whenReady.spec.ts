/**
 * whenReady: a call that shows a widget succeeds only once it is drawn; its
 * load error is the call's error (with the widget's id); neither by the
 * deadline is a located TIMEOUT. The real openers' path is in Galata
 * (ui-tests/tests/story-create.spec.ts: a Story whose structure is missing).
 */
import { MolspaceError, type LocatedError } from '../../contract';
import { readyDeadline, whenReady } from '../whenReady';
import type { WidgetTarget } from '../widgetTarget';

function fakeTarget(): WidgetTarget & { ready: boolean; error: LocatedError | null } {
  const t = {
    targetId: 'molspace-story-1-abc',
    kind: 'story' as const,
    notebook: null,
    ready: false,
    error: null as LocatedError | null,
    whenLoaded: () => Promise.resolve(),
    state: () => ({ title: 't', ready: t.ready, revision: 0, error: t.error }),
    describe: () => 'a story'
  };
  return t;
}

const NOT_FOUND: LocatedError = {
  code: 'NOT_FOUND',
  message: 'Snapshot 0 could not load https://files.rcsb.org/none.pdb: 404.',
  where: '/snapshots/0/root/children/0/params/url',
  fix: 'Use a URL that exists.',
  details: { url: 'https://files.rcsb.org/none.pdb' }
};

test('resolves once the widget is ready', async () => {
  const t = fakeTarget();
  setTimeout(() => (t.ready = true), 20);
  await expect(whenReady(t, Date.now() + 5000)).resolves.toBeUndefined();
});

test("a load failure is the call's error: the widget's located error with its id", async () => {
  const t = fakeTarget();
  setTimeout(() => (t.error = NOT_FOUND), 20);
  const e = await whenReady(t, Date.now() + 5000).catch(x => x);
  expect(e).toBeInstanceOf(MolspaceError);
  expect(e.toJSON()).toEqual({ ...NOT_FOUND, details: { ...NOT_FOUND.details, target: t.targetId } });
});

test('an error wins over ready (a Ketcher frame that failed to start is ready with an error)', async () => {
  const t = fakeTarget();
  t.ready = true;
  t.error = NOT_FOUND;
  await expect(whenReady(t, Date.now() + 5000)).rejects.toMatchObject({ code: 'NOT_FOUND' });
});

test('neither ready nor failed by the deadline: a located TIMEOUT naming the widget', async () => {
  const t = fakeTarget();
  const e = await whenReady(t, Date.now() + 30).catch(x => x);
  expect(e).toMatchObject({ code: 'TIMEOUT', where: '/target', details: { target: t.targetId, ready: false } });
  expect(e.fix).toContain('story_observe');
});

test('the wait ends before the caller stops waiting', () => {
  expect(readyDeadline(10_000, 0)).toBeLessThan(10_000);
  expect(readyDeadline(undefined, 0)).toBeGreaterThan(0);
});
