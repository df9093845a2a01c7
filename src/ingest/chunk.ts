// Splits parsed pages into chunks near a target size, breaking at paragraphs, then sentences, then words,
// never across a page boundary, with a word-aligned overlap between neighbours on the same page.

import type { ParsedPage } from './parsed-document.ts';

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
}

/** Pieces no larger than the target: paragraphs, or sentences / word runs of an oversized paragraph. */
function pieces(text: string, target: number): string[] {
  const result: string[] = [];
  for (const paragraph of text.split(/\n\s*\n/)) {
    // U+0000 is not text (a binary run in a text file, a PDF string's padding): a space, like a tab.
    const clean = paragraph.replace(/[ \t\u0000]+/g, ' ').replace(/\s*\n\s*/g, '\n').trim();
    if (clean === '') continue;
    if (clean.length <= target) {
      result.push(clean);
      continue;
    }
    for (const sentence of clean.split(/(?<=[.!?。])\s+/)) {
      if (sentence.length <= target) result.push(sentence);
      else result.push(...splitWords(sentence, target));
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

/**
 * Chunks of the pages in document order. With `maxChunks`, chunking stops as soon as one chunk more than that
 * exists (so a caller can tell the document was longer) and never returns more than maxChunks + 1.
 */
export function chunkPages(pages: readonly ParsedPage[], options: ChunkOptions = DEFAULT_CHUNK_OPTIONS, maxChunks = Number.POSITIVE_INFINITY): TextChunk[] {
  const chunks: TextChunk[] = [];
  const push = (page: ParsedPage, text: string) => {
    chunks.push({ chunkIndex: chunks.length, page: page.pageNumber, pageLabel: page.pageLabel, text, charCount: text.length });
  };
  for (const page of pages) {
    if (chunks.length > maxChunks) break;
    let current = '';
    let fresh = false; // true once current holds text beyond the carried-over overlap
    for (const piece of pieces(page.text, options.targetChars)) {
      if (chunks.length > maxChunks) break;
      const joined = current ? `${current}\n\n${piece}` : piece;
      if (joined.length <= options.targetChars || !fresh) {
        current = joined;
        fresh = true;
        continue;
      }
      push(page, current);
      const carried = tail(current, options.overlapChars);
      current = carried ? `${carried}\n\n${piece}` : piece;
      fresh = true;
    }
    if (fresh && current && chunks.length <= maxChunks) push(page, current);
  }
  return chunks;
}
