// Keeps an api process under SERVING_MEMORY_BUDGET_MB as measured, not only as estimated. Two things make
// the estimate alone fall short:
// - an evicted snapshot's typed arrays are garbage, but V8 collects them only once its heap or its external
//   memory has grown past its own limits (external memory alone may grow by 64 MiB between collections), so
//   a process that loads and evicts Clients in turn stays well over its budget with memory nothing uses;
// - what the estimate does not see (allocator fragmentation, the threads' own heaps, pages of the binary
//   touched by new work) grows with the work the process has done.
// Like a soft memory limit, it forces a full collection when the process is near its budget after evicting
// Clients, and only then: a process well under its budget never pays for one. If the process is still over its
// target after the collection, what served Clients may hold shrinks by the excess (they are evicted on the
// next load); it grows back, never past the estimate's own allowance, while the process stays under its
// target without help.

/** A full, synchronous garbage collection (V8's `gc`, exposed by `--expose-gc`). */
export type CollectGarbage = () => void;

/** The V8 flag that exposes `gc` to the process; the supervisor and `npm run api` start api processes with it. */
export const EXPOSE_GC_FLAG = '--expose-gc';

/**
 * Share of the budget past which a process collects after evicting: the rest is room for what one load holds
 * before its eviction round (its lane data, and the segment being built), so that the peak stays under the budget.
 */
export const COLLECT_AT_SHARE = 0.95;
/**
 * Share of the budget a process should be under right after a collection: the rest is room for the garbage of
 * the loads until the next one, so that collections stay occasional.
 */
export const COLLECTED_TARGET_SHARE = 0.85;

/** V8's collector when the process was started with EXPOSE_GC_FLAG, otherwise null (then nothing is forced). */
export function exposedCollector(): CollectGarbage | null {
  const gc = (globalThis as { gc?: unknown }).gc;
  return typeof gc === 'function' ? () => (gc as () => void)() : null;
}

/**
 * How long a process goes without loading or catching up a Client before the heap that work grew is collected
 * (settled). Loading a Client parses its versions and reads its lane data in batches; V8 keeps the old space
 * that garbage grew to (measured: 102 MiB of pages holding 47 MiB live, for as long as the process ran).
 */
export const SETTLE_COLLECT_MS = 2000;

export interface MemoryPressureOptions {
  /** The whole process's budget (SERVING_MEMORY_BUDGET_MB in bytes). */
  budgetBytes: number;
  /** What served Clients may hold by the estimate (memory-estimate.ts snapshotBudgetBytes). */
  servedBytes: number;
  /** null: no collection is forced, and served Clients keep the estimate's allowance. */
  collect: CollectGarbage | null;
  /** The process's resident size now. */
  residentBytes?: () => number;
}

export class MemoryPressure {
  private readonly budgetBytes: number;
  private readonly estimatedAllowance: number;
  private readonly collect: CollectGarbage | null;
  private readonly residentBytes: () => number;
  private allowance: number;
  /** Collections forced so far (reported with the serving figures). */
  collections = 0;
  private settleTimer: NodeJS.Timeout | undefined;

  constructor(options: MemoryPressureOptions) {
    this.budgetBytes = options.budgetBytes;
    this.estimatedAllowance = options.servedBytes;
    this.allowance = options.servedBytes;
    this.collect = options.collect;
    this.residentBytes = options.residentBytes ?? (() => process.memoryUsage.rss());
  }

  /** What served Clients may hold now, by the memory estimate (never more than the estimate's allowance). */
  servedBytes(): number {
    return this.allowance;
  }

  /**
   * Called after a Client was loaded or caught up: once SETTLE_COLLECT_MS pass without another call, one full
   * collection returns the heap that work grew. Busy ingest keeps postponing it; it runs once ingest pauses.
   */
  settleLater(): void {
    const collect = this.collect;
    if (!collect) return;
    clearTimeout(this.settleTimer);
    this.settleTimer = setTimeout(() => {
      collect();
      this.collections++;
    }, SETTLE_COLLECT_MS).unref();
  }

  /** Called after Clients were evicted: collects their garbage if the process is near its budget. */
  relieve(): void {
    if (!this.collect) return;
    const target = Math.floor(this.budgetBytes * COLLECTED_TARGET_SHARE);
    const resident = this.residentBytes();
    if (resident <= this.budgetBytes * COLLECT_AT_SHARE) {
      // Under its target even with its garbage: room the estimate's misses no longer take comes back.
      if (resident < target) this.allowance = Math.min(this.estimatedAllowance, this.allowance + Math.floor((target - resident) / 2));
      return;
    }
    this.collect();
    this.collections++;
    const collected = this.residentBytes();
    if (collected > target) this.allowance = Math.max(0, this.allowance - (collected - target));
  }
}
