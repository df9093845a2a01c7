// Which spreadsheet rows a chunk holds: the first and last row number as the file numbers them (1-based, counting
// the empty rows a parser skipped; for CSV and TSV the record number, the header record being row 1).

export interface RowRange {
  first: number;
  last: number;
}

/** The range of a set of row numbers (nulls are lines that are no row), or null when none is a row. */
export function rowRangeOf(rows: Iterable<number | null>): RowRange | null {
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const row of rows) {
    if (row === null) continue;
    if (row < first) first = row;
    if (row > last) last = row;
  }
  return first === Number.POSITIVE_INFINITY ? null : { first, last };
}

/** A stored pair of columns as a range: both present and positive, first not after last; anything else is none. */
export function storedRowRange(first: number | null | undefined, last: number | null | undefined): RowRange | null {
  if (!Number.isSafeInteger(first) || !Number.isSafeInteger(last)) return null;
  const [from, to] = [first as number, last as number];
  return from >= 1 && from <= to ? { first: from, last: to } : null;
}
