// Text of a SpreadsheetML workbook, a page per sheet: every sheet's cells (shared, inline, numeric, dates), headers/footers and comments.
// It never pre-allocates from declared counts (count="8876876876876" is ignored) and never evaluates formulas.
// Memory is bounded while reading, not only after: the shared-string table, the row and the cell being read keep no
// more characters than the document may still index (DOCUMENT_MAX_CHARS), cells and sheets are counted against
// DOCUMENT_MAX_CELLS and DOCUMENT_MAX_SHEETS, and a sheet part stops being inflated once a limit is reached.

import type { ParsedPage } from '../../parsed-document.ts';
import type { ParserContext } from '../../parse-options.ts';
import { noteLimit, spendText } from '../../parse-options.ts';
import { embeddedParagraphs } from './embedded.ts';
import { sheetDrawings } from './images.ts';
import { REL_ATTR_PREFIX } from '../../guards/xml-guard.ts';
import { headerFooterText, isDateFormat, serialToIso } from './spreadsheet-values.ts';
import { readRelationships, readXmlPart, relatedParts, relType } from './package.ts';
import type { OoxmlPackage } from './package.ts';
import { joinBlocks, rowNumberOf } from '../sheet-rows.ts';
import type { PageBlock } from '../sheet-rows.ts';

/** Rows grouped into one paragraph, so a large sheet reaches the chunker as many moderate paragraphs. */
export const SHEET_ROWS_PER_PARAGRAPH = 20;

interface Workbook {
  sheets: { name: string; part: string }[];
  date1904: boolean;
  sharedStringsPart: string | null;
  stylesPart: string | null;
}

/** A row of a sheet that holds text: its number (1-based, as the sheet numbers it) and its cells, tab-separated. */
interface SheetRow {
  number: number;
  text: string;
}

interface CellContext {
  strings: string[];
  /** The shared-string table was cut at the character or cell limit: a missing index means dropped text. */
  stringsCut: boolean;
  dateStyles: boolean[];
  date1904: boolean;
}

async function readWorkbook(pkg: OoxmlPackage, mainPart: string): Promise<Workbook> {
  const rels = (await readRelationships(pkg, mainPart)).filter((r) => !r.external);
  const targets = new Map(rels.map((r) => [r.id, r.target]));
  const workbook: Workbook = {
    sheets: [],
    date1904: false,
    sharedStringsPart: rels.find((r) => relType(r, 'sharedStrings'))?.target ?? null,
    stylesPart: rels.find((r) => relType(r, 'styles'))?.target ?? null,
  };
  await readXmlPart(pkg, mainPart, {
    open(name, attributes) {
      if (name === 'workbookPr') workbook.date1904 = attributes.date1904 === '1' || attributes.date1904 === 'true';
      const part = targets.get(attributes[`${REL_ATTR_PREFIX}id`] ?? '');
      if (name === 'sheet' && part) workbook.sheets.push({ name: attributes.name ?? '', part });
    },
  });
  return workbook;
}

/**
 * Shared strings in order; phonetic runs (rPh) are readings, not text. The table keeps at most the document's character
 * limit in characters and its cell limit in entries (no cell could show more); past either it is cut (`cut`).
 */
async function readSharedStrings(pkg: OoxmlPackage, part: string | null, context: ParserContext): Promise<{ strings: string[]; cut: boolean }> {
  const strings: string[] = [];
  if (!part) return { strings, cut: false };
  const { maxTextChars, maxCells } = context.options;
  let kept = 0;
  let cut = false;
  let current: string[] | null = null;
  let inPhonetic = 0;
  let inText = false;
  await readXmlPart(
    pkg,
    part,
    {
      open(name) {
        if (name === 'si') current = [];
        else if (name === 'rPh') inPhonetic++;
        else if (name === 't') inText = true;
      },
      text(value) {
        if (!current || !inText || inPhonetic !== 0 || cut) return;
        const room = maxTextChars - kept;
        if (value.length > room) cut = true;
        const piece = value.length > room ? value.slice(0, room) : value;
        current.push(piece);
        kept += piece.length;
      },
      close(name) {
        if (name === 't') inText = false;
        else if (name === 'rPh') inPhonetic--;
        else if (name === 'si' && current) {
          if (!cut) strings.push(current.join(''));
          current = null;
          if (strings.length >= maxCells) cut = true;
        }
      },
    },
    () => cut,
  );
  return { strings, cut };
}

/** For each cell style (cellXfs index), whether its number format renders a date. */
async function readDateStyles(pkg: OoxmlPackage, part: string | null): Promise<boolean[]> {
  if (!part) return [];
  const customCodes = new Map<number, string>();
  const xfFormats: number[] = [];
  let inCellXfs = false;
  await readXmlPart(pkg, part, {
    open(name, attributes) {
      if (name === 'numFmt') customCodes.set(Number(attributes.numFmtId), attributes.formatCode ?? '');
      else if (name === 'cellXfs') inCellXfs = true;
      else if (name === 'xf' && inCellXfs) xfFormats.push(Number(attributes.numFmtId ?? 0));
    },
    close(name) {
      if (name === 'cellXfs') inCellXfs = false;
    },
  });
  return xfFormats.map((id) => isDateFormat(id, customCodes));
}

function sharedString(value: string, cells: CellContext, context: ParserContext): string {
  const index = Number.parseInt(value, 10);
  const text = cells.strings[index];
  if (text !== undefined) return text;
  // An index past a table that was cut at a limit is text the limit dropped, not a damaged reference.
  if (cells.stringsCut && index >= cells.strings.length) context.budget.truncated = true;
  return '';
}

function cellText(type: string, style: number, value: string, inline: string, cells: CellContext, context: ParserContext): string {
  switch (type) {
    case 's':
      return sharedString(value, cells, context);
    case 'inlineStr':
      return inline;
    case 'b':
      return value === '1' ? 'TRUE' : value === '0' ? 'FALSE' : '';
    case 'e':
      return '';
    case 'str':
    case 'd':
      return value;
    default:
      return cells.dateStyles[style] && value ? (serialToIso(Number(value), cells.date1904) ?? value) : value;
  }
}

const HEADER_FOOTER = new Set(['oddHeader', 'oddFooter', 'evenHeader', 'evenFooter', 'firstHeader', 'firstFooter']);

/** Longest cached value (<v>) kept per cell for numbers, dates, booleans and shared-string indexes (formula strings are text). */
const MAX_VALUE_CHARS = 1024;
/** Longest header/footer text kept per element (they are a line of a page, not content). */
const MAX_HEADER_FOOTER_CHARS = 1024;

/**
 * Lines of one sheet (cells tab-separated) plus its distinct header/footer texts. The row being read holds no more
 * characters than the document may still index; cells are counted against the workbook's cell limit; once the text
 * budget or the cell limit is spent the rest of the part is not read.
 */
async function readSheet(pkg: OoxmlPackage, part: string, cells: CellContext, context: ParserContext): Promise<{ rows: SheetRow[]; headers: string[] }> {
  const rows: SheetRow[] = [];
  const headers = new Set<string>();
  const budget = context.budget;
  let row: string[] = [];
  /** The open row's number: its r attribute, or the one after the previous row's (r is optional). */
  let rowNumber = 0;
  /** Characters held by `row` and the open cell, not yet spent. */
  let held = 0;
  let cell: { type: string; style: number; value: string; inline: string } | null = null;
  let element = '';
  let inPhonetic = 0;
  let headerText = '';
  const room = (): number => budget.remaining - held;
  await readXmlPart(
    pkg,
    part,
    {
      open(name, attributes) {
        element = name;
        if (name === 'row') rowNumber = rowNumberOf(attributes.r, rowNumber);
        else if (name === 'c') {
          // Below zero once a cell past the limit was seen: the workbook really had more (reading stops there).
          context.cellsRemaining--;
          if (context.cellsRemaining < 0) {
            cell = null;
            return;
          }
          cell = { type: attributes.t ?? 'n', style: Number(attributes.s ?? 0), value: '', inline: '' };
        } else if (name === 'rPh') inPhonetic++;
        else if (HEADER_FOOTER.has(name)) headerText = '';
      },
      text(value) {
        if (cell && element === 'v' && cell.type === 'str') {
          // A formula's string result is text of the cell: held within the budget like inline text.
          if (value.length > room()) budget.truncated = true;
          const piece = value.slice(0, Math.max(0, room()));
          cell.value += piece;
          held += piece.length;
        } else if (cell && element === 'v') {
          if (cell.value.length < MAX_VALUE_CHARS) cell.value += value.slice(0, MAX_VALUE_CHARS - cell.value.length);
        } else if (cell && element === 't' && inPhonetic === 0) {
          if (value.length > room()) budget.truncated = true;
          const piece = value.slice(0, Math.max(0, room()));
          cell.inline += piece;
          held += piece.length;
        } else if (HEADER_FOOTER.has(element) && headerText.length < MAX_HEADER_FOOTER_CHARS) headerText += value;
      },
      close(name) {
        element = '';
        if (name === 'rPh') inPhonetic--;
        else if (name === 'c' && cell) {
          held -= cell.inline.length + (cell.type === 'str' ? cell.value.length : 0);
          const text = cellText(cell.type, cell.style, cell.value.trim(), cell.inline, cells, context).trim();
          if (text.length > room()) budget.truncated = true;
          const kept = text.slice(0, Math.max(0, room()));
          if (kept) {
            row.push(kept);
            held += kept.length + 1;
          }
          cell = null;
        } else if (name === 'row') {
          if (row.length > 0 && budget.remaining > 0) rows.push({ number: rowNumber, text: spendText(budget, row.join('\t')) });
          row = [];
          held = 0;
        } else if (HEADER_FOOTER.has(name)) {
          const text = headerFooterText(headerText);
          if (text) headers.add(text);
        }
      },
    },
    () => budget.remaining === 0 || context.cellsRemaining < 0,
  );
  // A row cut off by an early stop still holds what was read of it.
  if (row.length > 0 && budget.remaining > 0) rows.push({ number: rowNumber, text: spendText(budget, row.join('\t')) });
  if (context.cellsRemaining < 0) {
    const max = context.options.maxCells;
    noteLimit(context, 'cells', max, `Cells beyond the first ${max} of the workbook were not read (limit); only the beginning of the document is indexed.`);
  }
  return { rows, headers: [...headers] };
}

async function readComments(pkg: OoxmlPackage, sheetPart: string, context: ParserContext): Promise<string[]> {
  const comments: string[] = [];
  for (const part of await relatedParts(pkg, sheetPart, 'comments')) {
    let current: string[] | null = null;
    let inText = false;
    await readXmlPart(pkg, part, {
      open(name) {
        if (name === 'comment') current = [];
        else if (name === 't') inText = true;
      },
      text(value) {
        if (current && inText) current.push(value);
      },
      close(name) {
        if (name === 't') inText = false;
        else if (name === 'comment' && current) {
          const text = current.join('').trim();
          if (text && context.budget.remaining > 0) comments.push(spendText(context.budget, text));
          current = null;
        }
      },
    });
  }
  return comments;
}

/** The sheet's rows in paragraphs of SHEET_ROWS_PER_PARAGRAPH rows, each line tagged with its row's number. */
function groupRows(rows: SheetRow[]): PageBlock[] {
  const groups: PageBlock[] = [];
  for (let i = 0; i < rows.length; i += SHEET_ROWS_PER_PARAGRAPH) {
    const group = rows.slice(i, i + SHEET_ROWS_PER_PARAGRAPH);
    // A cell may hold line breaks: each of its lines is of its row.
    groups.push({ text: group.map((row) => row.text).join('\n'), rows: group.flatMap((row) => row.text.split('\n').map(() => row.number)) });
  }
  return groups;
}

/**
 * One page per sheet that holds text, in the workbook's tab order: pageNumber is the sheet's 1-based position among
 * all its sheets (an empty sheet keeps its number and gives no page), pageLabel its name, so a chunk never spans two
 * sheets and a hit names its sheet. The page's text starts with the sheet's name (searchable, as before), then its rows
 * in groups, its headers/footers, its comments and the text of the objects embedded in it and of its pictures.
 * sheetCount counts every sheet of the workbook, read or not, as a presentation's page count counts every slide.
 */
export async function extractSpreadsheetPages(pkg: OoxmlPackage, mainPart: string, context: ParserContext): Promise<{ pages: ParsedPage[]; sheetCount: number }> {
  const workbook = await readWorkbook(pkg, mainPart);
  const shared = await readSharedStrings(pkg, workbook.sharedStringsPart, context);
  const cells: CellContext = {
    strings: shared.strings,
    stringsCut: shared.cut,
    dateStyles: await readDateStyles(pkg, workbook.stylesPart),
    date1904: workbook.date1904,
  };
  const maxSheets = context.options.maxSheets;
  if (workbook.sheets.length > maxSheets) {
    noteLimit(context, 'sheets', maxSheets, `Only the first ${maxSheets} of the workbook's ${workbook.sheets.length} sheets were read (limit); only the beginning of the document is indexed.`);
  }
  const pages: ParsedPage[] = [];
  for (const [index, sheet] of workbook.sheets.slice(0, maxSheets).entries()) {
    if (context.budget.remaining === 0 || context.cellsRemaining < 0) break;
    const { rows, headers } = await readSheet(pkg, sheet.part, cells, context);
    const comments = await readComments(pkg, sheet.part, context);
    const embedded = await embeddedParagraphs(pkg, sheet.part, context);
    for (const drawing of await sheetDrawings(pkg, sheet.part)) embedded.push(...(await embeddedParagraphs(pkg, drawing, context)));
    const paragraphs = [...groupRows(rows), ...[...headers, ...comments, ...embedded].map((text) => ({ text }))].filter((p) => p.text.trim() !== '');
    if (paragraphs.length === 0) continue;
    // A sheet without a name (a damaged workbook) is still its own page, labelled by nothing rather than by ''.
    const label = sheet.name.trim() === '' ? null : sheet.name;
    const { text, lineRows } = joinBlocks([...(label ? [{ text: sheet.name }] : []), ...paragraphs]);
    pages.push({ pageNumber: index + 1, pageLabel: label, text, lineRows });
  }
  return { pages, sheetCount: workbook.sheets.length };
}
