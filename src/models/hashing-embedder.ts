// The built-in dense embedder: signed feature hashing of words and their character n-grams into a
// fixed-size L2-normalized vector. Deterministic and offline; it must never depend on corpus statistics.

import type { Embedder } from './embedder.ts';
import { FUNCTION_WORDS } from './function-words.ts';
import { ModelProviderError } from './model-error.ts';
import { l2NormalizeInPlace } from './vector-math.ts';
import { wordText } from './word-tokens.ts';
import { DistinctWords } from './distinct-words.ts';

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

// murmur3's finalizer: FNV alone leaves low bits (the bucket) and the top bit (the sign) correlated. As an int32.
function finalize(hash: number): number {
  let h = hash;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}

/** The text's word feature hash: FNV-1a over the word's UTF-16 units, seeded, finalized. */
function wordHash(text: string, start: number, end: number): number {
  let h = FNV_OFFSET ^ SEED_WORD;
  for (let i = start; i < end; i++) h = fnv1aStep(h, text.charCodeAt(i));
  return finalize(h);
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
 * The hash, read as unsigned, modulo the dimensions, in int32 arithmetic: high half, then low half (the unsigned
 * value itself is not a small integer to V8, and its modulo would be a floating-point one, several times slower).
 */
function bucketOf(hash: number, dimensions: number): number {
  return (((hash >>> 16) % dimensions) * 0x10000 + (hash & 0xffff)) % dimensions;
}

/**
 * Adds a feature's signed weight at its bucket, the sign being the hash's top bit: a factor of 1 or -1 (exact),
 * not a branch the processor mispredicts half the time.
 */
function addFeature(vector: Float32Array, hash: number, weight: number): void {
  vector[bucketOf(hash, vector.length)] += (1 - 2 * (hash >>> 31)) * weight;
}

// Without corpus statistics there is no IDF; a fixed function-word list does most of its job here
// (dense-lane nDCG@10 on Malay SQuAD 0.52 -> 0.60, on SciFact train 0.35 -> 0.46).
const LONGEST_FUNCTION_WORD = Math.max(...[...FUNCTION_WORDS].map((word) => word.length));
function isFunctionWord(text: string, start: number, end: number): boolean {
  return end - start <= LONGEST_FUNCTION_WORD && FUNCTION_WORDS.has(text.slice(start, end));
}

/** A word's characters between its boundary markers, for its n-grams (a word longer than the n-gram limit gets none). */
const ngramCodes = new Uint16Array(HASHING_MAX_WORD_CHARS_FOR_NGRAMS + 2);

/**
 * Adds one word's features: its word feature, then its character n-grams (3-, 4- and 5-grams at each start, one
 * FNV pass per start yielding them as prefixes of the same run), which share the n-gram weight.
 */
function addWordFeatures(vector: Float32Array, text: string, start: number, end: number, weight: number): void {
  addFeature(vector, wordHash(text, start, end), HASHING_WORD_WEIGHT * weight);
  if (end - start > HASHING_MAX_WORD_CHARS_FOR_NGRAMS) return;
  const length = end - start + 2;
  const codes = ngramCodes;
  codes[0] = WORD_START;
  for (let i = start; i < end; i++) codes[i - start + 1] = text.charCodeAt(i);
  codes[length - 1] = WORD_END;
  const each = (HASHING_CHAR_NGRAMS_WEIGHT * weight) / Math.sqrt(charNgramCount(length));
  for (let first = 0; first + HASHING_CHAR_NGRAM_MIN <= length; first++) {
    let h = FNV_OFFSET ^ SEED_CHAR;
    const last = Math.min(length, first + HASHING_CHAR_NGRAM_MAX);
    for (let i = first; i < last; i++) {
      h = fnv1aStep(h, codes[i]);
      if (i - first + 1 >= HASHING_CHAR_NGRAM_MIN) addFeature(vector, finalize(h), each);
    }
  }
}

/** The distinct words of the text being embedded (embedding is synchronous: one at a time per thread). */
const distinctWords = new DistinctWords();

/** Embeds one text; an empty or separator-only text gives the all-zero vector. */
export function hashingVector(text: string, dimensions: number = HASHING_DEFAULT_DIMENSIONS): Float32Array {
  const vector = new Float32Array(dimensions);
  const normalized = wordText(text);
  const { size, starts, ends, occurrences } = distinctWords.count(normalized);
  if (size === 0) return vector;
  // Words in order of first occurrence, each weighted by its count: the order of the float additions is fixed.
  for (let word = 0; word < size; word++) {
    const weight = tfWeight(occurrences[word]) * (isFunctionWord(normalized, starts[word], ends[word]) ? HASHING_FUNCTION_WORD_WEIGHT : 1);
    addWordFeatures(vector, normalized, starts[word], ends[word], weight);
  }
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
