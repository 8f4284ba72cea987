/**
 * JupyterLab services the widgets need but cannot receive through ipywidgets'
 * constructor: set once by the plugin at activation.
 */
import type { IRenderMimeRegistry } from '@jupyterlab/rendermime';

let rendermime: IRenderMimeRegistry | null = null;

/** Set by the molspace plugin when it activates. */
export function setRenderMime(registry: IRenderMimeRegistry | null): void {
  rendermime = registry;
}

/** JupyterLab's rendermime registry (sanitizing markdown renderer), or null before activation. */
export function getRenderMime(): IRenderMimeRegistry | null {
  return rendermime;
}
