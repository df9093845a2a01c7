// BM25F search over immutable segments (sparse half of the content lane): postings scan of every query
// term, global statistics summed over segments, the best `limit` selected once (best-of.ts). It never
// mutates a segment, and the per-query candidate predicate never changes a score.

import { bestOf, Candidates } from './best-of.ts';
import type { Bm25Segment } from '../codec/bm25-segment.ts';
import { idOf } from '../text/string-table.ts';
import type { SparseHit } from './top-k.ts';

export { buildBm25Segment, mergeBm25Segments, MAX_STORED_TERM_FREQUENCY } from '../codec/bm25-segment.ts';
export type { Bm25Segment, FieldAnalyzer, SparseDoc } from '../codec/bm25-segment.ts';
export type { SparseHit } from './top-k.ts';

/**
 * Term saturation. k1, b and the title settings were tuned on SciFact train (nDCG@10 0.704) and
 * Cranfield (0.403); the surface is flat (+-0.005 over k1 0.9-2.2, b 0.6-0.9, title weight 2-4).
 */
export const BM25_K1 = 1.5;
/** Body length normalization. */
export const BM25_B = 0.75;
/** A title occurrence counts this many body occurrences (BM25F field weight). */
export const BM25_TITLE_WEIGHT = 3.0;
/** Title length normalization (titles are short and similar in length, so little is needed). */
export const BM25_TITLE_B = 0.5;

export interface Bm25Stats {
  docCount: number;
  avgTextLength: number;
  avgTitleLength: number;
}

/**
 * The statistics basis of a snapshot: which docs count for N, avgdl and df (and can be returned at all).
 * Prepare it once per snapshot when docs physically present in segments must stop counting before the
 * background merge drops them; without it every doc in the segments counts, as in Lucene.
 */
export interface Bm25Liveness {
  readonly segments: readonly Bm25Segment[];
  readonly masks: readonly Uint8Array[];
  readonly stats: Bm25Stats;
}

export interface Bm25SearchOptions {
  limit: number;
  /**
   * Per-query candidate predicate (deletions, filters). It only hides docs: it never changes a score,
   * so filters cannot affect rank. Called once per matching doc, not per posting.
   */
  isLive?: (id: number) => boolean;
  /**
   * The same predicate as a mask indexed by global id (1 = live; ids past its end are not live), for
   * callers that keep one per snapshot: no call per matching doc. Both may be given; both must pass.
   */
  liveById?: Uint8Array;
  /** False when the caller ranks the hits again itself: they come back in no particular order. */
  ordered?: boolean;
  /**
   * Matches past this many need not be counted exactly (Bm25Result.matched), for a caller that only asks
   * whether more docs match than it keeps: a doc that cannot be among the best is then not checked for liveness.
   */
  countUpTo?: number;
  /**
   * The docs among which the best score is reported (Bm25Result.best): the request's eligibility before its
   * filters, when liveById is that narrowed by filters. Fusion divides by this score, so a filter that hides the
   * best keyword match does not rescale the others (SPEC.md search rule 7).
   */
  bestAmongById?: Uint8Array;
  /** Snapshot statistics basis for exactly these segments (see Bm25Liveness). */
  liveness?: Bm25Liveness;
  k1?: number;
  b?: number;
  titleWeight?: number;
  titleB?: number;
}

export interface Bm25Result {
  hits: SparseHit[];
  /**
   * Live docs with a positive score (every live doc containing at least one query term). With `countUpTo`, exact
   * up to that count; past it, a lower bound above it.
   */
  matched: number;
  /** With Bm25SearchOptions.bestAmongById: the best score among those docs (0 when none matched). */
  best?: number;
}

function statsFrom(docCount: number, text: number, title: number): Bm25Stats {
  return { docCount, avgTextLength: docCount > 0 ? text / docCount : 0, avgTitleLength: docCount > 0 ? title / docCount : 0 };
}

/** N and average field lengths over the docs passing isCounted (all docs when absent), summed over segments. */
export function computeBm25Stats(segments: readonly Bm25Segment[], isCounted?: (id: number) => boolean): Bm25Stats {
  let docs = 0;
  let text = 0;
  let title = 0;
  for (const segment of segments) {
    if (isCounted === undefined) {
      docs += segment.docCount;
      text += segment.totalTextLength;
      title += segment.totalTitleLength;
      continue;
    }
    for (let d = 0; d < segment.docCount; d++) {
      if (!isCounted(segment.docIds[d])) continue;
      docs++;
      text += segment.textLengths[d];
      title += segment.titleLengths[d];
    }
  }
  return statsFrom(docs, text, title);
}

/** Resolves a statistics basis once (O(total docs)); searches then read masks instead of calling back. */
export function prepareBm25Liveness(segments: readonly Bm25Segment[], isCounted: (id: number) => boolean): Bm25Liveness {
  const masks = segments.map((segment) => {
    const mask = new Uint8Array(segment.docCount);
    for (let d = 0; d < segment.docCount; d++) mask[d] = isCounted(segment.docIds[d]) ? 1 : 0;
    return mask;
  });
  return { segments, masks, stats: computeBm25Stats(segments, isCounted) };
}

/** Lucene's non-negative BM25 idf: every matching doc gets a positive score. */
export function bm25Idf(docCount: number, df: number): number {
  return Math.log(1 + (docCount - df + 0.5) / (df + 0.5));
}

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

function queryTermCounts(queryTerms: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const term of queryTerms) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}

function liveDf(segment: Bm25Segment, t: number, mask: Uint8Array | undefined): number {
  const from = segment.postingStarts[t];
  const to = segment.postingStarts[t + 1];
  if (mask === undefined) return to - from;
  let n = 0;
  for (let p = from; p < to; p++) n += mask[segment.postingDocs[p]];
  return n;
}

interface Scoring {
  k1: number;
  textNorm0: number;
  textNorm1: number;
  titleNorm0: number;
  titleNorm1: number;
  titleWeight: number;
}

function scoringFor(stats: Bm25Stats, options: Bm25SearchOptions): Scoring {
  const b = options.b ?? BM25_B;
  const titleB = options.titleB ?? BM25_TITLE_B;
  return {
    k1: options.k1 ?? BM25_K1,
    textNorm0: 1 - b,
    textNorm1: stats.avgTextLength > 0 ? b / stats.avgTextLength : 0,
    titleNorm0: 1 - titleB,
    titleNorm1: stats.avgTitleLength > 0 ? titleB / stats.avgTitleLength : 0,
    titleWeight: options.titleWeight ?? BM25_TITLE_WEIGHT,
  };
}

/** Per-doc 1 / (1 - b + b * len / avgLen) for one field, cached per segment for the current parameters. */
interface NormCache {
  key: string;
  text: Float32Array;
  title: Float32Array;
}

const normCaches = new WeakMap<Bm25Segment, NormCache>();

/**
 * A doc whose field is empty has no term frequency in it, so its factor is never needed: it is 0 rather than the
 * 1 / (1 - b) (or, at b = 1, the infinity) the formula gives, so that tf * factor is 0 for it in every case.
 */
function inverseNorms(lengths: Uint32Array, norm0: number, norm1: number): Float32Array {
  const out = new Float32Array(lengths.length);
  for (let d = 0; d < lengths.length; d++) out[d] = lengths[d] === 0 ? 0 : 1 / (norm0 + norm1 * lengths[d]);
  return out;
}

/** Length normalization depends only on (b, avgdl): computed once per segment and snapshot, not per posting. */
function normsFor(segment: Bm25Segment, sc: Scoring): NormCache {
  const key = `${sc.textNorm0}/${sc.textNorm1}/${sc.titleNorm0}/${sc.titleNorm1}`;
  const cached = normCaches.get(segment);
  if (cached !== undefined && cached.key === key) return cached;
  const fresh = {
    key,
    text: inverseNorms(segment.textLengths, sc.textNorm0, sc.textNorm1),
    title: inverseNorms(segment.titleLengths, sc.titleNorm0, sc.titleNorm1),
  };
  normCaches.set(segment, fresh);
  return fresh;
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

function resolveLiveness(segments: readonly Bm25Segment[], given: Bm25Liveness | undefined): { masks: Array<Uint8Array | undefined>; stats: Bm25Stats } {
  if (given === undefined) return { masks: segments.map(() => undefined), stats: computeBm25Stats(segments) };
  if (given.segments.length !== segments.length || given.segments.some((s, i) => s !== segments[i])) {
    throw new Error('bm25 liveness was prepared for other segments');
  }
  return { masks: [...given.masks], stats: given.stats };
}

function globalIdfs(segments: readonly Bm25Segment[], masks: Array<Uint8Array | undefined>, termIds: readonly Int32Array[], count: number, docCount: number): number[] {
  return Array.from({ length: count }, (_, q) => {
    let df = 0;
    segments.forEach((segment, s) => {
      const t = termIds[s][q];
      if (t >= 0) df += liveDf(segment, t, masks[s]);
    });
    return df > 0 ? bm25Idf(docCount, df) : 0;
  });
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

/** Query terms with their BM25 weight qtf * idf * (k1 + 1) under the global statistics. */
interface QueryPlan {
  terms: string[];
  /** Per segment, each term's id in its dictionary (-1 where absent). */
  termIds: Int32Array[];
  weights: number[];
  scoring: Scoring;
}

function planQuery(segments: readonly Bm25Segment[], queryTerms: readonly string[], masks: Array<Uint8Array | undefined>, stats: Bm25Stats, options: Bm25SearchOptions): QueryPlan {
  const counts = queryTermCounts(queryTerms);
  const terms = [...counts.keys()];
  const scoring = scoringFor(stats, options);
  // Each query term is looked up once per segment, for its document frequency and its postings.
  const termIds = segments.map((segment) => Int32Array.from(terms, (term) => idOf(segment.terms, term)));
  const idfs = globalIdfs(segments, masks, termIds, terms.length, stats.docCount);
  return { terms, termIds, scoring, weights: terms.map((term, q) => counts.get(term)! * idfs[q] * (scoring.k1 + 1)) };
}

/**
 * Scores every live doc containing a query term (BM25F: title occurrences weighted into one saturated
 * term frequency) and returns the best `limit` by score, ties by ascending id.
 */
export function searchBm25(segments: readonly Bm25Segment[], queryTerms: string[], options: Bm25SearchOptions): Bm25Result {
  if (!Number.isInteger(options.limit) || options.limit < 0) throw new RangeError('limit must be a non-negative integer');
  const { masks, stats } = resolveLiveness(segments, options.liveness);
  const query = planQuery(segments, queryTerms, masks, stats, options);
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
