/**
 * How every molspace plugin but the services one starts: once JupyterLab has
 * restored, off the start path (`src/activity/__tests__/startPath.spec.ts`),
 * with the page's registry and Dispatcher ({@link IMolspace.page}) and the
 * plugin's own module, loaded with `import()` by `load`.
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import type { IMolspace, IMolspacePage } from '../tokens';

/**
 * Run `start(page, loaded)` after `app.restored`; a failure is logged with
 * `failure` (what the person loses), never thrown into JupyterLab's start.
 *
 * @returns what `start` returned, or undefined when it failed.
 */
export function afterRestore<M, R>(
  app: JupyterFrontEnd,
  molspace: IMolspace,
  load: () => Promise<M>,
  start: (page: IMolspacePage, loaded: M) => R | Promise<R>,
  failure: string
): Promise<R | undefined> {
  return app.restored
    .then(() => Promise.all([molspace.page(), load()]))
    .then(([page, loaded]) => start(page, loaded))
    .catch(e => {
      console.error(`molspace: ${failure}`, e);
      return undefined;
    });
}
