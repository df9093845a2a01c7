// The dense lane's best rows rescored in float32. Serving holds int8 codes of the vectors (memory per chunk):
// their rounding moves a cosine by about 0.002 at 384 dimensions, which reorders rows whose scores are that close.
// Over chunks of 2,000 characters the ten best often are (SciFact, 100,000 chunks: recall@10 against an exact
// float32 scan 0.965 walking graphs, 0.980 scanning every code). The best rows by code get their exact cosine,
// from the full-precision vectors the store keeps; reading them costs a page's worth, whatever the corpus.

import type { ClientSnapshot } from '../serving/snapshot.ts';
import { chunkByOrdinal } from '../serving/snapshot.ts';
import type { LaneHit } from './dense-lane.ts';
import { QUANTIZATION_SCALE } from '../serving/quantized-scan.ts';

/** Rows that must come out in their exact order when the caller needs fewer (a first page). */
export const DEFAULT_RANKED_ROWS = 10;
/** Rows rescored at most (more when a deep page needs more ranked well). */
export const DENSE_RESCORE_ROWS = 32;
/**
 * How far below the `ranked`-th best score by code a row can be and still belong above it: six times the spread of
 * a code's rounding error in a cosine (each component off by up to half a step, 1 / (scale * sqrt(12)) in all, about
 * 0.0009). Rows further below cannot move into the rows that must come out right, so they are not read.
 */
export const DENSE_RESCORE_BAND = 6 / (QUANTIZATION_SCALE * Math.sqrt(12));

/** The stored float32 vectors of these chunks, in the order asked, null where one is gone. */
export type ChunkVectorReader = (keys: { generation: number; chunkIndex: number }[]) => Promise<(Float32Array | null)[]>;

/**
 * Gives the best `count` of `hits` (by their scores from the codes) their exact cosine with `query`, in place,
 * down to DENSE_RESCORE_BAND below the `ranked`-th best. A row whose vector is gone, or whose ordinal the snapshot
 * cannot back, keeps its score: the content lane's evidence check still meets it.
 */
export async function rescoreDenseHead(snapshot: ClientSnapshot, hits: LaneHit[], query: Float32Array, ranked: number, count: number, read: ChunkVectorReader): Promise<void> {
  if (hits.length === 0 || count <= 0) return;
  const order = hits.map((_, index) => index);
  order.sort((a, b) => hits[b].score - hits[a].score || hits[a].ordinal - hits[b].ordinal);
  const lowest = hits[order[Math.min(ranked, order.length) - 1]].score - DENSE_RESCORE_BAND;
  const head: number[] = [];
  const keys: { generation: number; chunkIndex: number }[] = [];
  for (const index of order.slice(0, count)) {
    if (hits[index].score < lowest) break;
    const chunk = chunkByOrdinal(snapshot, hits[index].ordinal);
    if (!chunk) continue;
    head.push(index);
    keys.push({ generation: chunk.version.generation, chunkIndex: chunk.chunkIndex });
  }
  const vectors = await read(keys);
  head.forEach((index, at) => {
    const vector = vectors[at];
    if (!vector || vector.length !== query.length) return;
    let score = 0;
    for (let d = 0; d < query.length; d++) score += vector[d] * query[d];
    hits[index] = { ordinal: hits[index].ordinal, score };
  });
}
