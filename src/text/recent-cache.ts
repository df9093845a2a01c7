// A cache of the recently used entries in two generations: entries go into the current generation; when it
// holds half the limit it becomes the previous one (the older previous is dropped), and an entry found in the
// previous generation moves back into the current one. So an entry used within the last half-limit insertions
// is always kept, and at most `limit` entries are held.
//
// For hot paths that look up on every token: a hit is one Map look-up with no bookkeeping, where an LRU list
// must also relink the entry (several random writes, each a likely cache miss in a table of tens of thousands).

export class RecentCache<K, V> {
  private current = new Map<K, V>();
  private previous = new Map<K, V>();
  private readonly generationSize: number;

  constructor(limit: number) {
    if (!(Number.isInteger(limit) && limit >= 2)) throw new RangeError('a recent cache holds at least 2 entries');
    this.generationSize = Math.floor(limit / 2);
  }

  get(key: K): V | undefined {
    const value = this.current.get(key);
    if (value !== undefined) return value;
    const older = this.previous.get(key);
    if (older !== undefined) {
      this.previous.delete(key);
      this.set(key, older);
    }
    return older;
  }

  set(key: K, value: V): void {
    if (this.current.size >= this.generationSize && !this.current.has(key)) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(key, value);
  }

  /** Entries held, in both generations. */
  get size(): number {
    return this.current.size + this.previous.size;
  }
}
