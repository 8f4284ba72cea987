/**
 * What `ketcher_open` needs from the page: dock an editor in the main area.
 * The `molspace:ketcher` plugin sets it (`./dockedKetcher.ts`, loaded at the
 * first call); a page without it answers with a located error.
 */
import { MolspaceError, type KetcherFormat } from '../contract';
import type { DockPlacement } from '../contract/toolArgs';
import type { KetcherTarget } from './ketcherTarget';
import type { OpenerSlots } from '../dispatcher/pageOpeners';

/** Docks an editor; set by the `molspace:ketcher` plugin. */
export interface KetcherOpener {
  /** Resolves once docked; the caller waits until it is ready with `whenReady` (`../dispatcher/whenReady.ts`). */
  open(options: { value: string; format: KetcherFormat | null; title: string; placement?: DockPlacement }): Promise<KetcherTarget>;
}

/** @throws MolspaceError `INTERNAL` when this page cannot dock editors. */
export function ketcherOpener(openers: OpenerSlots): KetcherOpener {
  const opener = openers.ketcher;
  if (!opener) {
    throw new MolspaceError(
      'INTERNAL',
      'This page cannot open Ketcher editors in the main area (the molspace:ketcher plugin is not running).',
      '/',
      'Reload the JupyterLab page; check that the molspace extension is enabled.'
    );
  }
  return opener;
}

declare module '../dispatcher/pageOpeners' {
  interface PageOpeners {
    ketcher: KetcherOpener;
  }
}
