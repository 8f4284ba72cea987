/**
 * What molspace widgets read from the ipywidgets widget manager that owns
 * them. JupyterLab's manager (`@jupyter-widgets/jupyterlab-manager`) has the
 * notebook's `rendermime` registry and, for a notebook, its `context`; other
 * managers (e.g. a standalone HTML page) may have neither.
 */
import type { IRenderMimeRegistry } from '@jupyterlab/rendermime';

/** The manager's rendermime registry (JupyterLab's sanitizing renderers), or null. */
export function renderMimeOf(manager: unknown): IRenderMimeRegistry | null {
  if (typeof manager !== 'object' || manager === null || !('rendermime' in manager)) {
    return null;
  }
  const rendermime = manager.rendermime;
  return isRenderMimeRegistry(rendermime) ? rendermime : null;
}

/** Path of the notebook that owns the manager, or null. */
export function notebookPathOf(manager: unknown): string | null {
  if (typeof manager !== 'object' || manager === null || !('context' in manager)) {
    return null;
  }
  const context = manager.context;
  if (typeof context !== 'object' || context === null || !('path' in context)) {
    return null;
  }
  return typeof context.path === 'string' ? context.path : null;
}

function isRenderMimeRegistry(value: unknown): value is IRenderMimeRegistry {
  return (
    typeof value === 'object' &&
    value !== null &&
    'createRenderer' in value &&
    typeof value.createRenderer === 'function' &&
    'createModel' in value &&
    typeof value.createModel === 'function'
  );
}
