// Schedules the HNSW graph builds of a process's large served segments: one graph process at a time per api
// process (graph-builder.ts), each for a segment that has none yet, once the merges of its Client are done (a
// graph of a segment about to be merged away would be wasted work). A segment no longer served by the time its
// turn comes is skipped; until its graph is attached it is searched by exact scans.

import type { Segment, SegmentBuilder } from '../segment.ts';
import { wantsAnn } from '../segment.ts';
import { chainSettled } from '../../runtime/chain-settled.ts';
import type { ResidentClients } from '../resident-clients.ts';

export interface GraphSchedulerOptions {
  /** Whether the Client has a merge running or due (merging/merge-scheduler.ts): its graphs wait for the merged segment. */
  mergesPending: (clientId: string) => boolean;
  /** Told after a graph was attached (memory-pressure.ts collects what the build left). */
  changed: () => void;
  onError: (error: unknown) => void;
}

export class GraphScheduler {
  private readonly builder: SegmentBuilder;
  private readonly residents: ResidentClients;
  private readonly options: GraphSchedulerOptions;
  /** Graph builds run one after another; a segment no longer served by then is skipped. */
  private chain: Promise<void> = Promise.resolve();
  private readonly queued = new WeakSet<Segment>();
  private closed = false;

  constructor(builder: SegmentBuilder, residents: ResidentClients, options: GraphSchedulerOptions) {
    this.builder = builder;
    this.residents = residents;
    this.options = options;
  }

  /** Queues a graph build for each large served segment of the Client that has none yet, once its merges are done. */
  schedule(clientId: string): void {
    if (this.options.mergesPending(clientId)) return;
    for (const segment of this.residents.current(clientId).segments) {
      if (this.closed || segment.ann.graph || this.queued.has(segment) || !wantsAnn(segment)) continue;
      this.queued.add(segment);
      this.queue(async () => {
        if (this.closed || !this.residents.current(clientId).segments.includes(segment)) return;
        segment.ann.graph = await this.builder.buildAnn(segment, clientId);
        this.forgetGraphsOfRemoved(clientId, segment);
        this.options.changed();
      }).catch((error) => this.options.onError(error));
    }
  }

  /** Runs a graph build once those queued before it have ended: one graph process at a time per api process. */
  queue<T>(build: () => Promise<T>): Promise<T> {
    const built = this.chain.then(build);
    this.chain = built.then(
      () => undefined,
      () => undefined,
    );
    return built;
  }

  /**
   * A graph built while a version of its segment was deleted for good (the build had begun, or the segment kept
   * the version's dead rows) holds that version's codes: its file goes at once (the mapping stays until the
   * segment is merged away).
   */
  forgetGraphsOfRemoved(clientId: string, segment: Segment): void {
    const versions = this.residents.current(clientId).versions;
    const removed = new Set(segment.versions.filter((version) => !versions.has(version.identity)).map((version) => version.generation));
    if (removed.size > 0) this.builder.forgetGraphs?.(clientId, (generation) => removed.has(generation));
  }

  /** Resolves once every graph build queued so far has ended (tests and benchmarks). */
  settled(): Promise<void> {
    return chainSettled(() => this.chain);
  }

  /** Queues no more builds (shutdown); a build already running ends as it would. */
  close(): void {
    this.closed = true;
  }
}
