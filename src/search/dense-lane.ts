// The dense lane: exact cosine similarity of a unit query vector against every eligible chunk vector.
// Scores are plain dot products because stored vectors are unit length; nothing here is approximate.

import type { Segment } from '../serving/segment.ts';
import { newTopK, offer, drainSorted } from './top-k.ts';
import { topRowsByInnerProduct } from '../serving/quantized-scan.ts';

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

/** Extra first-pass candidates beyond the cap, absorbing int8 rounding near the cut-off. */
export const QUANTIZATION_MARGIN = 100;

function exactScore(vectors: Float32Array, row: number, dimensions: number, query: Float32Array): number {
  let score = 0;
  const base = row * dimensions;
  for (let d = 0; d < dimensions; d++) score += vectors[base + d] * query[d];
  return score;
}

export function searchDense(
  segments: readonly Segment[],
  query: Float32Array,
  eligible: Uint8Array,
  options: { cap?: number; floor?: number } = {},
): LaneResult {
  const cap = options.cap ?? DENSE_CANDIDATE_CAP;
  const floor = options.floor ?? DENSE_CANDIDATE_FLOOR;
  const top = newTopK(cap);
  let matched = 0;
  let saturated = false;
  for (const segment of segments) {
    const { vectors, dimensions } = segment;
    if (query.length !== dimensions) continue; // vectors of another model never meet this query
    const { ordinals } = segment;
    const rows = ordinals.length;
    let eligibleRows = 0;
    if (segment.quantized) for (let row = 0; row < rows; row++) eligibleRows += eligible[ordinals[row]];
    if (segment.quantized && eligibleRows * 2 > rows) {
      // Native int8 first pass over every row, then exact float32 scores for its candidates. Enough
      // candidates are taken that every ineligible row could sit among them and the cap still be met.
      const wanted = Math.min(rows, cap + (rows - eligibleRows) + QUANTIZATION_MARGIN);
      const candidates = topRowsByInnerProduct(segment.quantized, query, dimensions, wanted);
      let lastScore = Number.POSITIVE_INFINITY;
      for (const row of candidates) {
        const ordinal = ordinals[row];
        const score = exactScore(vectors, row, dimensions, query);
        lastScore = score;
        if (eligible[ordinal] !== 1 || score < floor) continue;
        matched++;
        offer(top, score, ordinal);
      }
      // The first pass stopped while still above the floor: more rows may match than were seen.
      if (candidates.length < rows && lastScore >= floor) saturated = true;
      continue;
    }
    for (let row = 0; row < rows; row++) {
      const ordinal = ordinals[row];
      if (eligible[ordinal] !== 1) continue;
      const score = exactScore(vectors, row, dimensions, query);
      if (score < floor) continue;
      matched++;
      offer(top, score, ordinal);
    }
  }
  return { hits: drainSorted(top).map((hit) => ({ ordinal: hit.id, score: hit.score })), matched, exhausted: matched <= cap && !saturated };
}
