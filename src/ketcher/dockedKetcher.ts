/**
 * Ketcher editors the page owns, docked in JupyterLab's main area
 * (`ketcher_open`): the same `KetcherModel` and `KetcherView` as a cell's
 * editor, made without a kernel, listed by `observe` and driven by
 * `ketcher_control` through the Dispatcher. The `molspace:ketcher` plugin
 * binds it to the shell (`./ketcherOpener.ts`).
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import { dockView, dockedId } from '../dockedTab';
import type { IMolspacePage } from '../tokens';
import { ketcherModelClass, type KetcherModel } from './ketcherModel';
import type { KetcherOpener } from './ketcherOpener';
import { KetcherView } from './ketcherView';

/** The opener of this page: main-area docking. */
export function dockedKetcherOpener(app: JupyterFrontEnd, page: IMolspacePage): KetcherOpener {
  const ModelClass = ketcherModelClass(page) as unknown as new (
    attrs: Record<string, unknown>,
    options: Record<string, unknown>
  ) => KetcherModel;
  return {
    async open({ value, format, title, placement }) {
      const id = dockedId('ketcher');
      const model = new ModelClass({ _initial: value, _initial_format: format, title }, { model_id: id, widget_manager: null });
      const view = new KetcherView({ model } as never);
      dockView(app, model, view, { id, label: title, className: 'molspace-docked-ketcher', placement });
      return model; // the caller waits until it is ready (`../dispatcher/whenReady.ts`)
    }
  };
}
