// An immutable slice of a Client's serving index: chunks with consecutive-or-sorted ordinals, their BM25
// postings and their dense vectors. Segments are built once and merged by rebuilding, never mutated.

import { buildBm25Segment, mergeBm25Segments } from './bm25-segment.ts';
import type { Bm25Segment } from './bm25-segment.ts';
import type { ServedChunk } from './served-types.ts';
import { quantize, quantizationAvailable } from './quantized-scan.ts';
import { vocabularyFromTexts } from '../text/vocabulary.ts';
import type { Vocabulary } from '../text/vocabulary.ts';

export interface Segment {
  /** Chunks in ascending ordinal order. */
  readonly chunks: readonly ServedChunk[];
  /** Their ordinals, for tight loops. */
  readonly ordinals: Int32Array;
  readonly minOrdinal: number;
  readonly maxOrdinal: number;
  readonly bm25: Bm25Segment;
  /** Row-major unit vectors, one row of `dimensions` per chunk, in `chunks` order. */
  readonly vectors: Float32Array;
  readonly dimensions: number;
  /** int8 copy of `vectors` for the native first pass of the dense lane (large segments only). */
  readonly quantized: Int8Array | null;
}

/** Segments with fewer rows are scanned in JavaScript: the native call would not pay for itself. */
export const QUANTIZED_MIN_ROWS = 4096;

function quantizedCopy(vectors: Float32Array, rows: number): Int8Array | null {
  return rows >= QUANTIZED_MIN_ROWS && quantizationAvailable() ? quantize(vectors) : null;
}

function titleOf(chunk: ServedChunk): string | undefined {
  const metadata = chunk.version.canonicalMetadata;
  return metadata.extracted.title ?? undefined;
}

export function buildSegment(chunks: readonly ServedChunk[], dimensions: number): Segment {
  const sorted = [...chunks].sort((a, b) => a.ordinal - b.ordinal);
  const vectors = new Float32Array(sorted.length * dimensions);
  sorted.forEach((chunk, row) => {
    if (chunk.vector.length === dimensions) vectors.set(chunk.vector, row * dimensions);
  });
  return {
    chunks: sorted,
    ordinals: Int32Array.from(sorted, (chunk) => chunk.ordinal),
    minOrdinal: sorted.length ? sorted[0].ordinal : 0,
    maxOrdinal: sorted.length ? sorted[sorted.length - 1].ordinal : -1,
    bm25: buildBm25Segment(sorted.map((chunk) => ({ id: chunk.ordinal, text: chunk.text, title: titleOf(chunk) }))),
    vectors,
    dimensions,
    quantized: quantizedCopy(vectors, sorted.length),
  };
}

/** Merges adjacent segments into one, dropping chunks that are no longer live. */
export function mergeSegments(segments: readonly Segment[], isLive: (ordinal: number) => boolean): Segment {
  const dimensions = segments[0].dimensions;
  const chunks = segments.flatMap((segment) => segment.chunks.filter((chunk) => isLive(chunk.ordinal)));
  const vectors = new Float32Array(chunks.length * dimensions);
  let row = 0;
  for (const segment of segments) {
    segment.chunks.forEach((chunk, index) => {
      if (!isLive(chunk.ordinal)) return;
      vectors.set(segment.vectors.subarray(index * dimensions, (index + 1) * dimensions), row * dimensions);
      row++;
    });
  }
  return {
    chunks,
    ordinals: Int32Array.from(chunks, (chunk) => chunk.ordinal),
    minOrdinal: chunks.length ? chunks[0].ordinal : 0,
    maxOrdinal: chunks.length ? chunks[chunks.length - 1].ordinal : -1,
    bm25: mergeBm25Segments(segments.map((segment) => segment.bm25), isLive),
    vectors,
    dimensions,
    quantized: quantizedCopy(vectors, chunks.length),
  };
}

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

const vocabularies = new WeakMap<Segment, Vocabulary>();

/**
 * The fuzzy lane of a segment: surface words of its live-at-build chunks with chunk counts. Built on first
 * use and kept with the immutable segment, so a publication rebuilds only the small segments it adds.
 */
export function segmentVocabulary(segment: Segment): Vocabulary {
  let vocabulary = vocabularies.get(segment);
  if (!vocabulary) {
    vocabulary = vocabularyFromTexts(segment.chunks.map((chunk) => chunk.text));
    vocabularies.set(segment, vocabulary);
  }
  return vocabulary;
}
