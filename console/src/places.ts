// What a place in a document is called on a hit card and in the document view: "Sheet: Sales" for a workbook's
// sheet (its page is the sheet's position, its page label the sheet's name), "Page 3 (iii)" for a PDF page whose
// logical label differs from its number, "Page 3" otherwise. The service gives a hit's label only for its best
// chunk (canonical_metadata.location); a page whose label is not known is named by its number ("Sheet 3"). Rows of a
// sheet are not carried anywhere, so no row is named.

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

/** The name of a page, or null for a pageless place (plain text, a Word document). */
export function placeName(page: number | null | undefined, labels: PageLabels, workbook: boolean): string | null {
  if (page === null || page === undefined) return null;
  const label = labels.get(page);
  if (workbook) return label ? `Sheet: ${label}` : `Sheet ${page}`;
  return label && label !== String(page) ? `Page ${page} (${label})` : `Page ${page}`;
}
