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
import { QUANTIZATION_SCALE } from '../codec/quantization.ts';
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
 * The chunks whose rows get their exact cosine: among the rows of `hits` within DENSE_RESCORE_BAND of the
 * `ranked`-th best (by their scores from the codes), the best `count` chunks, each with all its copies. Copies
 * (equal text hashes, which cover the chunk's position, and equal codes: one text, embedded once) hold one vector,
 * read once: a boilerplate chunk or a document uploaded under many ids would otherwise fill the head with one
 * vector and leave the rows that rescoring should order unread (at 1,000,000 chunks made of 5,473 texts, each of
 * the ten best rows has about 180 copies). A row whose ordinal the snapshot cannot back is left out.
 */
function rescoredChunks(snapshot: ClientSnapshot, hits: readonly LaneHit[], ranked: number, count: number): Copies[] {
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
  return chunks.slice(0, count);
}

/**
 * The chunks of rescoredChunks(unfiltered) as they stand among `hits`, a filtered request's: each keeps the row
 * its vector is read from, and lists the hits that are its copies; those with none among `hits` are dropped.
 */
function amongFiltered(head: readonly Copies[], unfiltered: readonly LaneHit[], hits: readonly LaneHit[]): Copies[] {
  const chunkOf = new Map<number, number>();
  head.forEach((copies, at) => {
    for (const index of copies.hits) chunkOf.set(unfiltered[index].ordinal, at);
  });
  const kept = head.map((copies): Copies => ({ ...copies, hits: [] }));
  hits.forEach((hit, index) => {
    const at = chunkOf.get(hit.ordinal);
    if (at !== undefined) kept[at].hits.push(index);
  });
  return kept.filter((copies) => copies.hits.length > 0);
}

/**
 * Gives the best rows of `hits` their exact cosine with `query`, in place (rescoredChunks picks them). A row whose
 * vector is gone keeps its score: the content lane's evidence check still meets it.
 *
 * `unfiltered`, for a request whose filters narrowed its eligible rows, is the same dense search over the rows it
 * may see before its filters; the rows rescored are then those that search rescores, as far as the filters leave
 * them. Picked among the filtered hits, whether a row got its exact cosine would depend on which other rows a
 * filter removed, and a filter could reorder the rows both answers hold (SPEC.md search rule 7). A filtered row
 * outside the unfiltered band keeps its score by code, as it does in the unfiltered answer.
 */
export async function rescoreDenseHead(snapshot: ClientSnapshot, hits: LaneHit[], query: Float32Array, ranked: number, count: number, read: ChunkVectorReader, unfiltered?: readonly LaneHit[]): Promise<void> {
  const picked = unfiltered ?? hits;
  if (hits.length === 0 || picked.length === 0 || count <= 0 || ranked <= 0) return;
  const chosen = rescoredChunks(snapshot, picked, ranked, count);
  const head = unfiltered ? amongFiltered(chosen, unfiltered, hits) : chosen;
  if (head.length === 0) return;
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
