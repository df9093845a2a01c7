// BM25F scoring shared by the keyword lane's two scorers (bm25.ts exhaustive, bm25-pruned.ts with dynamic pruning):
// the tuned parameters, the statistics basis of a snapshot, each query term's weight under it, and the per-doc length
// normalization, so that both compute every score with the same arithmetic.

import type { Bm25Segment } from '../codec/bm25-segment.ts';
import { idOf } from '../text/string-table.ts';
import type { SparseHit } from './top-k.ts';

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
  /**
   * Query terms added for others (a Client's synonyms), each with the query terms it stands for: its idf is at most
   * the highest of theirs, so a rare synonym never outweighs the word it was added for.
   */
  idfCaps?: ReadonlyMap<string, readonly string[]>;
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

export function statsFrom(docCount: number, text: number, title: number): Bm25Stats {
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

export function queryTermCounts(queryTerms: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const term of queryTerms) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}

export function liveDf(segment: Bm25Segment, t: number, mask: Uint8Array | undefined): number {
  const from = segment.postingStarts[t];
  const to = segment.postingStarts[t + 1];
  if (mask === undefined) return to - from;
  let n = 0;
  for (let p = from; p < to; p++) n += mask[segment.postingDocs[p]];
  return n;
}

export interface Scoring {
  k1: number;
  /** Body and title length normalization (textNorm0 is 1 - b, titleNorm0 1 - titleB). */
  b: number;
  titleB: number;
  textNorm0: number;
  textNorm1: number;
  titleNorm0: number;
  titleNorm1: number;
  titleWeight: number;
}

export function scoringFor(stats: Bm25Stats, options: Bm25SearchOptions): Scoring {
  const b = options.b ?? BM25_B;
  const titleB = options.titleB ?? BM25_TITLE_B;
  return {
    k1: options.k1 ?? BM25_K1,
    b,
    titleB,
    textNorm0: 1 - b,
    textNorm1: stats.avgTextLength > 0 ? b / stats.avgTextLength : 0,
    titleNorm0: 1 - titleB,
    titleNorm1: stats.avgTitleLength > 0 ? titleB / stats.avgTitleLength : 0,
    titleWeight: options.titleWeight ?? BM25_TITLE_WEIGHT,
  };
}

/** Per-doc 1 / (1 - b + b * len / avgLen) for one field, cached per segment for the current parameters. */
export interface NormCache {
  key: string;
  text: Float32Array;
  title: Float32Array;
}

const normCaches = new WeakMap<Bm25Segment, NormCache>();

/**
 * A doc whose field is empty has no term frequency in it, so its factor is never needed: it is 0 rather than the
 * 1 / (1 - b) (or, at b = 1, the infinity) the formula gives, so that tf * factor is 0 for it in every case.
 */
export function inverseNorms(lengths: Uint32Array, norm0: number, norm1: number): Float32Array {
  const out = new Float32Array(lengths.length);
  for (let d = 0; d < lengths.length; d++) out[d] = lengths[d] === 0 ? 0 : 1 / (norm0 + norm1 * lengths[d]);
  return out;
}

/** Length normalization depends only on (b, avgdl): computed once per segment and snapshot, not per posting. */
export function normsFor(segment: Bm25Segment, sc: Scoring): NormCache {
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

export function resolveLiveness(segments: readonly Bm25Segment[], given: Bm25Liveness | undefined): { masks: Array<Uint8Array | undefined>; stats: Bm25Stats } {
  if (given === undefined) return { masks: segments.map(() => undefined), stats: computeBm25Stats(segments) };
  if (given.segments.length !== segments.length || given.segments.some((s, i) => s !== segments[i])) {
    throw new Error('bm25 liveness was prepared for other segments');
  }
  return { masks: [...given.masks], stats: given.stats };
}

/** Each query term's document frequency over the counted docs of every segment. */
export function globalDfs(segments: readonly Bm25Segment[], masks: Array<Uint8Array | undefined>, termIds: readonly Int32Array[], count: number): number[] {
  return Array.from({ length: count }, (_, q) => {
    let df = 0;
    segments.forEach((segment, s) => {
      const t = termIds[s][q];
      if (t >= 0) df += liveDf(segment, t, masks[s]);
    });
    return df;
  });
}

/**
 * Idfs with the caps of options.idfCaps applied: a capped term's idf is at most the highest idf of the terms it
 * stands for, counted as if each occurred (one absent from every segment caps at the idf of a single doc).
 */
function cappedIdfs(terms: readonly string[], dfs: readonly number[], docCount: number, caps: ReadonlyMap<string, readonly string[]> | undefined): number[] {
  const idfs = dfs.map((df) => (df > 0 ? bm25Idf(docCount, df) : 0));
  if (caps === undefined || caps.size === 0) return idfs;
  const indexOf = new Map(terms.map((term, q) => [term, q]));
  return idfs.map((idf, q) => {
    const standsFor = caps.get(terms[q]);
    if (standsFor === undefined || idf === 0) return idf;
    let cap = 0;
    for (const term of standsFor) {
      const at = indexOf.get(term);
      cap = Math.max(cap, bm25Idf(docCount, Math.max(1, at === undefined ? 1 : dfs[at])));
    }
    return cap > 0 ? Math.min(idf, cap) : idf;
  });
}

/** Query terms with their BM25 weight qtf * idf * (k1 + 1) under the global statistics. */
export interface QueryPlan {
  terms: string[];
  /** Per segment, each term's id in its dictionary (-1 where absent). */
  termIds: Int32Array[];
  weights: number[];
  scoring: Scoring;
}

export function planQuery(segments: readonly Bm25Segment[], queryTerms: readonly string[], masks: Array<Uint8Array | undefined>, stats: Bm25Stats, options: Bm25SearchOptions): QueryPlan {
  const counts = queryTermCounts(queryTerms);
  const terms = [...counts.keys()];
  const scoring = scoringFor(stats, options);
  // Each query term is looked up once per segment, for its document frequency and its postings.
  const termIds = segments.map((segment) => Int32Array.from(terms, (term) => idOf(segment.terms, term)));
  const idfs = cappedIdfs(terms, globalDfs(segments, masks, termIds, terms.length), stats.docCount, options.idfCaps);
  return { terms, termIds, scoring, weights: terms.map((term, q) => counts.get(term)! * idfs[q] * (scoring.k1 + 1)) };
}
