/**
 * The page's registry of live molspace widgets of every kind, with the
 * active widget (the one most recently used by a person, a cell or an agent).
 */
import { Signal, ISignal } from '@lumino/signaling';
import { MolspaceError, WIDGET_KIND_INFO, type WidgetKind } from '../contract';
import { isTargetOfKind, type WidgetTarget, type WidgetTargets } from './widgetTarget';

/** How many retired widget ids are remembered for STALE_TARGET. */
const RETIRED_MEMORY = 500;

export class WidgetRegistry {
  private readonly _targets = new Map<string, WidgetTarget>();
  /** Target ids, least recently used first. */
  private _recent: string[] = [];
  /** Ids of widgets that left the page, with why (bounded; oldest forgotten first). */
  private readonly _retired = new Map<string, string>();
  private readonly _changed = new Signal<this, number>(this);
  private readonly _removed = new Signal<this, WidgetTarget>(this);
  private readonly _activeChanged = new Signal<this, void>(this);

  /** Emits the widget count whenever a widget is added or removed. */
  get changed(): ISignal<this, number> {
    return this._changed;
  }

  /** Emits when {@link touch} makes another widget the active one. */
  get activeChanged(): ISignal<this, void> {
    return this._activeChanged;
  }

  /** Emits a widget once it has been removed. */
  get removed(): ISignal<this, WidgetTarget> {
    return this._removed;
  }

  /** Add a widget. The first one becomes active; later ones once they are used ({@link touch}). */
  register(target: WidgetTarget): void {
    this._retired.delete(target.targetId);
    this._recent = this._recent.filter(id => id !== target.targetId);
    this._recent.unshift(target.targetId);
    this._targets.set(target.targetId, target);
    this._changed.emit(this._targets.size);
  }

  /**
   * Take a widget out of the page because it left it (closed, its kernel
   * restarted, its output cleared or its cell re-run): it leaves `observe`,
   * and a call that still names it fails with STALE_TARGET saying why,
   * rather than NOT_FOUND. A later {@link register} of the same id brings it
   * back (the same model shown again).
   *
   * @param reason - why it left, e.g. "its output was cleared or its cell re-run".
   */
  retire(id: string, reason: string): void {
    this.unregister(id);
    this._retired.delete(id);
    this._retired.set(id, reason);
    if (this._retired.size > RETIRED_MEMORY) {
      const oldest = this._retired.keys().next().value;
      if (oldest !== undefined) {
        this._retired.delete(oldest);
      }
    }
  }

  /** Why widget `id` left the page (the reason given to {@link retire}), or undefined when it was not retired. */
  retiredReason(id: string): string | undefined {
    return this._retired.get(id);
  }

  /** Remove a widget (closed, or its model destroyed); the one used before it becomes active. */
  unregister(id: string): void {
    const target = this._targets.get(id);
    if (target) {
      this._targets.delete(id);
      this._recent = this._recent.filter(r => r !== id);
      this._changed.emit(this._targets.size);
      this._removed.emit(target);
    }
  }

  /** Mark a widget as the active one. */
  touch(id: string): void {
    if (this._targets.has(id)) {
      const was = this._recent[this._recent.length - 1];
      this._recent = this._recent.filter(r => r !== id);
      this._recent.push(id);
      if (was !== id) {
        this._activeChanged.emit();
      }
    }
  }

  /** The widget with this id, or undefined. */
  find(id: string): WidgetTarget | undefined {
    return this._targets.get(id);
  }

  /**
   * The widget of `kind` with this id; without an id, the active widget of
   * `kind`.
   *
   * @param where - JSON pointer of the id in the caller's arguments, for errors.
   * @throws MolspaceError `NOT_FOUND` at `where` when there is no such widget,
   *   when it is of another kind, or (without an id) when the page has no
   *   widget of `kind`.
   */
  get<K extends WidgetKind>(id: string | undefined, kind: K, where = '/target'): WidgetTargets[K] {
    return this.getOf(id, [kind], where);
  }

  /**
   * The widget with this id, of one of `kinds`; without an id, the most
   * recently used widget of any of `kinds` (errors as {@link get}).
   */
  getOf<K extends WidgetKind>(id: string | undefined, kinds: readonly K[], where = '/target'): WidgetTargets[K] {
    const labels = kinds.map(k => WIDGET_KIND_INFO[k].label);
    const label = labels.length > 1 ? `${labels.slice(0, -1).join(', ')} or ${labels[labels.length - 1]}` : labels[0];
    if (id === undefined) {
      const active = this.activeOfAny(kinds);
      if (!active) {
        const { agentOpen } = WIDGET_KIND_INFO[kinds[0]];
        throw new MolspaceError(
          'NOT_FOUND',
          `No ${label} widget in this page.`,
          where,
          `Open one with ${agentOpen}, or pass pageId of a page that has one (see observe).`,
          kinds.length > 1 ? { kinds: [...kinds] } : { kind: kinds[0] }
        );
      }
      return active;
    }
    const target = this._targets.get(id);
    const retired = this._retired.get(id);
    if (!target && retired !== undefined) {
      throw new MolspaceError(
        'STALE_TARGET',
        `Widget "${id}" is no longer in this page: ${retired}.`,
        where,
        'Call observe for the widgets that exist now and use one of their ids; to bring this one back, display it again from its cell.',
        {
          target: id,
          reason: retired,
          live: this.list()
            .slice(0, 20)
            .map(t => t.targetId)
        }
      );
    }
    if (!target) {
      throw new MolspaceError(
        'NOT_FOUND',
        `No widget with id "${id}" in this page.`,
        where,
        'Call observe and use a widget id it lists; a widget of a restarted kernel has a new id.',
        {
          target: id,
          known: this.list()
            .slice(0, 20)
            .map(t => t.targetId)
        }
      );
    }
    const kind = kinds.find(k => isTargetOfKind(target, k));
    if (kind === undefined) {
      throw new MolspaceError(
        'NOT_FOUND',
        `Widget "${id}" is a ${WIDGET_KIND_INFO[target.kind].label}, not a ${label}.`,
        where,
        `Pass the id of a ${label} widget (observe lists each widget's kind).`,
        kinds.length > 1
          ? { target: id, kind: target.kind, expectedKinds: [...kinds] }
          : { target: id, kind: target.kind, expectedKind: kinds[0] }
      );
    }
    return target as WidgetTargets[K];
  }

  /** The active widget of any kind, or null. */
  get active(): WidgetTarget | null {
    const id = this._recent[this._recent.length - 1];
    return id === undefined ? null : (this._targets.get(id) ?? null);
  }

  /** The most recently used widget of `kind`, or null. */
  activeOf<K extends WidgetKind>(kind: K): WidgetTargets[K] | null {
    return this.activeOfAny([kind]);
  }

  /** The most recently used widget of any of `kinds`, or null. */
  activeOfAny<K extends WidgetKind>(kinds: readonly K[]): WidgetTargets[K] | null {
    for (let i = this._recent.length - 1; i >= 0; i--) {
      const target = this._targets.get(this._recent[i]);
      if (target && kinds.some(k => isTargetOfKind(target, k))) {
        return target as WidgetTargets[K];
      }
    }
    return null;
  }

  /** Widgets in registration order. */
  list(): WidgetTarget[] {
    return [...this._targets.values()];
  }

  get size(): number {
    return this._targets.size;
  }
}
