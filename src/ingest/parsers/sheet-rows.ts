// A spreadsheet page's text built from blocks (a sheet's name, groups of rows, headers, comments), with the row
// number of each of its lines (ParsedPage.lineRows), so that the chunker can tell which rows each chunk holds.

/** The largest row number a sheet has (Excel's 1,048,576 rows); a larger r attribute is damage, not a row number. */
export const SHEET_MAX_ROW_NUMBER = 1_048_576;

/** A paragraph of a page: its text, and the row of each of its lines (absent: no line of it is a row). */
export interface PageBlock {
  text: string;
  rows?: (number | null)[];
}

/** A <row>'s number: its r attribute when that is a row number, else the one after the previous row's. */
export function rowNumberOf(r: string | undefined, previous: number): number {
  const stated = r !== undefined && /^\d+$/u.test(r.trim()) ? Number(r.trim()) : Number.NaN;
  return stated >= 1 && stated <= SHEET_MAX_ROW_NUMBER ? stated : previous + 1;
}

/** The blocks joined by blank lines, and the row of every line of the joined text (null where a line is no row). */
export function joinBlocks(blocks: readonly PageBlock[]): { text: string; lineRows: (number | null)[] } {
  const lineRows: (number | null)[] = [];
  blocks.forEach((block, index) => {
    if (index > 0) lineRows.push(null); // the blank line between two blocks
    const lines = block.text.split('\n').length;
    for (let line = 0; line < lines; line++) lineRows.push(block.rows?.[line] ?? null);
  });
  return { text: blocks.map((block) => block.text).join('\n\n'), lineRows };
}
