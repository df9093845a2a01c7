// Runs the merges the policy asks for (merge-policy.ts), in the background and one at a time per Client: runs of
// one size class as publications go on, and once a Client's segments have stayed as they are for
// SEGMENT_SETTLE_MS, its settle merge (or, with nothing to merge, the write of its large segments to the segment
// cache). A merge is swapped in only if the segments it replaces are still served.

import { segmentBytes } from '../memory-estimate.ts';
import { replaceSegments } from '../snapshot.ts';
import { wantsAnn } from '../segment.ts';
import type { Segment, SegmentBuilder } from '../segment.ts';
import { compactionPlan, settleMergePlan } from './merge-plans.ts';
import type { ResidentClients } from '../resident-clients.ts';
import type { GraphScheduler } from '../graphs/graph-scheduler.ts';

/**
 * How long a Client's segments must stay as they are before they settle: its newest merge (settleMergePlan), and
 * then its large ones are written to the segment cache.
 */
export const SEGMENT_SETTLE_MS = 5_000;

export interface MergeSchedulerOptions {
  /** SEGMENT_SETTLE_MS unless a test settles sooner. */
  settleMs: number;
  /** A Client settled with nothing to merge: its large segments may be written to the segment cache. */
  settled: (clientId: string) => void;
  /** Told after a merge was swapped in (memory-pressure.ts collects the segments it replaced). */
  changed: () => void;
  onError: (error: unknown) => void;
}

export class MergeScheduler {
  private readonly builder: SegmentBuilder;
  private readonly residents: ResidentClients;
  private readonly graphs: GraphScheduler;
  private readonly options: MergeSchedulerOptions;
  /** Clients with a background merge running (one at a time per Client). */
  private readonly compacting = new Map<string, Promise<void>>();
  /** Clients settling: their settle merge, then its graph, then its swap (settle). */
  private readonly settling = new Map<string, Promise<void>>();
  /** Per Client, its settle waiting for its segments to stay as they are (scheduleSettle). */
  private readonly settleTimers = new Map<string, NodeJS.Timeout>();
  private closed = false;

  constructor(builder: SegmentBuilder, residents: ResidentClients, graphs: GraphScheduler, options: MergeSchedulerOptions) {
    this.builder = builder;
    this.residents = residents;
    this.graphs = graphs;
    this.options = options;
  }

  /** Whether a merge of the Client's segments runs now (the Client is not evicted meanwhile). */
  merging(clientId: string): boolean {
    return this.compacting.has(clientId);
  }

  /** Whether a merge of the Client's segments runs, settles or is due: its graphs wait for the merged segment. */
  pending(clientId: string): boolean {
    return this.compacting.has(clientId) || this.settling.has(clientId) || compactionPlan(this.residents.current(clientId)) !== null;
  }

  /** Starts background merging for the Client if its segments call for it and none is running. */
  scheduleCompaction(clientId: string): void {
    if (this.closed || this.compacting.has(clientId) || !compactionPlan(this.residents.current(clientId))) return;
    const merging = this.compact(clientId)
      .catch((error) => this.options.onError(error))
      .finally(() => {
        this.compacting.delete(clientId);
        this.graphs.schedule(clientId);
        this.scheduleSettle(clientId);
      });
    this.compacting.set(clientId, merging);
  }

  private async compact(clientId: string): Promise<void> {
    for (let plan = compactionPlan(this.residents.current(clientId)); plan && !this.closed; plan = compactionPlan(this.residents.current(clientId))) {
      const merged = await this.builder.merge(plan, this.residents.current(clientId).live);
      const current = this.residents.get(clientId);
      const next = current ? replaceSegments(current.snapshot, plan, merged) : null;
      if (!next) return; // the snapshot moved on (rebuilt or evicted); a later publication schedules again
      this.residents.replaceSnapshot(clientId, next);
      this.options.changed();
    }
  }

  /**
   * Settles the Client once its segments have stayed as they are for SEGMENT_SETTLE_MS (each publication and
   * merge puts it off): during bulk ingest merges replace large segments every few seconds, and a settle merge or
   * a cache file would be made stale by the next.
   */
  scheduleSettle(clientId: string): void {
    if (this.closed) return;
    clearTimeout(this.settleTimers.get(clientId));
    const timer = setTimeout(() => this.settle(clientId), this.options.settleMs);
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
    if (this.closed || !this.residents.has(clientId) || this.settling.has(clientId) || this.compacting.has(clientId)) return; // a merge's end settles again
    const plan = settleMergePlan(this.residents.current(clientId));
    if (!plan) {
      this.options.settled(clientId);
      return;
    }
    const settling = this.settleMerge(clientId, plan)
      .then(
        () => this.scheduleSettle(clientId),
        (error) => this.options.onError(error), // not retried until the Client changes again
      )
      .finally(() => {
        this.settling.delete(clientId);
        this.graphs.schedule(clientId);
      });
    this.settling.set(clientId, settling);
  }

  private async settleMerge(clientId: string, plan: Segment[]): Promise<void> {
    const merging = this.builder.merge(plan, this.residents.current(clientId).live);
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
    // follows (graphs/graph-scheduler.ts), exact scans meanwhile.
    if (wantsAnn(merged) && this.residents.hasRoomFor(segmentBytes(merged))) {
      // A graph that cannot be built leaves the merged segment to exact scans, as for any segment.
      merged.ann.graph = await this.graphs.queue(() => this.builder.buildAnn(merged, clientId)).catch((error) => {
        this.options.onError(error);
        return null;
      });
      this.graphs.forgetGraphsOfRemoved(clientId, merged);
    }
    const current = this.residents.get(clientId);
    const next = current && !this.closed ? replaceSegments(current.snapshot, plan, merged) : null;
    if (!next) return;
    this.residents.replaceSnapshot(clientId, next);
    this.options.changed();
  }

  /** The Clients whose settle was waiting, their timers cleared (shutdown, tests: settled now instead). */
  takeWaitingSettles(): string[] {
    const waiting = [...this.settleTimers.keys()];
    for (const timer of this.settleTimers.values()) clearTimeout(timer);
    this.settleTimers.clear();
    return waiting;
  }

  /** Resolves once no background merge runs, settle merges included (tests and benchmarks). */
  async settledMerges(): Promise<void> {
    while (this.compacting.size > 0 || this.settling.size > 0) await Promise.all([...this.compacting.values(), ...this.settling.values()]);
  }

  /** Stops scheduling merges (shutdown). */
  close(): void {
    this.closed = true;
    for (const timer of this.settleTimers.values()) clearTimeout(timer);
    this.settleTimers.clear();
  }
}
