// An immutable slice of a Client's serving index: the rows (chunks) of some generations with sorted ordinals,
// their BM25 postings, int8 dense codes, fuzzy-lane vocabulary and what filters read of each chunk, in typed
// arrays (plus, for large segments, an HNSW graph attached once built). It is assembled from generations'
// persisted lane data by merging, never by analyzing text; the index part is plain data built by pure
// functions, so it can be built or merged off the event loop (segment-thread.ts).

import { mergeBm25Segments } from './bm25-segment.ts';
import type { Bm25Postings, Bm25Segment } from './bm25-segment.ts';
import type { ServedChunk, ServedVersion } from './served-types.ts';
import { chunkIdOf } from './served-types.ts';
import type { ServingGeneration } from '../domain/generation.ts';
import { verifyEvidence } from './evidence.ts';
import type { Evidence } from './evidence.ts';
import { decodeLanes, lanesOf, NO_PAGE } from './generation-lanes.ts';
import type { GenerationLanes, LaneChunk } from './generation-lanes.ts';
import { ANN_MIN_ROWS, annAvailable, buildAnnGraph } from './ann-index.ts';
import type { AnnGraph } from './ann-index.ts';
import { buildVocabulary } from '../text/vocabulary.ts';
import type { Vocabulary } from '../text/vocabulary.ts';

/** The searchable structures of a segment: plain data only (structured-cloneable). */
export interface SegmentIndex {
  /** Postings whose doc ids are the rows' ordinals, in row order. */
  readonly bm25: Bm25Segment;
  /**
   * Row-major int8 codes of the unit vectors (quantized-scan.ts), one row of `dimensions` per chunk; owns its
   * buffer from offset 0 (the native scan needs it). Full precision stays in the store.
   */
  readonly codes: Int8Array;
  /** The fuzzy lane: surface words of the segment's live chunks with chunk counts. */
  readonly vocabulary: Vocabulary;
  /** Generation g holds rows generationRows[g] .. generationRows[g + 1] - 1 (one entry per generation, plus one). */
  readonly generationRows: Int32Array;
  /** Generation g's fuzzy words: vocabulary ids wordIds[wordStarts[g] .. wordStarts[g + 1]) with their chunk counts. */
  readonly wordStarts: Uint32Array;
  readonly wordIds: Uint32Array;
  readonly wordCounts: Uint16Array;
  /** Per row: the chunk's index in its document, its page (NO_PAGE for none) and the hash of its stored text. */
  readonly chunkIndexes: Int32Array;
  readonly pages: Int32Array;
  readonly textHashes: Uint32Array;
  /** Rows with a page label (ascending) and their labels. */
  readonly labelRows: Int32Array;
  readonly labels: readonly string[];
}

export interface Segment extends SegmentIndex {
  /** The version of each generation of the segment, in generationRows order. */
  readonly versions: readonly ServedVersion[];
  /** Row ordinals, ascending (the postings' doc ids). */
  readonly ordinals: Int32Array;
  readonly rows: number;
  readonly minOrdinal: number;
  readonly maxOrdinal: number;
  readonly dimensions: number;
  /**
   * The approximate dense index of a large segment, attached once built in the background (ann-index.ts).
   * It only changes which rows the dense lane scores first, never eligibility.
   */
  readonly ann: { graph: AnnGraph | null };
}

/** Segments with fewer rows are scanned in JavaScript: the native call would not pay for itself. */
export const QUANTIZED_MIN_ROWS = 4096;

/** What a generation contributes to a segment: its persisted lanes, or its chunks (data written before lanes were persisted). */
export type GenerationSource = { lanes: Uint8Array } | { chunks: LaneChunk[]; title: string | null };

/** A generation entering a segment at its first ordinal. */
export interface SegmentPart {
  firstOrdinal: number;
  source: GenerationSource;
}

/** The segment input of a served generation: its lane data when stored, else its chunks. */
export function sourceOf(generation: ServingGeneration): GenerationSource {
  if (generation.lanes) return { lanes: generation.lanes };
  return { chunks: generation.chunks ?? [], title: generation.canonicalMetadata.extracted.title ?? null };
}

/** Anything merged into a segment: one generation's lanes, or an existing segment's index. */
interface MergeSource {
  bm25: Bm25Postings;
  codes: Int8Array;
  codeDimensions: number;
  generationRows: Int32Array;
  words: readonly string[];
  wordStarts: Uint32Array;
  wordIds: Uint32Array;
  wordCounts: ArrayLike<number>;
  chunkIndexes: Int32Array;
  pages: Int32Array;
  textHashes: Uint32Array;
  labelRows: ArrayLike<number>;
  labels: readonly string[];
}

function lanesOfSource(source: GenerationSource, dimensions: number): GenerationLanes {
  return 'lanes' in source ? decodeLanes(source.lanes) : lanesOf(source.chunks, source.title, dimensions);
}

function grow<T extends Uint32Array | Uint16Array>(array: T, capacity: number): T {
  const bigger = new (array.constructor as new (length: number) => T)(capacity);
  bigger.set(array);
  return bigger;
}

function mergeSourceOfLanes(lanes: GenerationLanes, firstOrdinal: number): MergeSource {
  const docIds = new Int32Array(lanes.chunkCount);
  for (let row = 0; row < docIds.length; row++) docIds[row] = firstOrdinal + row;
  return {
    bm25: { ...lanes.bm25, docIds },
    codes: lanes.codes,
    codeDimensions: lanes.dimensions,
    generationRows: Int32Array.of(0, lanes.chunkCount),
    words: lanes.words,
    wordStarts: Uint32Array.of(0, lanes.words.length),
    wordIds: identityIds(lanes.words.length),
    wordCounts: lanes.wordCounts,
    chunkIndexes: lanes.chunkIndexes,
    pages: lanes.pages,
    textHashes: lanes.textHashes,
    labelRows: lanes.labelRows,
    labels: lanes.labels,
  };
}

function identityIds(count: number): Uint32Array {
  const ids = new Uint32Array(count);
  for (let id = 0; id < count; id++) ids[id] = id;
  return ids;
}

function mergeSourceOfIndex(index: SegmentIndex, dimensions: number): MergeSource {
  return { ...index, codeDimensions: dimensions, words: index.vocabulary.words };
}

/**
 * Merges sources into one index holding the rows whose ordinal is live, in source order. Liveness is per
 * generation (a generation's chunks enter and leave together), so a generation is kept or dropped whole.
 */
function mergeSources(sources: readonly MergeSource[], isLive: (ordinal: number) => boolean, dimensions: number): SegmentIndex {
  const bm25 = mergeBm25Segments(sources.map((source) => source.bm25), isLive);
  const rows = bm25.docCount;
  const codes = new Int8Array(rows * dimensions);
  const chunkIndexes = new Int32Array(rows);
  const pages = new Int32Array(rows);
  const textHashes = new Uint32Array(rows);
  const labelRows: number[] = [];
  const labels: string[] = [];
  const generationRows: number[] = [0];
  // Words get a provisional id on first sight (one map lookup per word of a generation), counted in place.
  const provisional = new Map<string, number>();
  const provisionalWords: string[] = [];
  let provisionalCounts = new Uint32Array(1024);
  const groupWordStarts: number[] = [0];
  let groupWordIds = new Uint32Array(1024);
  let groupWordCounts = new Uint16Array(1024);
  let wordAt = 0;
  let row = 0;
  for (const source of sources) {
    let label = 0;
    for (let g = 0; g + 1 < source.generationRows.length; g++) {
      const from = source.generationRows[g];
      const to = source.generationRows[g + 1];
      if (to === from || !isLive(source.bm25.docIds[from])) continue;
      for (let r = from; r < to; r++, row++) {
        if (source.codeDimensions === dimensions) codes.set(source.codes.subarray(r * dimensions, (r + 1) * dimensions), row * dimensions);
        chunkIndexes[row] = source.chunkIndexes[r];
        pages[row] = source.pages[r];
        textHashes[row] = source.textHashes[r];
        while (label < source.labelRows.length && source.labelRows[label] < r) label++;
        if (label < source.labelRows.length && source.labelRows[label] === r) {
          labelRows.push(row);
          labels.push(source.labels[label]);
        }
      }
      generationRows.push(row);
      const wordFrom = source.wordStarts[g];
      const wordTo = source.wordStarts[g + 1];
      if (wordAt + (wordTo - wordFrom) > groupWordIds.length) {
        const capacity = Math.max(groupWordIds.length * 2, wordAt + (wordTo - wordFrom));
        groupWordIds = grow(groupWordIds, capacity);
        groupWordCounts = grow(groupWordCounts, capacity);
      }
      for (let w = wordFrom; w < wordTo; w++, wordAt++) {
        const word = source.words[source.wordIds[w]];
        let id = provisional.get(word);
        if (id === undefined) {
          id = provisionalWords.push(word) - 1;
          provisional.set(word, id);
          if (id >= provisionalCounts.length) provisionalCounts = grow(provisionalCounts, provisionalCounts.length * 2);
        }
        provisionalCounts[id] += source.wordCounts[w];
        groupWordIds[wordAt] = id;
        groupWordCounts[wordAt] = source.wordCounts[w];
      }
      groupWordStarts.push(wordAt);
    }
  }
  if (row !== rows) throw new Error(`segment merge kept ${row} rows but ${rows} postings docs`);
  const vocabulary = buildVocabulary(provisionalWords.map((word, id): [string, number] => [word, provisionalCounts[id]]));
  const finalId = Uint32Array.from(provisionalWords, (word) => vocabulary.ids.get(word)!);
  const wordStarts = Uint32Array.from(groupWordStarts);
  const wordIds = new Uint32Array(wordAt);
  for (let w = 0; w < wordAt; w++) wordIds[w] = finalId[groupWordIds[w]];
  const wordCounts = groupWordCounts.slice(0, wordAt);
  return {
    bm25,
    codes,
    vocabulary,
    generationRows: Int32Array.from(generationRows),
    wordStarts,
    wordIds,
    wordCounts,
    chunkIndexes,
    pages,
    textHashes,
    labelRows: Int32Array.from(labelRows),
    labels,
  };
}

/** The index of generations entering at their first ordinals (ascending), from their lanes. */
export function indexParts(parts: readonly SegmentPart[], dimensions: number): SegmentIndex {
  const sources = parts.map((part) => mergeSourceOfLanes(lanesOfSource(part.source, dimensions), part.firstOrdinal));
  return mergeSources(sources, () => true, dimensions);
}

/** Merges adjacent segment indexes, keeping the generations live in `live` (by ordinal), in order. */
export function mergeIndexes(parts: readonly SegmentIndex[], live: Uint8Array, dimensions: number): SegmentIndex {
  return mergeSources(parts.map((part) => mergeSourceOfIndex(part, dimensions)), (ordinal) => live[ordinal] === 1, dimensions);
}

/** A segment from its index and the versions of its generations (in the index's generation order). */
export function assembleSegment(index: SegmentIndex, versions: readonly ServedVersion[], dimensions: number): Segment {
  if (versions.length + 1 !== index.generationRows.length) throw new Error('a segment needs one version per generation');
  const ordinals = index.bm25.docIds;
  return {
    ...index,
    versions,
    ordinals,
    rows: ordinals.length,
    minOrdinal: ordinals.length ? ordinals[0] : 0,
    maxOrdinal: ordinals.length ? ordinals[ordinals.length - 1] : -1,
    dimensions,
    ann: { graph: null },
  };
}

/** The versions of the generations of adjacent segments that are still live, in order (the merge's version list). */
export function liveVersionsOf(segments: readonly Segment[], live: Uint8Array): ServedVersion[] {
  return segments.flatMap((segment) => segment.versions.filter((version) => version.chunkCount > 0 && live[version.firstOrdinal] === 1));
}

/** True while some generation of the segment is live. */
export function hasLiveRows(segment: Segment, live: Uint8Array): boolean {
  return segment.versions.some((version) => version.chunkCount > 0 && live[version.firstOrdinal] === 1);
}

/** Builds and merges segments and verifies evidence; an implementation may do the work on another thread. */
export interface SegmentBuilder {
  /** The segment of generations entering at their first ordinals, with their versions (same order). */
  build(parts: readonly SegmentPart[], versions: readonly ServedVersion[], dimensions: number): Promise<Segment>;
  /** Merges adjacent segments into one, dropping generations not live in `live`. */
  merge(segments: readonly Segment[], live: Uint8Array): Promise<Segment>;
  /** Verifies each generation's publication evidence (evidence.ts), in order. */
  verify(generations: readonly ServingGeneration[]): Promise<Evidence[]>;
  /** Builds the HNSW graph of a large segment's codes, or null where none can be built (then scans stay exact). */
  buildAnn(segment: Segment): Promise<AnnGraph | null>;
}

/** True for a segment large enough to get an HNSW graph, where the native index can load. */
export function wantsAnn(segment: Segment): boolean {
  return segment.rows >= ANN_MIN_ROWS && annAvailable();
}

export function buildSegment(parts: readonly SegmentPart[], versions: readonly ServedVersion[], dimensions: number): Segment {
  return assembleSegment(indexParts(parts, dimensions), versions, dimensions);
}

export function mergeSegments(segments: readonly Segment[], live: Uint8Array): Segment {
  const dimensions = segments[0].dimensions;
  return assembleSegment(mergeIndexes(segments, live, dimensions), liveVersionsOf(segments, live), dimensions);
}

/** Builds on the calling thread: for tests, tools and small publications. */
export const inlineSegmentBuilder: SegmentBuilder = {
  build: async (parts, versions, dimensions) => buildSegment(parts, versions, dimensions),
  merge: async (segments, live) => mergeSegments(segments, live),
  verify: async (generations) => generations.map(verifyEvidence),
  buildAnn: async (segment) => (wantsAnn(segment) ? buildAnnGraph(segment.codes, segment.dimensions) : null),
};

function upperBound(values: Int32Array, value: number): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (values[middle] <= value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The chunk in row `row` of the segment. */
export function chunkAtRow(segment: Segment, row: number): ServedChunk {
  const version = segment.versions[upperBound(segment.generationRows, row) - 1];
  const labelAt = upperBound(segment.labelRows, row) - 1;
  const chunkIndex = segment.chunkIndexes[row];
  return {
    ordinal: segment.ordinals[row],
    chunkId: chunkIdOf(version.generation, chunkIndex),
    chunkIndex,
    page: segment.pages[row] === NO_PAGE ? null : segment.pages[row],
    pageLabel: labelAt >= 0 && segment.labelRows[labelAt] === row ? segment.labels[labelAt] : null,
    version,
    textHash: segment.textHashes[row],
  };
}

/** The row holding this ordinal in the segment, or -1. */
export function rowOfOrdinal(segment: Segment, ordinal: number): number {
  const row = upperBound(segment.ordinals, ordinal) - 1;
  return row >= 0 && segment.ordinals[row] === ordinal ? row : -1;
}

/** The chunk with this ordinal in the segment, or undefined. */
export function chunkInSegment(segment: Segment, ordinal: number): ServedChunk | undefined {
  const row = rowOfOrdinal(segment, ordinal);
  return row < 0 ? undefined : chunkAtRow(segment, row);
}
