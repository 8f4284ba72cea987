/**
 * Sorting a table panel's rows by one column (a click on its header): numbers
 * and integers numerically, booleans false before true, strings by
 * `Intl.Collator` with numeric collation ("C2" before "C10"); missing values
 * (null) last in either direction; ties keep their original order.
 */
import type { ColumnType, TableCell } from '../contract';

export type SortDirection = 'ascending' | 'descending';

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

function compare(a: TableCell, b: TableCell, type: ColumnType): number {
  if (type === 'string') {
    return collator.compare(String(a), String(b));
  }
  return Number(a) - Number(b);
}

/**
 * The row order of `rows` sorted by column `column`.
 *
 * @returns indexes into `rows`, in display order.
 */
export function sortedOrder(rows: readonly (readonly TableCell[])[], column: number, type: ColumnType, direction: SortDirection): number[] {
  const sign = direction === 'ascending' ? 1 : -1;
  return rows
    .map((_, i) => i)
    .sort((i, j) => {
      const a = rows[i][column];
      const b = rows[j][column];
      if (a === null || b === null) {
        return a === b ? i - j : a === null ? 1 : -1;
      }
      return sign * compare(a, b, type) || i - j;
    });
}

/** The direction after a click on a header: a new column starts ascending; the same column flips. */
export function nextDirection(current: { column: number; direction: SortDirection } | null, column: number): SortDirection {
  return current?.column === column && current.direction === 'ascending' ? 'descending' : 'ascending';
}
