// Text of an Excel 97-2003 workbook through xls2csv (tools.ts): a page per sheet named from the workbook's own sheet
// list, a row a line, its non-empty cells joined by tabs, within the workbook limits (sheets and cells, as for .xlsx).
// An encrypted workbook is refused from its FILEPASS record before any reader runs.

import type { ParsedPage } from '../../parsed-document.ts';
import type { ParserContext } from '../../parse-options.ts';
import { noteLimit } from '../../parse-options.ts';
import { encrypted } from '../../errors.ts';
import { runLegacyReader } from './tools.ts';

/** BIFF record types (MS-XLS 2.3): the globals substream ends at EOF; FILEPASS inside it means encrypted. */
const BIFF_FILEPASS = 0x002f;
const BIFF_EOF = 0x000a;
const BIFF_HEADER_BYTES = 4;
/** xls2csv ends each sheet with a form feed. */
const SHEET_BREAK = '\f';

export function workbookIsEncrypted(workbook: Buffer): boolean {
  for (let at = 0; at + BIFF_HEADER_BYTES <= workbook.length; ) {
    const type = workbook.readUInt16LE(at);
    if (type === BIFF_FILEPASS) return true;
    if (type === BIFF_EOF) return false;
    at += BIFF_HEADER_BYTES + workbook.readUInt16LE(at + 2);
  }
  return false;
}

/**
 * Where xls2csv's sheet breaks come from (catdoc's xlsparse.c): a sheet is printed, ending with a break, at a BOF or
 * EOF record once a cell record has been read since the last break; a sheet without cells prints nothing.
 */
const BIFF_BOFS = new Set([0x0009, 0x0209, 0x0409, 0x0809]);
const BIFF_BOUNDSHEET = 0x0085;
const BIFF_CODEPAGE = 0x0042;
/** The records xls2csv allocates a cell for (BLANK and MULBLANK too: a sheet of blank cells still prints its break). */
const BIFF_CELLS = new Set([0x0003, 0x0006, 0x0103, 0x00bd, 0x00be, 0x00fd, 0x0201, 0x0202, 0x0203, 0x0204, 0x027e, 0x0303]);
/** BIFF8's BOF version; older files (BIFF5/7) store sheet names in the workbook's code page, without the Unicode flag. */
const BIFF8_VERSION = 0x0600;

/** A sheet of the workbook: its name and its 1-based position among all its sheets (BOUNDSHEET order, as the tabs). */
export interface WorkbookSheet {
  name: string;
  position: number;
}

function decodeCodePage(bytes: Buffer, codePage: number): string {
  try {
    return new TextDecoder(`windows-${codePage}`).decode(bytes);
  } catch {
    return bytes.toString('latin1');
  }
}

/**
 * The workbook's sheets, and for each sheet break xls2csv will print the sheet it closes, worked out by walking the
 * BIFF records as xls2csv does. Null when the stream is not what this walk understands (no sheet list, a record past
 * the stream's end): the text is then read as one page, without sheet names.
 */
export function workbookSheetBreaks(workbook: Buffer): { sheets: WorkbookSheet[]; breaks: WorkbookSheet[] } | null {
  const found: { name: string; offset: number }[] = [];
  const breaks: number[] = [];
  let biff8 = false;
  let codePage = 1252;
  let first = true;
  let since: number | null = null; // offset of the first cell record since the last break
  for (let at = 0; at + BIFF_HEADER_BYTES <= workbook.length; ) {
    const type = workbook.readUInt16LE(at);
    const length = workbook.readUInt16LE(at + 2);
    const body = workbook.subarray(at + BIFF_HEADER_BYTES, at + BIFF_HEADER_BYTES + length);
    if (body.length < length) return null;
    if (first) {
      if (!BIFF_BOFS.has(type) || body.length < 2) return null;
      biff8 = body.readUInt16LE(0) === BIFF8_VERSION;
      first = false;
    } else if ((BIFF_BOFS.has(type) || type === BIFF_EOF) && since !== null) {
      breaks.push(since);
      since = null;
    } else if (BIFF_CELLS.has(type)) since ??= at;
    else if (type === BIFF_CODEPAGE && length >= 2) codePage = body.readUInt16LE(0);
    else if (type === BIFF_BOUNDSHEET && length >= 8) {
      const count = body[6]!;
      const name = biff8
        ? (body[7]! & 1 ? body.subarray(8, 8 + 2 * count).toString('utf16le') : body.subarray(8, 8 + count).toString('latin1'))
        : decodeCodePage(body.subarray(7, 7 + count), codePage);
      found.push({ name, offset: body.readUInt32LE(0) });
    }
    at += BIFF_HEADER_BYTES + length;
  }
  // A stream that ends without the sheet's EOF: xls2csv prints what it read of that sheet all the same.
  if (since !== null) breaks.push(since);
  if (found.length === 0) return null;
  const sheets = found.map((sheet, index): WorkbookSheet => ({ name: sheet.name, position: index + 1 }));
  // A printed sheet belongs to the sheet whose substream holds its first cell: the last one starting before it.
  const byOffset = found.map((sheet, index) => ({ offset: sheet.offset, sheet: sheets[index]! })).sort((a, b) => a.offset - b.offset);
  const owner = (offset: number): WorkbookSheet | null => byOffset.findLast((entry) => entry.offset <= offset)?.sheet ?? null;
  const owners = breaks.map(owner);
  if (owners.some((sheet) => sheet === null)) return null;
  return { sheets, breaks: owners as WorkbookSheet[] };
}

/**
 * Pages of xls2csv's output (tab-separated, unquoted), cut at the sheet and cell limits. With the workbook's sheet
 * breaks, a page per sheet that holds text, numbered by its position and labelled with its name (its first
 * paragraph, searchable as in a .xlsx); when the printed sheets do not match them, one page without sheet names.
 */
export function workbookPages(output: string, layout: ReturnType<typeof workbookSheetBreaks>, context: ParserContext): { pages: ParsedPage[]; labelled: boolean } {
  const { maxSheets, maxCells } = context.options;
  const printed = output.split(SHEET_BREAK);
  const rest = printed.pop()!;
  // Text after the last break is a sheet the reader was stopped in (the text budget): a prefix of the sheets.
  const stopped = rest.trim() !== '';
  if (stopped) printed.push(rest);
  const labelled = layout !== null && (printed.length === layout.breaks.length || (stopped && printed.length <= layout.breaks.length));
  // A sheet that an embedded chart interrupts is printed in two parts: they join again.
  const sheets: { sheet: WorkbookSheet | null; text: string }[] = [];
  printed.forEach((text, index) => {
    const sheet = labelled ? layout.breaks[index]! : null;
    const last = sheets.at(-1);
    if (last && sheet !== null && last.sheet === sheet) last.text += `\n${text}`;
    else sheets.push({ sheet, text });
  });
  const withText = sheets.filter((sheet) => sheet.text.trim() !== '');
  if (withText.length > maxSheets) noteLimit(context, 'sheets', maxSheets, `Only the first ${maxSheets} of the workbook's ${withText.length} sheets were read (limit); only the beginning of the document is indexed.`);
  const pages: ParsedPage[] = [];
  for (const { sheet, text } of withText.slice(0, maxSheets)) {
    const rows: string[] = [];
    for (const line of text.split('\n')) {
      const cells = line.split('\t').map((cell) => cell.trim()).filter((cell) => cell !== '');
      if (cells.length === 0) continue;
      context.cellsRemaining -= cells.length;
      if (context.cellsRemaining < 0) {
        noteLimit(context, 'cells', maxCells, `Cells beyond the first ${maxCells} of the workbook were not read (limit); only the beginning of the document is indexed.`);
        break;
      }
      rows.push(cells.join('\t'));
    }
    if (rows.length > 0) {
      const label = sheet && sheet.name.trim() !== '' ? sheet.name : null;
      pages.push({ pageNumber: sheet?.position ?? null, pageLabel: label, text: [...(label ? [label] : []), rows.join('\n')].join('\n\n') });
    }
    if (context.cellsRemaining < 0) break;
  }
  return { pages: labelled ? pages : [{ pageNumber: null, pageLabel: null, text: pages.map((page) => page.text).join('\n\n') }], labelled };
}

/** The workbook's pages, and its sheet count when its sheets could be told apart (null otherwise, as before). */
export async function workbookText(bytes: Buffer, workbook: Buffer, context: ParserContext): Promise<{ pages: ParsedPage[]; sheetCount: number | null }> {
  if (workbookIsEncrypted(workbook)) throw encrypted('password-protected Excel 97-2003 workbook');
  const output = await runLegacyReader('xls2csv', ['-d', 'utf-8', '-q', '0', '-c', '\t'], bytes, 'Excel 97-2003 workbook', context);
  const layout = workbookSheetBreaks(workbook);
  const { pages, labelled } = workbookPages(output, layout, context);
  return { pages, sheetCount: labelled && layout ? layout.sheets.length : null };
}
