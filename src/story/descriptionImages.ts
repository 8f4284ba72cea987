/**
 * Images in a Story step's description that are not URLs (docs/architecture.md,
 * "Story lifecycle"), drawn as Mol*'s MVS viewer draws them, with nothing
 * fetched:
 *
 * - an archive-relative path (`![fig](images/fig.png)`) shows that file of the
 *   Story's `.mvsx` archive, as a `data:` URI (paths resolve against
 *   `index.mvsj`, as Mol*'s `loadMVSX` resolves structure URLs);
 * - `![](!color-swatch=red)` is a colour swatch, and
 *   `![](!color-palette-name=viridis)` or
 *   `![](!color-palette-colors=red,blue)` a colour bar
 *   (`color-palette-width`, `-height`, `-discrete`), as Mol*'s default
 *   markdown renderers (`mol-plugin-ui/controls/markdown`) draw them, with
 *   Mol*'s own argument parser, colour lists and gradients.
 *
 * Anything else (a path the archive lacks, an unknown command, a value that is
 * not a colour or a length) becomes the sanitizer's text note, with the reason.
 */
import { defaultParseMarkdownCommandArgs } from 'molstar/lib/mol-plugin-state/manager/markdown-extensions';
import { ColorLists } from 'molstar/lib/mol-util/color/lists';
import { getColorGradient, getColorGradientBanded, parseColorList } from 'molstar/lib/mol-util/color/utils';

import { normalizeArchivePath } from '../molstar/storySource';
import type { LocalImages } from '../resources/resourceSanitizer';

/** MIME types of the archive images a description may show, by extension. */
const IMAGE_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml'
};

/** `bytes` as base64 (in chunks: `String.fromCharCode` takes a bounded argument list). */
function base64(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(text);
}

/** `value` as the browser reads CSS `property`, or '' when it is not valid there. */
function cssValue(doc: Document, property: 'backgroundColor' | 'minWidth' | 'height', value: string): string {
  if (/url\s*\(|[;{}]/i.test(value)) {
    return ''; // a colour, gradient or length never needs these; they could reach other declarations
  }
  const probe = doc.createElement('span');
  probe.style[property] = value;
  return probe.style[property];
}

function swatch(doc: Document, color: string): Element | string {
  const span = doc.createElement('span');
  span.className = 'molspace-color-swatch';
  span.style.backgroundColor = cssValue(doc, 'backgroundColor', color);
  return span.style.backgroundColor ? span : `"${color}" is not a CSS colour`;
}

function palette(doc: Document, args: Record<string, string>): Element | string {
  const name = args['color-palette-name'];
  const colors = args['color-palette-colors'];
  const list = colors ? parseColorList(colors) : ColorLists[name?.toLowerCase() as keyof typeof ColorLists]?.list;
  if (!list?.length) {
    return colors ? `no colours in "${colors}"` : `"${name}" is not one of Mol*'s colour lists (e.g. viridis, red-white-blue)`;
  }
  const gradient = ('color-palette-discrete' in args ? getColorGradientBanded : getColorGradient)(list);
  const width = cssValue(doc, 'minWidth', args['color-palette-width'] ?? '') || '150px';
  const height = cssValue(doc, 'height', args['color-palette-height'] ?? '') || '0.5em';
  const span = doc.createElement('span');
  span.className = 'molspace-color-palette';
  // Mol* writes the gradient from parsed colours (`#rrggbb` and percentages): nothing of the text is
  // passed through. The lengths are read back from the CSS parser above.
  span.setAttribute('style', `background-image: ${gradient}; min-width: ${width}; height: ${height}`);
  return span;
}

/** One drawer per archive, so that each image is encoded once. */
const drawers = new WeakMap<ReadonlyMap<string, Uint8Array>, LocalImages>();

/**
 * The {@link LocalImages} of a Story: its archive's images (`images`, from
 * `ParsedStory.images`; none for MVSJ) and MVS colour commands.
 */
export function descriptionImages(images: ReadonlyMap<string, Uint8Array> | undefined): LocalImages {
  const known = images && drawers.get(images);
  if (known) {
    return known;
  }
  const drawer = makeDrawer(images);
  if (images) {
    drawers.set(images, drawer);
  }
  return drawer;
}

function makeDrawer(images: ReadonlyMap<string, Uint8Array> | undefined): LocalImages {
  const uris = new Map<string, string>();
  return {
    draw(src, alt, doc) {
      if (src.startsWith('!')) {
        let args: Record<string, string> | undefined;
        try {
          args = defaultParseMarkdownCommandArgs(src);
        } catch {
          return `"${src}" is not a readable MVS markdown command`; // e.g. a bad %-escape
        }
        if (args?.['color-swatch'] !== undefined) {
          return swatch(doc, args['color-swatch']);
        }
        if (args && ('color-palette-name' in args || 'color-palette-colors' in args)) {
          return palette(doc, args);
        }
        return 'images from MVS markdown commands are colour swatches (!color-swatch=…) and colour bars (!color-palette-name=…) only';
      }
      let path: string;
      try {
        path = normalizeArchivePath(src).path;
      } catch {
        return `"${src}" is not a path inside the Story's .mvsx archive`;
      }
      const type = IMAGE_TYPES[path.slice(path.lastIndexOf('.') + 1).toLowerCase()];
      const bytes = images?.get(path);
      if (!images) {
        return 'only a Story loaded from an .mvsx archive has files to show; use a data: or https image';
      }
      if (!bytes || !type) {
        return `the Story's .mvsx archive has no image "${path}" (images: .png, .jpg, .gif, .webp, .svg)`;
      }
      let uri = uris.get(path);
      if (uri === undefined) {
        uri = `data:${type};base64,${base64(bytes)}`;
        uris.set(path, uri);
      }
      const img = doc.createElement('img');
      img.className = 'molspace-archive-image';
      img.setAttribute('src', uri);
      img.setAttribute('alt', alt);
      return img;
    }
  };
}
