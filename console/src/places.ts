// What a place in a document is called on a hit card and in the document view: "Sheet: Sales" for a workbook's
// sheet (its page is the sheet's position, its page label the sheet's name), "Page 3 (iii)" for a PDF page whose
// logical label differs from its number, "Page 3" otherwise. The service gives a hit's label only for its best
// chunk (canonical_metadata.location); a page whose label is not known is named by its number ("Sheet 3"). A chunk of
// a sheet or a CSV file names its rows too (`rows` of an evidence item or a text chunk): "Sheet: Sales · rows 12–40".

/** source.extension of the formats whose pages are sheets (a .xlsm, .xltx... is stored as xlsx). */
const WORKBOOK_EXTENSIONS: ReadonlySet<string> = new Set(['xlsx', 'xls']);

/** Known page labels of one document, by page number. */
export type PageLabels = ReadonlyMap<number, string>;

export function isWorkbook(metadata: unknown): boolean {
  const extension = (metadata as { source?: { extension?: unknown } } | null)?.source?.extension;
  return typeof extension === 'string' && WORKBOOK_EXTENSIONS.has(extension);
}

/** The label canonical_metadata.location gives for its page, as a one-entry map (empty without one). */
export function locationLabels(metadata: unknown): PageLabels {
  const location = (metadata as { location?: { page_number?: unknown; page_label?: unknown } } | null)?.location;
  const page = location?.page_number;
  const label = location?.page_label;
  return typeof page === 'number' && typeof label === 'string' && label !== '' ? new Map([[page, label]]) : new Map();
}

/** A chunk's spreadsheet rows as the service gives them (absent for chunks of other formats). */
export interface RowSpan {
  first: number;
  last: number;
}

/** "rows 12–40", or "row 7" for a chunk of one row; null without rows. */
export function rowsName(rows: RowSpan | null | undefined): string | null {
  if (!rows) return null;
  return rows.first === rows.last ? `row ${rows.first}` : `rows ${rows.first}–${rows.last}`;
}

/** A place and the rows of the chunk there, joined: "Sheet: Sales · rows 12–40"; "Rows 1–12" for a CSV file's chunk. */
export function placeWithRows(place: string | null, rows: RowSpan | null | undefined): string | null {
  const named = rowsName(rows);
  if (!named) return place;
  return place ? `${place} · ${named}` : named.charAt(0).toUpperCase() + named.slice(1);
}

/** The name of a page, or null for a pageless place (plain text, a Word document). */
export function placeName(page: number | null | undefined, labels: PageLabels, workbook: boolean): string | null {
  if (page === null || page === undefined) return null;
  const label = labels.get(page);
  if (workbook) return label ? `Sheet: ${label}` : `Sheet ${page}`;
  return label && label !== String(page) ? `Page ${page} (${label})` : `Page ${page}`;
}
