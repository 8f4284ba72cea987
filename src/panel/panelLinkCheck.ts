/**
 * Link targets checked when a panel renders (`render_panel`; docs/architecture.md, "Report
 * panels"): each link's widget exists and is of the link's kind, a focus selector matches the
 * Viewer's structure and a frame is one of its trajectory (the checks of `act`, `planActions`, as
 * a dry run), a goto key is a step of the Story. A refusal is located under the link
 * (`/content/links/<i>/viewer|selector|frame|story|key`, `/content/molecules/<i>/link/...`).
 * Links that go stale later are named by {@link staleLinks}.
 */
import { MolspaceError, type PanelContent, type PanelLink } from '../contract';
import type { WidgetRegistry } from '../dispatcher/registry';
import { isTargetOfKind } from '../dispatcher/widgetTarget';

/** The widget a link acts on: its id and kind. */
export function linkTarget(link: PanelLink): { id: string; kind: 'viewer' | 'story' } {
  return link.op === 'goto' ? { id: link.story, kind: 'story' } : { id: link.viewer, kind: 'viewer' };
}

/** Every link of `content` with its JSON pointer (under `base`, e.g. `/content`). */
export function linksOf(content: PanelContent, base: string): { link: PanelLink; where: string }[] {
  if (content.type === 'table' || content.type === 'chart') {
    return (content.links ?? []).flatMap((link, i) => (link ? [{ link, where: `${base}/links/${i}` }] : []));
  }
  if (content.type === 'molecules') {
    return (content.molecules ?? []).flatMap((m, i) => (m.link ? [{ link: m.link, where: `${base}/molecules/${i}/link` }] : []));
  }
  return [];
}

/**
 * Check every link of `content` against the widgets of this page.
 *
 * @throws MolspaceError at the first bad link: `NOT_FOUND` / `STALE_TARGET` at `<link>/viewer` or
 *   `<link>/story` (no such widget, another kind, gone), the Viewer's selector error at
 *   `<link>/selector` (`NOT_FOUND` naming the chains), its frame error at `<link>/frame`
 *   (`VALIDATION_FAILED` with `details.frames`), `NOT_FOUND` at `<link>/key` (listing the keys).
 */
export async function checkPanelLinks(content: PanelContent, registry: WidgetRegistry, base = '/content'): Promise<void> {
  const links = linksOf(content, base);
  const framesOk = await framesInRange(links, registry);
  const seen = new Set<string>();
  for (const { link, where } of links) {
    const id = JSON.stringify(link);
    if (seen.has(id) || (link.op === 'goto_frame' && link.frame <= (framesOk.get(link.viewer) ?? -1))) {
      continue;
    }
    seen.add(id);
    if (link.op === 'focus' || link.op === 'goto_frame') {
      await dryRun(registry, link, where);
    } else {
      const story = registry.get(link.story, 'story', `${where}/story`);
      await story.whenLoaded();
      const keys = story.snapshots().map(s => s.key);
      if (!keys.includes(link.key)) {
        throw new MolspaceError(
          'NOT_FOUND',
          `Link ${where}: Story ${link.story} has no step "${link.key}".`,
          `${where}/key`,
          `Use a key of its steps: ${
            keys
              .slice(0, 20)
              .map(k => JSON.stringify(k))
              .join(', ') || 'none'
          } (story_observe lists them).`,
          { story: link.story, key: link.key, keys: keys.slice(0, 50) }
        );
      }
    }
  }
}

/**
 * Per Viewer, the highest of its linked frames a dry run accepts; every lower frame passes too
 * (act checks a frame's range only), so a chart linking each of thousands of values to its own
 * frame needs one dry run (the highest frame), or a binary search of its frames when that one
 * is refused. Refusals are not thrown here: the links are then checked one by one, so the
 * first bad one is located.
 */
async function framesInRange(links: { link: PanelLink }[], registry: WidgetRegistry): Promise<Map<string, number>> {
  const linked = new Map<string, Set<number>>();
  for (const { link } of links) {
    if (link.op === 'goto_frame') {
      linked.set(link.viewer, (linked.get(link.viewer) ?? new Set()).add(link.frame));
    }
  }
  const ok = new Map<string, number>();
  for (const [viewer, set] of linked) {
    const frames = [...set].sort((a, b) => a - b);
    const passes = (frame: number) =>
      dryRun(registry, { op: 'goto_frame', viewer, frame }, '').then(
        () => true,
        () => false
      );
    let lo = 0;
    let hi = frames.length - 1;
    if (await passes(frames[hi])) {
      ok.set(viewer, frames[hi]);
      continue;
    }
    hi -= 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (await passes(frames[mid])) {
        ok.set(viewer, frames[mid]);
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
  }
  return ok;
}

/**
 * Check a Viewer link as `act` would apply it, changing nothing (`planActions` on the Viewer's
 * view and structure).
 *
 * @throws MolspaceError located at `<where>/viewer` (no such Viewer, gone) or the link's field
 *   (`<where>/selector`, `<where>/frame`) that `act` refused.
 */
async function dryRun(registry: WidgetRegistry, link: Extract<PanelLink, { viewer: string }>, where: string): Promise<void> {
  const viewer = registry.get(link.viewer, 'viewer', `${where}/viewer`);
  const [{ planActions }, { checkMvsState }] = await Promise.all([import('../viewer/viewerActions'), import('../viewer/viewerMvsCheck')]);
  const field = link.op === 'focus' ? 'selector' : 'frame';
  try {
    await planActions(
      viewer.view(),
      [link.op === 'focus' ? { op: 'focus', selector: link.selector } : { op: 'goto_frame', frame: link.frame }],
      await viewer.structureData(),
      viewer.history(),
      (state, w) => checkMvsState(state, w, viewer.resourcePolicy()),
      (state, w) => viewer.mvsStructureData(state, w)
    );
  } catch (e) {
    const err = MolspaceError.from(e, 'panel link');
    const at = err.where.endsWith(`/${field}`) ? `${where}/${field}` : `${where}/viewer`;
    throw new MolspaceError(err.code, `Link ${where} to Viewer ${link.viewer}: ${err.message}`, at, err.fix, {
      ...err.details,
      viewer: link.viewer
    });
  }
}

/** The widget ids `content` links to that are no longer in the page (or not of the link's kind). */
export function staleLinks(content: PanelContent | null, registry: WidgetRegistry): string[] {
  if (!content) {
    return [];
  }
  const stale = new Set<string>();
  for (const { link } of linksOf(content, '')) {
    const { id, kind } = linkTarget(link);
    const target = registry.find(id);
    if (!target || !isTargetOfKind(target, kind)) {
      stale.add(id);
    }
  }
  return [...stale];
}
