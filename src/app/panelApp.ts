/**
 * The Panel App (`ui://molspace/panel`, built into `static/panel.js`): each `render_panel`
 * result's panel, rendered by the notebook's panel code (`./appPanel.ts`); started by the
 * same loader as the Viewer App (`./appLoader.ts`), or by `./exportHandoff.ts` in a file
 * `Panel.to_html` wrote. An error result, or a panel the checks refuse, is shown located and
 * told to the model (`ui/update-model-context`); the model is told the panel's type and size,
 * never its text. A panel a page docked keeps its links, followed through the host
 * (`./appPanelLinks.ts`). A panel the gateway keeps (`follow`) is followed (`./appPanelFollow.ts`): the
 * model's later `render_panel` of its `panelId` renders here too. Test hooks on the document:
 * `data-molspace-follow` (`panel:<panelId>`) and `data-molspace-follow-revision` (its `seq`).
 */
import { ZOD_JITLESS } from './zodJitless';
import type { CallToolResult } from '@modelcontextprotocol/client';

import { MolspaceError } from '../contract/errors';
import type { FollowLink } from '../panel/panelLinks';
import { AppFollower } from './appFollow';
import { AppPanelView, appPanelOf } from './appPanel';
import { panelRead } from './appPanelFollow';
import { appLinkFollower, dockedByPage } from './appPanelLinks';
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
  const doc = document.documentElement;
  let shown = 0;
  let follower: AppFollower | null = null;
  /** The links of the panel shown: followed through the host where a page docked it. */
  let links: FollowLink | null = null;
  const unfollow = (): void => {
    follower?.stop();
    follower = null;
    delete doc.dataset.molspaceFollow;
    delete doc.dataset.molspaceFollowRevision;
  };
  /** Follow the panel `result` showed, unless it is the one followed (a later version of it). */
  const follow = (result: CallToolResult, followed: boolean): void => {
    const found = appPanelOf(result);
    const kept = found?.panel.follow;
    const read = handoff.read;
    if (followed && kept && follower) {
      follower.seen(kept.seq);
      doc.dataset.molspaceFollowRevision = String(kept.seq);
      return;
    }
    unfollow();
    if (!found || !kept || !read) {
      return;
    }
    doc.dataset.molspaceFollow = `panel:${found.panel.panelId}`;
    doc.dataset.molspaceFollowRevision = String(kept.seq);
    follower = new AppFollower({
      read: { what: `resources/read ${kept.uri}`, read: panelRead(read, kept.uri) },
      widget: { kind: 'panel', target: kept.uri, revision: kept.seq },
      changed: (_s, later) => show(later, true),
      lost: (e, ended) => {
        if (ended) {
          unfollow();
        }
        const status = document.getElementById('molspace-app-status');
        if (status) {
          status.textContent = `Not following this panel: ${e.code} at ${e.where}: ${e.message} Fix: ${e.fix}`;
        }
      }
    });
  };
  const show = async (result: CallToolResult, followed = false): Promise<void> => {
    const n = ++shown;
    try {
      const failed = errorOfResult(result);
      if (failed) {
        if (!followed) {
          unfollow();
        }
        handoff.tell(showError(failed));
        return;
      }
      const found = appPanelOf(result);
      if (!found) {
        unfollow();
        markState('drawn', 'Shown in JupyterLab.');
        return;
      }
      if (!followed) {
        links = handoff.call && dockedByPage(result) ? appLinkFollower(handoff.call) : null;
      }
      markState('loading', `Rendering ${found.panel.title}…`);
      const line = await view.show(found.panel, found.content, links);
      if (n === shown) {
        markState('drawn', found.panel.title);
        handoff.tell(line, { panelId: found.panel.panelId, type: found.content.type });
        follow(result, followed);
      }
    } catch (e) {
      if (n === shown) {
        if (!followed) {
          unfollow();
        }
        handoff.tell(showError(MolspaceError.from(e, 'App').toJSON()));
      }
    }
  };
  markState('loading', 'Waiting for the tool result…');
  handoff.onResult(result => void show(result));
}
