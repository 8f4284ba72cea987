/**
 * What the Dispatcher needs from a molspace widget, whatever its kind.
 * Widget models implement it (and their kind's own interface, e.g.
 * `StoryTarget`); tests implement it without Mol* or a kernel.
 */
import type { LocatedError, WidgetKind } from '../contract';

/** The state every widget reports, whatever its kind. */
export interface WidgetState {
  title: string;
  /** True once the widget shows its current state (e.g. a Story step is drawn). */
  ready: boolean;
  /** Advanced by one on every change; what `expectedRevision` is checked against. */
  revision: number;
  /** Located load, validation or render error, or null. */
  error: LocatedError | null;
}

/** A live molspace widget as the Dispatcher and the registry see it. */
export interface WidgetTarget {
  /** Model id: what agents pass as `target`. */
  readonly targetId: string;
  readonly kind: WidgetKind;
  /** Notebook path that owns the widget, if known. */
  readonly notebook: string | null;
  /** Resolves once the widget's source has loaded (or failed to); never rejects. */
  whenLoaded(): Promise<void>;
  /** Current state (cheap, synchronous). */
  state(): WidgetState;
  /** One line: what the widget shows now (the `summary` of `observe`). */
  describe(): string;
  /**
   * Resolves once every change made so far has left the page for the kernel
   * (ipywidgets holds a state update while an earlier one is unacknowledged);
   * the Dispatcher answers a mutating call only then, so an answered change
   * survives a page reload. Never rejects. Absent: nothing is held.
   */
  whenSent?(): Promise<void>;
  /**
   * Agents' calls applied to this widget by any page (`tool:actionId`), kept in its synced state
   * with the changes they made, so the record outlives a page reloaded before it answered.
   * Absent: the widget keeps none (a retry after a reload is applied again).
   */
  readonly appliedActions?: {
    /** False when some page already applied `key`; else records it (sent with the change). */
    claim(key: string): boolean;
    /** Take back a claim whose call failed. */
    forget(key: string): void;
  };
}

/**
 * The target interface of each widget kind, by kind. Each kind's target file
 * adds its own entry by declaration merging (`declare module
 * '../dispatcher/widgetTarget'`), so the Dispatcher never imports a widget
 * kind. A kind of `WidgetKind` with no entry fails to compile at
 * {@link isTargetOfKind} (docs/architecture.md, "Where a new widget kind goes").
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface WidgetTargets {}

/** True when `target` is of `kind`, typed as that kind's target interface. */
export function isTargetOfKind<K extends WidgetKind>(target: WidgetTarget, kind: K): target is WidgetTargets[K] {
  return target.kind === kind;
}
