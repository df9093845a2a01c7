// Text of an Excel 97-2003 workbook through xls2csv (tools.ts): sheet by sheet, a row a line, its non-empty cells
// joined by tabs, within the workbook limits (sheets and cells, as for .xlsx). An encrypted workbook is refused from
// its FILEPASS record before any reader runs.

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

/** Rows of xls2csv's output (tab-separated, unquoted), cut at the sheet and cell limits. */
export function workbookParagraphs(output: string, context: ParserContext): string[] {
  const { maxSheets, maxCells } = context.options;
  const sheets = output.split(SHEET_BREAK).filter((sheet) => sheet.trim() !== '');
  if (sheets.length > maxSheets) noteLimit(context, 'sheets', maxSheets, `Only the first ${maxSheets} of the workbook's ${sheets.length} sheets were read (limit); only the beginning of the document is indexed.`);
  const paragraphs: string[] = [];
  for (const sheet of sheets.slice(0, maxSheets)) {
    const rows: string[] = [];
    for (const line of sheet.split('\n')) {
      const cells = line.split('\t').map((cell) => cell.trim()).filter((cell) => cell !== '');
      if (cells.length === 0) continue;
      context.cellsRemaining -= cells.length;
      if (context.cellsRemaining < 0) {
        noteLimit(context, 'cells', maxCells, `Cells beyond the first ${maxCells} of the workbook were not read (limit); only the beginning of the document is indexed.`);
        break;
      }
      rows.push(cells.join('\t'));
    }
    if (rows.length > 0) paragraphs.push(rows.join('\n'));
    if (context.cellsRemaining < 0) break;
  }
  return paragraphs;
}

export async function workbookText(bytes: Buffer, workbook: Buffer, context: ParserContext): Promise<string[]> {
  if (workbookIsEncrypted(workbook)) throw encrypted('password-protected Excel 97-2003 workbook');
  return workbookParagraphs(await runLegacyReader('xls2csv', ['-d', 'utf-8', '-q', '0', '-c', '\t'], bytes, 'Excel 97-2003 workbook', context), context);
}
