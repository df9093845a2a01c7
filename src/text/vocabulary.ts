// The Client vocabulary (the fuzzy lane): surface words of the indexed text with document counts, their
// index terms, the Malay roots of their affixed forms, and a bigram index for fuzzy candidates.
// Immutable once built; a new generation builds (or merges into) a new one, never edits an old one.

import { analyzeQueryTerms, surfaceWord } from './analyzer.ts';
import { malayRootCandidates, malayStem } from './malay-stemmer.ts';
import { codePoints, levenshteinDistance, maxEditsFor } from './similarity.ts';
import { isStopword } from './stopwords.ts';
import { tokenize } from './tokenize.ts';
import { stringAt, stringTable, tableHas, tableStrings } from './string-table.ts';
import type { StringTable } from './string-table.ts';

/** Words outside these lengths (code points) are not kept: too short to correct towards, or not words. */
export const VOCABULARY_MIN_WORD_LENGTH = 2;
export const VOCABULARY_MAX_WORD_LENGTH = 40;

const WORD_SHAPE = /^[\p{L}\p{M}]+$/u;

/** Plain data (structured-cloneable): string tables and typed arrays, plus the bigram map. */
export interface Vocabulary {
  /** Words sorted by (code-point length, then code unit order); a word's id is its index (idOf finds it). */
  readonly words: StringTable;
  /** Number of chunks (or whatever unit the caller counted) containing each word, by id. */
  readonly counts: Uint32Array;
  readonly lengths: Uint16Array;
  /** Every query-side index term of every word (so accounts is known when account is). */
  readonly terms: StringTable;
  /** Malay roots of affixed words present (ajar when pelajaran or mengajar is). */
  readonly malayRoots: StringTable;
  /** Padded character bigram (bigramKey) -> ascending word ids containing it (views of one array). */
  readonly bigrams: ReadonlyMap<number, Uint32Array>;
}

export interface FuzzyCandidate {
  word: string;
  similarity: number;
  count: number;
}

/** The distinct vocabulary words of a text (normalized letter words, stopwords excluded). */
export function vocabularyWordsOf(text: string): string[] {
  const words = new Set<string>();
  for (const token of tokenize(text)) {
    const word = surfaceWord(token.text);
    const length = codePoints(word).length;
    if (length < VOCABULARY_MIN_WORD_LENGTH || length > VOCABULARY_MAX_WORD_LENGTH) continue;
    if (WORD_SHAPE.test(word) && !isStopword(word)) words.add(word);
  }
  return [...words];
}

/** Stand-ins for the start and end of a word in bigrams: beyond every code point. */
const WORD_START = 0x110000;
const WORD_END = 0x110001;
const BIGRAM_SHIFT = 2 ** 22;

/** A bigram of two code points (or word boundaries) as one number: exact in a double (44 bits). */
function bigramKey(first: number, second: number): number {
  return first * BIGRAM_SHIFT + second;
}

/** Padded bigrams (^a, ab, ..., z$) of a word as keys, without repeats. */
export function paddedBigrams(word: string): number[] {
  const out: number[] = [];
  let previous = WORD_START;
  for (let i = 0; i < word.length; i++) {
    const char = word.codePointAt(i)!;
    if (char > 0xffff) i++;
    const key = bigramKey(previous, char);
    if (!out.includes(key)) out.push(key);
    previous = char;
  }
  const last = bigramKey(previous, WORD_END);
  if (!out.includes(last)) out.push(last);
  return out;
}

/** Code points in a word (an astral character counts once), without building them. */
function codePointLength(word: string): number {
  let length = word.length;
  for (let i = 0; i < word.length; i++) {
    const unit = word.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) length--;
  }
  return length;
}

function compareWords(a: string, b: string, lengthA: number, lengthB: number): number {
  return lengthA - lengthB || (a < b ? -1 : a > b ? 1 : 0);
}

/** Bigram -> ascending ids, laid out in one array: counted first, then filled in id order. */
function indexBigrams(words: readonly string[]): Map<number, Uint32Array> {
  const perWord = words.map(paddedBigrams);
  const sizes = new Map<number, number>();
  let total = 0;
  for (const keys of perWord) {
    total += keys.length;
    for (const key of keys) sizes.set(key, (sizes.get(key) ?? 0) + 1);
  }
  const ids = new Uint32Array(total);
  const next = new Map<number, number>();
  let offset = 0;
  for (const [key, size] of sizes) {
    next.set(key, offset);
    offset += size;
  }
  const lists = new Map<number, Uint32Array>();
  for (const [key, start] of next) lists.set(key, ids.subarray(start, start + sizes.get(key)!));
  perWord.forEach((keys, id) => {
    for (const key of keys) {
      const at = next.get(key)!;
      ids[at] = id;
      next.set(key, at + 1);
    }
  });
  return lists;
}

/** Words whose analysis (index terms, Malay roots) is remembered: a word's analysis never changes. */
export const WORD_ANALYSIS_CACHE_SIZE = 200_000;

interface WordAnalysis {
  terms: readonly string[];
  roots: readonly string[];
}

/**
 * The analysis of words seen before, so that building a vocabulary again (a Client loaded after its eviction,
 * a merge) does not run the analyzers over every word again. Cleared whole when full: a bounded cache.
 */
const wordAnalyses = new Map<string, WordAnalysis>();

function analysisOf(word: string): WordAnalysis {
  let analysis = wordAnalyses.get(word);
  if (analysis === undefined) {
    const stem = malayStem(word);
    const roots = malayRootCandidates(word);
    analysis = { terms: analyzeQueryTerms(word), roots: stem !== word ? [stem, ...roots] : [...roots] };
    if (wordAnalyses.size >= WORD_ANALYSIS_CACHE_SIZE) wordAnalyses.clear();
    wordAnalyses.set(word, analysis);
  }
  return analysis;
}

function rootsOf(words: readonly string[]): Set<string> {
  const roots = new Set<string>();
  for (const word of words) for (const root of analysisOf(word).roots) roots.add(root);
  return roots;
}

function termsOf(words: readonly string[]): Set<string> {
  const terms = new Set<string>();
  for (const word of words) for (const term of analysisOf(word).terms) terms.add(term);
  return terms;
}

/** Words with summed counts, sorted by (length, word), in the shape the vocabulary stores them. */
function sortedEntries(entries: Iterable<readonly [string, number]>) {
  const summed = new Map<string, number>();
  for (const [word, count] of entries) {
    if (count > 0) summed.set(word, (summed.get(word) ?? 0) + count);
  }
  const unsorted = [...summed.keys()];
  const unsortedLengths = unsorted.map(codePointLength);
  const order = Uint32Array.from(unsorted.keys());
  order.sort((x, y) => compareWords(unsorted[x], unsorted[y], unsortedLengths[x], unsortedLengths[y]));
  const words = Array.from(order, (index) => unsorted[index]);
  return { summed, words, lengths: Uint16Array.from(order, (index) => unsortedLengths[index]) };
}

function assemble(entries: Iterable<readonly [string, number]>, derived?: { terms: Set<string>; malayRoots: Set<string> }): Vocabulary {
  const { summed, words, lengths } = sortedEntries(entries);
  return Object.freeze({
    words: stringTable(words),
    counts: Uint32Array.from(words, (word) => Math.min(summed.get(word)!, 0xffffffff)),
    lengths,
    terms: stringTable([...(derived?.terms ?? termsOf(words))]),
    malayRoots: stringTable([...(derived?.malayRoots ?? rootsOf(words))]),
    bigrams: indexBigrams(words),
  });
}

/** Builds a vocabulary from (word, count) pairs; words are normalized already, repeats are summed. */
export function buildVocabulary(entries: Iterable<readonly [string, number]>): Vocabulary {
  return assemble(entries);
}

export const EMPTY_VOCABULARY: Vocabulary = buildVocabulary([]);

/** Vocabulary of a batch of texts; each word counts once per text it appears in. */
export function vocabularyFromTexts(texts: Iterable<string>): Vocabulary {
  const counts = new Map<string, number>();
  for (const text of texts) for (const word of vocabularyWordsOf(text)) counts.set(word, (counts.get(word) ?? 0) + 1);
  return buildVocabulary(counts);
}

/** (word, count) pairs sorted by word: the stable form for manifests, digests and persistence. */
export function vocabularyEntries(vocabulary: Vocabulary): Array<[string, number]> {
  const entries = tableStrings(vocabulary.words).map((word, id): [string, number] => [word, vocabulary.counts[id]]);
  return entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/**
 * One vocabulary holding every word of the parts with summed counts (generation merge). Terms and
 * Malay roots depend on each word alone, so the parts' sets are reused instead of re-analyzing words.
 */
export function mergeVocabularies(parts: readonly Vocabulary[]): Vocabulary {
  const terms = new Set<string>();
  const malayRoots = new Set<string>();
  for (const part of parts) {
    for (const term of tableStrings(part.terms)) terms.add(term);
    for (const root of tableStrings(part.malayRoots)) malayRoots.add(root);
  }
  return assemble(parts.flatMap((part) => vocabularyEntries(part)), { terms, malayRoots });
}

export function vocabularyHasWord(vocabulary: Vocabulary, word: string): boolean {
  return tableHas(vocabulary.words, word);
}

/** True when one of the word's query terms is an index term of the vocabulary (accounts ~ account). */
export function vocabularyHasTermsOf(vocabulary: Vocabulary, word: string): boolean {
  const terms = analyzeQueryTerms(word);
  return terms.length > 0 && terms.some((term) => tableHas(vocabulary.terms, term));
}

export function vocabularyHasMalayRoot(vocabulary: Vocabulary, word: string): boolean {
  return tableHas(vocabulary.malayRoots, word);
}

/** First id whose word is at least `length` code points long (words are sorted by length). */
function firstIdOfLength(vocabulary: Vocabulary, length: number): number {
  let low = 0;
  let high = vocabulary.lengths.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (vocabulary.lengths[middle] < length) low = middle + 1;
    else high = middle;
  }
  return low;
}

function lowerBound(ids: Uint32Array, value: number): number {
  let low = 0;
  let high = ids.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (ids[middle] < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Scratch counters reused across lookups (lookups are synchronous, so no two share them at once). */
let sharedCounts = new Uint16Array(0);
let sharedTouched = new Uint32Array(0);

function scratchFor(size: number): void {
  if (sharedCounts.length >= size) return;
  sharedCounts = new Uint16Array(size);
  sharedTouched = new Uint32Array(size);
}

/** The bigram posting lists of the query word restricted to [fromId, toId), as [list, start, end]. */
function windowedLists(vocabulary: Vocabulary, bigrams: readonly number[], fromId: number, toId: number): Array<[Uint32Array, number, number]> {
  const lists: Array<[Uint32Array, number, number]> = [];
  for (const bigram of bigrams) {
    const ids = vocabulary.bigrams.get(bigram);
    if (ids !== undefined) lists.push([ids, lowerBound(ids, fromId), lowerBound(ids, toId)]);
  }
  return lists;
}

/** Counts shared bigrams for every id in the windowed lists; returns how many ids were touched. */
function countSharedBigrams(lists: ReadonlyArray<[Uint32Array, number, number]>, vocabularySize: number): number {
  scratchFor(vocabularySize);
  let touched = 0;
  for (const [ids, from, to] of lists) {
    for (let i = from; i < to; i++) {
      const id = ids[i];
      if (sharedCounts[id]++ === 0) sharedTouched[touched++] = id;
    }
  }
  return touched;
}

/** Lookup limits: similarity floor, and optionally a cap on edits (typos are one or two keystrokes). */
export interface FuzzyLimits {
  minSimilarity: number;
  maxEdits?: number;
}

/**
 * Vocabulary words with character similarity >= minSimilarity (and at most maxEdits edits) to `word`,
 * best first (similarity, then count, then word). Candidates come from the bigram index inside the
 * feasible length window, and a count filter (each edit destroys at most two padded bigrams) spares
 * most exact distance computations. A word sharing no bigram with the query word is never a candidate.
 */
export function fuzzyCandidates(vocabulary: Vocabulary, word: string, limits: FuzzyLimits): FuzzyCandidate[] {
  const query = codePoints(word);
  if (query.length === 0) return [];
  const cap = limits.maxEdits ?? Infinity;
  const edits = (length: number) => Math.min(cap, maxEditsFor(query.length, length, limits.minSimilarity));
  const widest = edits(Math.floor(query.length / limits.minSimilarity + 1e-9));
  const fromLength = Math.max(Math.ceil(limits.minSimilarity * query.length - 1e-9), query.length - widest);
  const toLength = Math.min(Math.floor(query.length / limits.minSimilarity + 1e-9), query.length + widest);
  const bigrams = paddedBigrams(word);
  const lists = windowedLists(vocabulary, bigrams, firstIdOfLength(vocabulary, fromLength), firstIdOfLength(vocabulary, toLength + 1));
  const touched = countSharedBigrams(lists, vocabulary.words.size);
  const out: FuzzyCandidate[] = [];
  for (let i = 0; i < touched; i++) {
    const id = sharedTouched[i];
    const shared = sharedCounts[id];
    sharedCounts[id] = 0;
    const maxEdits = edits(vocabulary.lengths[id]);
    if (shared < bigrams.length - 2 * maxEdits) continue;
    const candidate = stringAt(vocabulary.words, id);
    if (candidate === word) continue;
    const distance = levenshteinDistance(query, codePoints(candidate), maxEdits);
    if (distance > maxEdits) continue;
    out.push({ word: candidate, similarity: 1 - distance / Math.max(query.length, vocabulary.lengths[id]), count: vocabulary.counts[id] });
  }
  return out.sort((a, b) => b.similarity - a.similarity || b.count - a.count || (a.word < b.word ? -1 : a.word > b.word ? 1 : 0));
}

/**
 * The Client vocabulary as the parts it is made of (one per index segment): queried together, never
 * merged, so publishing a small segment does not rebuild the words of the large ones.
 */
export type VocabularyParts = readonly Vocabulary[];

export function partsHaveWord(parts: VocabularyParts, word: string): boolean {
  return parts.some((part) => vocabularyHasWord(part, word));
}

export function partsHaveTermsOf(parts: VocabularyParts, word: string): boolean {
  const terms = analyzeQueryTerms(word);
  return terms.length > 0 && parts.some((part) => terms.some((term) => tableHas(part.terms, term)));
}

export function partsHaveMalayRoot(parts: VocabularyParts, word: string): boolean {
  return parts.some((part) => vocabularyHasMalayRoot(part, word));
}

/** Fuzzy candidates over every part: a word in several parts counts once with its counts summed. */
export function partsFuzzyCandidates(parts: VocabularyParts, word: string, limits: FuzzyLimits): FuzzyCandidate[] {
  if (parts.length === 1) return fuzzyCandidates(parts[0], word, limits);
  const merged = new Map<string, FuzzyCandidate>();
  for (const part of parts) {
    for (const candidate of fuzzyCandidates(part, word, limits)) {
      const seen = merged.get(candidate.word);
      if (seen) seen.count += candidate.count;
      else merged.set(candidate.word, { ...candidate });
    }
  }
  return [...merged.values()].sort((a, b) => b.similarity - a.similarity || b.count - a.count || (a.word < b.word ? -1 : a.word > b.word ? 1 : 0));
}
