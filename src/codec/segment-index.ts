// The shape of a segment's index as plain data: what an api process builds by merging lane data, what its
// segment thread hands back, and what a segment file (segment-file.ts) stores and reads back whole. It is here,
// beside the file format, so that the format and the segments built from it (serving/segment.ts) both read one
// definition instead of each other.

import type { Bm25Segment } from './bm25-segment.ts';
import type { Vocabulary } from '../text/vocabulary.ts';

/** The searchable structures of a segment: plain data only (structured-cloneable). */
export interface SegmentIndex {
  /** Postings whose doc ids are the rows' ordinals, in row order. */
  readonly bm25: Bm25Segment;
  /**
   * Row-major int8 codes of the unit vectors (quantization.ts), one row of `dimensions` per chunk; owns its
   * buffer from offset 0 (the native scan needs it). Full precision stays in the store.
   */
  readonly codes: Int8Array;
  /** The fuzzy lane: surface words of the segment's live chunks with chunk counts. */
  readonly vocabulary: Vocabulary;
  /** Generation g holds rows generationRows[g] .. generationRows[g + 1] - 1 (one entry per generation, plus one). */
  readonly generationRows: Int32Array;
  /**
   * Generation g's fuzzy words: vocabulary ids wordIds[wordStarts[g] .. wordStarts[g + 1]) with their chunk
   * counts. Only a merge reads them (to count the words of the generations it keeps), so they are held as
   * narrow as they fit: 16-bit ids while the vocabulary has at most 65,536 words, counts in the fewest bytes
   * that hold the largest (a count is at most its generation's chunks).
   */
  readonly wordStarts: Uint32Array;
  readonly wordIds: Uint16Array | Uint32Array;
  readonly wordCounts: Uint8Array | Uint16Array | Uint32Array;
  /** Per row: the chunk's index in its document, its page (NO_PAGE for none) and the hash of its stored text. */
  readonly chunkIndexes: Int32Array;
  readonly pages: Int32Array;
  readonly textHashes: Uint32Array;
  /** Rows with a page label (ascending) and their labels. */
  readonly labelRows: Int32Array;
  readonly labels: readonly string[];
}
