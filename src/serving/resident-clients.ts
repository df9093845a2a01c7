// The Clients an api process holds loaded, under its memory budget: each one's snapshot and the publication-log
// position it reflects, least recently read first. Storing a Client evicts the least recently read others while
// the estimate of what is held exceeds the budget; an evicted Client is simply loaded again by its next read.

import type { StoragePort } from '../storage/port.ts';
import { emptySnapshot } from './snapshot.ts';
import type { ClientSnapshot } from './snapshot.ts';
import { wantsAnn } from './segment.ts';
import { snapshotBytes } from './memory-estimate.ts';

export interface Served {
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

export interface ResidencyOptions {
  /** What served Clients may hold now (a fixed figure, or memory-pressure.ts's measured allowance). */
  budgetBytes: () => number;
  /** Whether a Client has work of its own running (a catch-up, a merge): it finishes before it may be evicted. */
  busy: (clientId: string) => boolean;
  /** Called once after Clients were evicted to keep the budget (memory-pressure.ts collects their garbage). */
  evicted: () => void;
}

export class ResidentClients {
  private readonly storage: StoragePort;
  private readonly dimensions: number;
  private readonly options: ResidencyOptions;
  /** Loaded Clients, least recently used first (a read moves its Client to the end). */
  private readonly served = new Map<string, Served>();
  loads = 0;
  evictions = 0;

  /** `storage`: a Client evicted lets go of its store connection too. */
  constructor(storage: StoragePort, dimensions: number, options: ResidencyOptions) {
    this.storage = storage;
    this.dimensions = dimensions;
    this.options = options;
  }

  /** The Client's current snapshot (empty when it is not loaded); a read marks its Client recently used. */
  read(clientId: string): ClientSnapshot {
    const served = this.served.get(clientId);
    if (!served) return emptySnapshot(clientId, this.dimensions);
    this.served.delete(clientId);
    this.served.set(clientId, served);
    return served.snapshot;
  }

  /** The Client's current snapshot without marking it used (background work). */
  current(clientId: string): ClientSnapshot {
    return this.served.get(clientId)?.snapshot ?? emptySnapshot(clientId, this.dimensions);
  }

  get(clientId: string): Served | undefined {
    return this.served.get(clientId);
  }

  has(clientId: string): boolean {
    return this.served.has(clientId);
  }

  clientIds(): string[] {
    return [...this.served.keys()];
  }

  appliedSeq(clientId: string): number {
    return this.served.get(clientId)?.appliedSeq ?? 0;
  }

  /** Records a Client's new state (a load, a catch-up) and evicts least recently used others while over the budget. */
  store(clientId: string, served: Served): void {
    const loading = !this.served.has(clientId);
    this.served.set(clientId, served);
    if (loading) this.loads++;
    this.enforceBudget(clientId);
  }

  /** A merge's new segments in place of the old, at the same log position and recency (no budget round). */
  replaceSnapshot(clientId: string, snapshot: ClientSnapshot): void {
    const current = this.served.get(clientId);
    if (current) this.served.set(clientId, { snapshot, appliedSeq: current.appliedSeq });
  }

  /** Whether `bytes` more would still be within the budget (a merged segment held beside those it replaces). */
  hasRoomFor(bytes: number): boolean {
    return this.estimatedBytes() + bytes <= this.options.budgetBytes();
  }

  private enforceBudget(keep: string): void {
    let total = this.estimatedBytes();
    const budget = this.options.budgetBytes();
    let evicted = 0;
    for (const [clientId, served] of this.served) {
      if (total <= budget) break;
      // A Client being caught up or merged finishes first; the one just stored stays (it is being read).
      if (clientId === keep || this.options.busy(clientId)) continue;
      total -= snapshotBytes(served.snapshot);
      this.served.delete(clientId);
      this.storage.releaseClient(clientId);
      evicted++;
    }
    this.evictions += evicted;
    if (evicted > 0) this.options.evicted();
  }

  private estimatedBytes(): number {
    let total = 0;
    for (const { snapshot } of this.served.values()) total += snapshotBytes(snapshot);
    return total;
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
    return { clients: this.served.size, estimatedBytes: this.estimatedBytes(), budgetBytes: this.options.budgetBytes(), loads: this.loads, evictions: this.evictions, graphs, graphsPending, versions, chunks, segments, segmentRows };
  }
}
