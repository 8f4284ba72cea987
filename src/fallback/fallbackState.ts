/**
 * What a reader of a saved notebook needs of one widget, from its target
 * (docs/architecture.md, "Static fallback in saved notebooks"). Pure: no DOM.
 */
import { LIMITS, type FallbackState, type PanelContent } from '../contract';
import type { WidgetTarget } from '../dispatcher/widgetTarget';
import { isTargetOfKind } from '../dispatcher/widgetTarget';
import { cutText } from '../contract/budget';

/** The state part of a `fallback` frame, or null while the widget has nothing settled to show. */
export interface FallbackSnapshot {
  state: FallbackState;
  /** Panels: the content shown, when small enough to carry (`LIMITS.staticFallbackContentBytes`). */
  content?: PanelContent;
}

const TITLE = 200;

/**
 * The fallback of `target` as it is now, or null when it is not settled: not
 * drawn yet, a Story or a trajectory playing, a Story without steps. A widget with a located error
 * is settled: the error is its summary.
 */
export function fallbackSnapshot(target: WidgetTarget): FallbackSnapshot | null {
  const text = (s: string) => cutText(s, LIMITS.staticFallbackTextChars);
  if (isTargetOfKind(target, 'story')) {
    const s = target.state();
    if (!s.error && (!s.ready || s.playing || s.count === 0)) {
      return null;
    }
    const snapshots = target.snapshots();
    const current = snapshots[s.index];
    const steps = snapshots.slice(0, LIMITS.staticFallbackSteps).map(m => ({ key: cut(m.key), title: cut(m.title) }));
    const lines = s.error
      ? [`Story "${s.title}": error ${s.error.code}: ${s.error.message}`]
      : [
          `Story "${s.title}", step ${s.index + 1} of ${s.count}${current ? `: ${current.title || current.key}` : ''}`,
          ...(current?.description ? [cutText(current.description, 600)] : []),
          `Steps: ${snapshots.map((m, i) => `${i + 1}. ${m.title || m.key}`).join('; ')}`
        ];
    return {
      state: {
        kind: 'story',
        revision: s.revision,
        title: cut(s.title),
        summary: text(lines.join('\n')),
        index: s.index,
        key: cut(s.key),
        count: s.count,
        steps
      }
    };
  }
  if (isTargetOfKind(target, 'viewer')) {
    const s = target.state();
    // a playing trajectory is not settled: a picture per frame would read the canvas back every
    // step (seconds on software WebGL); `pause` is a revision, and its frame is taken then
    if (!s.error && (!s.ready || target.view().play)) {
      return null;
    }
    return { state: { kind: 'viewer', revision: s.revision, title: cut(s.title), summary: text(`Viewer: ${target.describe()}`) } };
  }
  if (isTargetOfKind(target, 'panel')) {
    const s = target.state();
    if (!s.error && !s.ready) {
      return null;
    }
    const content = target.content();
    const small = content !== null && utf8Bytes(JSON.stringify(content)) <= LIMITS.staticFallbackContentBytes;
    const note = content !== null && !small ? ' (too large to keep a static copy)' : '';
    return {
      state: { kind: 'panel', revision: s.revision, title: cut(s.title), summary: text(`Panel "${s.title}": ${target.describe()}${note}`) },
      ...(small ? { content } : {})
    };
  }
  if (isTargetOfKind(target, 'ketcher')) {
    const s = target.state();
    if (!s.error && !s.ready) {
      return null;
    }
    // The structure revision: a highlight changes nothing a reader sees.
    return {
      state: {
        kind: 'ketcher',
        revision: s.structureRevision,
        title: cut(s.title),
        summary: text(`Ketcher "${s.title}": ${target.describe()}`)
      }
    };
  }
  return null;
}

/**
 * Whether the page should report this widget: a notebook widget whose comm
 * is live (its kernel holds it). Page-owned (docked) widgets are in no
 * notebook; a model restored from saved widget state without a kernel shows
 * what the file held, which the file keeps better than the page could.
 */
export function reportsFallback(target: WidgetTarget): boolean {
  return (target as Partial<{ comm_live: boolean }>).comm_live === true && ['viewer', 'story', 'panel', 'ketcher'].includes(target.kind);
}

function cut(s: string): string {
  return s.length <= TITLE ? s : `${s.slice(0, TITLE - 1)}…`;
}

function utf8Bytes(s: string): number {
  return new TextEncoder().encode(s).length;
}
