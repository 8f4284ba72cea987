/**
 * @jest-environment jsdom
 */
/**
 * A call still waiting for its draw when the widget leaves the page for good
 * is failed with STALE_TARGET saying why it left (WidgetPresence's reason), in
 * the message and in `details.reason`: a kernel restart reads differently from
 * a closed widget. Real Panel and Story models (ipywidgets' model base
 * replaced by plain Backbone, as jest cannot load `@jupyter-widgets/base`),
 * with a view that drew once and never draws the change.
 */
jest.mock('@jupyter-widgets/base', () => jest.requireActual('../../__tests__/widgetsBaseStub'));

import { MolspaceError } from '../../contract';
import { WidgetRegistry } from '../../dispatcher/registry';
import { LEFT_CLOSED, LEFT_KERNEL } from '../../dispatcher/widgetPresence';
import { panelModelClass, type PanelModel } from '../../panel/panelModel';
import { storyModelClass, type StoryModel } from '../../story/storyModel';
import { pageDispatcher } from '../../tools';

const registry = new WidgetRegistry();
const services = { registry, dispatcher: pageDispatcher(registry), files: {}, viewerBudget: {}, resourcePolicy: {} };

type Live = { comm_live: boolean; trigger(event: string): void };

/** The kernel goes: ipywidgets marks the comm dead (`comm_live` true, then false). */
function kernelGoes(model: Live): void {
  model.comm_live = true;
  model.trigger('comm_live_update');
  model.comm_live = false;
  model.trigger('comm_live_update');
}

async function staleOf(waiting: Promise<unknown>): Promise<MolspaceError> {
  const e = await waiting.then(
    () => null,
    (error: unknown) => error
  );
  expect(e).toBeInstanceOf(MolspaceError);
  return e as MolspaceError;
}

describe.each([
  ['its kernel restarted', kernelGoes, LEFT_KERNEL],
  ['it was closed', (m: Live) => m.trigger('comm:close'), LEFT_CLOSED]
])('a waiting call when the widget leaves because %s', (_why, leave, reason) => {
  it('Panel: the render it waits for fails STALE_TARGET with the reason', async () => {
    const Model = panelModelClass(services as never) as unknown as new (a: object, o: object) => PanelModel;
    const model = new Model({ _content: { kind: 'markdown', text: 'a' } }, { model_id: `p-${reason.length}`, widget_manager: {} });
    model.markRendered('view', 0, null);
    const waiting = model.applyContent({ content: { kind: 'markdown', text: 'b' } } as never, 'agent', 'b');
    leave(model as unknown as Live);
    const e = await staleOf(waiting);
    expect(e.code).toBe('STALE_TARGET');
    expect(e.message).toContain(reason);
    expect(e.details).toMatchObject({ target: model.model_id, reason });
  });

  it('Story: the step it waits for fails STALE_TARGET with the reason', async () => {
    const Model = storyModelClass(services as never) as unknown as new (a: object, o: object) => StoryModel;
    const model = new Model({}, { model_id: `s-${reason.length}`, widget_manager: {} });
    jest.spyOn(model, 'snapshots').mockReturnValue([{ key: 'a' }, { key: 'b' }] as never);
    model.markRendered('view', 0, null);
    const waiting = model.applyChange({ index: 1 }, 'agent', 'goto 1');
    leave(model as unknown as Live);
    const e = await staleOf(waiting);
    expect(e.code).toBe('STALE_TARGET');
    expect(e.message).toContain(reason);
    expect(e.details).toMatchObject({ target: model.model_id, reason });
  });
});
