// The Client vocabulary (the fuzzy lane): surface words of the indexed text with document counts, their
// index terms, the Malay roots of their affixed forms, and a bigram index for fuzzy candidates.
// Immutable once built; a new generation builds (or merges into) a new one, never edits an old one.
// Everything is built from the words' UTF-8 bytes where they lie (a merge never decodes a word to a string),
// and a word's id is the order it was interned in: only the fuzzy lookup needs an order (by length), kept
// beside the words as a permutation.

import { analyzeQueryTerms, isLettersOnly, surfaceWord, wordDerivations } from './analyzer.ts';
import { codePoints, levenshteinDistance, maxEditsFor } from './similarity.ts';
import { isStopword } from './stopwords.ts';
import { tokenize } from './tokenize.ts';
import type { Token } from './tokenize.ts';
import { endOf, stringAt, StringInterner, stringTable, tableHas, tableStrings } from './string-table.ts';
import type { ByteStrings, StringTable } from './string-table.ts';

/** Words outside these lengths (code points) are not kept: too short to correct towards, or not words. */
export const VOCABULARY_MIN_WORD_LENGTH = 2;
export const VOCABULARY_MAX_WORD_LENGTH = 40;

/** Plain data (structured-cloneable): string tables and typed arrays, plus the bigram map. */
export interface Vocabulary {
  /** The words; a word's id is its index (idOf finds it). */
  readonly words: StringTable;
  /** Number of chunks (or whatever unit the caller counted) containing each word, by id. */
  readonly counts: Uint32Array;
  /** Code points of each word, by id. */
  readonly lengths: Uint16Array;
  /** Word ids by ascending length (then id); a word's place here is its rank. */
  readonly byLength: Uint32Array;
  /** The first rank of each length (index = length), plus one entry past the longest: a length's ranks are contiguous. */
  readonly lengthStarts: Uint32Array;
  /** Every query-side index term of every word (so accounts is known when account is). */
  readonly terms: StringTable;
  /** Malay roots of affixed words present (ajar when pelajaran or mengajar is). */
  readonly malayRoots: StringTable;
  /**
   * Padded character bigram (bigramKey) -> ascending ranks of the words containing it (views of one array); null
   * for a vocabulary under EAGER_BIGRAM_MIN_WORDS words, whose index is built on its first fuzzy lookup.
   */
  readonly bigrams: ReadonlyMap<number, Uint32Array> | null;
}

/**
 * A vocabulary of fewer words gets its bigram index on its first fuzzy lookup instead of when it is built: that
 * takes a few milliseconds at most then, and most small vocabularies (those of segments merged away during bulk
 * ingest) never see a lookup. A larger one is indexed where it is built (off the event loop in api processes).
 */
export const EAGER_BIGRAM_MIN_WORDS = 16_384;

/** Bigram indexes of small vocabularies, built on first use. */
const lazyBigrams = new WeakMap<Vocabulary, ReadonlyMap<number, Uint32Array>>();

/** The vocabulary's bigram index, built now if it was left for its first lookup. */
function bigramsOf(vocabulary: Vocabulary): ReadonlyMap<number, Uint32Array> {
  if (vocabulary.bigrams) return vocabulary.bigrams;
  let built = lazyBigrams.get(vocabulary);
  if (built === undefined) {
    built = indexBigrams(vocabulary.words, vocabulary.byLength);
    lazyBigrams.set(vocabulary, built);
  }
  return built;
}

/** What a vocabulary derives from its words alone: their query-side index terms and Malay roots. */
export interface DerivedTerms {
  terms: StringTable;
  malayRoots: StringTable;
}

export interface FuzzyCandidate {
  word: string;
  similarity: number;
  count: number;
}

/** The distinct vocabulary words of a text (normalized letter words, stopwords excluded), in order of first sight. */
export function vocabularyWordsOf(text: string): string[] {
  return vocabularyWordsOfTokens(tokenize(text));
}

/** vocabularyWordsOf over the text's tokens: each distinct word is judged once. */
export function vocabularyWordsOfTokens(tokens: readonly Token[]): string[] {
  const seen = new Set<string>();
  const words: string[] = [];
  for (const token of tokens) {
    const word = surfaceWord(token.text);
    if (seen.has(word)) continue;
    seen.add(word);
    const length = codePointLength(word);
    if (length < VOCABULARY_MIN_WORD_LENGTH || length > VOCABULARY_MAX_WORD_LENGTH) continue;
    if (isLettersOnly(word) && !isStopword(word)) words.push(word);
  }
  return words;
}

/** Code points in a string (an astral character counts once), without building them. */
function codePointLength(word: string): number {
  let length = word.length;
  for (let i = 0; i < word.length; i++) {
    const unit = word.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) length--;
  }
  return length;
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

/** Code points in bytes[from .. to) of UTF-8: every byte but continuation bytes starts one. */
function utf8Length(bytes: Uint8Array, from: number, to: number): number {
  let length = 0;
  for (let i = from; i < to; i++) if ((bytes[i] & 0xc0) !== 0x80) length++;
  return length;
}

/** Scratch for one word's bigram keys (one per code point, plus the end). */
let wordKeys = new Float64Array(64);

/** The padded bigram keys of the UTF-8 word bytes[from .. to) into wordKeys, without repeats; returns how many. */
function bigramsOfBytes(bytes: Uint8Array, from: number, to: number): number {
  const length = codePointsOfBytes(bytes, from, to);
  if (wordKeys.length < length + 1) wordKeys = new Float64Array(length + 1);
  let count = 0;
  const push = (key: number) => {
    for (let k = 0; k < count; k++) if (wordKeys[k] === key) return;
    wordKeys[count++] = key;
  };
  let previous = WORD_START;
  for (let i = 0; i < length; i++) {
    push(bigramKey(previous, wordCodes[i]));
    previous = wordCodes[i];
  }
  push(bigramKey(previous, WORD_END));
  return count;
}

/** Code points of one word at a time (bigram indexing, fuzzy comparison), decoded from its UTF-8 bytes. */
let wordCodes = new Int32Array(64);

/** Decodes the UTF-8 word bytes[from .. to) into wordCodes; returns how many code points it has. */
function codePointsOfBytes(bytes: Uint8Array, from: number, to: number): number {
  if (wordCodes.length < to - from) wordCodes = new Int32Array(to - from);
  let count = 0;
  for (let i = from; i < to; ) {
    const lead = bytes[i];
    if (lead < 0x80) {
      wordCodes[count++] = lead;
      i += 1;
    } else if (lead < 0xe0) {
      wordCodes[count++] = ((lead & 0x1f) << 6) | (bytes[i + 1] & 0x3f);
      i += 2;
    } else if (lead < 0xf0) {
      wordCodes[count++] = ((lead & 0x0f) << 12) | ((bytes[i + 1] & 0x3f) << 6) | (bytes[i + 2] & 0x3f);
      i += 3;
    } else {
      wordCodes[count++] = ((lead & 0x07) << 18) | ((bytes[i + 1] & 0x3f) << 12) | ((bytes[i + 2] & 0x3f) << 6) | (bytes[i + 3] & 0x3f);
      i += 4;
    }
  }
  return count;
}

/** The length order of the words: ids by ascending length (a counting sort) and where each length starts. */
function lengthOrder(lengths: Uint16Array): { byLength: Uint32Array; lengthStarts: Uint32Array } {
  let longest = 0;
  for (const length of lengths) if (length > longest) longest = length;
  const lengthStarts = new Uint32Array(longest + 2);
  for (const length of lengths) lengthStarts[length + 1]++;
  for (let length = 1; length < lengthStarts.length; length++) lengthStarts[length] += lengthStarts[length - 1];
  const next = lengthStarts.slice(0, longest + 1);
  const byLength = new Uint32Array(lengths.length);
  for (let id = 0; id < lengths.length; id++) byLength[next[lengths[id]]++] = id;
  return { byLength, lengthStarts };
}

/**
 * Bigram -> ascending ranks, laid out in one array. Each distinct bigram gets a dense number on first sight (one
 * map lookup per occurrence); counting and filling then run over typed arrays.
 */
function indexBigrams(words: ByteStrings, byLength: Uint32Array): Map<number, Uint32Array> {
  const dense = new Map<number, number>();
  const keys: number[] = [];
  let sizes = new Uint32Array(1024);
  let occurrences = new Uint32Array(Math.max(1024, words.size * 8));
  let total = 0;
  for (let rank = 0; rank < byLength.length; rank++) {
    const id = byLength[rank];
    const count = bigramsOfBytes(words.bytes, words.starts[id], endOf(words, id));
    if (total + count > occurrences.length) occurrences = grownTo(occurrences, Math.max(occurrences.length * 2, total + count));
    for (let k = 0; k < count; k++) {
      let index = dense.get(wordKeys[k]);
      if (index === undefined) {
        index = keys.length;
        dense.set(wordKeys[k], index);
        keys.push(wordKeys[k]);
        if (index >= sizes.length) sizes = grownTo(sizes, sizes.length * 2);
      }
      sizes[index]++;
      occurrences[total++] = index;
    }
  }
  const next = new Uint32Array(keys.length);
  for (let index = 1; index < keys.length; index++) next[index] = next[index - 1] + sizes[index - 1];
  const ranks = new Uint32Array(total);
  const lists = new Map<number, Uint32Array>();
  keys.forEach((key, index) => lists.set(key, ranks.subarray(next[index], next[index] + sizes[index])));
  for (let rank = 0, at = 0; rank < byLength.length; rank++) {
    const id = byLength[rank];
    const count = bigramsOfBytes(words.bytes, words.starts[id], endOf(words, id));
    for (let k = 0; k < count; k++) ranks[next[occurrences[at++]]++] = rank;
  }
  return lists;
}

function grownTo(array: Uint32Array<ArrayBuffer>, capacity: number): Uint32Array<ArrayBuffer> {
  const bigger = new Uint32Array(capacity);
  bigger.set(array);
  return bigger;
}

/** The query-side terms and Malay roots of words, each once, in order of first sight (what lane data persists). */
export function derivedTermsOf(words: Iterable<string>): { terms: string[]; malayRoots: string[] } {
  const terms = new Set<string>();
  const malayRoots = new Set<string>();
  for (const word of words) {
    const derived = wordDerivations(word);
    for (const term of derived.terms) terms.add(term);
    for (const root of derived.malayRoots) malayRoots.add(root);
  }
  return { terms: [...terms], malayRoots: [...malayRoots] };
}

/** derivedTermsOf as string tables. */
export function derivedTablesOf(words: Iterable<string>): DerivedTerms {
  const { terms, malayRoots } = derivedTermsOf(words);
  return { terms: stringTable(terms), malayRoots: stringTable(malayRoots) };
}

/**
 * The vocabulary of interned words (ids kept) with their counts and what derives from them. Every count must be
 * positive: a word no chunk holds any more is not interned in the first place.
 */
export function vocabularyOf(words: StringTable, counts: Uint32Array, derived: DerivedTerms): Vocabulary {
  if (counts.length !== words.size) throw new RangeError('a vocabulary needs one count per word');
  const lengths = new Uint16Array(words.size);
  for (let id = 0; id < words.size; id++) lengths[id] = Math.min(utf8Length(words.bytes, words.starts[id], endOf(words, id)), 0xffff);
  const { byLength, lengthStarts } = lengthOrder(lengths);
  const bigrams = words.size >= EAGER_BIGRAM_MIN_WORDS ? indexBigrams(words, byLength) : null;
  return Object.freeze({ words, counts, lengths, byLength, lengthStarts, terms: derived.terms, malayRoots: derived.malayRoots, bigrams });
}

/** Builds a vocabulary from (word, count) pairs; words are normalized already, repeats are summed, zero counts dropped. */
export function buildVocabulary(entries: Iterable<readonly [string, number]>): Vocabulary {
  const interner = new StringInterner();
  let counts = new Uint32Array(1024);
  for (const [word, count] of entries) {
    if (!(count > 0)) continue;
    const id = interner.internString(word);
    if (id >= counts.length) counts = grownTo(counts, counts.length * 2);
    counts[id] = Math.min(counts[id] + count, 0xffffffff);
  }
  const words = interner.table();
  return vocabularyOf(words, counts.slice(0, words.size), derivedTablesOf(tableStrings(words)));
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
 * One vocabulary holding every word of the parts with summed counts. Terms and Malay roots depend on each word
 * alone, so the merge is the union of the parts' (taken from their bytes), with no word analyzed again.
 */
export function mergeVocabularies(parts: readonly Vocabulary[]): Vocabulary {
  const words = new StringInterner();
  const terms = new StringInterner();
  const malayRoots = new StringInterner();
  let counts = new Uint32Array(1024);
  for (const part of parts) {
    for (let id = 0; id < part.words.size; id++) {
      const merged = words.internAt(part.words, id);
      if (merged >= counts.length) counts = grownTo(counts, counts.length * 2);
      counts[merged] = Math.min(counts[merged] + part.counts[id], 0xffffffff);
    }
    for (let id = 0; id < part.terms.size; id++) terms.internAt(part.terms, id);
    for (let id = 0; id < part.malayRoots.size; id++) malayRoots.internAt(part.malayRoots, id);
  }
  return vocabularyOf(words.table(), counts.slice(0, words.size), { terms: terms.table(), malayRoots: malayRoots.table() });
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

/** First rank whose word is at least `length` code points long (ranks are in length order). */
function firstRankOfLength(vocabulary: Vocabulary, length: number): number {
  const starts = vocabulary.lengthStarts;
  return length < starts.length ? starts[Math.max(0, length)] : vocabulary.byLength.length;
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

/** The bigram posting lists of the query word restricted to ranks [fromRank, toRank), as [list, start, end]. */
function windowedLists(vocabulary: Vocabulary, bigrams: readonly number[], fromRank: number, toRank: number): Array<[Uint32Array, number, number]> {
  const lists: Array<[Uint32Array, number, number]> = [];
  const index = bigramsOf(vocabulary);
  for (const bigram of bigrams) {
    const ranks = index.get(bigram);
    if (ranks !== undefined) lists.push([ranks, lowerBound(ranks, fromRank), lowerBound(ranks, toRank)]);
  }
  return lists;
}

/** Counts shared bigrams for every rank in the windowed lists; returns how many ranks were touched. */
function countSharedBigrams(lists: ReadonlyArray<[Uint32Array, number, number]>, vocabularySize: number): number {
  scratchFor(vocabularySize);
  let touched = 0;
  for (const [ranks, from, to] of lists) {
    for (let i = from; i < to; i++) {
      const rank = ranks[i];
      if (sharedCounts[rank]++ === 0) sharedTouched[touched++] = rank;
    }
  }
  return touched;
}

/**
 * Lookup limits: similarity floor, optionally a cap on edits (typos are one or two keystrokes), and optionally only
 * words that begin with the query word's first character (typo fixes keep it), which spares the distance of the rest.
 */
export interface FuzzyLimits {
  minSimilarity: number;
  maxEdits?: number;
  sameFirstCharacter?: boolean;
}

/** Whether the word at bytes[from ..] begins with these UTF-8 bytes. */
function startsWithBytes(bytes: Uint8Array, from: number, to: number, prefix: Uint8Array): boolean {
  if (to - from < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[from + i] !== prefix[i]) return false;
  return true;
}

const utf8 = new TextEncoder();

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
  const lists = windowedLists(vocabulary, bigrams, firstRankOfLength(vocabulary, fromLength), firstRankOfLength(vocabulary, toLength + 1));
  const touched = countSharedBigrams(lists, vocabulary.words.size);
  const first = limits.sameFirstCharacter ? utf8.encode(String.fromCodePoint(query[0])) : null;
  const out: FuzzyCandidate[] = [];
  for (let i = 0; i < touched; i++) {
    const rank = sharedTouched[i];
    const shared = sharedCounts[rank];
    sharedCounts[rank] = 0;
    const id = vocabulary.byLength[rank];
    const maxEdits = edits(vocabulary.lengths[id]);
    if (shared < bigrams.length - 2 * maxEdits) continue;
    // The candidate is compared as code points read from its bytes; only one that passes becomes a string.
    const { words } = vocabulary;
    if (first !== null && !startsWithBytes(words.bytes, words.starts[id], endOf(words, id), first)) continue;
    const length = codePointsOfBytes(words.bytes, words.starts[id], endOf(words, id));
    const distance = levenshteinDistance(query, wordCodes, maxEdits, query.length, length);
    if (distance > maxEdits || distance === 0) continue; // 0: the word itself
    out.push({ word: stringAt(words, id), similarity: 1 - distance / Math.max(query.length, vocabulary.lengths[id]), count: vocabulary.counts[id] });
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
