/**
 * A Story step's description (docs/architecture.md, "Story"): markdown
 * rendered by JupyterLab's sanitizing rendermime under the page's resource
 * policy, plain text when the step says `description_format: "plaintext"` or
 * no rendermime is at hand. Only the latest of overlapping renders is shown.
 */
import { URLExt } from '@jupyterlab/coreutils';
import type { IRenderMime, IRenderMimeRegistry } from '@jupyterlab/rendermime';

import { policyRenderMime, type LocalImages } from '../resources/resourceSanitizer';
import type { ResourcePolicy } from '../resources/resourcePolicy';
import { isCommandLink } from './descriptionLinks';

/**
 * `base` except that MVS markdown command links (`!name=args`) are not local
 * files: JupyterLab leaves their href as written (the view runs them) instead
 * of turning them into a link that opens a file.
 */
function keepCommandLinks(base: IRenderMime.IResolver): IRenderMime.IResolver {
  return {
    resolveUrl: (url, context) => base.resolveUrl(url, context),
    getDownloadUrl: url => base.getDownloadUrl(url),
    isLocal: (url, allowRoot) => !isCommandLink(url) && (base.isLocal ? base.isLocal(url, allowRoot) : URLExt.isLocal(url, allowRoot)),
    resolvePath: base.resolvePath ? path => base.resolvePath!(path) : undefined
  };
}

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
   * @param local - draws images that are archive paths or MVS colour commands
   *   (`./descriptionImages.ts`).
   */
  async render(
    text: string,
    format: string | undefined,
    rendermime: IRenderMimeRegistry | null,
    policy: ResourcePolicy,
    local?: LocalImages
  ): Promise<void> {
    const seq = ++this.seq;
    const target = this.element;
    this.renderer?.dispose();
    this.renderer = null;
    target.hidden = text === '';
    const checked = rendermime && policyRenderMime(rendermime, policy, local);
    const registry = checked?.resolver ? checked.clone({ resolver: keepCommandLinks(checked.resolver) }) : checked;
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
