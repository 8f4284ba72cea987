/**
 * What a live Mol* viewer of a widget is before it is a Story player or a
 * structure Viewer: one plugin mounted in a host element, its downloads
 * guarded by the resource policy, its WebGL context followed, and one way to
 * dispose it (docs/architecture.md, "Page").
 *
 * `MolstarStoryViewer` (`src/story/`) and `MolstarStructureViewer`
 * (`src/viewer/`) extend it; each adds what it shows.
 */
import { PluginContext } from 'molstar/lib/mol-plugin/context';

import { MolspaceError } from '../contract/errors';
import { guardDownloads, type RedirectRefusal } from '../resources/resourceFetch';
import type { ResourcePolicy } from '../resources/resourcePolicy';
import { createMolstarPlugin, disposeMolstarPlugin } from './molstarPlugin';

/** How a viewer starts: the page theme and the resource policy its downloads follow. */
export interface MolstarViewerOptions {
  dark: boolean;
  policy: ResourcePolicy;
}

export abstract class MolstarViewer {
  protected readonly plugin: PluginContext;
  protected readonly host: HTMLElement;
  protected dark: boolean;
  protected disposed = false;
  /** The resource policy its downloads follow. */
  protected readonly policy: ResourcePolicy;
  /** Downloads refused after a redirect since the subclass last cleared them (`resourceFetch.ts`). */
  protected refusals: RedirectRefusal[] = [];
  private readonly unguard: () => void;

  protected constructor(plugin: PluginContext, host: HTMLElement, opts: MolstarViewerOptions) {
    this.plugin = plugin;
    this.host = host;
    this.dark = opts.dark;
    this.policy = opts.policy;
    // no credentials; a final URL the policy refuses is not read
    this.unguard = guardDownloads(plugin.managers.asset, opts.policy, r => this.refusals.push(r));
  }

  /**
   * A new plugin with its canvas in `host` (positioned, with a height: Mol*'s
   * container fills it). The one way a viewer's plugin is made.
   *
   * @throws MolspaceError `INTERNAL` when WebGL is unavailable (e.g. too many live contexts).
   */
  protected static mount(host: HTMLElement, dark: boolean): Promise<PluginContext> {
    return createMolstarPlugin(host, dark);
  }

  /** True while the browser has taken this viewer's WebGL context (driver reset, too many contexts). */
  get contextLost(): boolean {
    return this.plugin.canvas3dContext?.webgl.isContextLost ?? false;
  }

  /**
   * Follow the WebGL context: `lost` when the browser takes it (Mol* stops
   * drawing), `restored` once the browser gave it back and Mol* rebuilt its
   * GPU resources (Mol*'s own handler runs first: it subscribed first).
   *
   * @returns a function that stops following.
   */
  onContext(handlers: { lost(): void; restored(): void }): () => void {
    const ctx = this.plugin.canvas3dContext;
    if (!ctx?.contextLost || !ctx.contextRestored) {
      return () => undefined;
    }
    const subs = [ctx.contextLost.subscribe(() => handlers.lost()), ctx.contextRestored.subscribe(() => handlers.restored())];
    return () => subs.forEach(s => s.unsubscribe());
  }

  /** Follow the JupyterLab theme (`dark`: a dark background unless what is shown sets its own). */
  abstract setDark(dark: boolean): void;

  /** Re-measure the host (call when its size changes). */
  resize(): void {
    if (!this.disposed) {
      this.plugin.handleResize();
    }
  }

  /**
   * Dispose the plugin. Its WebGL context is freed, or with `keepContext`
   * (parked by the budget) kept for the next viewer that starts
   * (`./webglContextPool.ts`). Idempotent.
   */
  dispose(keepContext = false): void {
    if (this.disposed) {
      return;
    }
    this.disposed = true;
    this.unguard();
    disposeMolstarPlugin(this.plugin, keepContext);
  }

  /**
   * @throws MolspaceError `STALE_TARGET` once disposed, with `fix` saying how the widget restarts it.
   */
  protected assertLive(fix: string): void {
    if (this.disposed) {
      throw new MolspaceError('STALE_TARGET', 'This 3D viewer was disposed.', 'viewer', fix);
    }
  }
}
