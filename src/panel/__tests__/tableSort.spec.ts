/** Sorting table panel rows by a header click. */
import type { TableCell } from '../../contract';
import { nextDirection, sortedOrder } from '../tableSort';

const rows: TableCell[][] = [
  ['C10', -6.5, true],
  ['C2', -8.25, false],
  ['c1', null, null],
  ['C3', -7.0, true],
  ['C2', -7.0, false]
];

describe('sortedOrder', () => {
  it('sorts numbers numerically, missing values last in both directions', () => {
    expect(sortedOrder(rows, 1, 'number', 'ascending')).toEqual([1, 3, 4, 0, 2]);
    expect(sortedOrder(rows, 1, 'number', 'descending')).toEqual([0, 3, 4, 1, 2]);
  });

  it('keeps ties in their original order (stable) in both directions', () => {
    const ascending = sortedOrder(rows, 1, 'number', 'ascending');
    expect(ascending.indexOf(3)).toBeLessThan(ascending.indexOf(4));
    const descending = sortedOrder(rows, 1, 'number', 'descending');
    expect(descending.indexOf(3)).toBeLessThan(descending.indexOf(4));
  });

  it('sorts strings with numeric collation, ignoring case', () => {
    expect(sortedOrder(rows, 0, 'string', 'ascending').map(i => rows[i][0])).toEqual(['c1', 'C2', 'C2', 'C3', 'C10']);
  });

  it('sorts booleans false before true', () => {
    expect(sortedOrder(rows, 2, 'boolean', 'ascending').map(i => rows[i][2])).toEqual([false, false, true, true, null]);
  });

  it('does not reorder the rows it is given', () => {
    const copy = rows.map(r => [...r]);
    sortedOrder(rows, 1, 'number', 'descending');
    expect(rows).toEqual(copy);
  });
});

describe('nextDirection', () => {
  it('starts a new column ascending and flips the same column', () => {
    expect(nextDirection(null, 0)).toBe('ascending');
    expect(nextDirection({ column: 0, direction: 'ascending' }, 0)).toBe('descending');
    expect(nextDirection({ column: 0, direction: 'descending' }, 0)).toBe('ascending');
    expect(nextDirection({ column: 0, direction: 'descending' }, 1)).toBe('ascending');
  });
});
