// The dense lane's best rows rescored in float32. Serving holds int8 codes of the vectors (memory per chunk):
// their rounding moves a cosine by about 0.002 at 384 dimensions, which reorders rows whose scores are that close.
// Over chunks of 2,000 characters the ten best often are (SciFact, 100,000 chunks: recall@10 against an exact
// float32 scan 0.965 walking graphs, 0.980 scanning every code). The best rows by code get their exact cosine,
// from the full-precision vectors the store keeps; reading them costs a page's worth, whatever the corpus.

import type { ClientSnapshot } from '../serving/snapshot.ts';
import { segmentIndexOf } from '../serving/snapshot.ts';
import { chunkAtRow, rowOfOrdinal } from '../serving/segment.ts';
import type { Segment } from '../serving/segment.ts';
import type { LaneHit } from './dense-lane.ts';
import { QUANTIZATION_SCALE } from '../serving/quantized-scan.ts';
import { drainSorted, newTopK, offer } from './top-k.ts';

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
  // The best `count` by code (ties by ordinal, as the lane ranks them), selected without sorting every hit.
  const best = newTopK(Math.min(count, hits.length));
  hits.forEach((hit) => offer(best, hit.score, hit.ordinal));
  const order = drainSorted(best);
  const lowest = order[Math.min(ranked, order.length) - 1].score - DENSE_RESCORE_BAND;
  const rankOf = new Map(order.map((hit, rank) => [hit.id, rank]));
  const indexAt = new Array<number>(order.length);
  hits.forEach((hit, index) => {
    const rank = rankOf.get(hit.ordinal);
    if (rank !== undefined) indexAt[rank] = index;
  });
  // Rows of one text (equal text hashes, which cover the chunk's position) and equal codes were embedded from the
  // same text: they hold one vector, read once. Copies (a boilerplate chunk, a document uploaded under several
  // ids) otherwise fill the head with reads of the same vector.
  const head: { index: number; read: number }[] = [];
  const keys: { generation: number; chunkIndex: number }[] = [];
  const readRows: { segment: Segment; row: number; textHash: number }[] = [];
  for (let rank = 0; rank < order.length; rank++) {
    const { id: ordinal, score } = order[rank];
    if (score < lowest) break;
    const at = segmentIndexOf(snapshot, ordinal);
    const segment = at < 0 ? undefined : snapshot.segments[at];
    const row = segment ? rowOfOrdinal(segment, ordinal) : -1;
    if (!segment || row < 0) continue;
    const chunk = chunkAtRow(segment, row);
    let read = readRows.findIndex((other) => other.textHash === chunk.textHash && sameCodes(other.segment, other.row, segment, row));
    if (read < 0) {
      read = keys.length;
      keys.push({ generation: chunk.version.generation, chunkIndex: chunk.chunkIndex });
      readRows.push({ segment, row, textHash: chunk.textHash });
    }
    head.push({ index: indexAt[rank], read });
  }
  const vectors = await read(keys);
  const scores = vectors.map((vector) => {
    if (!vector || vector.length !== query.length) return null;
    let score = 0;
    for (let d = 0; d < query.length; d++) score += vector[d] * query[d];
    return score;
  });
  for (const { index, read } of head) {
    const score = scores[read];
    if (score !== null) hits[index] = { ordinal: hits[index].ordinal, score };
  }
}

function sameCodes(a: Segment, rowA: number, b: Segment, rowB: number): boolean {
  const dimensions = a.dimensions;
  if (b.dimensions !== dimensions) return false;
  for (let d = 0; d < dimensions; d++) if (a.codes[rowA * dimensions + d] !== b.codes[rowB * dimensions + d]) return false;
  return true;
}
