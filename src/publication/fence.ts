// A per-Client publication fence: one lifecycle writer at a time, waiting a bounded time for its turn.
// It guards ordering inside this process only; durable ordering is SQLite's transaction order.

export class FenceTimeout extends Error {
  constructor() {
    super('publication fence wait exceeded');
    this.name = 'FenceTimeout';
  }
}

export class Fence {
  private tail: Promise<void> = Promise.resolve();
  private holders = 0;

  get held(): boolean {
    return this.holders > 0;
  }

  /** Runs fn once every earlier holder has finished; rejects with FenceTimeout if that takes longer than waitMs. */
  async run<T>(waitMs: number, fn: () => Promise<T> | T): Promise<T> {
    const previous = this.tail;
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    this.tail = previous.then(() => mine);
    this.holders++;
    let timer: NodeJS.Timeout | undefined;
    try {
      const acquired = await Promise.race([
        previous.then(() => true),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), waitMs))),
      ]);
      if (!acquired) {
        // Keep the queue intact: our turn passes straight through once the earlier holders finish.
        throw new FenceTimeout();
      }
      return await fn();
    } finally {
      clearTimeout(timer);
      this.holders--;
      release();
    }
  }
}
