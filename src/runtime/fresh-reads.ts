// Reads shared by concurrent callers without handing any of them an answer older than its call. A caller never
// joins the read already under way (it may have begun before the caller's moment): it joins the one queued to
// start once that read settles, which every caller asking meanwhile shares. Under load, a stream of requests that
// each need "the store as of now" costs one read per round trip instead of one per request; alone, a caller reads
// at once as before.

export class FreshReads<K, T> {
  private readonly read: (key: K) => Promise<T>;
  private readonly inFlight = new Map<K, Promise<T>>();
  private readonly queued = new Map<K, Promise<T>>();

  constructor(read: (key: K) => Promise<T>) {
    this.read = read;
  }

  /** The answer of a read of `key` that begins at or after this call. */
  get(key: K): Promise<T> {
    const queued = this.queued.get(key);
    if (queued !== undefined) return queued;
    const current = this.inFlight.get(key);
    if (current === undefined) return this.start(key);
    // The read under way settles (well or not) before the queued one begins; its failure is its own callers'.
    const next = current.then(
      () => this.startQueued(key),
      () => this.startQueued(key),
    );
    this.queued.set(key, next);
    return next;
  }

  private startQueued(key: K): Promise<T> {
    this.queued.delete(key);
    return this.start(key);
  }

  private start(key: K): Promise<T> {
    // A read that throws at once fails its callers as one that fails later would.
    const reading = new Promise<T>((resolve) => resolve(this.read(key))).finally(() => {
      if (this.inFlight.get(key) === reading) this.inFlight.delete(key);
    });
    this.inFlight.set(key, reading);
    return reading;
  }
}
