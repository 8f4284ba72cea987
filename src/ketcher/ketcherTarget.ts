/**
 * A Ketcher editor as the Ketcher tools see it. `KetcherModel` implements it.
 */
import type { ChangeEntry, ChangeSource, KetcherFormat, KetcherState, PersistRequest } from '../contract';
import type { WidgetTarget } from '../dispatcher/widgetTarget';

export interface KetcherTarget extends WidgetTarget {
  readonly kind: 'ketcher';
  state(): KetcherState;
  /**
   * Load `value` (format detected by Indigo when null) into every view of
   * the editor; one new structure revision. Resolves once the views show it.
   *
   * @throws MolspaceError `VALIDATION_FAILED` with Indigo's message for a
   *   structure it cannot read; `STALE_TARGET` when no view is live.
   */
  setStructure(value: string, format: KetcherFormat | null, source: ChangeSource, summary: string): Promise<ChangeEntry>;
  /** Highlight atoms (0-based) in every view; one new interaction revision. */
  highlight(atoms: number[], color: string, source: ChangeSource): Promise<void>;
  /**
   * The structure written by Indigo in `format`.
   *
   * @throws MolspaceError `VALIDATION_FAILED` when Indigo cannot write it in that format.
   */
  export(format: KetcherFormat): Promise<string>;
  /** The pending or last answered save request for `path`, or null. */
  persistRequest(path: string): PersistRequest | null;
  /**
   * Ask the person to confirm saving to `path`; the view shows the question.
   * With `forget`, the answered request is dropped instead (its answer has been reported).
   */
  askPersist(path: string, format: KetcherFormat, overwrite: boolean, forget: boolean): void;
  /**
   * Resolves once the save request for `path` is no longer awaiting the
   * person's answer, or after `ms` (whichever comes first); never rejects.
   */
  whenPersistAnswered(path: string, ms: number): Promise<void>;
}

declare module '../dispatcher/widgetTarget' {
  /** `ketcher` widgets are {@link KetcherTarget}s. */
  interface WidgetTargets {
    ketcher: KetcherTarget;
  }
}
