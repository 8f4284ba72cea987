/**
 * A Story step's description (docs/architecture.md, "Story"): markdown
 * rendered by JupyterLab's sanitizing rendermime under the page's resource
 * policy, plain text when the step says `description_format: "plaintext"` or
 * no rendermime is at hand. Only the latest of overlapping renders is shown.
 */
import type { IRenderMime, IRenderMimeRegistry } from '@jupyterlab/rendermime';

import { policyRenderMime } from '../resources/resourceSanitizer';
import type { ResourcePolicy } from '../resources/resourcePolicy';

export class StoryDescription {
  /** The description's element (`.molspace-story-description`, hidden when empty). */
  readonly element: HTMLElement;
  private renderer: IRenderMime.IRenderer | null = null;
  private seq = 0;
  private disposed = false;

  constructor() {
    this.element = document.createElement('div');
    this.element.className = 'molspace-story-description';
  }

  /**
   * Show `text`.
   *
   * @param format - the step's MVS `description_format` (`markdown` when absent).
   * @param rendermime - the page's registry, or null (then plain text).
   */
  async render(text: string, format: string | undefined, rendermime: IRenderMimeRegistry | null, policy: ResourcePolicy): Promise<void> {
    const seq = ++this.seq;
    const target = this.element;
    this.renderer?.dispose();
    this.renderer = null;
    target.hidden = text === '';
    const registry = rendermime && policyRenderMime(rendermime, policy);
    if (!text || !registry || format === 'plaintext') {
      target.textContent = text;
      return;
    }
    try {
      const renderer = registry.createRenderer('text/markdown');
      await renderer.renderModel(registry.createModel({ data: { 'text/markdown': text }, trusted: false }));
      if (seq !== this.seq || this.disposed) {
        renderer.dispose();
        return;
      }
      this.renderer = renderer;
      target.replaceChildren(renderer.node);
    } catch {
      if (seq === this.seq) {
        target.textContent = text;
      }
    }
  }

  dispose(): void {
    this.disposed = true;
    this.renderer?.dispose();
    this.renderer = null;
  }
}
