/**
 * Link targets checked when a panel renders (`render_panel`; docs/architecture.md, "Report
 * panels"): each link's widget exists and is of the link's kind, a focus selector matches the
 * Viewer's structure (the checks of `act`, `planActions`), a goto key is a step of the Story.
 * A refusal is located under the link (`/content/links/<i>/viewer|selector|story|key`,
 * `/content/molecules/<i>/link/...`). Links that go stale later are named by {@link staleLinks}.
 */
import { MolspaceError, type PanelContent, type PanelLink } from '../contract';
import type { WidgetRegistry } from '../dispatcher/registry';
import { isTargetOfKind } from '../dispatcher/widgetTarget';

/** Every link of `content` with its JSON pointer (under `base`, e.g. `/content`). */
export function linksOf(content: PanelContent, base: string): { link: PanelLink; where: string }[] {
  if (content.type === 'table') {
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
 *   `<link>/selector` (`NOT_FOUND` naming the chains), `NOT_FOUND` at `<link>/key` (listing the keys).
 */
export async function checkPanelLinks(content: PanelContent, registry: WidgetRegistry, base = '/content'): Promise<void> {
  const seen = new Set<string>();
  for (const { link, where } of linksOf(content, base)) {
    const id = JSON.stringify(link);
    if (seen.has(id)) {
      continue;
    }
    seen.add(id);
    if (link.op === 'focus') {
      const viewer = registry.get(link.viewer, 'viewer', `${where}/viewer`);
      const { planActions } = await import('../viewer/viewerActions');
      const { checkMvsState } = await import('../viewer/viewerMvsCheck');
      try {
        await planActions(
          viewer.view(),
          [{ op: 'focus', selector: link.selector }],
          await viewer.structureData(),
          viewer.history(),
          (state, w) => checkMvsState(state, w, viewer.resourcePolicy()),
          (state, w) => viewer.mvsStructureData(state, w)
        );
      } catch (e) {
        const err = MolspaceError.from(e, 'panel link');
        const at = err.where.endsWith('/selector') ? `${where}/selector` : `${where}/viewer`;
        throw new MolspaceError(err.code, `Link ${where} to Viewer ${link.viewer}: ${err.message}`, at, err.fix, {
          ...err.details,
          viewer: link.viewer
        });
      }
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

/** The widget ids `content` links to that are no longer in the page (or not of the link's kind). */
export function staleLinks(content: PanelContent | null, registry: WidgetRegistry): string[] {
  if (!content) {
    return [];
  }
  const stale = new Set<string>();
  for (const { link } of linksOf(content, '')) {
    const id = link.op === 'focus' ? link.viewer : link.story;
    const target = registry.find(id);
    if (!target || !isTargetOfKind(target, link.op === 'focus' ? 'viewer' : 'story')) {
      stale.add(id);
    }
  }
  return [...stale];
}
