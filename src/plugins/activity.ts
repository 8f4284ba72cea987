/**
 * `molspace:activity` shows every call of this page's Dispatcher (side panel,
 * status bar) and offers the page tools to in-browser agents (WebMCP).
 */
import type { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { IStatusBar } from '@jupyterlab/statusbar';
import { listIcon } from '@jupyterlab/ui-components';
import { Panel, Widget } from '@lumino/widgets';
import { IMolspace } from '../tokens';
import { afterRestore } from './afterRestore';

export const activityPlugin: JupyterFrontEndPlugin<void> = {
  id: 'molspace:activity',
  description:
    'Shows what agents, cells and buttons did in this page (side panel and status bar), and offers the tools to in-browser agents (WebMCP).',
  autoStart: true,
  requires: [IMolspace],
  optional: [IStatusBar],
  activate: (app: JupyterFrontEnd, molspace: IMolspace, statusBar: IStatusBar | null) => {
    // Only the sidebar tab is made at start; the log, panel and WebMCP adapter load after restore.
    const holder = new Panel();
    holder.id = 'molspace-activity-panel';
    holder.title.icon = listIcon;
    holder.title.caption = 'molspace activity';
    app.shell.add(holder, 'right', { rank: 900 });
    const count = new Widget();
    count.addClass('molspace-activity-count');
    count.node.textContent = 'molspace: 0 calls';
    statusBar?.registerStatusItem('molspace:activity', { item: count, align: 'left', rank: 900 });
    void afterRestore(
      app,
      molspace,
      () => import('../activity/startActivity'),
      (page, { startActivity }) => startActivity(page, holder, count),
      'the activity panel could not start.'
    );
  }
};
