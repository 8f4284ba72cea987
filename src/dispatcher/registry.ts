/**
 * The page's registry of live molspace widgets, with the active widget
 * (the one most recently used by a person, a cell or an agent).
 */
import { Signal, ISignal } from '@lumino/signaling';
import type { StoryTarget } from './target';

export class WidgetRegistry {
  private readonly _targets = new Map<string, StoryTarget>();
  private _active: string | null = null;
  private readonly _changed = new Signal<this, number>(this);

  /** Emits the widget count whenever a widget is added or removed. */
  get changed(): ISignal<this, number> {
    return this._changed;
  }

  register(target: StoryTarget): void {
    this._targets.set(target.targetId, target);
    if (this._active === null) {
      this._active = target.targetId;
    }
    this._changed.emit(this._targets.size);
  }

  unregister(id: string): void {
    if (this._targets.delete(id)) {
      if (this._active === id) {
        const last = [...this._targets.keys()].pop();
        this._active = last ?? null;
      }
      this._changed.emit(this._targets.size);
    }
  }

  /** Mark a widget as the active one. */
  touch(id: string): void {
    if (this._targets.has(id)) {
      this._active = id;
    }
  }

  get(id: string): StoryTarget | undefined {
    return this._targets.get(id);
  }

  /** The active widget, or null. */
  get active(): StoryTarget | null {
    return this._active === null ? null : (this._targets.get(this._active) ?? null);
  }

  /** Widgets in registration order. */
  list(): StoryTarget[] {
    return [...this._targets.values()];
  }

  get size(): number {
    return this._targets.size;
  }
}
