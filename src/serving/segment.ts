// An immutable slice of a Client's serving index: the rows (chunks) of some generations with sorted ordinals,
// their BM25 postings, int8 dense codes, fuzzy-lane vocabulary and what filters read of each chunk, in typed
// arrays (plus, for large segments, an HNSW graph attached once built). It is assembled from generations'
// persisted lane data by merging, never by analyzing text; the index part is plain data built by pure
// functions (segment-assembler.ts), so it can be built or merged off the event loop (segment-thread.ts).

import type { SegmentIndex } from '../codec/segment-index.ts';
import type { ServedChunk, ServedVersion } from './served-types.ts';
import { chunkIdOf } from './served-types.ts';
import type { ServingGeneration } from '../domain/generation.ts';
import { verifyEvidence, withLanesProof } from '../codec/evidence.ts';
import type { Evidence, LanesProof } from '../codec/evidence.ts';
import { decodeSegmentFile } from '../codec/segment-file.ts';
import { NO_PAGE } from '../codec/generation-lanes.ts';
import { ANN_MIN_ROWS, annAvailable, buildAnnGraph } from './graphs/ann-index.ts';
import type { AnnGraph } from './graphs/ann-index.ts';
import { addPart, indexParts, mergeIndexes, mergeInputOf, SegmentAssembler } from './segment-assembler.ts';
import type { SegmentPart } from './segment-assembler.ts';

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
   * The approximate dense index of a large segment, attached once built in the background (graphs/ann-index.ts).
   * It only changes which rows the dense lane scores first, never eligibility.
   */
  readonly ann: { graph: AnnGraph | null };
  /**
   * The first ordinal of each generation with rows, ascending, and that generation's index: a generation's rows
   * hold consecutive ordinals, so one search here finds the version of an ordinal.
   */
  readonly rangeStarts: Int32Array;
  readonly rangeGenerations: Int32Array;
  /**
   * A jump table into the ranges: bucket b (ordinals minOrdinal + (b << rangeBucketShift) onwards) starts its
   * search at range rangeBuckets[b]. Buckets are about as wide as a generation, so a lookup scans one or two.
   */
  readonly rangeBuckets: Int32Array;
  readonly rangeBucketShift: number;
}

/** Segments with fewer rows are scanned in JavaScript: the native call would not pay for itself. */
export const QUANTIZED_MIN_ROWS = 4096;

/** A segment from its index and the versions of its generations (in the index's generation order). */
export function assembleSegment(index: SegmentIndex, versions: readonly ServedVersion[], dimensions: number): Segment {
  if (versions.length + 1 !== index.generationRows.length) throw new Error('a segment needs one version per generation');
  const ordinals = index.bm25.docIds;
  const rangeStarts: number[] = [];
  const rangeGenerations: number[] = [];
  for (let g = 0; g + 1 < index.generationRows.length; g++) {
    if (index.generationRows[g + 1] === index.generationRows[g]) continue;
    rangeStarts.push(ordinals[index.generationRows[g]]);
    rangeGenerations.push(g);
  }
  const minOrdinal = ordinals.length ? ordinals[0] : 0;
  const maxOrdinal = ordinals.length ? ordinals[ordinals.length - 1] : -1;
  const span = maxOrdinal - minOrdinal + 1;
  const rangeBucketShift = rangeStarts.length > 0 ? Math.max(0, Math.floor(Math.log2(span / rangeStarts.length))) : 0;
  const rangeBuckets = new Int32Array(span > 0 ? ((span - 1) >> rangeBucketShift) + 1 : 0);
  for (let bucket = 0, range = 0; bucket < rangeBuckets.length; bucket++) {
    const first = minOrdinal + bucket * 2 ** rangeBucketShift;
    while (range + 1 < rangeStarts.length && rangeStarts[range + 1] <= first) range++;
    rangeBuckets[bucket] = range;
  }
  return {
    ...index,
    versions,
    ordinals,
    rangeStarts: Int32Array.from(rangeStarts),
    rangeGenerations: Int32Array.from(rangeGenerations),
    rangeBuckets,
    rangeBucketShift,
    rows: ordinals.length,
    minOrdinal,
    maxOrdinal,
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

/** A segment built from parts added in batches (a load streams generations from the store through one). */
export interface BuildSession {
  /** Adds parts; their lane data may be moved to another thread (the caller must not read it afterwards). */
  add(parts: readonly SegmentPart[]): Promise<void>;
  /** The segment of every part added, with their versions in the same order. */
  finish(versions: readonly ServedVersion[]): Promise<Segment>;
  /** Ends the session without a segment (nothing was added, or the load failed). */
  abandon(): Promise<void>;
}

/** Builds and merges segments and verifies evidence; an implementation may do the work on another thread. */
export interface SegmentBuilder {
  /** `expectedParts`: how many parts the session will be given in all, when known (a load knows). */
  begin(dimensions: number, expectedParts?: number): BuildSession;
  /** The segment of generations entering at their first ordinals, with their versions (same order). */
  build(parts: readonly SegmentPart[], versions: readonly ServedVersion[], dimensions: number): Promise<Segment>;
  /** Merges adjacent segments into one, dropping generations not live in `live`. */
  merge(segments: readonly Segment[], live: Uint8Array): Promise<Segment>;
  /**
   * Verifies each generation's publication evidence (codec/evidence.ts), in order; a generation with an entry in
   * `proofs` is proven by it instead of by its lane data (a segment read back from the segment cache).
   */
  verify(generations: readonly ServingGeneration[], proofs?: ReadonlyMap<number, LanesProof>): Promise<Evidence[]>;
  /** The index of a segment file (codec/segment-file.ts), its rows numbered from `firstOrdinal`; rejects a damaged file. */
  restore(file: Uint8Array, firstOrdinal: number): Promise<SegmentIndex>;
  /**
   * Builds the HNSW graph of a large segment's codes, or null where none can be built (then scans stay exact);
   * `clientId`: the Client serving it, recorded with the segment's generations where the graph is kept in a file.
   */
  buildAnn(segment: Segment, clientId?: string): Promise<AnnGraph | null>;
  /**
   * Removes the graph files kept for the Client that cover a generation `drop` picks (a hard delete's); absent for
   * a builder that keeps graphs in memory only.
   */
  forgetGraphs?(clientId: string, drop: (generation: number) => boolean): number;
  /** What a builder's own thread holds now, in bytes; absent for one that builds on the calling thread. */
  threadBytes?(): Promise<number>;
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
  return assembleSegment(mergeIndexes(segments.map(mergeInputOf), live, dimensions), liveVersionsOf(segments, live), dimensions);
}

/** Builds on the calling thread: for tests, tools and small publications. */
export const inlineSegmentBuilder: SegmentBuilder = {
  begin: (dimensions, expectedParts) => {
    const assembler = new SegmentAssembler(dimensions, expectedParts);
    return {
      add: async (parts) => {
        for (const part of parts) addPart(assembler, part);
      },
      finish: async (versions) => assembleSegment(assembler.finish(), versions, dimensions),
      abandon: async () => {},
    };
  },
  build: async (parts, versions, dimensions) => buildSegment(parts, versions, dimensions),
  merge: async (segments, live) => mergeSegments(segments, live),
  verify: async (generations, proofs) => generations.map((generation) => {
    const proof = proofs?.get(generation.generation);
    return verifyEvidence(proof ? withLanesProof(generation, proof) : generation);
  }),
  restore: async (file, firstOrdinal) => decodeSegmentFile(file, firstOrdinal).index,
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

/** The version of the chunk in row `row` of the segment. */
export function versionAtRow(segment: Segment, row: number): ServedVersion {
  return segment.versions[upperBound(segment.generationRows, row) - 1];
}

/**
 * The index (in `versions` and `generationRows`) of the generation holding this ordinal in the segment, or -1
 * when none of its generations does.
 */
export function generationOfOrdinalIn(segment: Segment, ordinal: number): number {
  const offset = ordinal - segment.minOrdinal;
  if (offset < 0 || ordinal > segment.maxOrdinal) return -1;
  const starts = segment.rangeStarts;
  let range = segment.rangeBuckets[offset >> segment.rangeBucketShift];
  while (range + 1 < starts.length && starts[range + 1] <= ordinal) range++;
  const generation = segment.rangeGenerations[range];
  const rows = segment.generationRows[generation + 1] - segment.generationRows[generation];
  return ordinal - starts[range] < rows ? generation : -1;
}

/** The chunk in row `row` of the segment. */
export function chunkAtRow(segment: Segment, row: number): ServedChunk {
  const version = versionAtRow(segment, row);
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
