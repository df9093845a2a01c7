// Weighted fusion of the content lanes by alpha: each lane's scores are normalized to [0, 1] per query,
// then combined as alpha * dense + (1 - alpha) * sparse. alpha 0 and 1 leave one lane alone.

import type { LaneResult } from './dense-lane.ts';

/**
 * Cosine similarity that counts as no dense evidence in fusion. BM25 scores have no fixed scale, so they
 * are divided by the query's best score (among the chunks the request may see before its filters: fuseLanes);
 * cosines already have one, so they map linearly from this floor (0) to 1 instead of being stretched so the
 * best dense match always scores like the best keyword match.
 * Measured with bench/relevance (SciFact train, Cranfield, hashing embedder): stretching the dense lane
 * cost 0.04 nDCG@10; floors of 0.2 to 0.3 cost up to 0.003; 0.4 keeps the default at the alpha-0 score
 * while strong dense matches (rephrasings, misspellings) still count.
 */
export const DENSE_EVIDENCE_FLOOR = 0.4;

/**
 * The fused candidates, one per chunk ordinal that either lane returned, in typed arrays (no object per chunk):
 * candidate i is chunk ordinals[i] with fused score scores[i] and tie-break tieBreaks[i], for i below size.
 * tieBreaks orders equal scores: the same weighting over the raw cosine, so chunks whose dense similarity is
 * below the evidence floor (score 0 at alpha 1) still rank by similarity rather than arbitrarily.
 */
export interface FusedCandidates {
  readonly size: number;
  readonly ordinals: Int32Array;
  readonly scores: Float64Array;
  readonly tieBreaks: Float64Array;
}

/** Arrays to fuse into, each with room for every hit of both lanes (the content lane reuses its own). */
export type FusionArrays = Pick<FusedCandidates, 'ordinals' | 'scores' | 'tieBreaks'>;

/**
 * Fused score per chunk ordinal: the sparse lane's hits first, in its order, then the dense lane's others. Written
 * into `into` when given (zeroed first as far as the candidates go), into new arrays otherwise.
 * `sparseBest` is the BM25 score that counts as 1: the best of the request's eligible chunks before its filters
 * (SPEC.md search rule 7: filters never affect rank). Taken from the hits it would rescale the sparse lane against
 * the dense one whenever a filter hides the best keyword match; without it (an unfiltered request) the hits hold
 * that best score themselves.
 */
export function fuseLanes(sparse: LaneResult, dense: LaneResult, alpha: number, denseFloor: number = DENSE_EVIDENCE_FLOOR, into?: FusionArrays, sparseBest?: number): FusedCandidates {
  const capacity = sparse.hits.length + dense.hits.length;
  if (into && (into.ordinals.length < capacity || into.scores.length < capacity || into.tieBreaks.length < capacity)) throw new RangeError(`fuseLanes: room for ${capacity} candidates needed`);
  const { ordinals, scores, tieBreaks } = into ?? { ordinals: new Int32Array(capacity), scores: new Float64Array(capacity), tieBreaks: new Float64Array(capacity) };
  scores.fill(0, 0, capacity);
  tieBreaks.fill(0, 0, capacity);
  let sparseMax = sparseBest ?? 0;
  for (const hit of sparse.hits) if (hit.score > sparseMax) sparseMax = hit.score;
  // Where each dense hit's ordinal sits among the candidates: the dense lane returns far fewer hits than the
  // sparse one, so the chunks both found are looked up in a map of the dense ones.
  const denseAt = new Map<number, number>();
  for (let i = 0; i < dense.hits.length; i++) denseAt.set(dense.hits[i].ordinal, -1);
  let size = 0;
  for (const hit of sparse.hits) {
    const weighted = (1 - alpha) * (sparseMax > 0 ? hit.score / sparseMax : 0);
    ordinals[size] = hit.ordinal;
    scores[size] = weighted;
    tieBreaks[size] = weighted;
    if (denseAt.size > 0 && denseAt.has(hit.ordinal)) denseAt.set(hit.ordinal, size);
    size++;
  }
  for (const hit of dense.hits) {
    const evidence = Math.max(0, (hit.score - denseFloor) / (1 - denseFloor));
    let at = denseAt.get(hit.ordinal)!;
    if (at < 0) {
      at = size++;
      ordinals[at] = hit.ordinal;
      denseAt.set(hit.ordinal, at);
    }
    scores[at] += alpha * evidence;
    tieBreaks[at] += alpha * hit.score;
  }
  return { size, ordinals, scores, tieBreaks };
}
