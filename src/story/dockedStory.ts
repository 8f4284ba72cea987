/**
 * Stories that the page owns, docked in JupyterLab's main area (`open: true`
 * of `story_create` / `story_template_create`, `open` of a Story file): the same `StoryModel` and
 * `StoryView` as a cell's Story, made without a kernel (no comm: nothing is
 * sent to a kernel), listed by `observe` and driven by `story_control` /
 * `story_edit` through the Dispatcher, as docked Viewers are
 * (`../viewer/dockedViewer.ts`).
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import type { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { dockView, dockedId } from '../dockedTab';
import type { IMolspacePage } from '../tokens';
import { StoryModel } from './storyModel';
import type { StoryOpener } from './storyOpener';
import { StoryView } from './storyView';

/** The opener of this page: main-area docking, descriptions through JupyterLab's rendermime. */
export function dockedStoryOpener(app: JupyterFrontEnd, page: IMolspacePage, rendermime: IRenderMimeRegistry | null): StoryOpener {
  class DockedStoryModel extends StoryModel {
    get services(): IMolspacePage {
      return page;
    }
    get rendermime(): IRenderMimeRegistry | null {
      return rendermime;
    }
  }
  return {
    async open({ path, story, title, placement }) {
      const id = dockedId('story');
      const attrs = story.format === 'mvsx' && story.mvsx ? { _mvsx: story.mvsx } : { _mvsj: JSON.stringify(story.data) };
      const model = new DockedStoryModel(attrs, { model_id: id, widget_manager: null } as never);
      const view = new StoryView({ model } as never);
      dockView(app, model, view, { id, label: title || story.title || path, caption: path, className: 'molspace-docked-story', placement });
      return model; // the caller waits for its first draw (`../dispatcher/whenReady.ts`)
    }
  };
}
