/**
 * JupyterLab's sanitizer, followed by the Story resource policy for images
 * (docs/security.md, "Story resources").
 *
 * Markdown that an agent or a Story author wrote is rendered with
 * JupyterLab's own markdown renderer and sanitizer. The sanitizer removes
 * script and event handlers but keeps `<img src>` to any host, and the
 * browser fetches an image as soon as the renderer sets `innerHTML`: a
 * tracking pixel, or a request to this server with the user's cookies. This
 * wrapper runs after the sanitizer, on the sanitized HTML in an inert
 * `DOMParser` document (nothing there is fetched), and replaces each image
 * the policy refuses with a short text note, before the HTML reaches the page.
 */
import type { IRenderMime, IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ResourcePolicy, refusalOf } from './resourcePolicy';

/** Elements and attributes that make the browser fetch a URL on render. */
const FETCHING: ReadonlyArray<[string, string]> = [
  ['img', 'src'],
  ['img', 'srcset'],
  ['source', 'src'],
  ['source', 'srcset'],
  ['video', 'poster'],
  ['audio', 'src'],
  ['video', 'src'],
  ['input', 'src']
];

/**
 * Images whose `src` is not a URL that the caller draws itself, from what it
 * already holds: a Story's `.mvsx` files, MVS markdown colour commands
 * (`src/story/descriptionImages.ts`). Nothing it returns may fetch.
 */
export interface LocalImages {
  /**
   * The element that stands for `<img src alt>`, made in `doc`, or the reason
   * the image is not shown (it becomes the note's text).
   *
   * @param src - the `src` as written: a relative path (`images/a.png`) or a
   *   command (`!color-swatch=red`); never a URL with a scheme or a `//` host.
   */
  draw(src: string, alt: string, doc: Document): Element | string;
}

/** True when `src` names no scheme and no host: a path or an MVS command (`!name=args`). */
function isLocalImage(src: string): boolean {
  const u = src.trim();
  return u !== '' && !/^[a-z][a-z0-9+.-]*:/i.test(u) && !/^[\\/]{2}/.test(u);
}

/** Why an image URL may not load, or null (`data:` images always may). */
function imageRefusal(url: string, policy: ResourcePolicy): string | null {
  const u = url.trim();
  if (/^data:image\//i.test(u)) {
    return null;
  }
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(u)) {
    return "only data: images, images in the Story's .mvsx archive and https images from the allowed resource hosts load";
  }
  return refusalOf(u, policy);
}

/** The text note that replaces an image that is not shown. */
function refusalNote(doc: Document, url: string, reason: string): HTMLElement {
  const note = doc.createElement('span');
  note.className = 'molspace-refused-image';
  note.textContent = `[image not loaded: ${url.length > 120 ? url.slice(0, 120) + '…' : url} — ${reason}]`;
  return note;
}

/**
 * Replace every element that would fetch a refused URL, and every `style`
 * holding `url(...)`, in sanitized HTML.
 *
 * @param local - draws `<img src>` that is a path or an MVS command; without
 *   it, such images are refused like any URL outside the policy.
 * @returns the HTML with refused images replaced by
 *   `<span class="molspace-refused-image">` notes, and the refused URLs.
 */
export function withoutRefusedImages(html: string, policy: ResourcePolicy, local?: LocalImages): { html: string; refused: string[] } {
  const doc = new DOMParser().parseFromString(`<body>${html}</body>`, 'text/html');
  const refused: string[] = [];
  if (local) {
    for (const node of Array.from(doc.body.querySelectorAll('img[src]'))) {
      const src = node.getAttribute('src') ?? '';
      if (!isLocalImage(src) || node.hasAttribute('srcset')) {
        continue;
      }
      const drawn = local.draw(src.trim(), node.getAttribute('alt') ?? '', doc);
      if (typeof drawn === 'string') {
        refused.push(src);
      }
      node.replaceWith(typeof drawn === 'string' ? refusalNote(doc, src, drawn) : drawn);
    }
  }
  for (const [tag, attr] of FETCHING) {
    for (const node of Array.from(doc.body.querySelectorAll(`${tag}[${attr}]`))) {
      const value = node.getAttribute(attr) ?? '';
      const urls = attr === 'srcset' ? value.split(',').map(s => s.trim().split(/\s+/)[0]) : [value];
      const bad = urls.find(u => u !== '' && imageRefusal(u, policy) !== null);
      if (bad === undefined) {
        continue;
      }
      refused.push(bad);
      node.replaceWith(refusalNote(doc, bad, imageRefusal(bad, policy) ?? ''));
    }
  }
  for (const node of Array.from(doc.body.querySelectorAll('[style]'))) {
    if (/url\s*\(/i.test(node.getAttribute('style') ?? '')) {
      node.removeAttribute('style');
    }
  }
  return { html: doc.body.innerHTML, refused };
}

/** A sanitizer that runs `inner` (JupyterLab's), then {@link withoutRefusedImages}. */
export class ResourceCheckingSanitizer implements IRenderMime.ISanitizer {
  constructor(
    private readonly inner: IRenderMime.ISanitizer,
    private readonly policy: ResourcePolicy,
    private readonly local?: LocalImages
  ) {}

  get allowNamedProperties(): boolean | undefined {
    return this.inner.allowNamedProperties;
  }

  get allowCommandLinker(): boolean | undefined {
    return this.inner.allowCommandLinker;
  }

  getAutolink(): boolean {
    return this.inner.getAutolink?.() ?? true;
  }

  sanitize(dirty: string, options?: IRenderMime.ISanitizerOptions): string {
    return withoutRefusedImages(this.inner.sanitize(dirty, options), this.policy, this.local).html;
  }
}

/**
 * A clone of `rendermime` whose sanitizer also holds images to `policy`
 * (and draws paths and MVS commands with `local`, when given).
 */
export function policyRenderMime(rendermime: IRenderMimeRegistry, policy: ResourcePolicy, local?: LocalImages): IRenderMimeRegistry {
  return rendermime.clone({ sanitizer: new ResourceCheckingSanitizer(rendermime.sanitizer, policy, local) });
}
