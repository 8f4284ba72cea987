/**
 * The Panel App (`ui://molspace/panel`, built into `static/panel.js`): each `render_panel`
 * result's panel, rendered by the notebook's panel code (`./appPanel.ts`); started by the
 * same loader as the Viewer App (`./appLoader.ts`), or by `./exportHandoff.ts` in a file
 * `Panel.to_html` wrote. An error result, or a panel the checks refuse, is shown located and
 * told to the model (`ui/update-model-context`); the model is told the panel's type and size,
 * never its text.
 */
import { ZOD_JITLESS } from './zodJitless';
import type { CallToolResult } from '@modelcontextprotocol/client';

import { MolspaceError } from '../contract/errors';
import { AppPanelView, appPanelOf } from './appPanel';
import { markState, showError, startApp } from './appStatus';
import { errorOfResult } from './appResult';

document.documentElement.dataset.molspaceZod = ZOD_JITLESS ? 'jitless' : 'jit';
const started = startApp('Panel', 'ui://molspace/panel');
if (started) {
  const { handoff, root } = started;
  // The panel replaces the viewer's fixed-height box: it sizes to its content.
  root.hidden = true;
  const box = document.createElement('div');
  box.id = 'molspace-app-panel';
  root.after(box);
  const view = new AppPanelView(box);
  let shown = 0;
  const show = async (result: CallToolResult): Promise<void> => {
    const n = ++shown;
    try {
      const failed = errorOfResult(result);
      if (failed) {
        handoff.tell(showError(failed));
        return;
      }
      const found = appPanelOf(result);
      if (!found) {
        markState('drawn', 'Shown in JupyterLab.');
        return;
      }
      markState('loading', `Rendering ${found.panel.title}…`);
      const line = await view.show(found.panel, found.content);
      if (n === shown) {
        markState('drawn', found.panel.title);
        handoff.tell(line, { panelId: found.panel.panelId, type: found.content.type });
      }
    } catch (e) {
      if (n === shown) {
        handoff.tell(showError(MolspaceError.from(e, 'App').toJSON()));
      }
    }
  };
  markState('loading', 'Waiting for the tool result…');
  handoff.onResult(result => void show(result));
}
