// BPE vocabularies: start from characters (or bytes after a ByteLevel pre-tokenizer) and apply the ranked
// merges, lowest rank first. No dropout; unknown characters become the unknown token or byte tokens.

import { ModelProviderError } from '../model-error.ts';
import { byteFallbackIds, memoize, vocabularyFromObject, type TokenModel } from './token-model.ts';

// Pair keys pack two ids into one safe integer; vocabularies stay far below this many ids.
const PAIR_KEY_BASE = 2 ** 24;

function fail(message: string): ModelProviderError {
  return new ModelProviderError('model_file_invalid', message);
}

interface Merges { ranks: Map<number, { rank: number; merged: number }> }

function mergePair(entry: unknown): [string, string] | null {
  if (Array.isArray(entry) && entry.length === 2 && entry.every((part) => typeof part === 'string')) return entry as [string, string];
  if (typeof entry !== 'string') return null;
  const parts = entry.split(' ');
  return parts.length === 2 ? (parts as [string, string]) : null;
}

function readMerges(spec: Record<string, unknown>, vocabulary: Map<string, number>, prefix: string, where: string): Merges {
  if (!Array.isArray(spec.merges)) throw fail(`${where}: BPE model.merges must be an array`);
  const ranks = new Map<number, { rank: number; merged: number }>();
  spec.merges.forEach((entry: unknown, rank: number) => {
    const pair = mergePair(entry);
    if (!pair) throw fail(`${where}: BPE merge ${rank} is not "a b" or [a, b]`);
    const [left, right] = pair;
    const leftId = vocabulary.get(left);
    const rightId = vocabulary.get(right);
    const merged = vocabulary.get(left + (prefix && right.startsWith(prefix) ? right.slice(prefix.length) : right));
    if (leftId === undefined || rightId === undefined || merged === undefined) throw fail(`${where}: BPE merge ${rank} (${left} ${right}) uses tokens missing from the vocabulary`);
    const key = leftId * PAIR_KEY_BASE + rightId;
    if (!ranks.has(key)) ranks.set(key, { rank, merged });
  });
  return { ranks };
}

interface Options { prefix: string; suffix: string; unkId: number | null; fuseUnk: boolean; byteFallback: boolean }

function initialSymbols(word: string, vocabulary: Map<string, number>, options: Options): number[] {
  const chars = Array.from(word);
  const ids: number[] = [];
  let previousUnknown = false;
  chars.forEach((char, index) => {
    const symbol = (index > 0 ? options.prefix : '') + char + (index === chars.length - 1 ? options.suffix : '');
    const id = vocabulary.get(symbol);
    if (id !== undefined) { ids.push(id); previousUnknown = false; return; }
    const bytes = options.byteFallback ? byteFallbackIds(char, vocabulary) : null;
    if (bytes) { ids.push(...bytes); previousUnknown = false; return; }
    if (options.unkId !== null && !(options.fuseUnk && previousUnknown)) ids.push(options.unkId);
    previousUnknown = true;
  });
  return ids;
}

function applyMerges(symbols: number[], merges: Merges): number[] {
  const ids = symbols.slice();
  for (;;) {
    let bestIndex = -1;
    let best: { rank: number; merged: number } | undefined;
    for (let i = 0; i + 1 < ids.length; i++) {
      const candidate = merges.ranks.get(ids[i] * PAIR_KEY_BASE + ids[i + 1]);
      if (candidate && (!best || candidate.rank < best.rank)) { best = candidate; bestIndex = i; }
    }
    if (!best) return ids;
    ids.splice(bestIndex, 2, best.merged);
  }
}

export function bpeModel(spec: Record<string, unknown>, where: string): TokenModel {
  const vocabulary = vocabularyFromObject(spec.vocab, where, fail);
  for (const id of vocabulary.values()) if (id >= PAIR_KEY_BASE) throw fail(`${where}: BPE token id ${id} is above the supported ${PAIR_KEY_BASE - 1}`);
  const prefix = typeof spec.continuing_subword_prefix === 'string' ? spec.continuing_subword_prefix : '';
  const options: Options = {
    prefix,
    suffix: typeof spec.end_of_word_suffix === 'string' ? spec.end_of_word_suffix : '',
    unkId: typeof spec.unk_token === 'string' ? (vocabulary.get(spec.unk_token) ?? null) : null,
    fuseUnk: spec.fuse_unk === true,
    byteFallback: spec.byte_fallback === true,
  };
  const merges = readMerges(spec, vocabulary, prefix, where);
  const ignoreMerges = spec.ignore_merges === true;
  const tokenize = memoize((word) => {
    const whole = ignoreMerges ? vocabulary.get(word) : undefined;
    return whole !== undefined ? [whole] : applyMerges(initialSymbols(word, vocabulary, options), merges);
  });
  return { type: 'BPE', unkId: options.unkId, vocabulary, tokenize };
}
