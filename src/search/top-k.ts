// Bounded top-k selection for lane hits (sparse and dense): a min-heap keyed by (score, then larger id is worse).
// It never allocates per candidate, so scanning 100k scored docs stays cheap. Until it is full it is a plain list,
// made a heap at once when it fills (or is drained in order): candidates often come best first (a graph's
// proposals, nearest first), and each would otherwise climb the whole heap as the new worst.

export interface SparseHit {
  id: number;
  score: number;
}

export interface TopK {
  readonly capacity: number;
  size: number;
  scores: Float64Array;
  ids: Int32Array;
}

export function newTopK(capacity: number): TopK {
  return { capacity, size: 0, scores: new Float64Array(capacity), ids: new Int32Array(capacity) };
}

/** a ranks below b: lower score, or equal score and larger id (ties break by ascending id). */
function ranksBelow(scoreA: number, idA: number, scoreB: number, idB: number): boolean {
  return scoreA < scoreB || (scoreA === scoreB && idA > idB);
}

function swap(h: TopK, i: number, j: number): void {
  const s = h.scores[i];
  h.scores[i] = h.scores[j];
  h.scores[j] = s;
  const id = h.ids[i];
  h.ids[i] = h.ids[j];
  h.ids[j] = id;
}

function siftDown(h: TopK, i: number): void {
  for (;;) {
    const left = 2 * i + 1;
    const right = left + 1;
    let worst = i;
    if (left < h.size && ranksBelow(h.scores[left], h.ids[left], h.scores[worst], h.ids[worst])) worst = left;
    if (right < h.size && ranksBelow(h.scores[right], h.ids[right], h.scores[worst], h.ids[worst])) worst = right;
    if (worst === i) return;
    swap(h, i, worst);
    i = worst;
  }
}

/** Orders the first `size` entries as a heap, worst at the root (bottom-up: linear in size). */
function heapify(h: TopK): void {
  for (let i = (h.size >> 1) - 1; i >= 0; i--) siftDown(h, i);
}

/**
 * Offers a candidate; keeps it only while it is among the best `capacity` seen so far. The entries are heap-ordered
 * only once the heap is full: until then scores[0] is not the worst kept.
 */
export function offer(h: TopK, score: number, id: number): void {
  if (h.capacity === 0) return;
  if (h.size < h.capacity) {
    h.scores[h.size] = score;
    h.ids[h.size] = id;
    if (++h.size === h.capacity) heapify(h);
    return;
  }
  if (!ranksBelow(h.scores[0], h.ids[0], score, id)) return;
  h.scores[0] = score;
  h.ids[0] = id;
  siftDown(h, 0);
}

/** The kept candidates in no particular order (for callers that rank them again anyway); empties the heap. */
export function drainUnordered(h: TopK): SparseHit[] {
  const hits = new Array<SparseHit>(h.size);
  for (let i = 0; i < h.size; i++) hits[i] = { id: h.ids[i], score: h.scores[i] };
  h.size = 0;
  return hits;
}

/** The kept candidates, best first (score descending, id ascending on ties); empties the heap. */
export function drainSorted(h: TopK): SparseHit[] {
  const hits = new Array<SparseHit>(h.size);
  if (h.size < h.capacity) heapify(h);
  // Popping the worst each time fills the result from the back: a heap sort with no comparator calls.
  while (h.size > 0) {
    hits[h.size - 1] = { id: h.ids[0], score: h.scores[0] };
    h.size--;
    if (h.size === 0) break;
    h.scores[0] = h.scores[h.size];
    h.ids[0] = h.ids[h.size];
    siftDown(h, 0);
  }
  return hits;
}
