// A generation's lane data, what a worker derives once from its chunks and persists with the generation
// (lanes-encoding.ts writes and reads its binary form): its BM25 postings (local row ids), int8 dense codes,
// fuzzy-lane words with chunk counts and what filters and evidence rows read of each chunk (index, page, label,
// a hash of its text). An api process loads and merges these instead of re-analyzing text.

import { buildBm25Segment } from './bm25-segment.ts';
import type { Bm25Postings } from './bm25-segment.ts';
import { quantize } from './quantization.ts';
import { derivedTermsOf, vocabularyWordsOfTokens } from '../text/vocabulary.ts';
import { analyzeFieldsOfTokens } from '../text/analyzer.ts';
import { analysisModeOf } from './chunk-analysis.ts';
import type { ChunkLanguage } from '../domain/chunk-language.ts';
import { tokenize } from '../text/tokenize.ts';
import type { StringList } from '../text/string-table.ts';

/** Stored for a chunk without a page number. */
export const NO_PAGE = -1;

/** What lane data is made of: a chunk as a writer holds it. */
export interface LaneChunk {
  chunkIndex: number;
  page: number | null;
  pageLabel: string | null;
  text: string;
  vector: Float32Array;
  /** Chooses the chunk's analyzer; null (indexed before languages were recorded): chosen by its function words. */
  language: ChunkLanguage | null;
}

export interface GenerationLanes {
  chunkCount: number;
  dimensions: number;
  /** Postings with docIds 0..chunkCount-1 (rows in chunk order). */
  bm25: Bm25Postings;
  /** chunkCount x dimensions int8 codes. */
  codes: Int8Array;
  /** Fuzzy-lane words with the number of chunks containing each. */
  words: StringList;
  wordCounts: Uint32Array;
  /** The query-side index terms and Malay roots of the words (vocabulary.ts derivedTermsOf); null in format 1. */
  derived: { terms: StringList; malayRoots: StringList } | null;
  chunkIndexes: Int32Array;
  /** NO_PAGE where a chunk has none. */
  pages: Int32Array;
  /** Rows with a page label, and the labels. */
  labelRows: number[];
  labels: string[];
  /** FNV-1a of each chunk's "index:text": a text read for an answer is checked against it. */
  textHashes: Uint32Array;
}

/** 32-bit FNV-1a over the UTF-16 code units of "chunkIndex:text". */
export function chunkTextHash(chunkIndex: number, text: string): number {
  // The prefix and the text are hashed one after the other: joining them first would copy every text read.
  const prefix = `${chunkIndex}:`;
  let hash = 0x811c9dc5;
  for (let i = 0; i < prefix.length; i++) {
    hash ^= prefix.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** The lanes of a generation's chunks (in chunk order); `title` is the BM25F title field of every chunk. */
export function lanesOf(chunks: readonly LaneChunk[], title: string | null, dimensions: number): GenerationLanes {
  // Each text is tokenized once, for its index terms and its vocabulary words; the title once for all chunks.
  const tokens = chunks.map((chunk) => tokenize(chunk.text));
  const titleTokens = tokenize(title ?? '');
  const bm25 = buildBm25Segment(
    chunks.map((chunk, row) => ({ id: row, text: chunk.text, title: title ?? undefined })),
    (text, titleText, row) => analyzeFieldsOfTokens(text, tokens[row], titleText, titleTokens, analysisModeOf(chunks[row].language)),
  );
  const vectors = new Float32Array(chunks.length * dimensions);
  chunks.forEach((chunk, row) => {
    if (chunk.vector.length === dimensions) vectors.set(chunk.vector, row * dimensions);
  });
  const counts = new Map<string, number>();
  for (const chunkTokens of tokens) for (const word of vocabularyWordsOfTokens(chunkTokens)) counts.set(word, (counts.get(word) ?? 0) + 1);
  const words = [...counts.keys()].sort();
  const labelRows: number[] = [];
  const labels: string[] = [];
  chunks.forEach((chunk, row) => {
    if (chunk.pageLabel !== null) {
      labelRows.push(row);
      labels.push(chunk.pageLabel);
    }
  });
  return {
    chunkCount: chunks.length,
    dimensions,
    bm25,
    codes: quantize(vectors),
    words,
    wordCounts: Uint32Array.from(words, (word) => counts.get(word)!),
    derived: derivedTermsOf(words),
    chunkIndexes: Int32Array.from(chunks, (chunk) => chunk.chunkIndex),
    pages: Int32Array.from(chunks, (chunk) => chunk.page ?? NO_PAGE),
    labelRows,
    labels,
    textHashes: Uint32Array.from(chunks, (chunk) => chunkTextHash(chunk.chunkIndex, chunk.text)),
  };
}
