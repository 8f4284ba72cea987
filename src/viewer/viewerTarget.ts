/**
 * A structure Viewer as the Viewer tools see it. `ViewerModel` implements it.
 */
import type { ChangeEntry, ChangeSource, ViewerCamera, ViewerComposition, ViewerState, ViewerViewState } from '../contract';
import type { z } from 'zod';
import type { WidgetTarget } from '../dispatcher/widgetTarget';
import type { StructureData } from './structureData';
import type { ResourcePolicy } from '../resources/resourcePolicy';
import type { HistoryStep, ViewerHistory } from './viewerActions';
import type { Shot, ShotOptions } from './screenshot';

/** A Viewer's own file: its structure's bytes and format, and a trajectory's coordinates. */
export interface ViewerSourceFile {
  format: string;
  /** The file's name (`source_name`), or `structure.<format>`. */
  name: string;
  bytes: Uint8Array;
  coordinates: { format: string; name: string; bytes: Uint8Array } | null;
}

export interface ViewerTarget extends WidgetTarget {
  readonly kind: 'viewer';
  state(): ViewerState;
  /** The bounded composition, or null until loaded (or when loading failed). */
  composition(): ViewerComposition | null;
  /** What is shown now. */
  view(): ViewerViewState;
  /**
   * The parsed structure.
   *
   * @throws MolspaceError the located load error (`VALIDATION_FAILED`, `UNSUPPORTED_FORMAT`).
   */
  structureData(): Promise<StructureData>;
  /**
   * The file this Viewer shows, as its cell sent it or the page read it (`export` to `.html`);
   * null for a Viewer of an MVS state (the page downloads its structure: there is no file).
   *
   * @throws MolspaceError `TOO_LARGE` at `/target` for a trajectory whose frames stay in the kernel.
   */
  sourceFile(): ViewerSourceFile | null;
  /** The camera of a live view, or null. */
  camera(): z.infer<typeof ViewerCamera> | null;
  /**
   * Show `view`: advance the revision by one, draw it, send it to the kernel;
   * `step` says how it enters the undo history (default: a new step).
   * Resolves once drawn in every live view.
   *
   * @throws MolspaceError when drawing fails; `STALE_TARGET` when closed first.
   */
  applyView(view: ViewerViewState, source: ChangeSource, summary: string, step?: HistoryStep): Promise<ChangeEntry>;
  /**
   * The structure an MVS state loads (its one `download`), fetched and parsed once per URL:
   * what selectors are checked against while that state is drawn.
   *
   * @throws MolspaceError located at `where` (see `mvsStructureOf`, `fetchMvsStructure`, `readStructure`).
   */
  mvsStructureData(state: Record<string, unknown>, where: string): Promise<StructureData>;
  /** Where an `apply_mvs` state may fetch from: the page's Story policy (`resourceHosts`). */
  resourcePolicy(): ResourcePolicy;
  /** The views undo and redo would show. */
  history(): ViewerHistory;
  /**
   * An image of the view, base64. A Viewer whose views hold no live 3D viewer
   * (parked by the viewer budget, out of view, in a hidden tab) is drawn first.
   *
   * @throws MolspaceError `STALE_TARGET` when no displayed view can draw.
   */
  screenshot(size: ShotOptions): Promise<Shot>;
}

declare module '../dispatcher/widgetTarget' {
  /** `viewer` widgets are {@link ViewerTarget}s. */
  interface WidgetTargets {
    viewer: ViewerTarget;
  }
}
