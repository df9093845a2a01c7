// The serving index of one api process: the immutable snapshots of the Clients it serves now and the
// publication-log position each reflects. It moves only by applying the durable log (or rebuilding from the
// store), never by a write here. It composes one part per concern and is what the rest of the process sees:
// - resident-clients.ts: which Clients stay loaded under the memory budget (least recently read evicted);
// - client-loader.ts: a Client loaded whole from the store and the segment cache, on first use or to rebuild;
// - log-applier.ts: the log entries committed since a snapshot applied to it (catch-up);
// - merging/merge-scheduler.ts: background merges as the policy asks (merging/merge-policy.ts), swapped in only
//   if the segments they replace are still served; once a Client settles, its settle merge or the write of its
//   large segments to the segment cache (caches/cache-writer.ts);
// - graphs/graph-scheduler.ts: the HNSW graphs of large segments, built one at a time.
// Segments are built and merged by a SegmentBuilder (off the event loop in api processes).

import type { StoragePort } from '../storage/port.ts';
import type { ClientSnapshot } from './snapshot.ts';
import type { SegmentBuilder } from './segment.ts';
import type { SegmentCache } from './caches/segment-cache.ts';
import { ResidentClients } from './resident-clients.ts';
import type { Served, ServingStats } from './resident-clients.ts';
import { ClientLoader } from './client-loader.ts';
import { LogApplier } from './log-applier.ts';
import { MergeScheduler, SEGMENT_SETTLE_MS } from './merging/merge-scheduler.ts';
import { GraphScheduler } from './graphs/graph-scheduler.ts';
import { CacheWriter } from './caches/cache-writer.ts';

export interface ServingIndexOptions {
  /**
   * What served Clients may hold (memory-estimate.ts snapshotBudgetBytes), or a function read at each load
   * (memory-pressure.ts); unbounded when not given.
   */
  memoryBudgetBytes?: number | (() => number);
  /** Called once after Clients were evicted to keep the budget (memory-pressure.ts collects their garbage). */
  evicted?: () => void;
  /**
   * Called after each load or catch-up of a Client, and after the background work one leaves (a merge, a graph
   * attached, a segment written to the cache): memory-pressure.ts collects what the work left once it settles. An
   * idle process allocates nothing, so V8 would not otherwise collect the segments a last merge replaced or the
   * bytes of a last cache write (measured after a 100,000-chunk load: 80 MiB held for as long as a graph build took).
   */
  changed?: () => void;
  /** Large segments kept on disk for the next load (none: every load merges lane data). */
  segmentCache?: SegmentCache;
  /** SEGMENT_SETTLE_MS unless a test settles sooner. */
  settleMs?: number;
}

export class ServingIndex {
  private readonly builder: SegmentBuilder;
  private readonly residents: ResidentClients;
  private readonly loader: ClientLoader;
  private readonly applier: LogApplier;
  private readonly merges: MergeScheduler;
  private readonly graphs: GraphScheduler;
  private readonly cacheWriter: CacheWriter;
  private readonly changed: () => void;
  /** Rebuilds from the store so far (start-up ones included): a follower that keeps rebuilding is lagging. */
  rebuilds = 0;
  onCompactionError: (error: unknown) => void = () => {};

  constructor(storage: StoragePort, dimensions: number, builder: SegmentBuilder, options: ServingIndexOptions = {}) {
    this.builder = builder;
    const budget = options.memoryBudgetBytes ?? Number.POSITIVE_INFINITY;
    this.changed = options.changed ?? (() => {});
    const cache = options.segmentCache ?? null;
    // Read when an error happens, so that onCompactionError may be set after construction (api.ts does).
    const onError = (error: unknown) => this.onCompactionError(error);
    this.residents = new ResidentClients(storage, dimensions, {
      budgetBytes: typeof budget === 'number' ? () => budget : budget,
      busy: (clientId) => this.applier.applying(clientId) || this.merges.merging(clientId),
      evicted: options.evicted ?? (() => {}),
    });
    this.cacheWriter = new CacheWriter(cache, this.residents, dimensions, { changed: this.changed, onError });
    this.loader = new ClientLoader(storage, dimensions, builder, {
      segmentCache: cache,
      restored: (segment) => this.cacheWriter.restoredFromCache(segment),
      loaded: (clientId, served) => this.store(clientId, served),
    });
    this.applier = new LogApplier(storage, dimensions, builder, this.residents, {
      load: (clientId) => this.loader.load(clientId),
      rebuild: (clientId) => this.rebuild(clientId),
      applied: (clientId, served) => this.store(clientId, served),
      segmentCache: cache,
      onError,
    });
    this.graphs = new GraphScheduler(builder, this.residents, { mergesPending: (clientId) => this.merges.pending(clientId), changed: this.changed, onError });
    this.merges = new MergeScheduler(builder, this.residents, this.graphs, {
      settleMs: options.settleMs ?? SEGMENT_SETTLE_MS,
      settled: (clientId) => this.cacheWriter.write(clientId),
      changed: this.changed,
      onError,
    });
  }

  /** The Client's current snapshot (empty when it is not loaded); a read marks its Client recently used. */
  snapshot(clientId: string): ClientSnapshot {
    return this.residents.read(clientId);
  }

  isLoaded(clientId: string): boolean {
    return this.residents.has(clientId);
  }

  /** Clients loaded in this process (the follower keeps only these current). */
  loadedClientIds(): string[] {
    return this.residents.clientIds();
  }

  appliedSeq(clientId: string): number {
    return this.residents.appliedSeq(clientId);
  }

  /** Segments read back from the segment cache by loads so far. */
  get restoredSegments(): number {
    return this.loader.restoredSegments;
  }

  /** A Client's new state (loaded or caught up): kept within the budget, then its background work scheduled. */
  private store(clientId: string, served: Served): void {
    this.residents.store(clientId, served);
    this.changed();
    this.merges.scheduleCompaction(clientId);
    this.graphs.schedule(clientId);
    this.merges.scheduleSettle(clientId);
  }

  /**
   * Builds the Client's snapshot from the store (start-up, or a follower too far behind): the log head is
   * read first, then the active generations in batches; entries committed meanwhile are applied afterwards
   * from that head by the next catch-up, so nothing committed during the rebuild is missed.
   */
  async rebuild(clientId: string): Promise<void> {
    await this.loader.load(clientId);
    this.rebuilds++;
  }

  /**
   * Applies every log entry committed up to now (at least up to `atLeast`), or, with `until` (the start of
   * a fence), those up to the fence's position; concurrent callers share one pass.
   */
  catchUp(clientId: string, atLeast = 0, until?: string): Promise<void> {
    return this.applier.catchUp(clientId, atLeast, until);
  }

  /** Writes now what a settle would write later (shutdown, tests and benchmarks); no settle merge runs. */
  flushCacheWrites(): void {
    for (const clientId of this.merges.takeWaitingSettles()) this.cacheWriter.write(clientId);
  }

  /** Resolves once every graph build queued so far has ended (tests and benchmarks). */
  annSettled(): Promise<void> {
    return this.graphs.settled();
  }

  /** Resolves once no background merge runs, settle merges included (tests and benchmarks). */
  mergesSettled(): Promise<void> {
    return this.merges.settledMerges();
  }

  /** Stops scheduling merges, graph builds and cache writes (shutdown). */
  close(): void {
    this.merges.close();
    this.graphs.close();
    this.cacheWriter.close();
  }

  /** What the builder's thread holds besides this thread's snapshots (bytes; 0 for a builder without one). */
  builderThreadBytes(): Promise<number> {
    return this.builder.threadBytes?.() ?? Promise.resolve(0);
  }

  /** Counts for health and the operator view: loaded Clients, versions, live chunks and segments. */
  stats(): ServingStats {
    return this.residents.stats();
  }
}
