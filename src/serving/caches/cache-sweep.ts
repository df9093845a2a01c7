// Keeps this host's caches under DATA_DIR (segment files, HNSW graph files) free of what hard deletes purged,
// whether or not a process here serves the Client (SPEC.md: a hard delete is irreversible): the api process that
// ran a purge sweeps the Client at once (on SQLite every process shares its DATA_DIR), a publication the store
// announces for a Client not loaded here sweeps it (PostgreSQL: a purge run on another host), and start-up sweeps
// every Client with files here. A process serving the Client also forgets the files as it applies the removal
// (log-applier.ts). A sweep removes each file holding a generation that is not active now: no load could use
// it, and it may hold a purged version's words, postings or codes. It never removes what a load needs.

import type { StoragePort } from '../../storage/port.ts';
import type { SegmentCache } from './segment-cache.ts';

/** The graph cache as a sweep sees it (threaded-segment-builder.ts). */
export interface SweptGraphs {
  holdsGraphs(clientId: string): boolean;
  forgetGraphs(clientId: string, drop: (generation: number) => boolean): number;
  removeUnheldGraphs(): number;
}

export class CacheSweep {
  private readonly storage: StoragePort;
  private readonly segments: SegmentCache | null;
  private readonly graphs: SweptGraphs | null;
  /** Per Client, the sweep running, and whether another was asked for meanwhile (it runs once more after). */
  private readonly running = new Map<string, Promise<number>>();
  private readonly again = new Set<string>();

  constructor(deps: { storage: StoragePort; segmentCache: SegmentCache | null; graphs: SweptGraphs | null }) {
    this.storage = deps.storage;
    this.segments = deps.segmentCache;
    this.graphs = deps.graphs;
  }

  /** Whether this host holds any cache file of the Client (answered from directory listings). */
  async holds(clientId: string): Promise<boolean> {
    return (this.graphs?.holdsGraphs(clientId) ?? false) || ((await this.segments?.holds(clientId)) ?? false);
  }

  /**
   * Removes the Client's cache files that hold a generation not active now; returns how many went. Asked while a
   * sweep of the Client runs, it sweeps once more after that one: the active generations it read may predate a
   * removal that asked.
   */
  sweep(clientId: string): Promise<number> {
    const running = this.running.get(clientId);
    if (running) {
      this.again.add(clientId);
      return running;
    }
    const sweeping = this.sweepNow(clientId).finally(() => {
      this.running.delete(clientId);
      if (this.again.delete(clientId)) void this.sweep(clientId).catch(() => undefined);
    });
    this.running.set(clientId, sweeping);
    return sweeping;
  }

  /** Sweeps the Client only when this host holds files of it (a publication announced for a Client not loaded here). */
  async sweepIfHeld(clientId: string): Promise<number> {
    return (await this.holds(clientId)) ? this.sweep(clientId) : 0;
  }

  private async sweepNow(clientId: string): Promise<number> {
    const active = new Set(await this.storage.client(clientId).generations.servedGenerationIds());
    let removed = (await this.segments?.sweep(clientId, active)) ?? 0;
    removed += this.graphs?.forgetGraphs(clientId, (generation) => !active.has(generation)) ?? 0;
    return removed;
  }

  /** Start-up: graphs no Client is recorded as holding, then every known Client that has files here. */
  async sweepAll(): Promise<number> {
    const removed = this.graphs?.removeUnheldGraphs() ?? 0;
    return removed + (await this.sweepHeld());
  }

  /**
   * Every known Client that has files here (announcements of another host's purges may have been missed). Unlike
   * the start-up sweep it leaves unheld graphs alone: while processes run, a graph is stored before its holder.
   */
  async sweepHeld(): Promise<number> {
    let removed = 0;
    for (const clientId of await this.storage.knownClientIds()) removed += await this.sweepIfHeld(clientId);
    return removed;
  }
}
