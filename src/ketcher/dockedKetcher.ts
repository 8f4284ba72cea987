/**
 * Ketcher editors the page owns, docked in JupyterLab's main area
 * (`ketcher_open`): the same `KetcherModel` and `KetcherView` as a cell's
 * editor, made without a kernel, listed by `observe` and driven by
 * `ketcher_control` through the Dispatcher. The `molspace:ketcher` plugin
 * binds it to the shell (`./ketcherOpener.ts`).
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import type { Message } from '@lumino/messaging';
import { Panel } from '@lumino/widgets';
import type { IMolspacePage } from '../tokens';
import { ketcherModelClass, type KetcherModel } from './ketcherModel';
import type { KetcherOpener } from './ketcherOpener';
import { KetcherView } from './ketcherView';

let docked = 0;

/** The main-area tab of a docked editor: closing it disposes it (a plain Lumino widget would only detach). */
class DockedKetcherPanel extends Panel {
  protected onCloseRequest(msg: Message): void {
    super.onCloseRequest(msg);
    this.dispose();
  }
}

/** The opener of this page: main-area docking. */
export function dockedKetcherOpener(app: JupyterFrontEnd, page: IMolspacePage): KetcherOpener {
  const ModelClass = ketcherModelClass(page) as unknown as new (attrs: Record<string, unknown>, options: Record<string, unknown>) => KetcherModel;
  return {
    async open({ value, format, title }) {
      const id = `molspace-ketcher-${++docked}-${Math.random().toString(36).slice(2, 8)}`;
      const model = new ModelClass({ _initial: value, _initial_format: format, title }, { model_id: id, widget_manager: null });
      const view = new KetcherView({ model } as never);
      const holder = new DockedKetcherPanel();
      holder.id = id;
      holder.title.label = title;
      holder.title.closable = true;
      holder.addClass('molspace-docked-ketcher');
      holder.addWidget(view.luminoWidget);
      view.render();
      holder.disposed.connect(() => {
        view.remove();
        model.close();
      });
      app.shell.add(holder, 'main', { mode: 'split-right' });
      app.shell.activateById(id);
      await model.whenLoaded();
      return model;
    }
  };
}
