// The record number of each line of a CSV or TSV file, as a spreadsheet numbers the rows it opens the file into:
// the first record (the header) is row 1, a blank line is a row of its own, and a quoted field may hold line breaks,
// so that one record spans several lines. It never splits fields or changes the text.

/** Characters that end a field: a quote right after one (or at a line's start) opens a quoted field. */
const FIELD_DELIMITERS: Record<string, ReadonlySet<string>> = {
  csv: new Set([',', ';']),
  tsv: new Set(['\t']),
};

/** Whether a file of this extension is read as records (CSV, TSV). */
export function hasRecords(extension: string): boolean {
  return Object.hasOwn(FIELD_DELIMITERS, extension);
}

/**
 * For each line of `text` (split at "\n", line ends already normalised), the 1-based number of the record it is
 * part of. Null when a quoted field never closes before the text ends: the file's records cannot be told apart.
 */
export function csvLineRecords(text: string, extension: string): number[] | null {
  const delimiters = FIELD_DELIMITERS[extension] ?? FIELD_DELIMITERS.csv!;
  const lines: number[] = [];
  let record = 1;
  let quoted = false;
  let fieldStart = true;
  for (let at = 0; at < text.length; at++) {
    const char = text[at]!;
    if (quoted) {
      if (char === '"') {
        if (text[at + 1] === '"') at++; // an escaped quote
        else quoted = false;
      } else if (char === '\n') lines.push(record); // a line break inside the field: the record goes on
      continue;
    }
    if (char === '\n') {
      lines.push(record);
      record++;
      fieldStart = true;
    } else if (char === '"' && fieldStart) {
      quoted = true;
      fieldStart = false;
    } else fieldStart = delimiters.has(char);
  }
  if (quoted) return null;
  lines.push(record); // the last line (empty after a final line break)
  return lines;
}
