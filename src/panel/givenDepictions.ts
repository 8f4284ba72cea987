/**
 * Depictions a kernel with RDKit sent beside a molecule grid (the inline
 * Panel's `_depictions`, `GridDepictions` in the contract): SVG text by
 * SMILES, so a grid's first page shows at once, without waiting for the
 * Indigo depiction frame (docs/architecture.md, "Report panels").
 *
 * Each is shown as an `<img>` of a data URL, never as inline SVG, so no script
 * of it runs. One that is not an SVG, or longer than
 * `LIMITS.panelDepictionChars`, is ignored (Indigo draws that molecule) and
 * listed with where it was and why; a value that is not a `GridDepictions`
 * or is larger than `LIMITS.panelDepictionsChars` together is ignored whole.
 */
import { GridDepictions } from '../contract/panel';
import { LIMITS } from '../contract/limits';

/** A kernel depiction the page did not use, and why. */
export interface IgnoredDepiction {
  /** JSON pointer in the Panel's `_depictions` (`/<SMILES>`, escaped), or `''` for the whole value. */
  where: string;
  reason: string;
}

/** Who drew given depictions: a cell's kernel (`_depictions`) or the gateway, for an agent's grid (`CallContext.depictions`). */
export type DepictionSource = 'kernel' | 'gateway';

/** The usable kernel (or gateway) depictions: an image URL by SMILES. */
export interface GivenDepictions {
  /** Who drew them (each cell they draw says it: `data-molspace-depiction`). */
  readonly drawnBy: DepictionSource;
  /** The `data:` URL of the SVG depiction of `smiles`, if one was given and usable. */
  url(smiles: string): string | undefined;
  readonly size: number;
  readonly ignored: readonly IgnoredDepiction[];
}

/** An SVG document: an optional XML declaration and comments, then the `<svg` root. */
const SVG_START = /^\s*(<\?xml[^>]*\?>\s*)?(<!--[\s\S]*?-->\s*)*<svg[\s>]/;

/** RFC 6901: `~` → `~0`, `/` → `~1`. */
export function pointerToken(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The `data:` URL of SVG text (UTF-8, percent-encoded). */
export function svgDataUrl(svg: string): string {
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
}

/** Read a Panel's `_depictions`, or a relayed `render_panel`'s `CallContext.depictions` (anything: it is checked here). */
export function givenDepictions(value: unknown, drawnBy: DepictionSource = 'kernel'): GivenDepictions {
  const urls = new Map<string, string>();
  const ignored: IgnoredDepiction[] = [];
  const result: GivenDepictions = {
    drawnBy,
    url: s => urls.get(s),
    get size() {
      return urls.size;
    },
    ignored
  };
  if (value === undefined || value === null) {
    return result;
  }
  const parsed = GridDepictions.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    ignored.push({
      where: issue ? issue.path.map(p => `/${pointerToken(String(p))}`).join('') : '',
      reason: `not SVG text by SMILES (${issue?.message ?? 'invalid'}); all ignored`
    });
    return result;
  }
  const entries = Object.entries(parsed.data);
  const total = entries.reduce((n, [, svg]) => n + svg.length, 0);
  if (total > LIMITS.panelDepictionsChars) {
    ignored.push({ where: '', reason: `${total} characters, over panelDepictionsChars (${LIMITS.panelDepictionsChars}); all ignored` });
    return result;
  }
  for (const [smiles, svg] of entries) {
    const where = `/${pointerToken(smiles)}`;
    if (svg.length > LIMITS.panelDepictionChars) {
      ignored.push({ where, reason: `${svg.length} characters, over panelDepictionChars (${LIMITS.panelDepictionChars})` });
    } else if (!SVG_START.test(svg)) {
      ignored.push({ where, reason: 'not an SVG document' });
    } else {
      urls.set(smiles, svgDataUrl(svg));
    }
  }
  return result;
}

/** No kernel depictions. */
export const NO_DEPICTIONS: GivenDepictions = givenDepictions(undefined);
