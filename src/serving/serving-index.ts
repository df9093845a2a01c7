// The serving index of one api process: the immutable snapshots of the Clients it serves now and the
// publication-log position each reflects. A Client is loaded from the store on first use and the least
// recently used are evicted while the estimate of what is held exceeds the memory budget; an evicted Client
// is simply loaded again by its next read. It moves only by applying the durable log (or rebuilding from the
// store), never by a write here. Segments are built and merged by a SegmentBuilder (off the event loop in api processes); merges run
// in the background and are swapped in only if the segments they replace are still served.

import pLimit from 'p-limit';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { StoragePort } from '../storage/port.ts';
import type { ServingGeneration } from '../domain/generation.ts';
import { PUBLICATION_LOG_REPLAY_LIMIT } from '../domain/publication-log.ts';
import type { PublicationLogEntry } from '../domain/publication-log.ts';
import { versionIdentity, versionIdFromKey } from '../domain/identity.ts';
import { commitChange, compactionPlan, emptySnapshot, planChange, replaceSegments, settleMergePlan } from './snapshot.ts';
import type { ClientSnapshot, SnapshotChange } from './snapshot.ts';
import type { ServedVersion } from './served-types.ts';
import { assembleSegment, wantsAnn } from './segment.ts';
import { chooseEntries } from './segment-cache.ts';
import { chainSettled } from '../runtime/chain-settled.ts';
import type { SegmentCache } from './segment-cache.ts';
import type { CachedGeneration } from '../codec/segment-file.ts';
import { recordedLanesDigest } from '../codec/manifest.ts';
import { segmentBytes, snapshotBytes } from './memory-estimate.ts';
import type { Segment, SegmentBuilder } from './segment.ts';
import type { Evidence } from '../codec/evidence.ts';

/** A load sends generations to its build session in batches of about this many chunks (what it holds at once). */
export const REBUILD_BATCH_CHUNKS = 10_000;
/**
 * How long a Client's segments must stay as they are before they settle: its newest merge (settleMergePlan), and
 * then its large ones are written to the segment cache.
 */
export const SEGMENT_SETTLE_MS = 5_000;
/** Generations read from the store per query during a rebuild. */
const REBUILD_READ_BATCH = 200;
/**
 * Clients a process loads at once; more wait their turn. A load holds a batch of lane data and the segment being
 * built until it is stored, and a burst of first searches (bench/many-clients: 8 at a time over 200 Clients) took
 * an api process 10-25 MiB past its memory budget at peaks. The builds run one at a time on the segment thread
 * anyway; two at once let a small Client's load pass a large one's.
 */
export const CONCURRENT_LOADS = 2;

interface Served {
  snapshot: ClientSnapshot;
  /** The log sequence number the snapshot reflects. */
  appliedSeq: number;
}

export interface ServingStats {
  /** Clients loaded in this process now. */
  clients: number;
  /** Estimated bytes they hold (memory-estimate.ts), against the budget. */
  estimatedBytes: number;
  budgetBytes: number;
  /** Clients loaded and evicted so far. */
  loads: number;
  evictions: number;
  /** Segments served with an HNSW graph, and large ones still waiting for theirs (searched exactly meanwhile). */
  graphs: number;
  graphsPending: number;
  versions: number;
  chunks: number;
  segments: number;
  /** Rows the segments hold: live chunks, and rows of versions replaced or deleted that no merge has dropped yet. */
  segmentRows: number;
}

function identityOf(entry: { documentId: string; versionKey: string }): string {
  return versionIdentity({ documentId: entry.documentId, versionId: versionIdFromKey(entry.versionKey) });
}

/** The last entry of each Document Version: what a batch of log entries amounts to. */
function coalesce(entries: PublicationLogEntry[]): Map<string, PublicationLogEntry> {
  const last = new Map<string, PublicationLogEntry>();
  for (const entry of entries) last.set(identityOf(entry), entry);
  return last;
}

export class ServingIndex {
  private readonly storage: StoragePort;
  private readonly dimensions: number;
  private readonly builder: SegmentBuilder;
  /** Loaded Clients, least recently used first (a read moves its Client to the end). */
  private readonly served = new Map<string, Served>();
  /** What served Clients may hold now (a fixed figure, or memory-pressure.ts's measured allowance). */
  private readonly budgetBytes: () => number;
  /** One catch-up at a time per Client, so entries are applied once and in order. */
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly loadTurns = pLimit(CONCURRENT_LOADS);
  /** Clients with a background merge running (one at a time per Client). */
  private readonly compacting = new Map<string, Promise<void>>();
  /** Clients settling: their settle merge, then its graph, then its swap (settle). */
  private readonly settling = new Map<string, Promise<void>>();
  /** Graph builds run one after another; a segment no longer served by then is skipped. */
  private annChain: Promise<void> = Promise.resolve();
  private readonly annQueued = new WeakSet<Segment>();
  private closed = false;
  /** Rebuilds from the store so far (start-up ones included): a follower that keeps rebuilding is lagging. */
  rebuilds = 0;
  loads = 0;
  /** Segments read back from the segment cache by loads so far. */
  restoredSegments = 0;
  evictions = 0;
  onCompactionError: (error: unknown) => void = () => {};
  /** Called once after Clients were evicted to keep the budget (memory-pressure.ts collects their garbage). */
  private readonly evicted: () => void;
  /**
   * Called after each load or catch-up of a Client, and after the background work one leaves (a merge, a graph
   * attached, a segment written to the cache): memory-pressure.ts collects what the work left once it settles. An
   * idle process allocates nothing, so V8 would not otherwise collect the segments a last merge replaced or the
   * bytes of a last cache write (measured after a 100,000-chunk load: 80 MiB held for as long as a graph build took).
   */
  private readonly changed: () => void;
  /** Large segments kept on disk for the next load (none: every load merges lane data). */
  private readonly cache: SegmentCache | null;
  /** Segments read back from the cache, and segments written to it (neither is written again). */
  private readonly restored = new WeakSet<Segment>();
  private readonly written = new WeakSet<Segment>();
  /** Per Client, its settle waiting for its segments to stay as they are (scheduleSettle). */
  private readonly settleTimers = new Map<string, NodeJS.Timeout>();
  /** SEGMENT_SETTLE_MS unless a test settles sooner. */
  private readonly settleMs: number;

  /**
   * `memoryBudgetBytes`: what served Clients may hold (memory-estimate.ts snapshotBudgetBytes), or a function
   * read at each load (memory-pressure.ts); `evicted`: called after each eviction round.
   */
  constructor(storage: StoragePort, dimensions: number, builder: SegmentBuilder, options: { memoryBudgetBytes?: number | (() => number); evicted?: () => void; changed?: () => void; segmentCache?: SegmentCache; settleMs?: number } = {}) {
    this.storage = storage;
    this.dimensions = dimensions;
    this.builder = builder;
    const budget = options.memoryBudgetBytes ?? Number.POSITIVE_INFINITY;
    this.budgetBytes = typeof budget === 'number' ? () => budget : budget;
    this.evicted = options.evicted ?? (() => {});
    this.changed = options.changed ?? (() => {});
    this.cache = options.segmentCache ?? null;
    this.settleMs = options.settleMs ?? SEGMENT_SETTLE_MS;
  }

  /** The Client's current snapshot (empty when it is not loaded); a read marks its Client recently used. */
  snapshot(clientId: string): ClientSnapshot {
    const served = this.served.get(clientId);
    if (!served) return emptySnapshot(clientId, this.dimensions);
    this.served.delete(clientId);
    this.served.set(clientId, served);
    return served.snapshot;
  }

  private current(clientId: string): ClientSnapshot {
    return this.served.get(clientId)?.snapshot ?? emptySnapshot(clientId, this.dimensions);
  }

  isLoaded(clientId: string): boolean {
    return this.served.has(clientId);
  }

  /** Clients loaded in this process (the follower keeps only these current). */
  loadedClientIds(): string[] {
    return [...this.served.keys()];
  }

  /** Records a Client's new state and evicts least recently used others while over the budget. */
  private store(clientId: string, served: Served): void {
    const loading = !this.served.has(clientId);
    this.served.set(clientId, served);
    if (loading) this.loads++;
    this.enforceBudget(clientId);
    this.changed();
  }

  private enforceBudget(keep: string): void {
    let total = this.estimatedBytes();
    const budget = this.budgetBytes();
    let evicted = 0;
    for (const [clientId, served] of this.served) {
      if (total <= budget) break;
      // A Client being caught up or merged finishes first; the one just stored stays (it is being read).
      if (clientId === keep || this.inFlight.has(clientId) || this.compacting.has(clientId)) continue;
      total -= snapshotBytes(served.snapshot);
      this.served.delete(clientId);
      this.storage.releaseClient(clientId);
      evicted++;
    }
    this.evictions += evicted;
    if (evicted > 0) this.evicted();
  }

  private estimatedBytes(): number {
    let total = 0;
    for (const { snapshot } of this.served.values()) total += snapshotBytes(snapshot);
    return total;
  }

  appliedSeq(clientId: string): number {
    return this.served.get(clientId)?.appliedSeq ?? 0;
  }

  /**
   * Builds the Client's snapshot from the store (start-up, or a follower too far behind): the log head is
   * read first, then the active generations in batches; entries committed meanwhile are applied afterwards
   * from that head by the next catch-up, so nothing committed during the rebuild is missed.
   */
  async rebuild(clientId: string): Promise<void> {
    await this.load(clientId);
    this.rebuilds++;
  }

  /**
   * Loads the Client's snapshot whole from the store (see rebuild): first the large segments the segment cache
   * holds for generations still active (restoreCached), then the other generations, read, verified and sent to
   * one build session in batches, so the load holds one batch of lane data at a time and they make one segment.
   */
  private load(clientId: string): Promise<void> {
    return this.loadTurns(() => this.loadWhole(clientId));
  }

  private async loadWhole(clientId: string): Promise<void> {
    const store = this.storage.client(clientId);
    const head = await store.publicationLog.head();
    const ids = await store.generations.servedGenerationIds();
    const restored = await this.restoreCached(clientId, ids);
    const rest = restored.covered.size === 0 ? ids : ids.filter((id) => !restored.covered.has(id));
    const session = this.builder.begin(this.dimensions, rest.length);
    let snapshot = restored.snapshot;
    const versions: ServedVersion[] = [];
    let batch: ServingGeneration[] = [];
    let batchChunks = 0;
    // One batch is being indexed on the segment thread while the next is read and verified here.
    let adding: Promise<void> = Promise.resolve();
    const flush = async () => {
      if (batch.length === 0) return;
      const plan = planChange(snapshot, { activated: batch, evidence: await this.evidenceOf(batch) });
      await adding;
      adding = session.add(plan.added);
      // Handled here so a failure waiting for its turn is not unhandled; awaited again (and thrown) below.
      adding.catch(() => undefined);
      versions.push(...plan.addedVersions);
      snapshot = commitChange(snapshot, plan, null);
      batch = [];
      batchChunks = 0;
    };
    let segment: Segment | null = null;
    try {
      for (let start = 0; start < rest.length; start += REBUILD_READ_BATCH) {
        for (const generation of await store.generations.loadActiveGenerations(rest.slice(start, start + REBUILD_READ_BATCH))) {
          batch.push(generation);
          batchChunks += generation.chunkCount;
        }
        if (batchChunks >= REBUILD_BATCH_CHUNKS) await flush();
        await yieldToEventLoop();
      }
      await flush();
      await adding;
    } catch (error) {
      await adding.catch(() => undefined);
      await session.abandon();
      throw error;
    }
    if (versions.length > 0) segment = await session.finish(versions);
    else await session.abandon();
    this.store(clientId, { snapshot: segment ? { ...snapshot, segments: [...snapshot.segments, segment] } : snapshot, appliedSeq: head });
    this.scheduleBackgroundWork(clientId);
  }

  /**
   * The Client's segments read back from the segment cache: the files chosen (chooseEntries) whose every
   * generation is still active with the lane data the file was built from (its manifest's digest and chunk
   * count), each verified through that proof and given the next ordinals. Files no load can use any more are
   * removed; a file that is gone or damaged is removed and its generations are left to their lane data.
   */
  private async restoreCached(clientId: string, ids: readonly number[]): Promise<{ snapshot: ClientSnapshot; covered: Set<number> }> {
    let snapshot = emptySnapshot(clientId, this.dimensions);
    const covered = new Set<number>();
    const cache = this.cache;
    if (!cache) return { snapshot, covered };
    const entries = await cache.entries(clientId);
    const chosen = chooseEntries(entries, new Set(ids));
    for (const entry of entries) if (!chosen.includes(entry)) await cache.remove(entry);
    const store = this.storage.client(clientId);
    for (const entry of chosen) {
      // The file is read while the generations' records are (their lane data is not kept: the file replaces it).
      const reading = cache.read(entry);
      reading.catch(() => undefined);
      const wanted = entry.generations.map(({ generation }) => generation);
      const loaded = new Map<number, ServingGeneration>();
      for (let start = 0; start < wanted.length; start += REBUILD_READ_BATCH) {
        for (const generation of await store.generations.loadActiveGenerations(wanted.slice(start, start + REBUILD_READ_BATCH), { content: false })) loaded.set(generation.generation, generation);
        await yieldToEventLoop();
      }
      const generations = entry.generations.map(({ generation, lanesDigest, rows }) => {
        const found = loaded.get(generation);
        return found && found.chunkCount === rows && recordedLanesDigest(found.manifest) === lanesDigest ? found : null;
      });
      const file = await reading;
      if (!file || generations.some((generation) => generation === null)) {
        await cache.remove(entry);
        continue;
      }
      const activated = generations as ServingGeneration[];
      const proofs = new Map(entry.generations.map(({ generation, lanesDigest, rows }) => [generation, { digest: lanesDigest, chunkCount: rows }]));
      const verified = await this.builder.verify(activated, proofs);
      const plan = planChange(snapshot, { activated, evidence: new Map(activated.map((generation, i) => [generation.generation, verified[i]])) });
      let segment: Segment;
      try {
        segment = assembleSegment(await this.builder.restore(file, snapshot.nextOrdinal), plan.addedVersions, this.dimensions);
      } catch {
        // Damaged (its digest or layout), or it could not be decoded: the lane data load its generations instead.
        await cache.remove(entry);
        continue;
      }
      this.restored.add(segment);
      this.restoredSegments++;
      snapshot = commitChange(snapshot, plan, segment);
      for (const generation of wanted) covered.add(generation);
    }
    return { snapshot, covered };
  }

  /**
   * Settles the Client once its segments have stayed as they are for SEGMENT_SETTLE_MS (each publication and
   * merge puts it off): during bulk ingest merges replace large segments every few seconds, and a settle merge or
   * a cache file would be made stale by the next.
   */
  private scheduleSettle(clientId: string): void {
    if (this.closed) return;
    clearTimeout(this.settleTimers.get(clientId));
    const timer = setTimeout(() => this.settle(clientId), this.settleMs);
    timer.unref();
    this.settleTimers.set(clientId, timer);
  }

  /**
   * The settle merge of the Client (settleMergePlan), if it has one, else the write of its large segments to the
   * segment cache (which the settle after the merge makes). The merged segment gets its HNSW graph before it is
   * swapped in, so that searches meanwhile walk the graphs of the segments it replaces instead of scanning it all
   * exactly. Publications meanwhile are applied as ever; if a merge took any of the same segments first, this one
   * is dropped and the next settle plans again.
   */
  private settle(clientId: string): void {
    this.settleTimers.delete(clientId);
    if (this.closed || !this.served.has(clientId) || this.settling.has(clientId) || this.compacting.has(clientId)) return; // a merge's end settles again
    const plan = settleMergePlan(this.current(clientId));
    if (!plan) {
      this.writeCached(clientId);
      return;
    }
    const settling = this.settleMerge(clientId, plan)
      .then(
        () => this.scheduleSettle(clientId),
        (error) => this.onCompactionError(error), // not retried until the Client changes again
      )
      .finally(() => {
        this.settling.delete(clientId);
        this.scheduleAnn(clientId);
      });
    this.settling.set(clientId, settling);
  }

  private async settleMerge(clientId: string, plan: Segment[]): Promise<void> {
    const merging = this.builder.merge(plan, this.current(clientId).live);
    this.compacting.set(clientId, merging.then(
      () => undefined,
      () => undefined,
    ));
    let merged: Segment;
    try {
      merged = await merging;
    } finally {
      this.compacting.delete(clientId);
      this.scheduleCompaction(clientId); // publications meanwhile may have left a run to merge
    }
    // Built first, the merged segment is held beside the segments it replaces for as long as its graph takes (minutes
    // at a million rows): only while the budget has room for both. Otherwise it replaces them now, and its graph
    // follows (scheduleAnn), exact scans meanwhile.
    if (wantsAnn(merged) && this.estimatedBytes() + segmentBytes(merged) <= this.budgetBytes()) {
      // A graph that cannot be built leaves the merged segment to exact scans, as for any segment (scheduleAnn).
      merged.ann.graph = await this.queueGraph(() => this.builder.buildAnn(merged, clientId)).catch((error) => {
        this.onCompactionError(error);
        return null;
      });
      this.forgetGraphsOfRemoved(clientId, merged);
    }
    const current = this.served.get(clientId);
    const next = current && !this.closed ? replaceSegments(current.snapshot, plan, merged) : null;
    if (!current || !next) return;
    this.served.set(clientId, { snapshot: next, appliedSeq: current.appliedSeq });
    this.changed();
  }

  /**
   * Writes the Client's large segments to the segment cache in the background, each once (none read back from
   * it), when every generation in it is live, verified and has persisted lane data (the digests that name the
   * file): the next load of the Client reads them back instead of merging their lane data again. A segment
   * holding a generation that is not verified is never written, so it cannot come back verified.
   */
  private writeCached(clientId: string): void {
    const cache = this.cache;
    const snapshot = this.served.get(clientId)?.snapshot;
    if (!cache || this.closed || !snapshot) return;
    for (const segment of snapshot.segments) {
      if (segment.rows < cache.minRows || this.restored.has(segment) || this.written.has(segment)) continue;
      this.written.add(segment);
      const generations: CachedGeneration[] = [];
      for (const version of segment.versions) {
        const { lanesDigest } = version;
        if (version.evidence.state !== 'verified' || lanesDigest === null || snapshot.live[version.firstOrdinal] !== 1) break;
        generations.push({ generation: version.generation, lanesDigest, rows: version.chunkCount });
      }
      if (generations.length < segment.versions.length) continue;
      cache.write(clientId, segment, this.dimensions, generations).then(this.changed, (error) => this.onCompactionError(error));
    }
  }

  /** Writes now what a settle would write later (shutdown, tests and benchmarks); no settle merge runs. */
  flushCacheWrites(): void {
    for (const [clientId, timer] of this.settleTimers) {
      clearTimeout(timer);
      this.settleTimers.delete(clientId);
      this.writeCached(clientId);
    }
  }

  /**
   * A new snapshot with the change applied; its new segment is built by the builder. `base` is read again
   * after the build: only a background merge can have replaced segments meanwhile (it never touches versions
   * or liveness), so the plan commits onto the snapshot current then.
   */
  private async applied(base: () => ClientSnapshot, change: SnapshotChange): Promise<ClientSnapshot> {
    const plan = planChange(base(), change);
    const segment = plan.added.length > 0 ? await this.builder.build(plan.added, plan.addedVersions, this.dimensions) : null;
    return commitChange(base(), plan, segment);
  }

  /**
   * Applies every log entry committed up to now (at least up to `atLeast`), or, with `until` (the start of
   * a fence), those up to the fence's position; concurrent callers share one pass.
   */
  async catchUp(clientId: string, atLeast = 0, until?: string): Promise<void> {
    for (;;) {
      const running = this.inFlight.get(clientId);
      if (running) {
        await running;
        if (this.appliedSeq(clientId) >= atLeast) return;
        continue;
      }
      const pass = this.applyPending(clientId, until).finally(() => this.inFlight.delete(clientId));
      this.inFlight.set(clientId, pass);
      await pass;
      return;
    }
  }

  private async applyPending(clientId: string, until?: string): Promise<void> {
    if (!this.served.has(clientId)) {
      // Not loaded (first use, or evicted): load it whole from the store, then apply what came meanwhile.
      await this.load(clientId);
      return this.applyPending(clientId, until);
    }
    const applied = this.appliedSeq(clientId);
    const changes = await this.storage.client(clientId).publicationLog.changesSince(applied, PUBLICATION_LOG_REPLAY_LIMIT, until);
    if (changes.head <= applied) return;
    if (changes.entries.length === 0) {
      // Too far behind, or the entries were compacted away: rebuild instead of replaying.
      await this.rebuild(clientId);
      return this.applyPending(clientId, until);
    }
    const activated: ServingGeneration[] = [];
    const removed: string[] = [];
    for (const [identity, entry] of coalesce(changes.entries)) {
      if (entry.kind === 'remove') {
        removed.push(identity);
        continue;
      }
      // Read in one transaction up to the head, the last activation of a version names its active generation.
      // Only a catch-up bounded by a fence's position (FENCING) can meet one retired since; that later change is not applied.
      const loaded = entry.generation === null ? undefined : changes.generations.get(entry.generation);
      if (loaded) activated.push(loaded);
    }
    if (removed.length > 0) this.forgetCached(clientId, removed);
    const evidence = await this.evidenceOf(activated);
    const snapshot = await this.applied(() => this.current(clientId), { activated, removed, evidence });
    this.store(clientId, { snapshot, appliedSeq: changes.entries[changes.entries.length - 1].seq });
    this.scheduleBackgroundWork(clientId);
  }

  /** Removes the cached segments and graphs holding versions deleted for good (segments in the background). */
  private forgetCached(clientId: string, identities: readonly string[]): void {
    const snapshot = this.current(clientId);
    const removed = new Set(identities);
    const generations = new Set(identities.flatMap((identity) => snapshot.versions.get(identity)?.generation ?? []));
    // Generations of those versions that were replaced before still have rows in segments, and so in graphs.
    for (const segment of snapshot.segments) for (const version of segment.versions) if (removed.has(version.identity)) generations.add(version.generation);
    if (generations.size === 0) return;
    if (this.cache) this.cache.forget(clientId, generations).catch((error) => this.onCompactionError(error));
    this.builder.forgetGraphs?.(clientId, (generation) => generations.has(generation));
  }

  /**
   * A graph built while a version of its segment was deleted for good (the build had begun, or the segment kept
   * the version's dead rows) holds that version's codes: its file goes at once (the mapping stays until the
   * segment is merged away).
   */
  private forgetGraphsOfRemoved(clientId: string, segment: Segment): void {
    const versions = this.current(clientId).versions;
    const removed = new Set(segment.versions.filter((version) => !versions.has(version.identity)).map((version) => version.generation));
    if (removed.size > 0) this.builder.forgetGraphs?.(clientId, (generation) => removed.has(generation));
  }

  /** Each generation's publication evidence, verified by the builder (off the event loop in api processes). */
  private async evidenceOf(generations: readonly ServingGeneration[]): Promise<Map<number, Evidence>> {
    const verified = await this.builder.verify(generations);
    return new Map(generations.map((generation, index) => [generation.generation, verified[index]]));
  }

  private scheduleBackgroundWork(clientId: string): void {
    this.scheduleCompaction(clientId);
    this.scheduleAnn(clientId);
    this.scheduleSettle(clientId);
  }

  /**
   * Queues an HNSW graph build for each large served segment of the Client that has none yet, once its merges
   * are done (a graph of a segment about to be merged away would be wasted work).
   */
  private scheduleAnn(clientId: string): void {
    if (this.compacting.has(clientId) || this.settling.has(clientId) || compactionPlan(this.current(clientId))) return;
    for (const segment of this.current(clientId).segments) {
      if (this.closed || segment.ann.graph || this.annQueued.has(segment) || !wantsAnn(segment)) continue;
      this.annQueued.add(segment);
      this.queueGraph(async () => {
        if (this.closed || !this.current(clientId).segments.includes(segment)) return;
        segment.ann.graph = await this.builder.buildAnn(segment, clientId);
        this.forgetGraphsOfRemoved(clientId, segment);
        this.changed();
      }).catch((error) => this.onCompactionError(error));
    }
  }

  /** Runs a graph build once those queued before it have ended: one graph process at a time per api process. */
  private queueGraph<T>(build: () => Promise<T>): Promise<T> {
    const built = this.annChain.then(build);
    this.annChain = built.then(
      () => undefined,
      () => undefined,
    );
    return built;
  }

  /** Resolves once every graph build queued so far has ended (tests and benchmarks). */
  annSettled(): Promise<void> {
    return chainSettled(() => this.annChain);
  }

  /** Starts background merging for the Client if its segments call for it and none is running. */
  private scheduleCompaction(clientId: string): void {
    if (this.closed || this.compacting.has(clientId) || !compactionPlan(this.current(clientId))) return;
    const merging = this.compact(clientId)
      .catch((error) => this.onCompactionError(error))
      .finally(() => {
        this.compacting.delete(clientId);
        this.scheduleAnn(clientId);
        this.scheduleSettle(clientId);
      });
    this.compacting.set(clientId, merging);
  }

  /** Resolves once no background merge runs, settle merges included (tests and benchmarks). */
  async mergesSettled(): Promise<void> {
    while (this.compacting.size > 0 || this.settling.size > 0) await Promise.all([...this.compacting.values(), ...this.settling.values()]);
  }

  private async compact(clientId: string): Promise<void> {
    for (let plan = compactionPlan(this.current(clientId)); plan && !this.closed; plan = compactionPlan(this.current(clientId))) {
      const merged = await this.builder.merge(plan, this.current(clientId).live);
      const current = this.served.get(clientId);
      const next = current ? replaceSegments(current.snapshot, plan, merged) : null;
      if (!current || !next) return; // the snapshot moved on (rebuilt or evicted); a later publication schedules again
      this.served.set(clientId, { snapshot: next, appliedSeq: current.appliedSeq });
      this.changed();
    }
  }

  /** Stops scheduling merges (shutdown). */
  close(): void {
    this.closed = true;
    for (const timer of this.settleTimers.values()) clearTimeout(timer);
    this.settleTimers.clear();
  }

  /** What the builder's thread holds besides this thread's snapshots (bytes; 0 for a builder without one). */
  builderThreadBytes(): Promise<number> {
    return this.builder.threadBytes?.() ?? Promise.resolve(0);
  }

  /** Counts for health and the operator view: loaded Clients, versions, live chunks and segments. */
  stats(): ServingStats {
    let versions = 0;
    let chunks = 0;
    let segments = 0;
    let segmentRows = 0;
    let graphs = 0;
    let graphsPending = 0;
    for (const { snapshot } of this.served.values()) {
      versions += snapshot.versions.size;
      chunks += snapshot.liveChunkCount;
      segments += snapshot.segments.length;
      for (const segment of snapshot.segments) {
        segmentRows += segment.rows;
        if (segment.ann.graph) graphs++;
        else if (wantsAnn(segment)) graphsPending++;
      }
    }
    return { clients: this.served.size, estimatedBytes: this.estimatedBytes(), budgetBytes: this.budgetBytes(), loads: this.loads, evictions: this.evictions, graphs, graphsPending, versions, chunks, segments, segmentRows };
  }
}
