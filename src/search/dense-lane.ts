// The dense lane: exact cosine similarity of a unit query vector against every eligible chunk vector.
// Scores are plain dot products because stored vectors are unit length; nothing here is approximate.

import type { Segment } from '../publication/segment.ts';
import { TopK } from './top-k.ts';

/** Chunks below this cosine are not dense candidates (they would only add noise and inflate totals). */
export const DENSE_CANDIDATE_FLOOR = 0.2;
/** Bounded scan cap: at most this many dense candidates are kept; more makes totals a lower bound. */
export const DENSE_CANDIDATE_CAP = 1000;

export interface LaneHit {
  ordinal: number;
  score: number;
}

export interface LaneResult {
  hits: LaneHit[];
  /** Eligible chunks that matched (above the floor / with a positive score). */
  matched: number;
  /** True when every matching chunk is among the hits. */
  exhausted: boolean;
}

export function searchDense(
  segments: readonly Segment[],
  query: Float32Array,
  isEligible: (ordinal: number) => boolean,
  options: { cap?: number; floor?: number } = {},
): LaneResult {
  const cap = options.cap ?? DENSE_CANDIDATE_CAP;
  const floor = options.floor ?? DENSE_CANDIDATE_FLOOR;
  const top = new TopK(cap);
  let matched = 0;
  for (const segment of segments) {
    const { vectors, dimensions, chunks } = segment;
    if (query.length !== dimensions) continue; // vectors of another model never meet this query
    for (let row = 0; row < chunks.length; row++) {
      const ordinal = chunks[row].ordinal;
      if (!isEligible(ordinal)) continue;
      let score = 0;
      const base = row * dimensions;
      for (let d = 0; d < dimensions; d++) score += vectors[base + d] * query[d];
      if (score < floor) continue;
      matched++;
      top.push(ordinal, score);
    }
  }
  return { hits: top.sorted().map(([ordinal, score]) => ({ ordinal, score })), matched, exhausted: matched <= cap };
}
