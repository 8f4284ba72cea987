/**
 * What page widget models need of `@jupyter-widgets/base` in jest, which cannot load the real
 * package: its model base as plain Backbone (no kernel; `comm_live` false until a test sets it).
 * Used as `jest.mock('@jupyter-widgets/base', () => jest.requireActual('…/widgetsBaseStub'))`.
 */
import * as Backbone from 'backbone';

export class DOMWidgetModel extends Backbone.Model {
  static serializers = {};
  defaults(): Record<string, unknown> {
    return {};
  }
  initialize(_attributes: unknown, options: { model_id: string; widget_manager: unknown }): void {
    Object.assign(this, { model_id: options.model_id, widget_manager: options.widget_manager, comm_live: false });
  }
  send(): void {
    // no kernel
  }
}

export class DOMWidgetView {}

export const unpack_models = (): undefined => undefined;
