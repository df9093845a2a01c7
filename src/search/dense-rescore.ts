// The dense lane's best rows rescored in float32. Serving holds int8 codes of the vectors (memory per chunk):
// their rounding moves a cosine by about 0.002 at 384 dimensions, which reorders rows whose scores are that close.
// Over chunks of 2,000 characters the ten best often are (SciFact, 100,000 chunks: recall@10 against an exact
// float32 scan 0.965 walking graphs, 0.980 scanning every code). The best chunks by code get their exact cosine,
// from the full-precision vectors the store keeps; reading them costs a page's worth, whatever the corpus.

import type { ClientSnapshot } from '../serving/snapshot.ts';
import { segmentIndexOf } from '../serving/snapshot.ts';
import { chunkAtRow, rowOfOrdinal } from '../serving/segment.ts';
import type { Segment } from '../serving/segment.ts';
import type { LaneHit } from './dense-lane.ts';
import { QUANTIZATION_SCALE } from '../serving/quantized-scan.ts';
import { newTopK, offer } from './top-k.ts';

/** Rows that must come out in their exact order when the caller needs fewer (a first page). */
export const DEFAULT_RANKED_ROWS = 10;
/**
 * Chunks rescored at most: distinct texts, each read once for all its copies (more when a deep page needs more
 * ranked well).
 */
export const DENSE_RESCORE_CHUNKS = 32;
/**
 * How far below the `ranked`-th best score by code a row can be and still belong above it: six times the spread of
 * a code's rounding error in a cosine (each component off by up to half a step, 1 / (scale * sqrt(12)) in all, about
 * 0.0009). Rows further below cannot move into the rows that must come out right, so they are not read.
 */
export const DENSE_RESCORE_BAND = 6 / (QUANTIZATION_SCALE * Math.sqrt(12));

/** The stored float32 vectors of these chunks, in the order asked, null where one is gone. */
export type ChunkVectorReader = (keys: { generation: number; chunkIndex: number }[]) => Promise<(Float32Array | null)[]>;

/** Rows of the band that are copies of one chunk: one text at one position, with one code, so one vector. */
interface Copies {
  score: number;
  segment: Segment;
  /** The row read for them all: the lowest ordinal's. */
  row: number;
  ordinal: number;
  /** Indexes into the lane's hits. */
  hits: number[];
}

/**
 * Gives the rows of `hits` within DENSE_RESCORE_BAND of the `ranked`-th best (by their scores from the codes) their
 * exact cosine with `query`, in place: the best `count` chunks among them, each with all its copies. Copies (equal
 * text hashes, which cover the chunk's position, and equal codes: one text, embedded once) hold one vector, read
 * once: a boilerplate chunk or a document uploaded under many ids would otherwise fill the head with one vector
 * and leave the rows that rescoring should order unread (at 1,000,000 chunks made of 5,473 texts, each of the
 * ten best rows has about 180 copies). A row whose vector is gone, or whose ordinal the snapshot cannot back,
 * keeps its score: the content lane's evidence check still meets it.
 */
export async function rescoreDenseHead(snapshot: ClientSnapshot, hits: LaneHit[], query: Float32Array, ranked: number, count: number, read: ChunkVectorReader): Promise<void> {
  if (hits.length === 0 || count <= 0 || ranked <= 0) return;
  // The `ranked`-th best score by code, found without sorting every hit: the root of a heap of the best.
  const best = newTopK(Math.min(ranked, hits.length));
  hits.forEach((hit) => offer(best, hit.score, hit.ordinal));
  const lowest = best.scores[0] - DENSE_RESCORE_BAND;
  const byTextHash = new Map<number, Copies[]>();
  const chunks: Copies[] = [];
  hits.forEach((hit, index) => {
    if (hit.score < lowest) return;
    const at = segmentIndexOf(snapshot, hit.ordinal);
    const segment = at < 0 ? undefined : snapshot.segments[at];
    const row = segment ? rowOfOrdinal(segment, hit.ordinal) : -1;
    if (!segment || row < 0) return;
    const textHash = segment.textHashes[row];
    let same = byTextHash.get(textHash);
    if (!same) byTextHash.set(textHash, (same = []));
    let copies = same.find((other) => other.score === hit.score && sameCodes(other.segment, other.row, segment, row));
    if (!copies) {
      copies = { score: hit.score, segment, row, ordinal: hit.ordinal, hits: [] };
      same.push(copies);
      chunks.push(copies);
    } else if (hit.ordinal < copies.ordinal) {
      copies.segment = segment;
      copies.row = row;
      copies.ordinal = hit.ordinal;
    }
    copies.hits.push(index);
  });
  chunks.sort((a, b) => b.score - a.score || a.ordinal - b.ordinal);
  const head = chunks.slice(0, count);
  const vectors = await read(
    head.map(({ segment, row }) => {
      const chunk = chunkAtRow(segment, row);
      return { generation: chunk.version.generation, chunkIndex: chunk.chunkIndex };
    }),
  );
  head.forEach((copies, at) => {
    const vector = vectors[at];
    if (!vector || vector.length !== query.length) return;
    let score = 0;
    for (let d = 0; d < query.length; d++) score += vector[d] * query[d];
    for (const index of copies.hits) hits[index] = { ordinal: hits[index].ordinal, score };
  });
}

function sameCodes(a: Segment, rowA: number, b: Segment, rowB: number): boolean {
  const dimensions = a.dimensions;
  if (b.dimensions !== dimensions) return false;
  for (let d = 0; d < dimensions; d++) if (a.codes[rowA * dimensions + d] !== b.codes[rowB * dimensions + d]) return false;
  return true;
}
