// WordPiece (BERT) vocabularies: greedy longest-match-first with "##" continuation pieces.
// A word that cannot be fully covered becomes a single unknown token, exactly like the reference.

import { ModelProviderError } from '../model-error.ts';
import { memoize, vocabularyFromObject, type TokenModel } from './token-model.ts';

export const WORDPIECE_DEFAULT_UNK = '[UNK]';
export const WORDPIECE_DEFAULT_PREFIX = '##';
export const WORDPIECE_DEFAULT_MAX_WORD_CHARS = 100;

function fail(message: string): ModelProviderError {
  return new ModelProviderError('model_file_invalid', message);
}

function greedyPieces(word: string, vocabulary: ReadonlyMap<string, number>, prefix: string): number[] | null {
  const chars = Array.from(word);
  const ids: number[] = [];
  let start = 0;
  while (start < chars.length) {
    let end = chars.length;
    let found: number | undefined;
    while (start < end) {
      const candidate = (start > 0 ? prefix : '') + chars.slice(start, end).join('');
      found = vocabulary.get(candidate);
      if (found !== undefined) break;
      end--;
    }
    if (found === undefined) return null;
    ids.push(found);
    start = end;
  }
  return ids;
}

export function wordPieceModel(spec: Record<string, unknown>, where: string): TokenModel {
  const vocabulary = vocabularyFromObject(spec.vocab, where, fail);
  const unkToken = typeof spec.unk_token === 'string' ? spec.unk_token : WORDPIECE_DEFAULT_UNK;
  const prefix = typeof spec.continuing_subword_prefix === 'string' ? spec.continuing_subword_prefix : WORDPIECE_DEFAULT_PREFIX;
  const maxChars = Number.isInteger(spec.max_input_chars_per_word) ? (spec.max_input_chars_per_word as number) : WORDPIECE_DEFAULT_MAX_WORD_CHARS;
  const unkId = vocabulary.get(unkToken) ?? null;
  const unknown = unkId === null ? [] : [unkId];
  const tokenize = memoize((word) => {
    if (Array.from(word).length > maxChars) return unknown;
    return greedyPieces(word, vocabulary, prefix) ?? unknown;
  });
  return { type: 'WordPiece', unkId, vocabulary, tokenize };
}
