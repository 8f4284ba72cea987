/**
 * The synced state of each page widget kind: the ipywidgets attributes its
 * model and the kernel's widget share, with their defaults, declared once.
 *
 * The page's models take their `defaults()` from here (`src/widget/`);
 * `scripts/emit-manifest.ts` writes the names and defaults into the manifest
 * (`widgets`), and the Python tests check every kernel widget's `sync=True`
 * traits against them (names and defaults), so the two sides cannot drift
 * (docs/architecture.md, "The contract").
 *
 * Types here are the wire shapes; richer checks (a Story's MVS, a Panel's
 * content) run where the value is read.
 */
import { z } from 'zod';
import { LocatedError } from './errors';
import { ChangeEntry, SnapshotMeta } from './story';
import type { WidgetKind } from './workspace';

/** Bytes as ipywidgets sends a binary buffer (an MVSX archive, a structure file), or null. */
const Bytes = z
  .custom<DataView | ArrayBuffer | Uint8Array>(v => v instanceof DataView || v instanceof ArrayBuffer || v instanceof Uint8Array)
  .nullable()
  .default(null);
/** A JSON object the page checks when it reads it (an MVS state, a composition, a view), or null. */
const JsonObject = z.record(z.string(), z.unknown()).nullable().default(null);

/** What every page widget syncs (the base `PageWidget` in Python, `PageWidgetModel` here). */
const common = {
  /** Request ids of the kernel's `control` messages this page answered (newest last, bounded). */
  _applied_requests: z.array(z.string()).default(() => []),
  /** Agents' calls (`tool:actionId`) this page applied, sent with their changes (newest last, bounded). */
  _applied_actions: z.array(z.string()).default(() => []),
  title: z.string().default(''),
  ready: z.boolean().default(false),
  error: LocatedError.nullable().default(null),
  revision: z.number().int().default(0),
  last_change: ChangeEntry.nullable().default(null)
};

export const StorySyncedState = z.object({
  ...common,
  _mvsj: z.string().default(''),
  _mvsx: Bytes,
  snapshots: z.array(SnapshotMeta).default(() => []),
  index: z.number().int().default(0),
  key: z.string().default(''),
  playing: z.boolean().default(false),
  _play_owner: z.string().default('')
});

export const ViewerSyncedState = z.object({
  ...common,
  _data: Bytes,
  _mvs: JsonObject,
  format: z.string().default(''),
  source_name: z.string().default(''),
  /** A trajectory's coordinates file (`_data` is its topology), its format and where it came from. */
  _coordinates: Bytes,
  coordinates_format: z.string().default(''),
  coordinates_name: z.string().default(''),
  /**
   * A trajectory the kernel serves by frame instead of `_coordinates` (`molspace/viewer/frames.py`):
   * `{frames, atoms, format, timePs, notes}`; and the most frames the page holds of it (0: the
   * JupyterLab setting `trajectoryFrameBudget`).
   */
  _frames_on_demand: JsonObject,
  frame_budget: z.number().int().default(0),
  /** The page that advances a playing trajectory (its page instance id), as a Story's `_play_owner`. */
  _play_owner: z.string().default(''),
  composition: JsonObject,
  view: JsonObject,
  summary: z.string().default(''),
  undo_steps: z.number().int().default(0),
  redo_steps: z.number().int().default(0),
  undo_label: z.string().default(''),
  redo_label: z.string().default('')
});

export const PanelSyncedState = z.object({
  ...common,
  /** Set by the kernel's `Panel(content)` (normalized), by `render_panel` after. */
  _content: z.record(z.string(), z.unknown()).default(() => ({})),
  /** Kernel-owned: a molecule grid's first-page RDKit depictions, SVG by SMILES (`GridDepictions`, checked where read). */
  _depictions: z.record(z.string(), z.unknown()).default(() => ({})),
  panel_id: z.string().default('')
});

export const KetcherSyncedState = z.object({
  ...common,
  _initial: z.string().default(''),
  _initial_format: z.string().nullable().default(null),
  structure_revision: z.number().int().default(0),
  interaction_revision: z.number().int().default(0),
  dirty: z.boolean().default(false),
  ket: z.string().default(''),
  smiles: z.string().default(''),
  molfile: z.string().default(''),
  atoms: z.number().int().default(0),
  bonds: z.number().int().default(0),
  formula: z.string().nullable().default(null),
  highlighted: z.array(z.number().int()).default(() => []),
  persist: JsonObject,
  summary: z.string().default(''),
  ketcher_version: z.string().default('')
});

/** One widget kind as ipywidgets names it: its model and view classes and its synced state. */
export interface WidgetSpec {
  model: string;
  view: string;
  state: z.ZodObject;
}

/** Every page widget kind, by {@link WidgetKind}. */
export const WIDGETS: Record<WidgetKind, WidgetSpec> = {
  story: { model: 'StoryModel', view: 'StoryView', state: StorySyncedState },
  viewer: { model: 'ViewerModel', view: 'ViewerView', state: ViewerSyncedState },
  panel: { model: 'PanelModel', view: 'PanelView', state: PanelSyncedState },
  ketcher: { model: 'KetcherModel', view: 'KetcherView', state: KetcherSyncedState }
};

/** The defaults of a kind's synced state (each call a fresh copy). */
export function syncedDefaults(kind: WidgetKind): Record<string, unknown> {
  return WIDGETS[kind].state.parse({});
}
