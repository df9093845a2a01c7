// An immutable slice of a Client's serving index: the rows (chunks) of some generations with sorted ordinals,
// their BM25 postings, int8 dense codes, fuzzy-lane vocabulary and what filters read of each chunk, in typed
// arrays (plus, for large segments, an HNSW graph attached once built). It is assembled from generations'
// persisted lane data by merging, never by analyzing text; the index part is plain data built by pure
// functions, so it can be built or merged off the event loop (segment-thread.ts).

import { Bm25Merger, grow } from '../codec/bm25-segment.ts';
import type { Bm25Postings } from '../codec/bm25-segment.ts';
import type { SegmentIndex } from '../codec/segment-index.ts';
import type { ServedChunk, ServedVersion } from './served-types.ts';
import { chunkIdOf } from './served-types.ts';
import type { ServingGeneration } from '../domain/generation.ts';
import { verifyEvidence, withLanesProof } from '../codec/evidence.ts';
import type { Evidence, LanesProof } from '../codec/evidence.ts';
import { decodeSegmentFile } from '../codec/segment-file.ts';
import { decodeLanes, lanesOf, NO_PAGE } from '../codec/generation-lanes.ts';
import type { GenerationLanes, LaneChunk } from '../codec/generation-lanes.ts';
import { ANN_MIN_ROWS, annAvailable, buildAnnGraph } from './ann-index.ts';
import type { AnnGraph } from './ann-index.ts';
import { derivedTablesOf, vocabularyOf } from '../text/vocabulary.ts';
import { listSize, StringInterner, tableStrings } from '../text/string-table.ts';
import type { StringList } from '../text/string-table.ts';


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
  words: StringList;
  wordStarts: Uint32Array;
  wordIds: ArrayLike<number>;
  wordCounts: ArrayLike<number>;
  /** The query-side terms and Malay roots of all its words, when it carries them (lane data of format 1 does not). */
  derived: { terms: StringList; malayRoots: StringList } | null;
  chunkIndexes: Int32Array;
  pages: Int32Array;
  textHashes: Uint32Array;
  labelRows: ArrayLike<number>;
  labels: readonly string[];
}

function lanesOfSource(source: GenerationSource, dimensions: number): GenerationLanes {
  return 'lanes' in source ? decodeLanes(source.lanes) : lanesOf(source.chunks, source.title, dimensions);
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
    wordStarts: Uint32Array.of(0, listSize(lanes.words)),
    wordIds: identityIds(listSize(lanes.words)),
    wordCounts: lanes.wordCounts,
    derived: lanes.derived,
    chunkIndexes: lanes.chunkIndexes,
    pages: lanes.pages,
    textHashes: lanes.textHashes,
    labelRows: lanes.labelRows,
    labels: lanes.labels,
  };
}

/** A copy of `values` in the narrowest unsigned array that holds `max`. */
function narrowest(values: Uint32Array, max: number): Uint8Array | Uint16Array | Uint32Array {
  if (max <= 0xff) return Uint8Array.from(values);
  return max <= 0xffff ? Uint16Array.from(values) : values.slice();
}

function identityIds(count: number): Uint32Array {
  const ids = new Uint32Array(count);
  for (let id = 0; id < count; id++) ids[id] = id;
  return ids;
}

/** What a merge reads of a segment index: its arrays, terms, words and their derived terms, not its lookup maps. */
export type MergeInput = Omit<SegmentIndex, 'bm25' | 'vocabulary'> & { bm25: Bm25Postings; words: StringList; derived: { terms: StringList; malayRoots: StringList } };

function mergeSourceOfIndex(index: MergeInput, dimensions: number): MergeSource {
  return { ...index, codeDimensions: dimensions };
}

/**
 * What a merge reads of a segment: its arrays, terms, words and their derived terms and roots, without the
 * vocabulary's counts, length order and bigrams, which the merge rebuilds.
 */
export function mergeInputOf(index: SegmentIndex): MergeInput {
  const { bm25, codes, vocabulary, generationRows, wordStarts, wordIds, wordCounts, chunkIndexes, pages, textHashes, labelRows, labels } = index;
  const derived = { terms: vocabulary.terms, malayRoots: vocabulary.malayRoots };
  return { bm25, codes, words: vocabulary.words, derived, generationRows, wordStarts, wordIds, wordCounts, chunkIndexes, pages, textHashes, labelRows, labels };
}

/**
 * Uniting the sources' derived terms costs a lookup per term of every source (0.1-0.2 us), deriving them again
 * an analysis per distinct word (about 10 us with nothing cached; SciFact's 29,000 words). A publication or a
 * merge has few sources over the same words, so uniting wins; a load of thousands of generations meets each
 * word in many of them, and once the terms to unite outnumber the words by this factor, deriving at the end is
 * the cheaper way. A build that knows how many sources are coming (a load) projects the terms still to unite
 * from those seen so far, so it decides on its first sources instead of after uniting half of them (a load of
 * 100,000 SciFact chunks in 4,543 generations turned at the 2,553rd, having united 1.9 million terms for nothing).
 */
export const DERIVED_UNION_MAX_TERMS_PER_WORD = 64;

/**
 * Builds one index from sources added one at a time, keeping the rows whose ordinal is live, in order.
 * Liveness is per generation (a generation's chunks enter and leave together), so a generation is kept or
 * dropped whole. Only the merged index is held: a caller may stream its inputs (a load decodes one
 * generation's lane data at a time).
 */
export class SegmentAssembler {
  readonly dimensions: number;
  private readonly bm25 = new Bm25Merger();
  private rows = 0;
  private codes = new Int8Array(0);
  private chunkIndexes = new Int32Array(256);
  private pages = new Int32Array(256);
  private textHashes = new Uint32Array(256);
  private readonly labelRows: number[] = [];
  private readonly labels: string[] = [];
  private readonly generationRows: number[] = [0];
  // Words get their id on first sight (interned from their bytes), counted in place.
  private readonly words = new StringInterner();
  private wordTotals = new Uint32Array(1024);
  /**
   * The union of the sources' derived terms and roots: exactly the merged words' while every source carried
   * them and nothing was dropped (a word's terms depend on it alone). Otherwise they are derived again at the end.
   */
  private terms = new StringInterner();
  private malayRoots = new StringInterner();
  private derivedExact = true;
  private derivedTermsUnited = 0;
  private readonly groupWordStarts: number[] = [0];
  private groupWordIds = new Uint32Array(1024);
  private groupWordCounts = new Uint32Array(1024);
  private maxWordCount = 0;
  private wordEntries = 0;

  /** How many sources the build expects in all (0: unknown); see DERIVED_UNION_MAX_TERMS_PER_WORD. */
  private readonly expectedSources: number;
  private sources = 0;

  constructor(dimensions: number, expectedSources = 0) {
    this.dimensions = dimensions;
    this.expectedSources = expectedSources;
    this.codes = new Int8Array(256 * dimensions);
  }

  private reserveRows(count: number): void {
    if (this.rows + count <= this.chunkIndexes.length) return;
    const capacity = Math.max(this.chunkIndexes.length * 2, this.rows + count);
    this.chunkIndexes = grow(this.chunkIndexes, capacity);
    this.pages = grow(this.pages, capacity);
    this.textHashes = grow(this.textHashes, capacity);
    this.codes = grow(this.codes, capacity * this.dimensions);
  }

  private reserveWords(count: number): void {
    if (this.wordEntries + count <= this.groupWordIds.length) return;
    const capacity = Math.max(this.groupWordIds.length * 2, this.wordEntries + count);
    this.groupWordIds = grow(this.groupWordIds, capacity);
    this.groupWordCounts = grow(this.groupWordCounts, capacity);
  }

  add(source: MergeSource, isLive: (ordinal: number) => boolean): void {
    const dimensions = this.dimensions;
    this.bm25.add(source.bm25, isLive);
    let label = 0;
    let dropped = false;
    // Each word of the source is interned once: its generations' word lists repeat it (a word of a thousand
    // generations is a thousand entries), and an array look-up is cheaper than hashing its bytes again.
    const wordIds = new Int32Array(listSize(source.words)).fill(-1);
    for (let g = 0; g + 1 < source.generationRows.length; g++) {
      const from = source.generationRows[g];
      const to = source.generationRows[g + 1];
      if (to !== from && !isLive(source.bm25.docIds[from])) dropped = true;
      if (to === from || !isLive(source.bm25.docIds[from])) continue;
      this.reserveRows(to - from);
      for (let r = from; r < to; r++) {
        const row = this.rows++;
        if (source.codeDimensions === dimensions) this.codes.set(source.codes.subarray(r * dimensions, (r + 1) * dimensions), row * dimensions);
        this.chunkIndexes[row] = source.chunkIndexes[r];
        this.pages[row] = source.pages[r];
        this.textHashes[row] = source.textHashes[r];
        while (label < source.labelRows.length && source.labelRows[label] < r) label++;
        if (label < source.labelRows.length && source.labelRows[label] === r) {
          this.labelRows.push(row);
          this.labels.push(source.labels[label]);
        }
      }
      this.generationRows.push(this.rows);
      const wordFrom = source.wordStarts[g];
      const wordTo = source.wordStarts[g + 1];
      this.reserveWords(wordTo - wordFrom);
      for (let w = wordFrom; w < wordTo; w++) {
        const sourceId = source.wordIds[w];
        let id = wordIds[sourceId];
        if (id < 0) id = wordIds[sourceId] = this.words.internAt(source.words, sourceId);
        if (id >= this.wordTotals.length) this.wordTotals = grow(this.wordTotals, this.wordTotals.length * 2);
        const count = source.wordCounts[w];
        this.wordTotals[id] += count;
        if (count > this.maxWordCount) this.maxWordCount = count;
        this.groupWordIds[this.wordEntries] = id;
        this.groupWordCounts[this.wordEntries++] = count;
      }
      this.groupWordStarts.push(this.wordEntries);
    }
    this.sources++;
    if (!this.derivedExact) return;
    const { derived } = source;
    this.derivedTermsUnited += derived ? listSize(derived.terms) + listSize(derived.malayRoots) : 0;
    const toUnite = this.derivedTermsUnited * Math.max(1, this.expectedSources / this.sources);
    if (dropped || derived === null || toUnite > DERIVED_UNION_MAX_TERMS_PER_WORD * this.words.size) {
      this.derivedExact = false; // derived from the words at the end instead
      this.terms = this.malayRoots = new StringInterner();
      return;
    }
    for (let id = 0; id < listSize(derived.terms); id++) this.terms.internAt(derived.terms, id);
    for (let id = 0; id < listSize(derived.malayRoots); id++) this.malayRoots.internAt(derived.malayRoots, id);
  }

  finish(): SegmentIndex {
    const bm25 = this.bm25.finish();
    if (bm25.docCount !== this.rows) throw new Error(`segment merge kept ${this.rows} rows but ${bm25.docCount} postings docs`);
    const words = this.words.table();
    const derived = this.derivedExact ? { terms: this.terms.table(), malayRoots: this.malayRoots.table() } : derivedTablesOf(tableStrings(words));
    const vocabulary = vocabularyOf(words, this.wordTotals.slice(0, words.size), derived);
    return {
      bm25,
      codes: this.codes.slice(0, this.rows * this.dimensions),
      vocabulary,
      generationRows: Int32Array.from(this.generationRows),
      wordStarts: Uint32Array.from(this.groupWordStarts),
      wordIds: words.size <= 0x10000 ? Uint16Array.from(this.groupWordIds.subarray(0, this.wordEntries)) : this.groupWordIds.slice(0, this.wordEntries),
      wordCounts: narrowest(this.groupWordCounts.subarray(0, this.wordEntries), this.maxWordCount),
      chunkIndexes: this.chunkIndexes.slice(0, this.rows),
      pages: this.pages.slice(0, this.rows),
      textHashes: this.textHashes.slice(0, this.rows),
      labelRows: Int32Array.from(this.labelRows),
      labels: this.labels,
    };
  }
}

/** The index of generations entering at their first ordinals (ascending), from their lanes. */
export function indexParts(parts: readonly SegmentPart[], dimensions: number): SegmentIndex {
  const assembler = new SegmentAssembler(dimensions);
  for (const part of parts) addPart(assembler, part);
  return assembler.finish();
}

/** Adds one generation's lanes (decoded now, dropped after) to an assembler. */
export function addPart(assembler: SegmentAssembler, part: SegmentPart): void {
  assembler.add(mergeSourceOfLanes(lanesOfSource(part.source, assembler.dimensions), part.firstOrdinal), () => true);
}

/** Merges adjacent segment indexes, keeping the generations live in `live` (by ordinal), in order. */
export function mergeIndexes(parts: readonly MergeInput[], live: Uint8Array, dimensions: number): SegmentIndex {
  const assembler = new SegmentAssembler(dimensions);
  for (const part of parts) assembler.add(mergeSourceOfIndex(part, dimensions), (ordinal) => live[ordinal] === 1);
  return assembler.finish();
}

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
