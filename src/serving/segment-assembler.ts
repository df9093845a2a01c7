// Assembles a segment's index (codec/segment-index.ts) from what enters it: generations' persisted lane data
// (decoded one at a time and dropped after), the chunks of generations written before lane data was persisted,
// or the indexes of segments being merged. Plain data in, plain data out, by pure functions, so that it runs on
// the segment thread (segment-thread.ts) as well as inline; segment.ts turns an index into a served segment.

import { Bm25Merger, grow } from '../codec/bm25-segment.ts';
import type { Bm25Postings } from '../codec/bm25-segment.ts';
import type { SegmentIndex } from '../codec/segment-index.ts';
import type { ServingGeneration } from '../domain/generation.ts';
import { lanesOf } from '../codec/generation-lanes.ts';
import { decodeLanes } from '../codec/lanes-encoding.ts';
import type { GenerationLanes, LaneChunk } from '../codec/generation-lanes.ts';
import { derivedTablesOf, vocabularyOf } from '../text/vocabulary.ts';
import { listSize, StringInterner, tableStrings } from '../text/string-table.ts';
import type { StringList } from '../text/string-table.ts';

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
