// Loads a HuggingFace tokenizer.json into a plain text -> token ids function for static embedding models:
// normalizer, pre-tokenizer and a WordPiece, Unigram or BPE vocabulary. It never adds special tokens.

import { ModelProviderError } from '../model-error.ts';
import { bpeModel } from './bpe.ts';
import { buildNormalizer } from './normalizer.ts';
import { buildPreTokenizer } from './pre-tokenizer.ts';
import type { TokenModel } from './token-model.ts';
import { unigramModel } from './unigram.ts';
import { wordPieceModel } from './wordpiece.ts';

export const SUPPORTED_TOKENIZER_MODELS = ['WordPiece', 'Unigram', 'BPE'] as const;

export interface TextTokenizer {
  readonly modelType: TokenModel['type'];
  readonly unkId: number | null;
  /** One more than the highest id the tokenizer can emit (vocabulary and added tokens). */
  readonly vocabSize: number;
  /** Median token length in characters, used to pre-truncate very long texts like model2vec does. */
  readonly medianTokenChars: number;
  /** Token ids of `text`, without special tokens; unknown pieces appear as `unkId`. */
  encode(text: string): number[];
  /** Token strings of `text` (for tests and diagnostics). */
  tokens(text: string): string[];
}

function unsupported(message: string): ModelProviderError {
  return new ModelProviderError('tokenizer_unsupported', message);
}

function tokenModel(spec: unknown, where: string): TokenModel {
  const model = (spec ?? {}) as Record<string, unknown>;
  // Older tokenizer.json files omit model.type; their shape still tells the kind.
  const type = model.type ?? (Array.isArray(model.merges) ? 'BPE' : Array.isArray(model.vocab) ? 'Unigram' : 'WordPiece');
  if (type === 'WordPiece') return wordPieceModel(model, where);
  if (type === 'Unigram') return unigramModel(model, where);
  if (type === 'BPE') return bpeModel(model, where);
  throw unsupported(`${where}: tokenizer model ${JSON.stringify(type)} is not supported (supported: ${SUPPORTED_TOKENIZER_MODELS.join(', ')})`);
}

function addedTokenIds(spec: unknown): number[] {
  if (!Array.isArray(spec)) return [];
  return spec.map((token) => (token as { id?: unknown }).id).filter((id): id is number => Number.isInteger(id));
}

function median(values: number[]): number {
  if (values.length === 0) return 1;
  const sorted = values.slice().sort((a, b) => a - b);
  return Math.max(1, sorted[Math.floor(sorted.length / 2)]);
}

function inverse(vocabulary: ReadonlyMap<string, number>): Map<number, string> {
  const byId = new Map<number, string>();
  for (const [token, id] of vocabulary) if (!byId.has(id)) byId.set(id, token);
  return byId;
}

/** `json` is the parsed tokenizer.json; `where` names it in errors. */
export function loadTokenizerJson(json: unknown, where = 'tokenizer.json'): TextTokenizer {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new ModelProviderError('model_file_invalid', `${where}: not a JSON object`);
  const spec = json as Record<string, unknown>;
  const normalize = buildNormalizer(spec.normalizer, where);
  const preTokenize = buildPreTokenizer(spec.pre_tokenizer, where);
  const model = tokenModel(spec.model, where);
  const ids = [...model.vocabulary.values(), ...addedTokenIds(spec.added_tokens)];
  const vocabSize = ids.reduce((max, id) => Math.max(max, id + 1), 0);
  const encode = (text: string): number[] => preTokenize(normalize(text)).flatMap((piece) => model.tokenize(piece));
  let byId: Map<number, string> | null = null;
  return {
    modelType: model.type,
    unkId: model.unkId,
    vocabSize,
    medianTokenChars: median([...model.vocabulary.keys()].map((token) => Array.from(token).length)),
    encode,
    tokens: (text) => encode(text).map((id) => (byId ??= inverse(model.vocabulary)).get(id) ?? `<${id}>`),
  };
}
