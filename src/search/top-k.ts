// A bounded min-heap keeping the k best (id, score) pairs; ties keep the smaller id for stable order.
// Typed arrays only: no per-push allocation on the search hot path.

export class TopK {
  private readonly capacity: number;
  private readonly ids: Int32Array;
  private readonly scores: Float64Array;
  private size = 0;

  constructor(capacity: number) {
    this.capacity = Math.max(1, capacity);
    this.ids = new Int32Array(this.capacity);
    this.scores = new Float64Array(this.capacity);
  }

  /** a ranks below b: lower score, or the same score and a larger id. */
  private below(i: number, j: number): boolean {
    const si = this.scores[i];
    const sj = this.scores[j];
    return si < sj || (si === sj && this.ids[i] > this.ids[j]);
  }

  push(id: number, score: number): void {
    if (this.size < this.capacity) {
      this.ids[this.size] = id;
      this.scores[this.size] = score;
      this.siftUp(this.size++);
      return;
    }
    const worstScore = this.scores[0];
    if (score < worstScore || (score === worstScore && id > this.ids[0])) return;
    this.ids[0] = id;
    this.scores[0] = score;
    this.siftDown(0);
  }

  private swap(i: number, j: number): void {
    const id = this.ids[i];
    this.ids[i] = this.ids[j];
    this.ids[j] = id;
    const score = this.scores[i];
    this.scores[i] = this.scores[j];
    this.scores[j] = score;
  }

  private siftUp(index: number): void {
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!this.below(index, parent)) break;
      this.swap(index, parent);
      index = parent;
    }
  }

  private siftDown(index: number): void {
    for (;;) {
      const left = index * 2 + 1;
      const right = left + 1;
      let smallest = index;
      if (left < this.size && this.below(left, smallest)) smallest = left;
      if (right < this.size && this.below(right, smallest)) smallest = right;
      if (smallest === index) return;
      this.swap(index, smallest);
      index = smallest;
    }
  }

  /** Best first: score descending, then id ascending. */
  sorted(): [number, number][] {
    const result: [number, number][] = [];
    for (let i = 0; i < this.size; i++) result.push([this.ids[i], this.scores[i]]);
    return result.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  }
}
