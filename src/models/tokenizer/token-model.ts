// The contract shared by the WordPiece, Unigram and BPE vocabularies: one pre-tokenized piece in, token ids out.
// Models never normalize or split text themselves; that is the normalizer's and pre-tokenizer's job.

export interface TokenModel {
  readonly type: 'WordPiece' | 'Unigram' | 'BPE';
  /** Id of the unknown token, or null when the vocabulary has none. */
  readonly unkId: number | null;
  /** Every (token, id) of the model's vocabulary. */
  readonly vocabulary: ReadonlyMap<string, number>;
  tokenize(piece: string): number[];
}

/** Pieces are tokenized once and remembered; the cache is dropped when it reaches this many entries. */
export const TOKEN_CACHE_MAX_ENTRIES = 50_000;

/** Wraps a piece tokenizer with a bounded memo (texts repeat the same words constantly). */
export function memoize(tokenize: (piece: string) => number[]): (piece: string) => number[] {
  let cache = new Map<string, number[]>();
  return (piece) => {
    const known = cache.get(piece);
    if (known) return known;
    const ids = tokenize(piece);
    if (cache.size >= TOKEN_CACHE_MAX_ENTRIES) cache = new Map();
    cache.set(piece, ids);
    return ids;
  };
}

export function vocabularyFromObject(vocab: unknown, where: string, fail: (message: string) => Error): Map<string, number> {
  if (vocab === null || typeof vocab !== 'object' || Array.isArray(vocab)) throw fail(`${where}: model.vocab must be an object of token -> id`);
  const map = new Map<string, number>();
  for (const [token, id] of Object.entries(vocab as Record<string, unknown>)) {
    if (!Number.isInteger(id) || (id as number) < 0) throw fail(`${where}: token ${JSON.stringify(token)} has invalid id ${JSON.stringify(id)}`);
    map.set(token, id as number);
  }
  return map;
}

/** "<0x41>"-style byte tokens for byte_fallback vocabularies; null when any byte is missing. */
export function byteFallbackIds(text: string, vocabulary: ReadonlyMap<string, number>): number[] | null {
  const ids: number[] = [];
  for (const byte of new TextEncoder().encode(text)) {
    const id = vocabulary.get(`<0x${byte.toString(16).toUpperCase().padStart(2, '0')}>`);
    if (id === undefined) return null;
    ids.push(id);
  }
  return ids;
}
