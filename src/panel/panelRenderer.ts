/**
 * The DOM of one report panel, shared by the docked panel and the inline
 * widget view (docs/architecture.md, "Report panels"):
 *
 * - markdown through JupyterLab's rendermime `text/markdown` renderer as
 *   untrusted content, so JupyterLab's sanitizer removes script, event
 *   handlers and `javascript:` links, and no script tag is evaluated;
 * - a table built from text nodes only, sorted by a click on a column header;
 * - a Vega-Lite chart through the Vega renderer JupyterLab ships
 *   (`@jupyterlab/vega5-extension`, mime type `application/vnd.vegalite.v5+json`);
 *   a chart with links is drawn as SVG and a click on a mark of a linked data
 *   value follows its link (`./chartLinks.ts`);
 * - a molecule grid of depictions as images (the kernel's RDKit ones given to
 *   {@link PanelRenderer.render}, else Indigo's), properties as text (`./moleculeGrid.ts`);
 * - links of table rows and grid cells as buttons (`./panelLinks.ts`); a
 *   refused link shows its located error in the panel (`.molspace-panel-link-error`).
 *
 * Whatever the content, it stays in its box: the body is a CSS containment
 * box (`contain: strict`-like, see `style/base.css`), so absolutely or fixed
 * positioned content cannot overlay the page; form submission is blocked; a
 * click on a link other than `http(s):` or `#fragment` (which scrolls within the panel) does nothing.
 *
 * Test hooks on the root (`.molspace-panel`): `data-molspace-panel-id`,
 * `data-molspace-revision` (the revision last rendered), `data-molspace-ready`.
 */
import type { ReadonlyPartialJSONObject } from '@lumino/coreutils';
import type { IRenderMime, IRenderMimeRegistry } from '@jupyterlab/rendermime';
import {
  MolspaceError,
  type ChartContent,
  type LocatedError,
  type MoleculesContent,
  type PanelContent,
  type PanelLink,
  type TableContent
} from '../contract';
import { depictSmiles, type Depict } from './depictor';
import { renderMolecules, type OpenMolecule } from './moleculeGrid';
import { NO_DEPICTIONS, type GivenDepictions } from './givenDepictions';
import { linkLabel, linkTitle, type FollowLink, type LinkButton } from './panelLinks';
import { nextDirection, sortedOrder, type SortDirection } from './tableSort';
import { chartRenderError } from './chartRenderError';
import { chartLinkAt, chartViewOf, hasChartLinks, linkedChartSpec } from './chartLinks';

/** The Vega-Lite mime type of JupyterLab's Vega renderer. */
export const VEGALITE_MIME = 'application/vnd.vegalite.v5+json';

export class PanelRenderer {
  readonly node: HTMLElement;
  private readonly _title: HTMLElement;
  private readonly _error: HTMLElement;
  private readonly _body: HTMLElement;
  private readonly _linkError: HTMLElement;
  private _renderer: IRenderMime.IRenderer | null = null;
  private _seq = 0;
  private _disposed = false;

  constructor(
    private readonly _rendermime: () => IRenderMimeRegistry | null,
    private readonly _open: OpenMolecule | null = null,
    private readonly _depict: Depict = depictSmiles,
    private readonly _follow: FollowLink | null = null
  ) {
    this.node = el('div', 'molspace-panel');
    this.node.setAttribute('data-molspace-ready', 'false');
    this.node.setAttribute('role', 'region');
    this._title = el('div', 'molspace-panel-title');
    this._error = el('div', 'molspace-panel-error');
    this._error.setAttribute('role', 'alert');
    this._error.hidden = true;
    this._linkError = el('div', 'molspace-panel-link-error');
    this._linkError.setAttribute('role', 'alert');
    this._linkError.hidden = true;
    this._body = el('div', 'molspace-panel-body');
    this.node.append(this._title, this._error, this._linkError, this._body);
    // Content never leaves the panel: no form is submitted, no link navigates the page.
    this._body.addEventListener('submit', e => e.preventDefault(), true);
    this._body.addEventListener('click', e => guardLink(e), true);
  }

  setIdentity(panelId: string, title: string): void {
    this.node.setAttribute('data-molspace-panel-id', panelId);
    this.node.setAttribute('aria-label', title);
    this._title.textContent = title;
  }

  /** Show a located error (null: none). */
  showError(error: LocatedError | null): void {
    this.node.classList.toggle('molspace-panel-has-error', error !== null);
    showLocated(this._error, error);
  }

  /** The button of a link at `where`: a click follows it and shows a refusal in the panel. */
  private _linkButton = (link: PanelLink, where: string): HTMLButtonElement | null => {
    const follow = this._follow;
    if (follow === null) {
      return null;
    }
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'molspace-panel-link';
    b.textContent = linkLabel(link);
    b.title = linkTitle(link);
    b.dataset.molspaceLink = where;
    b.dataset.molspaceLinkState = 'idle';
    b.addEventListener('click', e => {
      e.stopPropagation();
      this._followFrom(b, link, where);
    });
    return b;
  };

  /** Follow `link` (at `where`), clicked on `node`: its state in `data-molspace-link-state`, a refusal shown. */
  private _followFrom(node: HTMLElement, link: PanelLink, where: string): void {
    const follow = this._follow;
    if (follow === null) {
      return;
    }
    node.dataset.molspaceLink = where;
    node.dataset.molspaceLinkState = 'running';
    void follow(link, where).then(error => {
      node.dataset.molspaceLinkState = error === null ? 'done' : 'error';
      showLocated(this._linkError, error);
    });
  }

  /**
   * Make the marks of a drawn chart follow its links: a click on a mark drawn
   * from `spec.data.values[i]` follows `links[i]`. The chart's node says
   * `data-molspace-chart-links` `on`, or `unavailable` (with a located note)
   * when the renderer gives no Vega view.
   */
  private _linkChart(chart: ChartContent, renderer: IRenderMime.IRenderer, node: HTMLElement): void {
    const view = chartViewOf(renderer);
    node.dataset.molspaceChartLinks = view === null ? 'unavailable' : 'on';
    if (view === null) {
      showLocated(this._linkError, {
        code: 'UNSUPPORTED_FORMAT',
        message: "This JupyterLab's Vega renderer gives no access to the chart's view, so its links cannot be followed here.",
        where: '/content/links',
        fix: 'Show the linked rows as a table panel (its links are buttons).',
        details: {}
      });
      return;
    }
    view.addEventListener('click', (_event, item) => {
      const hit = chartLinkAt(chart, item);
      if (hit !== null) {
        this._followFrom(node, hit.link, hit.where);
      }
    });
  }

  /** Test hook and UI: the located error of the last link click (null: it worked). */
  get linkErrorNode(): HTMLElement {
    return this._linkError;
  }

  /**
   * Render `content` as revision `revision`.
   *
   * @returns false when a later render superseded this one.
   * @throws MolspaceError `UNSUPPORTED_FORMAT` when the page has no renderer
   *   for the content, `VALIDATION_FAILED` when Vega refuses a chart
   *   ({@link chartRenderError}), `INTERNAL` when another renderer fails.
   */
  async render(content: PanelContent, revision: number, depictions: GivenDepictions = NO_DEPICTIONS): Promise<boolean> {
    const seq = ++this._seq;
    this.node.setAttribute('data-molspace-ready', 'false');
    this.node.setAttribute('data-molspace-type', content.type);
    const node = el('div', `molspace-panel-content molspace-panel-${content.type}`);
    let renderer: IRenderMime.IRenderer | null = null;
    try {
      if (content.type === 'table') {
        renderTable(node, content, this._linkButton);
      } else if (content.type === 'molecules') {
        // The first page's cells (names and properties as text) show before their depictions are drawn.
        const drawn = renderMolecules(node, content, this._depict, this._open, this._linkButton, depictions);
        if (seq === this._seq && !this._disposed) {
          this._body.replaceChildren(node);
        }
        await drawn;
      } else {
        renderer = await this._mime(content, node);
      }
    } catch (e) {
      renderer?.dispose();
      if (seq === this._seq) {
        this.node.setAttribute('data-molspace-revision', String(revision));
      }
      // Vega refusing a chart that passed the schema is the spec's fault, located; other failures are ours.
      throw content.type === 'chart' && !(e instanceof MolspaceError)
        ? chartRenderError(content.spec, e)
        : MolspaceError.from(e, `panel ${content.type} renderer`);
    }
    if (seq !== this._seq || this._disposed) {
      renderer?.dispose();
      return false;
    }
    this._renderer?.dispose();
    this._renderer = renderer;
    if (content.type === 'chart' && renderer !== null && this._linked(content)) {
      this._linkChart(content, renderer, node);
    }
    this._body.replaceChildren(node);
    this.node.setAttribute('data-molspace-revision', String(revision));
    this.node.setAttribute('data-molspace-ready', 'true');
    return true;
  }

  /** A failed render left revision `revision` (of `type`) shown: the node says so again. */
  showKept(revision: number, type: PanelContent['type']): void {
    this.node.setAttribute('data-molspace-revision', String(revision));
    this.node.setAttribute('data-molspace-type', type);
    this.node.setAttribute('data-molspace-ready', 'true');
  }

  dispose(): void {
    this._disposed = true;
    this._renderer?.dispose();
    this._renderer = null;
  }

  /** True when `chart` has links this renderer follows. */
  private _linked(chart: ChartContent): boolean {
    return this._follow !== null && hasChartLinks(chart);
  }

  private async _mime(content: Exclude<PanelContent, TableContent | MoleculesContent>, node: HTMLElement): Promise<IRenderMime.IRenderer> {
    const rendermime = this._rendermime();
    const mime = content.type === 'markdown' ? 'text/markdown' : VEGALITE_MIME;
    if (rendermime === null || !rendermime.mimeTypes.includes(mime)) {
      throw new MolspaceError(
        'UNSUPPORTED_FORMAT',
        `This JupyterLab page has no renderer for ${mime}.`,
        '/content/type',
        content.type === 'chart'
          ? "Enable JupyterLab's Vega extension (@jupyterlab/vega5-extension), or show the data as a table."
          : 'Open the panel in JupyterLab (its rendermime renders markdown).',
        { mimeType: mime }
      );
    }
    const renderer = rendermime.createRenderer(mime);
    // A linked chart is drawn as SVG (a mark is an element to click) with each value's row index.
    const linked = content.type === 'chart' && this._linked(content);
    // Not trusted: JupyterLab sanitizes it and runs none of its script.
    const model =
      content.type === 'markdown'
        ? rendermime.createModel({ data: { 'text/markdown': content.markdown }, trusted: false })
        : rendermime.createModel({
            data: { [VEGALITE_MIME]: (linked ? linkedChartSpec(content.spec) : content.spec) as ReadonlyPartialJSONObject },
            metadata: { [VEGALITE_MIME]: { embed_options: linked ? { actions: false, renderer: 'svg' } : { actions: false } } },
            trusted: false
          });
    node.append(renderer.node);
    await renderer.renderModel(model);
    return renderer;
  }
}

/** Show `error` in `host` as text: code, message, where, fix (null: hide it). */
function showLocated(host: HTMLElement, error: LocatedError | null): void {
  host.replaceChildren();
  host.hidden = error === null;
  if (error === null) {
    return;
  }
  const code = el('strong', 'molspace-panel-error-code');
  code.textContent = error.code;
  const message = el('div', 'molspace-panel-error-message');
  message.append(code, document.createTextNode(` ${error.message}`));
  const where = el('div', 'molspace-panel-error-where');
  where.textContent = `Where: ${error.where}`;
  const fix = el('div', 'molspace-panel-error-fix');
  fix.textContent = `Fix: ${error.fix}`;
  host.append(message, where, fix);
}

/**
 * A link click inside a panel: only `http(s):` (new tab, as JupyterLab sets
 * it) and `#fragment` links act. A fragment scrolls to its target inside the
 * panel (a heading's `id` or `data-jupyter-id`); it never loads the page
 * again, in this tab or a second one (a second JupyterLab would connect as
 * another page).
 */
function guardLink(e: MouseEvent): void {
  const link = e.target instanceof Element ? e.target.closest('a') : null;
  if (!link) {
    return;
  }
  const href = link.getAttribute('href') ?? '';
  if (href.startsWith('#')) {
    e.preventDefault();
    e.stopPropagation();
    const id = CSS.escape(decodeURIComponent(href.slice(1)));
    const body = e.currentTarget instanceof Element ? e.currentTarget : null;
    body?.querySelector(`[data-jupyter-id="${id}"], [id="${id}"]`)?.scrollIntoView();
    return;
  }
  let scheme = '';
  try {
    scheme = new URL(href, document.baseURI).protocol;
  } catch {
    scheme = '';
  }
  if (scheme !== 'http:' && scheme !== 'https:') {
    e.preventDefault();
    e.stopPropagation();
    return;
  }
  link.target = '_blank';
  link.rel = 'noopener noreferrer nofollow';
}

/** Build a sortable table from text nodes only. */
export function renderTable(host: HTMLElement, table: TableContent, linkButton: LinkButton | null = null): void {
  const links = table.links ?? [];
  const hasLinks = linkButton !== null && links.some(l => l !== null && l !== undefined);
  const element = document.createElement('table');
  element.className = 'molspace-panel-table';
  const head = document.createElement('thead');
  const headRow = document.createElement('tr');
  const body = document.createElement('tbody');
  let sort: { column: number; direction: SortDirection } | null = null;
  // Rows are built once; a sort only reorders them.
  const rows = table.rows.map((row, i) => {
    const tr = document.createElement('tr');
    tr.dataset.row = String(i);
    row.forEach((cell, c) => {
      const td = document.createElement('td');
      const type = table.columns[c].type;
      td.textContent = cell === null ? '' : String(cell);
      if (type === 'number' || type === 'integer') {
        td.className = 'molspace-panel-number';
      }
      tr.append(td);
    });
    if (hasLinks) {
      const td = document.createElement('td');
      td.className = 'molspace-panel-link-cell';
      const link = links[i];
      const b = link ? linkButton!(link, `/content/links/${i}`) : null;
      if (b) {
        td.append(b);
      }
      tr.append(td);
    }
    return tr;
  });
  const draw = () => {
    const order =
      sort === null ? rows.map((_, i) => i) : sortedOrder(table.rows, sort.column, table.columns[sort.column].type, sort.direction);
    body.replaceChildren(...order.map(i => rows[i]));
    headRow.querySelectorAll('th[data-type]').forEach((th, c) => {
      th.setAttribute('aria-sort', sort?.column === c ? sort.direction : 'none');
    });
  };
  table.columns.forEach((column, c) => {
    const th = document.createElement('th');
    th.scope = 'col';
    th.dataset.type = column.type;
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'molspace-panel-sort';
    button.textContent = column.unit ? `${column.name} (${column.unit})` : column.name;
    button.title = `${column.type}${column.unit ? `, ${column.unit}` : ''}; click to sort`;
    button.addEventListener('click', () => {
      sort = { column: c, direction: nextDirection(sort, c) };
      draw();
    });
    th.append(button);
    headRow.append(th);
  });
  if (hasLinks) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.className = 'molspace-panel-link-head';
    th.textContent = 'Link';
    headRow.append(th);
  }
  head.append(headRow);
  element.append(head, body);
  draw();
  const caption = document.createElement('div');
  caption.className = 'molspace-panel-caption';
  caption.textContent = `${table.rows.length} rows × ${table.columns.length} columns`;
  host.append(element, caption);
}

function el(tag: string, className: string): HTMLElement {
  const e = document.createElement(tag);
  e.className = className;
  return e;
}
