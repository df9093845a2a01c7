// Collects paragraphs from WordprocessingML and DrawingML (they share p / r / t / tbl / tr / tc local names).
// It never keeps duplicate renditions (mc:Fallback), ruby readings, field codes or deleted text, and stops at the text budget:
// open paragraphs and tables hold no more characters than the document may still index, so one huge table or paragraph
// cannot grow past the limit before it closes.

import type { XmlHandlers } from '../../guards/xml-guard.ts';
import { spendText } from '../../parse-options.ts';
import type { TextBudget } from '../../parse-options.ts';

/** Subtrees whose text is not document text: alternate renditions, ruby annotations, field instructions. */
const SKIPPED_SUBTREES = new Set(['Fallback', 'rt', 'instrText', 'delInstrText']);

interface OpenTable {
  rows: string[];
  cells: string[];
  cellParts: string[] | null;
}

export interface TextCollector {
  handlers: XmlHandlers;
  /** Paragraphs collected so far, in document order (tables as one paragraph, rows on lines, cells tab-separated). */
  paragraphs: string[];
}

export function createTextCollector(budget: TextBudget): TextCollector {
  const paragraphs: string[] = [];
  const stack: string[] = [];
  const openParagraphs: string[][] = [];
  const tables: OpenTable[] = [];
  let skipDepth = 0;
  /** Characters held by open paragraphs and tables, not yet spent from the budget. */
  let held = 0;

  const emit = (text: string): void => {
    const table = tables[tables.length - 1];
    if (table?.cellParts) table.cellParts.push(text);
    else if (budget.remaining > 0) paragraphs.push(spendText(budget, text));
    // Nothing open any more: nothing is held (whitespace folding makes the held count approximate until then).
    if (openParagraphs.length === 0 && tables.length === 0) held = 0;
  };
  const append = (text: string): void => {
    openParagraphs[openParagraphs.length - 1]?.push(text);
  };

  const open = (name: string): void => {
    const parent = stack[stack.length - 1];
    stack.push(name);
    if (skipDepth > 0 || SKIPPED_SUBTREES.has(name)) {
      skipDepth++;
      return;
    }
    if (name === 'p') openParagraphs.push([]);
    else if (name === 'tbl') tables.push({ rows: [], cells: [], cellParts: null });
    else if (name === 'tc' && tables.length > 0) tables[tables.length - 1]!.cellParts = [];
    else if (name === 'tab' && parent === 'r') append('\t');
    else if ((name === 'br' || name === 'cr') && (parent === 'r' || parent === 'p')) append('\n');
    else if (name === 'noBreakHyphen') append('-');
  };

  const close = (name: string): void => {
    stack.pop();
    if (skipDepth > 0) {
      skipDepth--;
      return;
    }
    if (name === 'p') closeParagraph();
    else if (name === 'tc') closeCell();
    else if (name === 'tr') closeRow();
    else if (name === 'tbl') closeTable();
  };

  const closeParagraph = (): void => {
    const text = (openParagraphs.pop() ?? []).join('').trim();
    if (text) emit(text);
  };
  const closeCell = (): void => {
    const table = tables[tables.length - 1];
    if (!table?.cellParts) return;
    table.cells.push(table.cellParts.join(' ').replace(/\s+/gu, ' ').trim());
    table.cellParts = null;
  };
  const closeRow = (): void => {
    const table = tables[tables.length - 1];
    if (!table) return;
    const row = table.cells.join('\t').trimEnd();
    if (row.trim()) table.rows.push(row);
    table.cells = [];
  };
  const closeTable = (): void => {
    const table = tables.pop();
    if (table && table.rows.length > 0) emit(table.rows.join('\n'));
  };

  const text = (value: string): void => {
    if (skipDepth !== 0 || stack[stack.length - 1] !== 't' || budget.remaining === 0) return;
    const room = budget.remaining - held;
    if (value.length > room) budget.truncated = true;
    if (room <= 0) return;
    const piece = value.length > room ? value.slice(0, room) : value;
    append(piece);
    held += piece.length;
  };

  return { handlers: { open, close, text }, paragraphs };
}
