/**
 * @jest-environment jsdom
 */
/** A table's links in its DOM: a Link column, buttons that stay with their rows through a sort. */
import { PanelContent } from '../../contract';
import { renderTable } from '../panelRenderer';

const focus = { op: 'focus', viewer: 'v1', selector: { auth_asym_id: 'A', auth_seq_id: 200 } } as const;
const goto = { op: 'goto', story: 's1', key: 'surface' } as const;

describe('renderTable with links', () => {
  it('adds a Link column whose buttons stay with their rows, and none for rows without a link', () => {
    const host = document.createElement('div');
    const made: string[] = [];
    const content = PanelContent.parse({
      type: 'table',
      columns: [{ name: 'a', type: 'number' }],
      rows: [[2], [1], [3]],
      links: [focus, null, goto]
    });
    renderTable(host, content as Extract<PanelContent, { type: 'table' }>, (link, where) => {
      made.push(where);
      const b = document.createElement('button');
      b.className = 'molspace-panel-link';
      b.textContent = link.op;
      return b;
    });
    expect(made).toEqual(['/content/links/0', '/content/links/2']);
    expect([...host.querySelectorAll('thead th')].map(th => th.textContent)).toEqual(['a', 'Link']);
    (host.querySelector('thead th button') as HTMLButtonElement).click();
    const rows = [...host.querySelectorAll('tbody tr')].map(tr => [
      tr.getAttribute('data-row'),
      tr.querySelector('.molspace-panel-link')?.textContent ?? null
    ]);
    expect(rows).toEqual([
      ['1', null],
      ['0', 'focus'],
      ['2', 'goto']
    ]);
  });

  it('shows no Link column without a follower', () => {
    const host = document.createElement('div');
    const content = PanelContent.parse({ type: 'table', columns: [{ name: 'a' }], rows: [['x']], links: [focus] });
    renderTable(host, content as Extract<PanelContent, { type: 'table' }>);
    expect(host.querySelectorAll('thead th')).toHaveLength(1);
  });
});
