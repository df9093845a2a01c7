// Text of a SpreadsheetML workbook: every sheet's cells (shared, inline, numeric, dates), headers/footers and comments.
// It never pre-allocates from declared counts (count="8876876876876" is ignored) and never evaluates formulas.

import type { ParserContext } from '../../parse-options.ts';
import { spendText } from '../../parse-options.ts';
import { REL_ATTR_PREFIX } from '../../guards/xml-guard.ts';
import { headerFooterText, isDateFormat, serialToIso } from './spreadsheet-values.ts';
import { readRelationships, readXmlPart, relatedParts, relType } from './package.ts';
import type { OoxmlPackage } from './package.ts';

/** Rows grouped into one paragraph, so a large sheet reaches the chunker as many moderate paragraphs. */
export const SHEET_ROWS_PER_PARAGRAPH = 20;

interface Workbook {
  sheets: { name: string; part: string }[];
  date1904: boolean;
  sharedStringsPart: string | null;
  stylesPart: string | null;
}

interface CellContext {
  strings: string[];
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

/** Shared strings in order; phonetic runs (rPh) are readings, not text. */
async function readSharedStrings(pkg: OoxmlPackage, part: string | null): Promise<string[]> {
  const strings: string[] = [];
  if (!part) return strings;
  let current: string[] | null = null;
  let inPhonetic = 0;
  let inText = false;
  await readXmlPart(pkg, part, {
    open(name) {
      if (name === 'si') current = [];
      else if (name === 'rPh') inPhonetic++;
      else if (name === 't') inText = true;
    },
    text(value) {
      if (current && inText && inPhonetic === 0) current.push(value);
    },
    close(name) {
      if (name === 't') inText = false;
      else if (name === 'rPh') inPhonetic--;
      else if (name === 'si' && current) {
        strings.push(current.join(''));
        current = null;
      }
    },
  });
  return strings;
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

function cellText(type: string, style: number, value: string, inline: string, cells: CellContext): string {
  switch (type) {
    case 's':
      return cells.strings[Number.parseInt(value, 10)] ?? '';
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

/** Lines of one sheet (cells tab-separated) plus its distinct header/footer texts. */
async function readSheet(pkg: OoxmlPackage, part: string, cells: CellContext, context: ParserContext): Promise<{ rows: string[]; headers: string[] }> {
  const rows: string[] = [];
  const headers = new Set<string>();
  let row: string[] = [];
  let cell: { type: string; style: number; value: string; inline: string } | null = null;
  let element = '';
  let inPhonetic = 0;
  let headerText = '';
  await readXmlPart(pkg, part, {
    open(name, attributes) {
      element = name;
      if (name === 'c') cell = { type: attributes.t ?? 'n', style: Number(attributes.s ?? 0), value: '', inline: '' };
      else if (name === 'rPh') inPhonetic++;
      else if (HEADER_FOOTER.has(name)) headerText = '';
    },
    text(value) {
      if (cell && element === 'v') cell.value += value;
      else if (cell && element === 't' && inPhonetic === 0) cell.inline += value;
      else if (HEADER_FOOTER.has(element)) headerText += value;
    },
    close(name) {
      element = '';
      if (name === 'rPh') inPhonetic--;
      else if (name === 'c' && cell) {
        const text = cellText(cell.type, cell.style, cell.value.trim(), cell.inline, cells).trim();
        if (text) row.push(text);
        cell = null;
      } else if (name === 'row') {
        if (row.length > 0 && context.budget.remaining > 0) rows.push(spendText(context.budget, row.join('\t')));
        row = [];
      } else if (HEADER_FOOTER.has(name)) {
        const text = headerFooterText(headerText);
        if (text) headers.add(text);
      }
    },
  });
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

function groupRows(rows: string[]): string[] {
  const groups: string[] = [];
  for (let i = 0; i < rows.length; i += SHEET_ROWS_PER_PARAGRAPH) groups.push(rows.slice(i, i + SHEET_ROWS_PER_PARAGRAPH).join('\n'));
  return groups;
}

/** Paragraphs of the workbook: per sheet its name, its rows in groups, its headers/footers and its comments. */
export async function extractSpreadsheetText(pkg: OoxmlPackage, mainPart: string, context: ParserContext): Promise<string[]> {
  const workbook = await readWorkbook(pkg, mainPart);
  const cells: CellContext = {
    strings: await readSharedStrings(pkg, workbook.sharedStringsPart),
    dateStyles: await readDateStyles(pkg, workbook.stylesPart),
    date1904: workbook.date1904,
  };
  const paragraphs: string[] = [];
  for (const sheet of workbook.sheets) {
    if (context.budget.remaining === 0) break;
    const { rows, headers } = await readSheet(pkg, sheet.part, cells, context);
    const comments = await readComments(pkg, sheet.part, context);
    if (rows.length + headers.length + comments.length === 0) continue;
    paragraphs.push(sheet.name, ...groupRows(rows), ...headers, ...comments);
  }
  return paragraphs.filter((p) => p.trim() !== '');
}
