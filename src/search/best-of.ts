// The best `limit` of many scored candidates, gathered first and selected once. A histogram of their scores
// tells which bin holds the limit-th best score, so one pass keeps every candidate above that bin, and only
// the candidates inside it are ranked against each other.
// For a lane that scores tens of thousands of chunks and keeps a thousand, that is two sequential passes where
// a bounded heap would sift on every candidate that beats its root. The result is the set such a heap keeps:
// higher score first, ties broken by ascending id.

import type { SparseHit } from './top-k.ts';

/** Histogram bins over [0, upper bound]: enough that the boundary bin holds few candidates. */
export const SCORE_BINS = 4096;

/**
 * Candidates gathered before the first pruning, in multiples of the limit (and at least COMPACT_MIN). Small, so the
 * floor rises early: until the first pruning every match is kept, and a pruning costs one pass over what is held.
 * At 100,000 chunks (limit 1,000) 2 and 1,024 against 8 and 4,096: whole-search p50 about 3% lower, p99 2-11% lower.
 */
export const COMPACT_FACTOR = 2;
export const COMPACT_MIN = 1024;

/**
 * Scored candidates in two growing arrays (`size` of them set), all of them scores in [0, an upper bound].
 * Once `compactAt` are held, the ones below the histogram bin that holds the limit-th best are dropped: at
 * least `limit` others beat them, so they cannot be among the best. From then on a gatherer skips a score
 * whose bin is below `floorBin` (score * binScale < floorBin) and only counts it. Over a million chunks most
 * matches are never stored.
 */
export class Candidates {
  scores = new Float32Array(1024);
  ids = new Int32Array(1024);
  size = 0;
  /** Bins per unit of score: SCORE_BINS / the upper bound given to start(). */
  binScale = 0;
  /** Scores in a lower bin cannot be among the best `limit`. */
  floorBin = 0;
  /** The size at which the gatherer calls compact(). */
  compactAt = COMPACT_MIN;
  private limit = 0;

  /** Empties the candidates for scores in [0, upperBound], of which the best `limit` will be kept. */
  start(upperBound: number, limit: number): void {
    this.size = 0;
    this.limit = limit;
    this.floorBin = 0;
    this.binScale = upperBound > 0 ? SCORE_BINS / upperBound : 0;
    this.compactAt = Math.max(COMPACT_MIN, COMPACT_FACTOR * limit);
  }

  /** Drops the candidates that cannot be among the best `limit` and raises floorBin to match. */
  compact(): void {
    const { scores, ids, binScale } = this;
    if (this.size > this.limit && this.limit > 0) {
      const boundary = boundaryBin(this, this.limit).bin;
      let kept = 0;
      for (let i = 0; i < this.size; i++) {
        if (binOf(scores[i], binScale) < boundary) continue;
        scores[kept] = scores[i];
        ids[kept++] = ids[i];
      }
      this.size = kept;
      this.floorBin = boundary;
    }
    this.compactAt = this.size + Math.max(this.size, COMPACT_FACTOR * this.limit, COMPACT_MIN);
  }

  /** Room for `more` candidates past `size`. */
  reserve(more: number): void {
    const needed = this.size + more;
    if (needed <= this.scores.length) return;
    const capacity = Math.max(needed, 2 * this.scores.length);
    const scores = new Float32Array(capacity);
    scores.set(this.scores.subarray(0, this.size));
    const ids = new Int32Array(capacity);
    ids.set(this.ids.subarray(0, this.size));
    this.scores = scores;
    this.ids = ids;
  }
}

/** The histogram bin of a score. */
function binOf(score: number, scale: number): number {
  const at = score * scale;
  // A score past the bound (it should not be) lands in the top bin, which still ranks its candidates exactly.
  return at >= SCORE_BINS ? SCORE_BINS - 1 : at > 0 ? at | 0 : 0;
}

/** Scratch for the selection (searches on one thread run one at a time). */
const bins = new Int32Array(SCORE_BINS);
let boundaryScores = new Float32Array(1024);
let boundaryIds = new Int32Array(1024);
let work = new Float32Array(1024);

/** Rearranges values[from..to] so that values[k] is the value a descending sort would put there. */
function selectDescending(values: Float32Array, k: number, from: number, to: number): void {
  let lo = from;
  let hi = to;
  while (hi > lo) {
    // Median of three as the pivot keeps sorted or repetitive input from going quadratic.
    const mid = (lo + hi) >>> 1;
    const a = values[lo];
    const b = values[mid];
    const c = values[hi];
    const pivot = a > b ? (b > c ? b : a > c ? c : a) : a > c ? a : b > c ? c : b;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i] > pivot) i++;
      while (values[j] < pivot) j--;
      if (i <= j) {
        const swap = values[i];
        values[i] = values[j];
        values[j] = swap;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return;
  }
}

/** Appends to `best` the best `count` of the first `size` boundary candidates. */
function bestOfBoundary(size: number, count: number, best: SparseHit[]): void {
  if (size <= count) {
    for (let i = 0; i < size; i++) best.push({ id: boundaryIds[i], score: boundaryScores[i] });
    return;
  }
  if (work.length < size) work = new Float32Array(Math.max(size, 2 * work.length));
  work.set(boundaryScores.subarray(0, size));
  selectDescending(work, count - 1, 0, size - 1);
  const threshold = work[count - 1];
  let tied = 0;
  const target = best.length + count;
  for (let i = 0; i < size; i++) {
    const score = boundaryScores[i];
    if (score > threshold) best.push({ id: boundaryIds[i], score });
    else if (score === threshold) boundaryIds[tied++] = boundaryIds[i];
  }
  // Ties at the threshold go to the lowest ids, as a heap ordered by (score, id) would keep.
  const tiedIds = boundaryIds.subarray(0, tied).sort();
  for (let t = 0; best.length < target; t++) best.push({ id: tiedIds[t], score: threshold });
}

/**
 * The boundary bin: the highest bin at which the bins from the top hold `limit` candidates or more, how many
 * the bins above it hold, and how many it holds itself (the histogram is counted anew). Needs size > limit > 0.
 */
function boundaryBin(candidates: Candidates, limit: number): { bin: number; above: number; inside: number } {
  const { scores, size, binScale } = candidates;
  bins.fill(0);
  for (let i = 0; i < size; i++) bins[binOf(scores[i], binScale)]++;
  let bin = SCORE_BINS - 1;
  let above = 0;
  while (above + bins[bin] < limit) above += bins[bin--];
  return { bin, above, inside: bins[bin] };
}

/** The best `limit` candidates (score descending, then id ascending), in no particular order. */
export function bestOf(candidates: Candidates, limit: number): SparseHit[] {
  const { scores, ids, size, binScale } = candidates;
  if (size <= limit) return Array.from({ length: size }, (_, i) => ({ id: ids[i], score: scores[i] }));
  if (limit === 0) return [];
  const { bin: boundary, above, inside: inBoundary } = boundaryBin(candidates, limit);
  if (boundaryScores.length < inBoundary) {
    boundaryScores = new Float32Array(Math.max(inBoundary, 2 * boundaryScores.length));
    boundaryIds = new Int32Array(boundaryScores.length);
  }
  const best: SparseHit[] = [];
  let kept = 0;
  for (let i = 0; i < size; i++) {
    const score = scores[i];
    const bin = binOf(score, binScale);
    if (bin > boundary) best.push({ id: ids[i], score });
    else if (bin === boundary) {
      boundaryScores[kept] = score;
      boundaryIds[kept++] = ids[i];
    }
  }
  bestOfBoundary(kept, limit - above, best);
  return best;
}
