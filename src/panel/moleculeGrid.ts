/**
 * A molecule-grid panel's DOM (docs/architecture.md, "Report panels"): a
 * paged grid of cells, each a 2D depiction drawn by Indigo (`./depictor.ts`)
 * shown as an `<img>` of an SVG data URL (an image: no script of the SVG
 * runs) with the SMILES as alt text, the name and the properties as text
 * nodes only. A SMILES Indigo cannot read gets a note in its own cell. A
 * click on a depiction asks the page to open that molecule (`ketcher_open`);
 * a molecule's `link` is a button under its properties (`./panelLinks.ts`).
 *
 * Depictions a kernel with RDKit sent (`./givenDepictions.ts`) are shown at
 * once; Indigo draws the others. A page's cells (names and properties as text)
 * are in the DOM before any depiction is drawn.
 *
 * Test hooks: `data-molspace-page` on the grid; on each cell
 * `data-molspace-index`, `data-molspace-depicted` (`pending`, `true`, `error`)
 * and, once drawn, `data-molspace-depiction` (`kernel`, `gateway` or `indigo`).
 */
import type { GridMolecule, MoleculesContent } from '../contract';
import type { Depiction } from '../ketcher/depictMessages';
import type { Depict } from './depictor';
import { NO_DEPICTIONS, type DepictionSource, type GivenDepictions } from './givenDepictions';
import type { LinkButton } from './panelLinks';

/** Molecules per page when the content does not say. */
export const DEFAULT_PAGE_SIZE = 24;

/**
 * Build the grid in `host` and draw its first page.
 *
 * @returns once the first page's depictions are shown (or their notes).
 */
/** A molecule of a grid a person asked to open (in a Ketcher editor). */
export type OpenMolecule = (molecule: GridMolecule, index: number) => void;

export async function renderMolecules(
  host: HTMLElement,
  grid: MoleculesContent,
  depict: Depict,
  open: OpenMolecule | null = null,
  linkButton: LinkButton | null = null,
  given: GivenDepictions = NO_DEPICTIONS
): Promise<void> {
  const all = grid.molecules ?? [];
  const pageSize = grid.pageSize ?? DEFAULT_PAGE_SIZE;
  const pages = Math.max(1, Math.ceil(all.length / pageSize));
  const cells = el('div', 'molspace-panel-molecules-grid');
  cells.setAttribute('role', 'list');
  const pager = el('div', 'molspace-panel-pager');
  const previous = button('Previous', 'molspace-panel-page-previous');
  const next = button('Next', 'molspace-panel-page-next');
  const label = el('span', 'molspace-panel-page-label');
  pager.append(previous, label, next);
  host.append(cells, pager);
  let page = 0;
  let drawn = 0;
  const draw = async (p: number): Promise<void> => {
    page = p;
    const seq = ++drawn;
    const start = page * pageSize;
    const molecules = all.slice(start, start + pageSize);
    cells.setAttribute('data-molspace-page', String(page + 1));
    label.textContent = `Page ${page + 1} of ${pages} (${all.length} molecules)`;
    previous.disabled = page === 0;
    next.disabled = page >= pages - 1;
    const built = molecules.map((m, i) => cell(m, start + i, open, linkButton));
    cells.replaceChildren(...built.map(b => b.node));
    // The kernel's (or, for an agent's grid, the gateway's) depictions at once; Indigo draws the rest.
    const rest: number[] = [];
    molecules.forEach((m, i) => {
      const url = given.url(m.smiles);
      if (url === undefined) {
        rest.push(i);
      } else {
        built[i].show({ url }, given.drawnBy);
      }
    });
    if (!rest.length) {
      return;
    }
    let images: Depiction[];
    try {
      images = await depict(rest.map(i => molecules[i].smiles));
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      images = rest.map(() => ({ svg: null, error: message }));
    }
    if (seq === drawn) {
      rest.forEach((i, j) => {
        const d = images[j];
        built[i].show(d.svg !== null ? { url: `data:image/svg+xml;base64,${d.svg}` } : { error: d.error ?? 'no depiction' }, 'indigo');
      });
    }
  };
  previous.addEventListener('click', () => void draw(Math.max(0, page - 1)));
  next.addEventListener('click', () => void draw(Math.min(pages - 1, page + 1)));
  await draw(0);
}

function cell(
  m: GridMolecule,
  index: number,
  open: OpenMolecule | null,
  linkButton: LinkButton | null
): { node: HTMLElement; show(d: { url: string } | { error: string }, source: DepictionSource | 'indigo'): void } {
  const node = el('figure', 'molspace-panel-molecule');
  node.setAttribute('role', 'listitem');
  node.dataset.molspaceIndex = String(index);
  node.dataset.molspaceDepicted = 'pending';
  const picture = el('div', 'molspace-panel-molecule-picture');
  const caption = el('figcaption', 'molspace-panel-molecule-caption');
  const name = el('div', 'molspace-panel-molecule-name');
  name.textContent = m.name ?? '';
  name.title = m.smiles;
  caption.append(name);
  const properties = Object.entries(m.properties ?? {});
  if (properties.length) {
    const list = el('dl', 'molspace-panel-molecule-properties');
    for (const [key, value] of properties) {
      const dt = el('dt', '');
      dt.textContent = key;
      const dd = el('dd', '');
      dd.textContent = String(value);
      list.append(dt, dd);
    }
    caption.append(list);
  }
  const link = m.link && linkButton ? linkButton(m.link, `/content/molecules/${index}/link`) : null;
  if (link) {
    caption.append(link);
  }
  node.append(picture, caption);
  if (open !== null) {
    // A click on the depiction opens the molecule in a docked Ketcher editor (through the Dispatcher).
    picture.classList.add('molspace-panel-molecule-open');
    picture.setAttribute('role', 'button');
    picture.tabIndex = 0;
    picture.title = 'Open in a Ketcher editor';
    picture.addEventListener('click', () => open(m, index));
    picture.addEventListener('keydown', e => {
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        open(m, index);
      }
    });
  }
  return {
    node,
    show(d, source) {
      node.dataset.molspaceDepiction = source;
      if ('url' in d) {
        const img = document.createElement('img');
        img.className = 'molspace-panel-molecule-image';
        img.alt = m.smiles;
        img.src = d.url;
        picture.replaceChildren(img);
        node.dataset.molspaceDepicted = 'true';
      } else {
        const note = el('div', 'molspace-panel-molecule-note');
        note.setAttribute('role', 'note');
        note.textContent = `Molecule ${index}: Indigo cannot read this SMILES (${d.error}). At /content/molecules/${index}/smiles: ${m.smiles}`;
        picture.replaceChildren(note);
        node.dataset.molspaceDepicted = 'error';
      }
    }
  };
}

function button(text: string, className: string): HTMLButtonElement {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = className;
  b.textContent = text;
  return b;
}

function el(tag: string, className: string): HTMLElement {
  const e = document.createElement(tag);
  if (className) {
    e.className = className;
  }
  return e;
}
