// BM25F search over immutable segments (sparse half of the content lane), global statistics summed over segments.
// A search that only needs matches counted up to a bound (as the content lane's) and whose query terms hold many
// postings for each hit it keeps (PRUNING_POSTINGS_PER_HIT) runs the pruning scorer (bm25-pruned.ts), which skips
// what cannot reach its best `limit`; the others scan every posting of every query term and select the best `limit`
// once (best-of.ts): the exhaustive scorer, which the pruning one is tested against. Both give the same hits with
// the same scores. Neither mutates a segment, and the per-query candidate predicate never
// changes a score.

import { bestOf, Candidates } from './best-of.ts';
import type { Bm25Segment } from '../codec/bm25-segment.ts';
import { canPrune, searchPruned } from './bm25-pruned.ts';
import { normsFor, planQuery, resolveLiveness } from './bm25-scoring.ts';
import type { Bm25Result, Bm25SearchOptions, NormCache, QueryPlan, Scoring } from './bm25-scoring.ts';

export { buildBm25Segment, mergeBm25Segments, MAX_STORED_TERM_FREQUENCY } from '../codec/bm25-segment.ts';
export type { Bm25Segment, FieldAnalyzer, SparseDoc } from '../codec/bm25-segment.ts';
export type { SparseHit } from './top-k.ts';
export { BM25_B, BM25_K1, BM25_TITLE_B, BM25_TITLE_WEIGHT, bm25Idf, computeBm25Stats, prepareBm25Liveness } from './bm25-scoring.ts';
export type { Bm25Liveness, Bm25Result, Bm25SearchOptions, Bm25Stats } from './bm25-scoring.ts';

/** Touched docs picked against one floor at a time once matches no longer need counting (collectSegment). */
const COLLECT_BLOCK = 1024;

/** Scratch accumulators reused across calls (search is synchronous, so no two calls share them at once). */
let scratchScores = new Float32Array(0);
let scratchTouched = new Int32Array(0);
/** The live matching docs of the search running now that may still be among its best (best-of.ts prunes). */
const candidates = new Candidates();

function scratchFor(docCount: number): void {
  if (scratchScores.length >= docCount) return;
  scratchScores = new Float32Array(docCount);
  // One more than the docs: accumulateTerm writes each posting's doc one past the touched ones before counting it.
  scratchTouched = new Int32Array(docCount + 1);
}



/**
 * Adds one term's contribution (weight = qtf * idf * (k1 + 1)) to the scratch accumulators; returns the touched count.
 * Searches as served (no statistics mask, a positive title weight) take a loop without a branch on the data: every
 * posting's tf is then positive (it has an occurrence in a field, and a field with one is not empty), a field
 * without the term adds 0 times a finite factor, and a doc is listed as touched by always writing it one past the
 * touched ones and counting it only when its score was 0. Branches there are taken at random and cost about a
 * fifth of the scan. Otherwise a posting can be masked out or add nothing (title weight 0), and is skipped.
 */
function accumulateTerm(segment: Bm25Segment, t: number, weight: number, sc: Scoring, norms: NormCache, mask: Uint8Array | undefined, touchedSoFar: number): number {
  const docs = segment.postingDocs;
  const textTfs = segment.postingTextTf;
  const titleTfs = segment.postingTitleTf;
  const textNorm = norms.text;
  const titleNorm = norms.title;
  const scores = scratchScores;
  const touchedDocs = scratchTouched;
  const k1 = sc.k1;
  const titleWeight = sc.titleWeight;
  let touched = touchedSoFar;
  const from = segment.postingStarts[t];
  const end = segment.postingStarts[t + 1];
  if (mask === undefined && titleWeight > 0) {
    for (let p = from; p < end; p++) {
      const d = docs[p];
      const tf = textTfs[p] * textNorm[d] + titleWeight * titleTfs[p] * titleNorm[d];
      const previous = scores[d];
      touchedDocs[touched] = d;
      touched += +(previous === 0);
      scores[d] = previous + (weight * tf) / (tf + k1);
    }
    return touched;
  }
  for (let p = from; p < end; p++) {
    const d = docs[p];
    if (mask !== undefined && mask[d] === 0) continue;
    const tf = textTfs[p] * textNorm[d] + titleWeight * titleTfs[p] * titleNorm[d];
    if (tf <= 0) continue;
    const previous = scores[d];
    if (previous === 0) touchedDocs[touched++] = d;
    scores[d] = previous + (weight * tf) / (tf + k1);
  }
  return touched;
}


/** Scores one segment's docs for all query terms into the scratch accumulators; returns the touched count. */
function scoreSegment(segment: Bm25Segment, termIds: Int32Array, query: QueryPlan, mask: Uint8Array | undefined): number {
  scratchFor(segment.docCount);
  const norms = normsFor(segment, query.scoring);
  let touched = 0;
  for (let q = 0; q < query.terms.length; q++) {
    const t = termIds[q];
    if (t >= 0 && query.weights[q] > 0) touched = accumulateTerm(segment, t, query.weights[q], query.scoring, norms, mask, touched);
  }
  return touched;
}

/** The best accumulated score among the touched docs `mask` admits (read before collectSegment clears them). */
function bestTouched(segment: Bm25Segment, touched: number, mask: Uint8Array): number {
  const scores = scratchScores;
  const touchedDocs = scratchTouched;
  const docIds = segment.docIds;
  let best = 0;
  for (let i = 0; i < touched; i++) {
    const d = touchedDocs[i];
    const score = scores[d];
    if (score > best && mask[docIds[d]] === 1) best = score;
  }
  return best;
}

/**
 * Moves the live touched docs into the candidates (those that can still be among the best: Candidates) and
 * clears the accumulators; returns how many were live (a lower bound past options.countUpTo).
 */
function collectSegment(segment: Bm25Segment, touched: number, options: Bm25SearchOptions, candidates: Candidates): number {
  const { isLive, liveById } = options;
  const scores = scratchScores;
  const touchedDocs = scratchTouched;
  const docIds = segment.docIds;
  candidates.reserve(touched);
  const keptScores = candidates.scores;
  const keptIds = candidates.ids;
  const binScale = candidates.binScale;
  let floorBin = candidates.floorBin;
  let compactAt = candidates.compactAt;
  let kept = candidates.size;
  let matched = 0;
  const countUpTo = options.countUpTo ?? Number.POSITIVE_INFINITY;
  /** Counts a doc when it is live and keeps it when it can still be among the best. */
  const take = (d: number, score: number): void => {
    const below = score * binScale < floorBin;
    const id = docIds[d];
    if (liveById !== undefined && liveById[id] !== 1) return;
    if (isLive !== undefined && !isLive(id)) return;
    matched++;
    if (below) return;
    keptScores[kept] = score;
    keptIds[kept++] = id;
    if (kept === compactAt) {
      // In place: the arrays stay the ones reserved above.
      candidates.size = kept;
      candidates.compact();
      kept = candidates.size;
      floorBin = candidates.floorBin;
      compactAt = candidates.compactAt;
    }
  };
  // While matches must still be counted, every touched doc is read for its id and liveness.
  let i = 0;
  for (; i < touched && matched <= countUpTo; i++) {
    const d = touchedDocs[i];
    const score = scores[d];
    scores[d] = 0;
    take(d, score);
  }
  // Past the count, only docs at or above the floor matter. Block by block, they are picked out first without a
  // branch (most are below it, at random), against the floor as it is at the block's start: it only rises, so none
  // is lost. The picked ones move to the front of the block, which is read ahead of where they are written, and keep
  // their scores until taken; taking them may raise the floor for the next block.
  for (let from = i; from < touched; from += COLLECT_BLOCK) {
    const to = Math.min(touched, from + COLLECT_BLOCK);
    const blockFloor = floorBin;
    let picked = from;
    for (let at = from; at < to; at++) {
      const d = touchedDocs[at];
      const score = scores[d];
      const atOrAbove = +(score * binScale >= blockFloor);
      scores[d] = score * atOrAbove;
      touchedDocs[picked] = d;
      picked += atOrAbove;
    }
    for (let at = from; at < picked; at++) {
      const d = touchedDocs[at];
      const score = scores[d];
      scores[d] = 0;
      take(d, score);
    }
  }
  candidates.size = kept;
  return matched;
}


/**
 * Postings a search must read per hit it keeps before pruning pays for its bookkeeping (windows, bounds, searches of
 * postings, an exact score per doc that may reach the best): below it the exhaustive scan is cheaper. Measured with
 * bench/keyword-pruning.ts (CPU time, SciFact queries, 100,000 chunks): limit 10, about 6,900 postings a hit, pruned
 * 0.8-1.2 ms against 1.2-1.7 ms exhaustively; limit 30 (2,300) 1.2 against 1.3; limit 100 (690) 2.1 against 1.6; the
 * content lane's limit of 1,000 (69) 3.9 against 2.0.
 */
export const PRUNING_POSTINGS_PER_HIT = 2500;

/**
 * The best `limit` live docs containing a query term by score (BM25F: title occurrences weighted into one saturated
 * term frequency), ties by ascending id. With countUpTo, a positive limit, bounded settings and enough postings per
 * hit kept (PRUNING_POSTINGS_PER_HIT), by the pruning scorer; otherwise exhaustively. Both give the same answer.
 */
export function searchBm25(segments: readonly Bm25Segment[], queryTerms: string[], options: Bm25SearchOptions): Bm25Result {
  return search(segments, queryTerms, options, false);
}

/** searchBm25 by the pruning scorer whenever it can serve the search, however few postings it reads (tests, bench/). */
export function searchBm25Pruned(segments: readonly Bm25Segment[], queryTerms: string[], options: Bm25SearchOptions): Bm25Result {
  return search(segments, queryTerms, options, true);
}

function search(segments: readonly Bm25Segment[], queryTerms: string[], options: Bm25SearchOptions, alwaysPrune: boolean): Bm25Result {
  if (!Number.isInteger(options.limit) || options.limit < 0) throw new RangeError('limit must be a non-negative integer');
  const { masks, stats } = resolveLiveness(segments, options.liveness);
  const query = planQuery(segments, queryTerms, masks, stats, options);
  const { countUpTo, bestAmongById } = options;
  const prunable = countUpTo !== undefined && options.limit > 0 && canPrune(query.scoring);
  if (!prunable || (!alwaysPrune && postingsOf(segments, query) < PRUNING_POSTINGS_PER_HIT * options.limit)) return scoreExhaustively(segments, query, masks, options);
  const { hits, matched } = searchPruned(segments, query, masks, stats, options, countUpTo);
  if (bestAmongById === undefined) return { hits, matched };
  // The best score among the docs before the filters: the best one of them, found by the same pruning.
  const [top] = searchPruned(segments, query, masks, stats, { limit: 1, liveById: bestAmongById }, 0).hits;
  return { hits, matched, best: top?.score ?? 0 };
}

/** The postings of the query's terms in every segment: what an exhaustive search reads. */
function postingsOf(segments: readonly Bm25Segment[], query: QueryPlan): number {
  let postings = 0;
  segments.forEach((segment, s) => {
    for (const t of query.termIds[s]) if (t >= 0) postings += segment.postingStarts[t + 1] - segment.postingStarts[t];
  });
  return postings;
}

/**
 * Every live doc containing a query term scored, the best `limit` kept (what searchBm25 returns, found without
 * pruning): the scorer the pruning one is held to.
 */
export function searchBm25Exhaustively(segments: readonly Bm25Segment[], queryTerms: string[], options: Bm25SearchOptions): Bm25Result {
  if (!Number.isInteger(options.limit) || options.limit < 0) throw new RangeError('limit must be a non-negative integer');
  const { masks, stats } = resolveLiveness(segments, options.liveness);
  return scoreExhaustively(segments, planQuery(segments, queryTerms, masks, stats, options), masks, options);
}

function scoreExhaustively(segments: readonly Bm25Segment[], query: QueryPlan, masks: ReadonlyArray<Uint8Array | undefined>, options: Bm25SearchOptions): Bm25Result {
  // A term adds less than its weight to a doc's score (tf / (tf + k1) < 1), so their sum bounds every score.
  candidates.start(query.weights.reduce((sum, weight) => sum + weight, 0), options.limit);
  let matched = 0;
  const { bestAmongById } = options;
  let best = 0;
  segments.forEach((segment, s) => {
    const touched = scoreSegment(segment, query.termIds[s], query, masks[s]);
    if (bestAmongById !== undefined) best = Math.max(best, bestTouched(segment, touched, bestAmongById));
    matched += collectSegment(segment, touched, options, candidates);
  });
  const hits = bestOf(candidates, options.limit);
  if (options.ordered !== false) hits.sort((a, b) => b.score - a.score || a.id - b.id);
  return bestAmongById === undefined ? { hits, matched } : { hits, matched, best };
}
