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

/** Why an image URL may not load, or null (`data:` images always may). */
function imageRefusal(url: string, policy: ResourcePolicy): string | null {
  const u = url.trim();
  if (/^data:image\//i.test(u)) {
    return null;
  }
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(u)) {
    return 'only data: images and https images from the allowed resource hosts load';
  }
  return refusalOf(u, policy);
}

/**
 * Replace every element that would fetch a refused URL, and every `style`
 * holding `url(...)`, in sanitized HTML.
 *
 * @returns the HTML with refused images replaced by
 *   `<span class="molspace-refused-image">` notes, and the refused URLs.
 */
export function withoutRefusedImages(html: string, policy: ResourcePolicy): { html: string; refused: string[] } {
  const doc = new DOMParser().parseFromString(`<body>${html}</body>`, 'text/html');
  const refused: string[] = [];
  for (const [tag, attr] of FETCHING) {
    for (const node of Array.from(doc.body.querySelectorAll(`${tag}[${attr}]`))) {
      const value = node.getAttribute(attr) ?? '';
      const urls = attr === 'srcset' ? value.split(',').map(s => s.trim().split(/\s+/)[0]) : [value];
      const bad = urls.find(u => u !== '' && imageRefusal(u, policy) !== null);
      if (bad === undefined) {
        continue;
      }
      refused.push(bad);
      const note = doc.createElement('span');
      note.className = 'molspace-refused-image';
      note.textContent = `[image not loaded: ${bad.length > 120 ? bad.slice(0, 120) + '…' : bad} — ${imageRefusal(bad, policy)}]`;
      node.replaceWith(note);
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
    private readonly policy: ResourcePolicy
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
    return withoutRefusedImages(this.inner.sanitize(dirty, options), this.policy).html;
  }
}

/** A clone of `rendermime` whose sanitizer also holds images to `policy`. */
export function policyRenderMime(rendermime: IRenderMimeRegistry, policy: ResourcePolicy): IRenderMimeRegistry {
  return rendermime.clone({ sanitizer: new ResourceCheckingSanitizer(rendermime.sanitizer, policy) });
}
