/** The synced state of each widget kind: defaults that parse, fresh for every model. */
import { WIDGETS, WidgetKind, syncedDefaults } from '..';

test('every widget kind declares its synced state', () => {
  expect(Object.keys(WIDGETS).sort()).toEqual([...WidgetKind.options].sort());
});

test.each(WidgetKind.options)('%s: the defaults parse as its state, with the shared attributes', kind => {
  const defaults = syncedDefaults(kind);
  expect(WIDGETS[kind].state.safeParse(defaults).success).toBe(true);
  expect(defaults).toMatchObject({ _applied_requests: [], title: '', ready: false, error: null, revision: 0, last_change: null });
});

test('each call gives fresh arrays and objects (models never share a default)', () => {
  const a = syncedDefaults('story');
  const b = syncedDefaults('story');
  expect(a.snapshots).not.toBe(b.snapshots);
  expect(syncedDefaults('panel')._content).not.toBe(syncedDefaults('panel')._content);
});

test('a wrong type is refused', () => {
  expect(WIDGETS.viewer.state.safeParse({ undo_steps: 'two' }).success).toBe(false);
  expect(WIDGETS.story.state.safeParse({ error: { code: 'NOT_A_CODE' } }).success).toBe(false);
});
