// An immutable slice of a Client's serving index: chunks with sorted ordinals, their BM25 postings, int8
// dense codes and fuzzy-lane vocabulary (plus, for large segments, an HNSW graph attached once built). The index part is built from plain data by pure functions, so that it
// can be built or merged off the event loop (segment-thread.ts); segments are never mutated once returned.

import { buildBm25Segment, mergeBm25Segments } from './bm25-segment.ts';
import type { Bm25Segment } from './bm25-segment.ts';
import type { ServedChunk } from './served-types.ts';
import type { LoadedGeneration } from '../domain/generation.ts';
import { verifyEvidence } from './evidence.ts';
import type { Evidence } from './evidence.ts';
import { quantize } from './quantized-scan.ts';
import { ANN_MIN_ROWS, annAvailable, buildAnnGraph } from './ann-index.ts';
import type { AnnGraph } from './ann-index.ts';
import { buildVocabulary, vocabularyEntries, vocabularyFromTexts, vocabularyWordsOf } from '../text/vocabulary.ts';
import type { Vocabulary } from '../text/vocabulary.ts';

/** The searchable structures of a segment: plain data only (structured-cloneable). */
export interface SegmentIndex {
  readonly bm25: Bm25Segment;
  /**
   * Row-major int8 codes of the unit vectors (quantized-scan.ts), one row of `dimensions` per chunk, in
   * ordinal order; owns its buffer from offset 0 (the native scan needs it). Full precision stays in the store.
   */
  readonly codes: Int8Array;
  /** The fuzzy lane: surface words of the segment's chunks with chunk counts. */
  readonly vocabulary: Vocabulary;
}

export interface Segment extends SegmentIndex {
  /** Chunks in ascending ordinal order. */
  readonly chunks: readonly ServedChunk[];
  /** Their ordinals, for tight loops. */
  readonly ordinals: Int32Array;
  readonly minOrdinal: number;
  readonly maxOrdinal: number;
  readonly dimensions: number;
  /**
   * The approximate dense index of a large segment, attached once built in the background (ann-index.ts).
   * It only changes which rows the dense lane scores first, never eligibility.
   */
  readonly ann: { graph: AnnGraph | null };
}

/** What indexing needs of one chunk. */
export interface IndexDoc {
  ordinal: number;
  text: string;
  title: string | undefined;
}

/** Segments with fewer rows are scanned in JavaScript: the native call would not pay for itself. */
export const QUANTIZED_MIN_ROWS = 4096;

/** Builds the index of docs sorted by ordinal, with their vectors packed row by row. */
export function indexDocs(docs: readonly IndexDoc[], vectors: Float32Array): SegmentIndex {
  return {
    bm25: buildBm25Segment(docs.map((doc) => ({ id: doc.ordinal, text: doc.text, title: doc.title }))),
    codes: quantize(vectors),
    vocabulary: vocabularyFromTexts(docs.map((doc) => doc.text)),
  };
}

/**
 * The vocabulary of the live chunks of merged parts: the parts' word counts less the words of the chunks
 * that died since (`deadTexts`), so a purged document's words leave the fuzzy lane with it.
 */
function liveVocabulary(parts: readonly SegmentIndex[], deadTexts: readonly string[]): Vocabulary {
  const counts = new Map<string, number>();
  for (const part of parts) for (const [word, count] of vocabularyEntries(part.vocabulary)) counts.set(word, (counts.get(word) ?? 0) + count);
  for (const text of deadTexts) {
    for (const word of vocabularyWordsOf(text)) {
      const left = (counts.get(word) ?? 0) - 1;
      if (left > 0) counts.set(word, left);
      else counts.delete(word);
    }
  }
  return buildVocabulary(counts);
}

/** Merges adjacent segment indexes, keeping the docs live in `live` (by ordinal), in order. */
export function mergeIndexes(parts: readonly SegmentIndex[], live: Uint8Array, dimensions: number, deadTexts: readonly string[]): SegmentIndex {
  const isLive = (ordinal: number) => live[ordinal] === 1;
  const bm25 = mergeBm25Segments(parts.map((part) => part.bm25), isLive);
  const codes = new Int8Array(bm25.docCount * dimensions);
  let row = 0;
  for (const part of parts) {
    for (let d = 0; d < part.bm25.docCount; d++) {
      if (!isLive(part.bm25.docIds[d])) continue;
      codes.set(part.codes.subarray(d * dimensions, (d + 1) * dimensions), row * dimensions);
      row++;
    }
  }
  return { bm25, codes, vocabulary: liveVocabulary(parts, deadTexts) };
}

function titleOf(chunk: ServedChunk): string | undefined {
  return chunk.version.canonicalMetadata.extracted.title ?? undefined;
}

/**
 * The plain indexing input of chunks and their vectors (same order): docs in ordinal order and the vectors
 * packed row by row (a vector of another model is left as zeros: it never meets a query of this one).
 */
export function indexInputOf(chunks: readonly ServedChunk[], chunkVectors: readonly Float32Array[], dimensions: number): { sorted: ServedChunk[]; docs: IndexDoc[]; vectors: Float32Array } {
  const order = chunks.map((_, index) => index).sort((a, b) => chunks[a].ordinal - chunks[b].ordinal);
  const sorted = order.map((index) => chunks[index]);
  const vectors = new Float32Array(sorted.length * dimensions);
  order.forEach((index, row) => {
    if (chunkVectors[index].length === dimensions) vectors.set(chunkVectors[index], row * dimensions);
  });
  return { sorted, docs: sorted.map((chunk) => ({ ordinal: chunk.ordinal, text: chunk.text, title: titleOf(chunk) })), vectors };
}

/** A segment from chunks sorted by ordinal and the index built from them. */
export function assembleSegment(sorted: readonly ServedChunk[], index: SegmentIndex, dimensions: number): Segment {
  return {
    ...index,
    chunks: sorted,
    ordinals: Int32Array.from(sorted, (chunk) => chunk.ordinal),
    minOrdinal: sorted.length ? sorted[0].ordinal : 0,
    maxOrdinal: sorted.length ? sorted[sorted.length - 1].ordinal : -1,
    dimensions,
    ann: { graph: null },
  };
}

/** The chunks of adjacent segments that are still live, in ordinal order (the merge's chunk list). */
export function liveChunksOf(segments: readonly Segment[], live: Uint8Array): ServedChunk[] {
  return segments.flatMap((segment) => segment.chunks.filter((chunk) => live[chunk.ordinal] === 1));
}

/** The texts of the chunks of segments that died since they were indexed. */
export function deadTextsOf(segments: readonly Segment[], live: Uint8Array): string[] {
  return segments.flatMap((segment) => segment.chunks.filter((chunk) => live[chunk.ordinal] !== 1).map((chunk) => chunk.text));
}

/** Builds and merges segments and verifies evidence; an implementation may do the work on another thread. */
export interface SegmentBuilder {
  build(chunks: readonly ServedChunk[], vectors: readonly Float32Array[], dimensions: number): Promise<Segment>;
  /** Merges adjacent segments into one, dropping chunks not live in `live`. */
  merge(segments: readonly Segment[], live: Uint8Array): Promise<Segment>;
  /** Verifies each generation's publication evidence (evidence.ts), in order. */
  verify(generations: readonly LoadedGeneration[]): Promise<Evidence[]>;
  /** Builds the HNSW graph of a large segment's codes, or null where none can be built (then scans stay exact). */
  buildAnn(segment: Segment): Promise<AnnGraph | null>;
}

/** True for a segment large enough to get an HNSW graph, where the native index can load. */
export function wantsAnn(segment: Segment): boolean {
  return segment.chunks.length >= ANN_MIN_ROWS && annAvailable();
}

export function buildSegment(chunks: readonly ServedChunk[], chunkVectors: readonly Float32Array[], dimensions: number): Segment {
  const { sorted, docs, vectors } = indexInputOf(chunks, chunkVectors, dimensions);
  return assembleSegment(sorted, indexDocs(docs, vectors), dimensions);
}

export function mergeSegments(segments: readonly Segment[], live: Uint8Array): Segment {
  const dimensions = segments[0].dimensions;
  return assembleSegment(liveChunksOf(segments, live), mergeIndexes(segments, live, dimensions, deadTextsOf(segments, live)), dimensions);
}

/** Builds on the calling thread: for tests, tools and small publications. */
export const inlineSegmentBuilder: SegmentBuilder = {
  build: async (chunks, vectors, dimensions) => buildSegment(chunks, vectors, dimensions),
  merge: async (segments, live) => mergeSegments(segments, live),
  verify: async (generations) => generations.map(verifyEvidence),
  buildAnn: async (segment) => (wantsAnn(segment) ? buildAnnGraph(segment.codes, segment.dimensions) : null),
};

/** The chunk with this ordinal in the segment, or undefined. */
export function chunkInSegment(segment: Segment, ordinal: number): ServedChunk | undefined {
  const chunks = segment.chunks;
  let low = 0;
  let high = chunks.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const value = chunks[middle].ordinal;
    if (value === ordinal) return chunks[middle];
    if (value < ordinal) low = middle + 1;
    else high = middle - 1;
  }
  return undefined;
}
