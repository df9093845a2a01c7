// Weighted fusion of the content lanes by alpha: each lane's scores are normalized to [0, 1] per query,
// then combined as alpha * dense + (1 - alpha) * sparse. alpha 0 and 1 leave one lane alone.

import type { LaneResult } from './dense-lane.ts';

/**
 * Cosine similarity that counts as no dense evidence in fusion. BM25 scores have no fixed scale, so they
 * are divided by the query's best score; cosines already have one, so they map linearly from this floor
 * (0) to 1 instead of being stretched so the best dense match always scores like the best keyword match.
 * Measured with bench/relevance (SciFact train, Cranfield, hashing embedder): stretching the dense lane
 * cost 0.04 nDCG@10; floors of 0.2 to 0.3 cost up to 0.003; 0.4 keeps the default at the alpha-0 score
 * while strong dense matches (rephrasings, misspellings) still count.
 */
export const DENSE_EVIDENCE_FLOOR = 0.4;

/** Fused score per chunk ordinal. */
export function fuseLanes(sparse: LaneResult, dense: LaneResult, alpha: number, denseFloor: number = DENSE_EVIDENCE_FLOOR): Map<number, number> {
  const fused = new Map<number, number>();
  let sparseMax = 0;
  for (const hit of sparse.hits) if (hit.score > sparseMax) sparseMax = hit.score;
  for (const hit of sparse.hits) fused.set(hit.ordinal, (1 - alpha) * (sparseMax > 0 ? hit.score / sparseMax : 0));
  for (const hit of dense.hits) {
    const evidence = Math.max(0, (hit.score - denseFloor) / (1 - denseFloor));
    fused.set(hit.ordinal, (fused.get(hit.ordinal) ?? 0) + alpha * evidence);
  }
  return fused;
}
