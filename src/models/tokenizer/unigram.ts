// Unigram (SentencePiece) vocabularies: the most probable segmentation of a piece by Viterbi search
// over the vocabulary's log-probabilities. Uncovered characters become the unknown token (or bytes).

import { ModelProviderError } from '../model-error.ts';
import { byteFallbackIds, memoize, type TokenModel } from './token-model.ts';

/** The reference scores an uncovered character this far below the least likely vocabulary entry. */
export const UNIGRAM_UNKNOWN_PENALTY = 10;

function fail(message: string): ModelProviderError {
  return new ModelProviderError('model_file_invalid', message);
}

interface Lattice { vocabulary: Map<string, number>; scores: Float64Array; maxPieceChars: number; unkId: number | null; unkScore: number }

function readVocabulary(spec: Record<string, unknown>, where: string): Lattice {
  if (!Array.isArray(spec.vocab)) throw fail(`${where}: Unigram model.vocab must be an array of [piece, score]`);
  const vocabulary = new Map<string, number>();
  const scores = new Float64Array(spec.vocab.length);
  let maxPieceChars = 1;
  let minScore = Infinity;
  spec.vocab.forEach((entry: unknown, id: number) => {
    const [piece, score] = Array.isArray(entry) ? entry : [];
    if (typeof piece !== 'string' || typeof score !== 'number') throw fail(`${where}: Unigram vocab entry ${id} is not [string, number]`);
    if (!vocabulary.has(piece)) vocabulary.set(piece, id);
    scores[id] = score;
    minScore = Math.min(minScore, score);
    maxPieceChars = Math.max(maxPieceChars, Array.from(piece).length);
  });
  const unkId = Number.isInteger(spec.unk_id) ? (spec.unk_id as number) : null;
  if (unkId !== null && (unkId < 0 || unkId >= scores.length)) throw fail(`${where}: Unigram unk_id ${unkId} is outside the vocabulary`);
  return { vocabulary, scores, maxPieceChars, unkId, unkScore: minScore - UNIGRAM_UNKNOWN_PENALTY };
}

// best[i] is the best log-probability of text[0..i); each step remembers where its last token began.
function viterbi(piece: string, lattice: Lattice): Array<{ id: number | null; text: string }> {
  const offsets = [0];
  for (const char of piece) offsets.push(offsets.at(-1)! + char.length);
  const n = offsets.length - 1;
  const best = new Float64Array(n + 1).fill(-Infinity);
  const from = new Int32Array(n + 1).fill(-1);
  const token = new Array<number | null>(n + 1).fill(null);
  best[0] = 0;
  for (let i = 0; i < n; i++) {
    if (best[i] === -Infinity) continue;
    let coveredOneChar = false;
    for (let length = 1; length <= lattice.maxPieceChars && i + length <= n; length++) {
      const id = lattice.vocabulary.get(piece.slice(offsets[i], offsets[i + length]));
      if (id === undefined) continue;
      if (length === 1) coveredOneChar = true;
      const score = best[i] + lattice.scores[id];
      if (score > best[i + length]) { best[i + length] = score; from[i + length] = i; token[i + length] = id; }
    }
    if (!coveredOneChar && best[i] + lattice.unkScore > best[i + 1]) { best[i + 1] = best[i] + lattice.unkScore; from[i + 1] = i; token[i + 1] = null; }
  }
  const path: Array<{ id: number | null; text: string }> = [];
  for (let end = n; end > 0; end = from[end]) path.push({ id: token[end], text: piece.slice(offsets[from[end]], offsets[end]) });
  return path.reverse();
}

export function unigramModel(spec: Record<string, unknown>, where: string): TokenModel {
  const lattice = readVocabulary(spec, where);
  const byteFallback = spec.byte_fallback === true;
  const tokenize = memoize((piece) => {
    const ids: number[] = [];
    let previousUnknown = false;
    for (const step of viterbi(piece, lattice)) {
      if (step.id !== null) { ids.push(step.id); previousUnknown = false; continue; }
      const bytes = byteFallback ? byteFallbackIds(step.text, lattice.vocabulary) : null;
      if (bytes) { ids.push(...bytes); previousUnknown = false; continue; }
      // Consecutive unknown characters fuse into one unknown token, as in the reference.
      if (!previousUnknown && lattice.unkId !== null) ids.push(lattice.unkId);
      previousUnknown = true;
    }
    return ids;
  });
  return { type: 'Unigram', unkId: lattice.unkId, vocabulary: lattice.vocabulary, tokenize };
}
