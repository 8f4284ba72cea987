/**
 * @jest-environment jsdom
 */
/**
 * A molecule grid with the kernel's RDKit depictions (`../givenDepictions.ts`,
 * `../moleculeGrid.ts`): usable ones are shown at once as `data:` images
 * (never inline SVG) and Indigo is asked only for the others; one that is not
 * an SVG, or over its bound, is ignored with where and why, and Indigo draws
 * it; a value that is not SVG by SMILES, or over the total bound, is ignored whole.
 */
import { LIMITS } from '../../contract/limits';
import type { Depiction } from '../../ketcher/depictMessages';
import { givenDepictions, pointerToken, svgDataUrl } from '../givenDepictions';
import { renderMolecules } from '../moleculeGrid';
import { PanelRenderer } from '../panelRenderer';

const SVG = "<svg version='1.1' xmlns='http://www.w3.org/2000/svg' width='220px' height='150px'><rect width='10' height='10'/></svg>";

/** A depictor that records what it was asked for and answers each with a tiny SVG (base64). */
function indigo(): { asked: string[][]; depict: (smiles: string[]) => Promise<Depiction[]> } {
  const asked: string[][] = [];
  return {
    asked,
    depict: smiles => {
      asked.push(smiles);
      return Promise.resolve(smiles.map(() => ({ svg: btoa(SVG), error: null })));
    }
  };
}

describe('givenDepictions', () => {
  it('keeps SVG documents (with an XML declaration or not) as data URLs by SMILES', () => {
    const given = givenDepictions({ CCO: SVG, c1ccccc1: `<?xml version='1.0' encoding='iso-8859-1'?>\n${SVG}` });
    expect(given.size).toBe(2);
    expect(given.ignored).toEqual([]);
    expect(given.url('CCO')).toBe(svgDataUrl(SVG));
    expect(decodeURIComponent(given.url('CCO')!.split(',')[1])).toBe(SVG);
    expect(given.url('CCN')).toBeUndefined();
  });

  it('ignores a depiction that is not an SVG, located by its SMILES', () => {
    const given = givenDepictions({ 'C/C=C/C': '<html><script>alert(1)</script></html>', CCO: SVG });
    expect(given.url('C/C=C/C')).toBeUndefined();
    expect(given.url('CCO')).toBeDefined();
    expect(given.ignored).toEqual([{ where: '/C~1C=C~1C', reason: 'not an SVG document' }]);
  });

  it('ignores one over panelDepictionChars, and all when over panelDepictionsChars together', () => {
    const big = SVG.replace('<rect', `<!--${'x'.repeat(LIMITS.panelDepictionChars)}--><rect`);
    const one = givenDepictions({ CCO: big, CCN: SVG });
    expect(one.url('CCO')).toBeUndefined();
    expect(one.url('CCN')).toBeDefined();
    expect(one.ignored[0].where).toBe('/CCO');
    const n = Math.ceil(LIMITS.panelDepictionsChars / big.length) + 1;
    const many = Object.fromEntries(Array.from({ length: n }, (_, i) => [`C${'C'.repeat(i)}O`, big.slice(0, LIMITS.panelDepictionChars)]));
    const all = givenDepictions(many);
    expect(all.size).toBe(0);
    expect(all.ignored).toHaveLength(1);
    expect(all.ignored[0].where).toBe('');
  });

  it('ignores a value that is not SVG text by SMILES, located', () => {
    const given = givenDepictions({ CCO: 42 });
    expect(given.size).toBe(0);
    expect(given.ignored[0].where).toBe('/CCO');
    expect(givenDepictions(['<svg/>']).ignored[0].where).toBe('');
    expect(givenDepictions(undefined).ignored).toEqual([]);
  });

  it('escapes JSON pointer tokens', () => {
    expect(pointerToken('a/b~c')).toBe('a~1b~0c');
  });
});

describe('renderMolecules with kernel depictions', () => {
  it('shows the given ones at once and asks Indigo only for the rest of the page', async () => {
    const host = document.createElement('div');
    const { asked, depict } = indigo();
    const molecules = ['CCO', 'CCN', 'CCC', 'CCCl'].map((smiles, i) => ({ smiles, name: `m${i}` }));
    const given = givenDepictions({ CCO: SVG, CCC: '<p>not svg</p>', CCCl: SVG });
    await renderMolecules(host, { type: 'molecules', molecules, pageSize: 3 }, depict, null, null, given);
    expect(asked).toEqual([['CCN', 'CCC']]);
    const cells = [...host.querySelectorAll<HTMLElement>('.molspace-panel-molecule')];
    expect(cells.map(c => c.dataset.molspaceDepiction)).toEqual(['kernel', 'indigo', 'indigo']);
    expect(cells.every(c => c.dataset.molspaceDepicted === 'true')).toBe(true);
    // The gateway's, for an agent's grid, say so.
    const relayed = document.createElement('div');
    await renderMolecules(
      relayed,
      { type: 'molecules', molecules, pageSize: 3 },
      depict,
      null,
      null,
      givenDepictions({ CCN: SVG }, 'gateway')
    );
    expect([...relayed.querySelectorAll<HTMLElement>('.molspace-panel-molecule')].map(c => c.dataset.molspaceDepiction)).toEqual([
      'indigo',
      'gateway',
      'indigo'
    ]);
    const img = cells[0].querySelector('img')!;
    expect(img.src.startsWith('data:image/svg+xml;charset=utf-8,')).toBe(true);
    expect(img.alt).toBe('CCO');
    // Never inline SVG in the DOM.
    expect(host.querySelector('svg')).toBeNull();
  });

  it('does not ask Indigo when the kernel depicted the whole page, and shows names before any depiction', async () => {
    const host = document.createElement('div');
    const { asked, depict } = indigo();
    let namesFirst = false;
    const waiting: typeof depict = smiles => {
      namesFirst = host.querySelector('.molspace-panel-molecule-name')?.textContent === 'a';
      return depict(smiles);
    };
    await renderMolecules(host, { type: 'molecules', molecules: [{ smiles: 'CCO', name: 'a' }] }, waiting, null, null);
    expect(namesFirst).toBe(true);
    const second = document.createElement('div');
    await renderMolecules(second, { type: 'molecules', molecules: [{ smiles: 'CCO' }] }, depict, null, null, givenDepictions({ CCO: SVG }));
    expect(asked).toEqual([['CCO']]);
    expect(second.querySelector<HTMLElement>('.molspace-panel-molecule')!.dataset.molspaceDepiction).toBe('kernel');
  });
});

describe('PanelRenderer with a molecule grid', () => {
  it('puts the first page (names as text) in the panel before Indigo has drawn it, ready after', async () => {
    let answer: (d: Depiction[]) => void = () => undefined;
    const depict = (_smiles: string[]) => new Promise<Depiction[]>(resolve => (answer = resolve));
    const renderer = new PanelRenderer(() => null, null, depict);
    const rendered = renderer.render({ type: 'molecules', molecules: [{ smiles: 'CCO', name: 'ethanol' }] }, 1);
    await Promise.resolve();
    const cell = renderer.node.querySelector<HTMLElement>('.molspace-panel-body .molspace-panel-molecule');
    expect(cell?.textContent).toContain('ethanol');
    expect(cell?.dataset.molspaceDepicted).toBe('pending');
    expect(renderer.node.getAttribute('data-molspace-ready')).toBe('false');
    answer([{ svg: btoa(SVG), error: null }]);
    expect(await rendered).toBe(true);
    expect(renderer.node.getAttribute('data-molspace-ready')).toBe('true');
    expect(cell?.dataset.molspaceDepiction).toBe('indigo');
  });

  it('hands the kernel depictions to the grid', async () => {
    const { asked, depict } = indigo();
    const renderer = new PanelRenderer(() => null, null, depict);
    await renderer.render({ type: 'molecules', molecules: [{ smiles: 'CCO' }] }, 1, givenDepictions({ CCO: SVG }));
    expect(asked).toEqual([]);
    expect(renderer.node.querySelector<HTMLElement>('.molspace-panel-molecule')!.dataset.molspaceDepiction).toBe('kernel');
  });
});
