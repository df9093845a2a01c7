// The built-in dense embedder: signed feature hashing of words and their character n-grams into a
// fixed-size L2-normalized vector. Deterministic and offline; it must never depend on corpus statistics.

import type { Embedder } from './embedder.ts';
import { FUNCTION_WORDS } from './function-words.ts';
import { ModelProviderError } from './model-error.ts';
import { l2NormalizeInPlace } from './vector-math.ts';
import { wordTokens } from './word-tokens.ts';
import { LRUCache } from 'lru-cache';

export const HASHING_PROVIDER = 'hashing';
/** Bump the version suffix whenever features or weights change: old vectors then no longer compare. */
export const HASHING_MODEL_NAME = 'hash-ngram-v1';
export const HASHING_DEFAULT_DIMENSIONS = 384;
export const HASHING_MIN_DIMENSIONS = 8;
export const HASHING_MAX_DIMENSIONS = 8192;
export const HASHING_CHAR_NGRAM_MIN = 3;
export const HASHING_CHAR_NGRAM_MAX = 5;
/** Longer "words" (hashes, base64, URLs glued together) only get a word feature: their n-grams are noise. */
export const HASHING_MAX_WORD_CHARS_FOR_NGRAMS = 48;
export const HASHING_WORD_WEIGHT = 1.0;
/** Total norm of one word's character n-grams; above the word weight so typos and affixes still match. */
export const HASHING_CHAR_NGRAMS_WEIGHT = 1.5;
/** Function words still count a little (a query made only of them must not embed to zero). */
export const HASHING_FUNCTION_WORD_WEIGHT = 0.1;

// Word bigrams were measured and dropped: with 384 buckets their collisions cost more than they add
// (dense-lane nDCG@10 with weight 0 vs 0.5: Malay SQuAD 0.523 vs 0.518, SciFact train 0.371 vs 0.354).
// Distinct seeds keep a word and an equal-looking n-gram from landing in the same bucket.
const SEED_WORD = 0x9e3779b9;
const SEED_CHAR = 0xc2b2ae35;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const WORD_START = 0x02; // boundary markers outside any text a tokenizer keeps
const WORD_END = 0x03;

export interface HashingEmbedderOptions {
  dimensions?: number;
}

function fnv1aStep(hash: number, code: number): number {
  return Math.imul(hash ^ code, FNV_PRIME);
}

// murmur3's finalizer: FNV alone leaves low bits (the bucket) and the top bit (the sign) correlated.
function finalize(hash: number): number {
  let h = hash;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function hashString(seed: number, text: string): number {
  let h = FNV_OFFSET ^ seed;
  for (let i = 0; i < text.length; i++) h = fnv1aStep(h, text.charCodeAt(i));
  return finalize(h);
}

function countWords(words: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
  return counts;
}

// Sublinear term frequency: a word repeated ten times should not drown the rest of the chunk.
function tfWeight(count: number): number {
  return 1 + Math.log(count);
}

function charNgramCount(length: number): number {
  let total = 0;
  for (let n = HASHING_CHAR_NGRAM_MIN; n <= HASHING_CHAR_NGRAM_MAX; n++) total += Math.max(0, length - n + 1);
  return total;
}

/**
 * One word's features, in the order they are added: its word feature, then its character n-grams (3-, 4- and
 * 5-grams at each start). Each entry is bucket * 2 + sign (1 for minus). `ngrams` is how many n-grams share the
 * n-gram weight; 0 when the word is too long for n-grams.
 */
interface WordFeatures {
  entries: Uint16Array;
  ngrams: number;
}

/** Entries of a feature: its bucket and the sign its top hash bit gives. */
function featureEntry(hash: number, dimensions: number): number {
  return (hash % dimensions) * 2 + (hash & 0x80000000 ? 1 : 0);
}

function wordFeaturesOf(word: string, dimensions: number): WordFeatures {
  const entries: number[] = [featureEntry(hashString(SEED_WORD, word), dimensions)];
  if (word.length > HASHING_MAX_WORD_CHARS_FOR_NGRAMS) return { entries: Uint16Array.from(entries), ngrams: 0 };
  const length = word.length + 2;
  const codes = new Uint16Array(length);
  codes[0] = WORD_START;
  for (let i = 0; i < word.length; i++) codes[i + 1] = word.charCodeAt(i);
  codes[length - 1] = WORD_END;
  // One FNV pass per start position yields its 3-, 4- and 5-gram hashes as prefixes of the same run.
  for (let start = 0; start + HASHING_CHAR_NGRAM_MIN <= length; start++) {
    let h = FNV_OFFSET ^ SEED_CHAR;
    const end = Math.min(length, start + HASHING_CHAR_NGRAM_MAX);
    for (let i = start; i < end; i++) {
      h = fnv1aStep(h, codes[i]);
      if (i - start + 1 >= HASHING_CHAR_NGRAM_MIN) entries.push(featureEntry(finalize(h), dimensions));
    }
  }
  return { entries: Uint16Array.from(entries), ngrams: charNgramCount(length) };
}

/**
 * Words recur across chunks: the features of the most recently used ones are kept, per dimension count (about
 * 500 bytes a word, so about 8 MiB for one dimension count).
 */
const WORD_FEATURE_CACHE_SIZE = 16_384;
const wordFeatureCaches = new Map<number, LRUCache<string, WordFeatures>>();
/** Given to every get: lru-cache makes an options object per call when given none (and writes its status into it). */
const FEATURE_GET_OPTIONS: LRUCache.GetOptions<string, WordFeatures, unknown> = { status: undefined };

function cachedWordFeatures(word: string, dimensions: number): WordFeatures {
  let cache = wordFeatureCaches.get(dimensions);
  if (cache === undefined) wordFeatureCaches.set(dimensions, (cache = new LRUCache({ max: WORD_FEATURE_CACHE_SIZE })));
  let features = cache.get(word, FEATURE_GET_OPTIONS);
  if (features === undefined) {
    features = wordFeaturesOf(word, dimensions);
    cache.set(word, features);
  }
  return features;
}

/** Adds the signed weight; the sign is a factor of 1 or -1 (exact), not a branch the processor mispredicts half the time. */
function addEntry(vector: Float32Array, entry: number, weight: number): void {
  vector[entry >> 1] += (1 - 2 * (entry & 1)) * weight;
}

// Without corpus statistics there is no IDF; a fixed function-word list does most of its job here
// (dense-lane nDCG@10 on Malay SQuAD 0.52 -> 0.60, on SciFact train 0.35 -> 0.46).
function wordWeight(word: string, count: number): number {
  return tfWeight(count) * (FUNCTION_WORDS.has(word) ? HASHING_FUNCTION_WORD_WEIGHT : 1);
}

function addWordFeatures(vector: Float32Array, words: string[]): void {
  for (const [word, count] of countWords(words)) {
    const weight = wordWeight(word, count);
    const { entries, ngrams } = cachedWordFeatures(word, vector.length);
    addEntry(vector, entries[0], HASHING_WORD_WEIGHT * weight);
    if (ngrams === 0) continue;
    const each = (HASHING_CHAR_NGRAMS_WEIGHT * weight) / Math.sqrt(ngrams);
    for (let i = 1; i < entries.length; i++) addEntry(vector, entries[i], each);
  }
}

/** Embeds one text; an empty or separator-only text gives the all-zero vector. */
export function hashingVector(text: string, dimensions: number = HASHING_DEFAULT_DIMENSIONS): Float32Array {
  const vector = new Float32Array(dimensions);
  const words = wordTokens(text);
  if (words.length === 0) return vector;
  addWordFeatures(vector, words);
  return l2NormalizeInPlace(vector);
}

function checkDimensions(dimensions: number): number {
  if (!Number.isInteger(dimensions) || dimensions < HASHING_MIN_DIMENSIONS || dimensions > HASHING_MAX_DIMENSIONS) {
    throw new ModelProviderError('settings_invalid', `hashing embedder dimensions must be an integer in [${HASHING_MIN_DIMENSIONS}, ${HASHING_MAX_DIMENSIONS}], got ${dimensions}`);
  }
  return dimensions;
}

export function createHashingEmbedder(options: HashingEmbedderOptions = {}): Embedder {
  const dimensions = checkDimensions(options.dimensions ?? HASHING_DEFAULT_DIMENSIONS);
  return {
    provider: HASHING_PROVIDER,
    model: HASHING_MODEL_NAME,
    dimensions,
    embed: async (texts) => texts.map((text) => hashingVector(text, dimensions)),
  };
}
