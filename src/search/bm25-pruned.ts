// The keyword lane's top-k scorer with dynamic pruning: block-max MaxScore over windows of doc ids. Once the best
// `limit` are held (and matches no longer need counting), each window's terms are split by their block bounds there
// (codec/bm25-impacts.ts): the weakest terms whose bounds together cannot lift a doc to the k-th best score are
// non-essential. Only docs an essential term matches are considered (a window where no term is essential is
// skipped block by block); the essential terms are added to them term by term, and then the non-essential ones,
// strongest first, each found by a search in its postings, until the bounds of those left show that the doc cannot
// reach the k-th best. A doc that can is scored exactly as the exhaustive scorer scores it (bm25.ts): its terms
// added in query order, each sum rounded to 32 bits as its accumulators are, so scores, ties and order are the
// same; a property test holds the two to the same top k and counts (test/search/bm25-pruned.test.ts).

import type { Bm25Segment } from '../codec/bm25-segment.ts';
import { IMPACT_BLOCK_SHIFT, impactScale, impactsOf, termImpacts } from '../codec/bm25-impacts.ts';
import type { Bm25Impacts } from '../codec/bm25-impacts.ts';
import { normsFor } from './bm25-scoring.ts';
import type { Bm25SearchOptions, Bm25Stats, NormCache, QueryPlan, Scoring } from './bm25-scoring.ts';
import { drainSorted, drainUnordered, newTopK, offer } from './top-k.ts';
import type { SparseHit, TopK } from './top-k.ts';

/**
 * Doc ids per window: terms are split into essential and not once per window, by the bounds of their blocks in it.
 * Smaller windows bound more tightly and cost more splits. A multiple of 32 (the window's bitset of matched docs).
 */
export const PRUNING_WINDOW = 2048;
const WINDOW_WORDS = PRUNING_WINDOW / 32;

/**
 * How far a bound computed in 64 bits may fall short of a score summed in 32 bits, per term (the rounding of each
 * sum and of the length factors, each at most 2^-24 relative). Bounds are raised by this per term, and two more.
 */
const ROUNDING_PER_TERM = 2 ** -21;

/**
 * Essential terms whose contributions to a window's docs are kept one by one (the first this many of a segment's
 * query terms): a doc's exact score reads them back instead of searching their postings again.
 */
const KEPT_TERMS = 32;

/** Whether a search's settings let its scores be bounded by the segments' impacts (otherwise it runs exhaustively). */
export function canPrune(scoring: Scoring): boolean {
  const inUnit = (value: number) => value >= 0 && value <= 1;
  return scoring.k1 > 0 && Number.isFinite(scoring.k1) && inUnit(scoring.b) && inUnit(scoring.titleB) && scoring.titleWeight >= 0 && Number.isFinite(scoring.titleWeight);
}

/**
 * The query terms one segment holds, in query order (scores add terms in this order), as parallel arrays: term i's
 * postings are [from[i], end[i]), `at[i]` the first not yet passed (at or past the current window's start),
 * `probe[i]` where its last search in the current window ended, `bound[i]` its score bound in the window.
 */
class Cursors {
  size = 0;
  weight = new Float64Array(0);
  from = new Int32Array(0);
  end = new Int32Array(0);
  firstBlock = new Int32Array(0);
  at = new Int32Array(0);
  probe = new Int32Array(0);
  bound = new Float64Array(0);
  /** 1 where the term is essential in the current window. */
  essential = new Uint8Array(0);
  /** The non-essential terms of the current window, weakest first (their count: nonEssential). */
  order = new Int32Array(0);
  nonEssential = 0;
  /** Per term, its contribution to the doc being scored (0: none), from a search of its postings. */
  found = new Float64Array(0);

  reset(terms: number): void {
    this.size = 0;
    if (this.weight.length >= terms) return;
    this.weight = new Float64Array(terms);
    this.from = new Int32Array(terms);
    this.end = new Int32Array(terms);
    this.firstBlock = new Int32Array(terms);
    this.at = new Int32Array(terms);
    this.probe = new Int32Array(terms);
    this.bound = new Float64Array(terms);
    this.essential = new Uint8Array(terms);
    this.order = new Int32Array(terms);
    this.found = new Float64Array(terms);
  }

  add(weight: number, from: number, end: number, firstBlock: number): void {
    const i = this.size++;
    this.weight[i] = weight;
    this.from[i] = from;
    this.end[i] = end;
    this.firstBlock[i] = firstBlock;
    this.at[i] = from;
    this.probe[i] = from;
  }
}

/** Scratch reused across searches (they run one at a time on a thread). */
const cursors = new Cursors();
/** The window's partial scores and the bitset of its matched docs. */
const windowScores = new Float32Array(PRUNING_WINDOW);
const windowTouched = new Int32Array(WINDOW_WORDS);
/** Per kept essential term, its contribution to each doc of the window (term i's at i * PRUNING_WINDOW + doc). */
const windowContributions = new Float64Array(KEPT_TERMS * PRUNING_WINDOW);
/** Per doc of the window, which kept essential terms contributed to it (bit i: term i). */
const windowTerms = new Int32Array(PRUNING_WINDOW);

/** The search's state across segments: the best so far and how many live matches were counted. */
interface Gathered {
  readonly heap: TopK;
  /** Live matching docs counted: exact until it passes countUpTo, then no longer counted. */
  matched: number;
  readonly countUpTo: number;
  /** The k-th best score once docs below it may be dropped (the heap is full and counting is over); -1 before. */
  floor: number;
}

/** Score bound of a term whose normalized frequency is at most `tf`: weight * tf / (tf + k1) grows with tf, below weight. */
function scoreBound(weight: number, tf: number, k1: number): number {
  return Number.isFinite(tf) ? (weight * tf) / (tf + k1) : weight;
}

/** The first posting of [at, end) whose doc is at least `target`: whole blocks first, then one by one. */
function skipTo(docs: Uint32Array, from: number, end: number, at: number, target: number): number {
  let p = at;
  for (;;) {
    const blockEnd = Math.min(end, from + ((((p - from) >> IMPACT_BLOCK_SHIFT) + 1) << IMPACT_BLOCK_SHIFT));
    if (blockEnd >= end || docs[blockEnd - 1] >= target) break;
    p = blockEnd;
  }
  while (p < end && docs[p] < target) p++;
  return p;
}

/** The largest bound of term i's blocks that hold its postings from at[i] to the window's end (0: none). */
function windowImpact(i: number, docs: Uint32Array, impacts: Bm25Impacts, windowEnd: number): number {
  const from = cursors.from[i];
  const end = cursors.end[i];
  const at = cursors.at[i];
  if (at >= end || docs[at] >= windowEnd) return 0;
  let block = (at - from) >> IMPACT_BLOCK_SHIFT;
  const firstBlock = cursors.firstBlock[i];
  let most = 0;
  for (;;) {
    const bound = impacts.blockBounds[firstBlock + block];
    if (bound > most) most = bound;
    const next = from + ((block + 1) << IMPACT_BLOCK_SHIFT);
    if (next >= end || docs[next] >= windowEnd) return most;
    block++;
  }
}

/**
 * Term i's contribution to doc d (0 when d has no posting of it that counts), found from where its last search in
 * the window ended: d is past every doc searched for before in the window.
 */
function contributionOf(segment: Bm25Segment, i: number, d: number, norms: NormCache, sc: Scoring): number {
  const docs = segment.postingDocs;
  const end = cursors.end[i];
  let p = cursors.probe[i];
  if (p < end && docs[p] < d) {
    // Galloping, then halving: the docs searched for are in order, often far apart in the term's postings.
    let step = 1;
    while (p + step < end && docs[p + step] < d) {
      p += step;
      step *= 2;
    }
    let low = p + 1;
    let high = Math.min(end, p + step);
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (docs[middle] < d) low = middle + 1;
      else high = middle;
    }
    p = low;
    cursors.probe[i] = p;
  }
  if (p >= end || docs[p] !== d) return 0;
  const tf = segment.postingTextTf[p] * norms.text[d] + sc.titleWeight * segment.postingTitleTf[p] * norms.title[d];
  return tf > 0 ? (cursors.weight[i] * tf) / (tf + sc.k1) : 0;
}

/**
 * Adds essential term i's contributions to the window's docs (partial scores, and the set of docs matched); with
 * `keep`, also each contribution and which docs it went to. Returns the first posting past the window.
 */
function accumulateWindow(segment: Bm25Segment, i: number, windowStart: number, windowEnd: number, norms: NormCache, sc: Scoring, mask: Uint8Array | undefined, keep: boolean): number {
  const docs = segment.postingDocs;
  const textTfs = segment.postingTextTf;
  const titleTfs = segment.postingTitleTf;
  const textNorm = norms.text;
  const titleNorm = norms.title;
  const { k1, titleWeight } = sc;
  const scores = windowScores;
  const touched = windowTouched;
  const weight = cursors.weight[i];
  const end = cursors.end[i];
  let p = cursors.at[i];
  if (keep) {
    const contributions = windowContributions;
    const terms = windowTerms;
    const row = i * PRUNING_WINDOW;
    const bit = 1 << i;
    for (; p < end; p++) {
      const d = docs[p];
      if (d >= windowEnd) break;
      if (mask !== undefined && mask[d] === 0) continue;
      const tf = textTfs[p] * textNorm[d] + titleWeight * titleTfs[p] * titleNorm[d];
      if (!(tf > 0)) continue;
      const local = d - windowStart;
      const contribution = (weight * tf) / (tf + k1);
      scores[local] = scores[local] + contribution;
      contributions[row + local] = contribution;
      terms[local] |= bit;
      touched[local >> 5] |= 1 << (local & 31);
    }
    return p;
  }
  if (mask === undefined && titleWeight > 0) {
    // Searches as served (no statistics mask, a positive title weight): every posting counts (bm25.ts accumulateTerm).
    for (; p < end; p++) {
      const d = docs[p];
      if (d >= windowEnd) break;
      const tf = textTfs[p] * textNorm[d] + titleWeight * titleTfs[p] * titleNorm[d];
      const local = d - windowStart;
      scores[local] = scores[local] + (weight * tf) / (tf + k1);
      touched[local >> 5] |= 1 << (local & 31);
    }
    return p;
  }
  for (; p < end; p++) {
    const d = docs[p];
    if (d >= windowEnd) break;
    if (mask !== undefined && mask[d] === 0) continue;
    const tf = textTfs[p] * textNorm[d] + titleWeight * titleTfs[p] * titleNorm[d];
    if (!(tf > 0)) continue;
    const local = d - windowStart;
    scores[local] = scores[local] + (weight * tf) / (tf + k1);
    touched[local >> 5] |= 1 << (local & 31);
  }
  return p;
}

/**
 * Doc d's exact score once every non-essential term's contribution has been found (cursors.found): all its terms'
 * contributions added in query order, each sum rounded to 32 bits.
 */
function exactScore(segment: Bm25Segment, d: number, local: number, norms: NormCache, sc: Scoring): number {
  const terms = windowTerms[local];
  let score = 0;
  for (let i = 0; i < cursors.size; i++) {
    let contribution: number;
    if (cursors.essential[i] === 0) contribution = cursors.found[i];
    else if (i < KEPT_TERMS) contribution = (terms & (1 << i)) !== 0 ? windowContributions[i * PRUNING_WINDOW + local] : 0;
    else contribution = contributionOf(segment, i, d, norms, sc);
    if (contribution > 0) score = Math.fround(score + contribution);
  }
  return score;
}

/** Whether the doc with global id `id` may be returned (the caller's per-query predicate). */
function isReturnable(id: number, options: Bm25SearchOptions): boolean {
  if (options.liveById !== undefined && options.liveById[id] !== 1) return false;
  return options.isLive === undefined || options.isLive(id);
}

/** Splits the window's terms: the weakest are non-essential while their bounds together stay below the floor. */
function splitTerms(floor: number): number {
  const { essential, order, bound, size } = cursors;
  essential.fill(1, 0, size);
  cursors.nonEssential = 0;
  if (floor < 0) return 0;
  for (let i = 0; i < size; i++) order[i] = i;
  // Insertion sort by bound: a handful of terms.
  for (let i = 1; i < size; i++) {
    const term = order[i];
    let j = i - 1;
    for (; j >= 0 && bound[order[j]] > bound[term]; j--) order[j + 1] = order[j];
    order[j + 1] = term;
  }
  let sum = 0;
  let n = 0;
  for (; n < size; n++) {
    const b = bound[order[n]];
    if (sum + b >= floor) break;
    sum += b;
    essential[order[n]] = 0;
  }
  cursors.nonEssential = n;
  return sum;
}

/**
 * Searches one segment window by window into `gathered`. `mask` is the statistics basis's (a doc it hides matches
 * nothing); the search's length factors exceed the impacts' by at most impactScale.
 */
function pruneSegment(segment: Bm25Segment, termIds: Int32Array, query: QueryPlan, mask: Uint8Array | undefined, stats: Bm25Stats, options: Bm25SearchOptions, gathered: Gathered): void {
  const sc = query.scoring;
  const impacts = impactsOf(segment, { b: sc.b, titleB: sc.titleB, titleWeight: sc.titleWeight });
  const scale = impactScale(impacts, stats.avgTextLength, stats.avgTitleLength);
  cursors.reset(query.terms.length);
  for (let q = 0; q < query.terms.length; q++) {
    const t = termIds[q];
    if (t < 0 || !(query.weights[q] > 0)) continue;
    termImpacts(impacts, segment, t);
    cursors.add(query.weights[q], segment.postingStarts[t], segment.postingStarts[t + 1], impacts.blockStarts[t]);
  }
  const size = cursors.size;
  if (size === 0) return;
  const norms = normsFor(segment, sc);
  const docs = segment.postingDocs;
  const slack = 1 + ROUNDING_PER_TERM * (size + 2);
  const k1 = sc.k1;
  let windowStart = 0;
  for (;;) {
    // A window starts at the first doc a term has left.
    let first = segment.docCount;
    for (let i = 0; i < size; i++) if (cursors.at[i] < cursors.end[i] && docs[cursors.at[i]] < first) first = docs[cursors.at[i]];
    if (first >= segment.docCount) return;
    windowStart = Math.max(windowStart, first);
    const windowEnd = Math.min(segment.docCount, windowStart + PRUNING_WINDOW);
    for (let i = 0; i < size; i++) {
      cursors.probe[i] = cursors.at[i];
      const impact = windowImpact(i, docs, impacts, windowEnd);
      cursors.bound[i] = impact === 0 ? 0 : scoreBound(cursors.weight[i], scale * impact, k1) * slack;
    }
    const nonEssentialBound = splitTerms(gathered.floor);
    const partialOnly = cursors.nonEssential > 0;
    // The essential terms' partial scores, in query order, into the window's accumulators. When no term is essential,
    // no doc of the window can reach the floor, and every term skips it.
    for (let i = 0; i < size; i++) {
      if (cursors.essential[i] === 1) cursors.at[i] = accumulateWindow(segment, i, windowStart, windowEnd, norms, sc, mask, partialOnly && i < KEPT_TERMS);
      else cursors.at[i] = skipTo(docs, cursors.from[i], cursors.end[i], cursors.at[i], windowEnd);
    }
    if (cursors.nonEssential < size) collectWindow(segment, windowStart, partialOnly, nonEssentialBound, slack, norms, sc, options, gathered);
    windowStart = windowEnd;
  }
}

/**
 * Takes the window's matched docs in doc order (searches of postings only move forward). A doc is dropped as soon as
 * its partial score and the bounds of the terms not yet added cannot reach the floor; the others are scored exactly
 * (`partialOnly`: their partial scores leave the non-essential terms out) and offered if the caller may see them.
 */
function collectWindow(segment: Bm25Segment, windowStart: number, partialOnly: boolean, nonEssentialBound: number, slack: number, norms: NormCache, sc: Scoring, options: Bm25SearchOptions, gathered: Gathered): void {
  const scores = windowScores;
  const touched = windowTouched;
  const docIds = segment.docIds;
  const { order, bound, found, nonEssential } = cursors;
  const heap = gathered.heap;
  for (let word = 0; word < WINDOW_WORDS; word++) {
    let bits = touched[word];
    if (bits === 0) continue;
    touched[word] = 0;
    while (bits !== 0) {
      const low = bits & -bits;
      bits ^= low;
      const local = (word << 5) | (31 - Math.clz32(low));
      const partial = scores[local];
      scores[local] = 0;
      const floor = gathered.floor;
      const d = windowStart + local;
      let score = partial;
      if (partialOnly) {
        // The non-essential terms, strongest first, while the doc can still reach the floor.
        let sum = partial;
        let left = nonEssentialBound;
        let n = nonEssential - 1;
        for (; n >= 0; n--) {
          if ((sum + left) * slack < floor) break;
          const i = order[n];
          left -= bound[i];
          const contribution = contributionOf(segment, i, d, norms, sc);
          found[i] = contribution;
          sum += contribution;
        }
        if (n >= 0 || (sum + left) * slack < floor) {
          windowTerms[local] = 0;
          continue;
        }
        score = exactScore(segment, d, local, norms, sc);
        windowTerms[local] = 0;
      }
      if (floor >= 0 && score < floor) continue;
      const id = docIds[d];
      if (!isReturnable(id, options)) continue;
      if (gathered.matched <= gathered.countUpTo) gathered.matched++;
      offer(heap, score, id);
      if (heap.size === heap.capacity && gathered.matched > gathered.countUpTo) gathered.floor = heap.scores[0];
    }
  }
}

/**
 * The best `options.limit` live docs by score (ties by ascending id) and the live matches counted up to `countUpTo`
 * (exact up to it; past it, a count above it), as the exhaustive scorer gives them. Needs a positive limit and
 * canPrune(query.scoring).
 */
export function searchPruned(segments: readonly Bm25Segment[], query: QueryPlan, masks: ReadonlyArray<Uint8Array | undefined>, stats: Bm25Stats, options: Bm25SearchOptions, countUpTo: number): { hits: SparseHit[]; matched: number } {
  const gathered: Gathered = { heap: newTopK(options.limit), matched: 0, countUpTo, floor: -1 };
  segments.forEach((segment, s) => pruneSegment(segment, query.termIds[s], query, masks[s], stats, options, gathered));
  const hits = options.ordered === false ? drainUnordered(gathered.heap) : drainSorted(gathered.heap);
  return { hits, matched: gathered.matched };
}
