// Splits parsed pages into chunks near a target size, breaking at paragraphs, then sentences, then words,
// never across a page boundary, with a word-aligned overlap between neighbours on the same page.
// A page that numbers its lines by spreadsheet row (ParsedPage.lineRows) gives each chunk the range of rows it holds.

import type { ParsedPage } from './parsed-document.ts';
import { rowRangeOf } from '../domain/row-range.ts';
import type { RowRange } from '../domain/row-range.ts';

export interface ChunkOptions {
  targetChars: number;
  overlapChars: number;
}

export const DEFAULT_CHUNK_OPTIONS: ChunkOptions = { targetChars: 2000, overlapChars: 200 };

export interface TextChunk {
  chunkIndex: number;
  page: number | null;
  pageLabel: string | null;
  text: string;
  charCount: number;
  /** The spreadsheet rows the chunk holds (its overlap included); null for a page without row numbers. */
  rows: RowRange | null;
}

/** Line rows of a text: one entry per line ("\n"-separated), the row it comes from or null; null when not known. */
type LineTags = (number | null)[] | null;

/** A piece of a page's text and the rows of its lines. */
interface Piece {
  text: string;
  tags: LineTags;
}

function lineBreaks(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

/** The paragraphs of a text (what `text.split(/\n\s*\n/)` gives) with the index of the line each starts on. */
function paragraphs(text: string): { text: string; firstLine: number }[] {
  const result: { text: string; firstLine: number }[] = [];
  let start = 0;
  let line = 0;
  for (const match of text.matchAll(/\n\s*\n/g)) {
    result.push({ text: text.slice(start, match.index), firstLine: line });
    line += lineBreaks(text.slice(start, match.index + match[0].length));
    start = match.index + match[0].length;
  }
  result.push({ text: text.slice(start), firstLine: line });
  return result;
}

/**
 * The rows of a cleaned paragraph's lines: cleaning keeps each line that holds text, in order, and drops the rest,
 * so its lines are the paragraph's non-blank lines. Null if that ever does not hold (no rows rather than wrong ones).
 */
function cleanTags(paragraph: string, firstLine: number, clean: string, lineRows: readonly (number | null)[] | undefined): LineTags {
  if (!lineRows) return null;
  const tags: (number | null)[] = [];
  paragraph.split('\n').forEach((line, offset) => {
    if (line.replace(/\u0000/g, ' ').trim() !== '') tags.push(lineRows[firstLine + offset] ?? null);
  });
  return tags.length === lineBreaks(clean) + 1 ? tags : null;
}

/** The tags of `part`, a substring of `whole` found at or after `from`; null tags stay null. */
function partTags(whole: string, wholeTags: LineTags, part: string, from: number): { tags: LineTags; end: number } {
  const at = whole.indexOf(part, from);
  if (at === -1) return { tags: null, end: from };
  if (!wholeTags) return { tags: null, end: at + part.length };
  const line = lineBreaks(whole.slice(0, at));
  return { tags: wholeTags.slice(line, line + lineBreaks(part) + 1), end: at + part.length };
}

/** Pieces no larger than the target: paragraphs, or sentences / word runs of an oversized paragraph. */
function pieces(text: string, target: number, lineRows?: readonly (number | null)[]): Piece[] {
  const result: Piece[] = [];
  for (const paragraph of paragraphs(text)) {
    // U+0000 is not text (a binary run in a text file, a PDF string's padding): a space, like a tab.
    const clean = paragraph.text.replace(/[ \t\u0000]+/g, ' ').replace(/\s*\n\s*/g, '\n').trim();
    if (clean === '') continue;
    const tags = cleanTags(paragraph.text, paragraph.firstLine, clean, lineRows);
    if (clean.length <= target) {
      result.push({ text: clean, tags });
      continue;
    }
    const parts: string[] = [];
    for (const sentence of clean.split(/(?<=[.!?。])\s+/)) {
      if (sentence.length <= target) parts.push(sentence);
      else parts.push(...splitWords(sentence, target));
    }
    let from = 0;
    for (const part of parts) {
      const found = partTags(clean, tags, part, from);
      from = found.end;
      result.push({ text: part, tags: found.tags });
    }
  }
  return result;
}

function splitWords(text: string, target: number): string[] {
  const result: string[] = [];
  let rest = text;
  while (rest.length > target) {
    let cut = rest.lastIndexOf(' ', target);
    if (cut < target / 2) cut = target; // one huge token: cut it hard rather than loop
    result.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest) result.push(rest);
  return result;
}

/** The last `overlap` characters of a chunk, starting at a word boundary. */
function tail(text: string, overlap: number): string {
  if (overlap <= 0 || text.length <= overlap) return overlap <= 0 ? '' : text;
  const start = text.indexOf(' ', text.length - overlap);
  return start === -1 ? '' : text.slice(start + 1);
}

/** Tags of two texts joined by a blank line; unknown if either side's are. */
function joinTags(a: LineTags, b: LineTags): LineTags {
  return a && b ? [...a, null, ...b] : null;
}

/**
 * Chunks of the pages in document order. With `maxChunks`, chunking stops as soon as one chunk more than that
 * exists (so a caller can tell the document was longer) and never returns more than maxChunks + 1.
 */
export function chunkPages(pages: readonly ParsedPage[], options: ChunkOptions = DEFAULT_CHUNK_OPTIONS, maxChunks = Number.POSITIVE_INFINITY): TextChunk[] {
  const chunks: TextChunk[] = [];
  const push = (page: ParsedPage, text: string, tags: LineTags) => {
    chunks.push({ chunkIndex: chunks.length, page: page.pageNumber, pageLabel: page.pageLabel, text, charCount: text.length, rows: tags ? rowRangeOf(tags) : null });
  };
  for (const page of pages) {
    if (chunks.length > maxChunks) break;
    let current = '';
    // The rows of current's lines (page.lineRows' entries for them); null without row numbers.
    let currentTags: LineTags = page.lineRows ? [] : null;
    let fresh = false; // true once current holds text beyond the carried-over overlap
    for (const piece of pieces(page.text, options.targetChars, page.lineRows)) {
      if (chunks.length > maxChunks) break;
      const joined = current ? `${current}\n\n${piece.text}` : piece.text;
      if (joined.length <= options.targetChars || !fresh) {
        currentTags = current ? joinTags(currentTags, piece.tags) : piece.tags;
        current = joined;
        fresh = true;
        continue;
      }
      push(page, current, currentTags);
      const carried = tail(current, options.overlapChars);
      // The overlap is current's last lines: their rows are the last of current's tags.
      const carriedTags = carried && currentTags ? currentTags.slice(currentTags.length - lineBreaks(carried) - 1) : null;
      currentTags = carried ? joinTags(carriedTags, piece.tags) : piece.tags;
      current = carried ? `${carried}\n\n${piece.text}` : piece.text;
      fresh = true;
    }
    if (fresh && current && chunks.length <= maxChunks) push(page, current, currentTags);
  }
  return chunks;
}
