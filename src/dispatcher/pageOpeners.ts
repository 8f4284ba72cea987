/**
 * What docks page-owned widgets in the main area, by widget kind. Each kind's
 * opener module adds its entry to {@link PageOpeners} (module augmentation),
 * so the dispatcher names no widget; its plugin sets the entry on the page's
 * Dispatcher once JupyterLab has restored (`src/plugins/`), and tools read it
 * from their call (`ToolEnv.openers`). A page without one (e.g. a test
 * Dispatcher) answers with the kind's located error.
 */

/** Filled by `story/storyOpener.ts`, `viewer/structureOpener.ts`, `ketcher/ketcherOpener.ts`. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface PageOpeners {}

/** The openers a page has set so far. */
export type OpenerSlots = { [K in keyof PageOpeners]?: PageOpeners[K] };
