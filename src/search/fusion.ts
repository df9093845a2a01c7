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

export interface FusedScore {
  score: number;
  /**
   * Orders equal scores: the same weighting over the raw cosine, so chunks whose dense similarity is
   * below the evidence floor (score 0 at alpha 1) still rank by similarity rather than arbitrarily.
   */
  tieBreak: number;
}

/** Fused score per chunk ordinal. */
export function fuseLanes(sparse: LaneResult, dense: LaneResult, alpha: number, denseFloor: number = DENSE_EVIDENCE_FLOOR): Map<number, FusedScore> {
  const fused = new Map<number, FusedScore>();
  let sparseMax = 0;
  for (const hit of sparse.hits) if (hit.score > sparseMax) sparseMax = hit.score;
  for (const hit of sparse.hits) {
    const weighted = (1 - alpha) * (sparseMax > 0 ? hit.score / sparseMax : 0);
    fused.set(hit.ordinal, { score: weighted, tieBreak: weighted });
  }
  for (const hit of dense.hits) {
    const evidence = Math.max(0, (hit.score - denseFloor) / (1 - denseFloor));
    const entry = fused.get(hit.ordinal) ?? { score: 0, tieBreak: 0 };
    entry.score += alpha * evidence;
    entry.tieBreak += alpha * hit.score;
    fused.set(hit.ordinal, entry);
  }
  return fused;
}
