/** The page services behind the {@link IMolspace} token. */
import type { IMolspace, IMolspacePage } from './tokens';
import { ResourcePolicy, defaultResourcePolicy } from './resources/resourcePolicy';
import { ViewerBudget } from './molstar/viewerBudget';

export class Molspace implements IMolspace {
  readonly viewerBudget = new ViewerBudget();
  readonly resourcePolicy: ResourcePolicy = defaultResourcePolicy();
  private _page: Promise<IMolspacePage> | null = null;

  page(): Promise<IMolspacePage> {
    if (this._page === null) {
      this._page = import('./molspacePage').then(({ createMolspacePage }) => createMolspacePage(this.viewerBudget, this.resourcePolicy));
    }
    return this._page;
  }
}
