/**
 * Start the activity panel and the WebMCP adapter once the page's Dispatcher
 * exists (loaded after JupyterLab has restored, off its start path).
 */
import type { Panel, Widget } from '@lumino/widgets';
import type { IMolspacePage } from '../tokens';
import { findModelContext, startWebMcp } from '../webmcp/webmcpAdapter';
import { ActivityLog } from './activityLog';
import { ActivityPanel } from './activityPanel';

/**
 * Record every Dispatcher call, and every agent read the gateway answered from
 * this page's read mirror, in an {@link ActivityLog}; show it in `holder` (the
 * side panel) and count it in `count` (the status bar item); register the page
 * tools with WebMCP where the browser has it.
 */
export function startActivity(page: IMolspacePage, holder: Panel, count: Widget): ActivityLog {
  const log = new ActivityLog();
  page.dispatcher.executed.connect((_, record) => log.add(record));
  page.dispatcher.served.connect((_, record) => log.add(record));
  log.changed.connect(() => {
    count.node.textContent = `molspace: ${log.size} call${log.size === 1 ? '' : 's'}`;
  });
  holder.addWidget(new ActivityPanel(log));
  const context = findModelContext();
  if (context !== null) {
    startWebMcp(page, context);
  }
  return log;
}
