/** The page services behind the {@link IMolspace} token. */
import type { IMolspace, IMolspacePage } from './tokens';
import { ViewerBudget } from './viewer/viewerBudget';

export class Molspace implements IMolspace {
  readonly viewerBudget = new ViewerBudget();
  private _page: Promise<IMolspacePage> | null = null;

  page(): Promise<IMolspacePage> {
    if (this._page === null) {
      this._page = import('./molspacePage').then(({ createMolspacePage }) => createMolspacePage(this.viewerBudget));
    }
    return this._page;
  }
}
