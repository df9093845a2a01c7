// Graph walks of a search run on the graph thread (graph-thread.js) while the event loop runs its sparse lane,
// so an api process with both cores to itself answers a hybrid search in about the time of its longer lane
// instead of the sum of both. Only the walk moves: the rows it proposes are scored from the segment's codes and
// checked for eligibility on the event loop as before (dense-lane.ts), so a walk's answer can change recall,
// never correctness. A walk whose graph the thread cannot map, or a thread that fails, is walked on the event
// loop instead. A mapping on the thread is let go once its graph is collected here (its segment is gone).

import { RequestThread } from '../../runtime/request-thread.ts';
import { annIndexOptions, nodesOfKeys, nodesToAsk } from './ann-index.ts';
import type { AnnGraph, AnnIndexOptions } from './ann-index.ts';
import { quantizeQuery } from '../../codec/quantization.ts';

const THREAD_URL = new URL('./graph-thread.js', import.meta.url);

/** One graph walk: the graph (its number here and its file), its size, and how many nodes to ask it for. */
export interface GraphWalkOrder {
  graph: number;
  file: string;
  dimensions: number;
  nodes: number;
  ask: number;
}

export type GraphThreadRequest =
  | { id: number; kind: 'walk'; query: Int8Array; walks: GraphWalkOrder[] }
  | { id: number; kind: 'forget'; graphs: number[] };

export type GraphThreadReply =
  /** Per walk, the keys the graph answered, nearest first, or null where the thread could not map its file. */
  | { id: number; keys: (BigUint64Array | null)[] }
  | { id: number; forgotten: number }
  | { id: number; error: string };

/** What the graph thread starts with: the options graphs are read with (their dimensions come per walk). */
export interface GraphThreadData {
  indexOptions: AnnIndexOptions;
}
/**
 * The thread holds no data of its own (graphs are mapped files, answers a few hundred keys), so its heap is
 * kept small: V8 would otherwise give it young and old generations sized for a busy isolate.
 */
export const GRAPH_THREAD_LIMITS = { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 32 };

/** A graph walk a search wants: the graph and how many of its nodes nearest the query. */
export interface GraphWalk {
  graph: AnnGraph;
  count: number;
}

/** Proposals by graph (the nodes nearest first); a graph without one is walked by the caller. */
export type GraphProposals = ReadonlyMap<AnnGraph, Uint32Array>;

export class ThreadedGraphWalks {
  private readonly thread = new RequestThread<GraphThreadRequest, GraphThreadReply>(THREAD_URL, 'graph thread', {}, {
    workerData: { indexOptions: annIndexOptions(0) } satisfies GraphThreadData,
    resourceLimits: GRAPH_THREAD_LIMITS,
  });
  /** Graphs the thread was asked to walk, and so may have mapped: forgotten there once collected here. */
  private readonly shared = new FinalizationRegistry<number>((graph) => this.forget(graph));
  private readonly sharedGraphs = new WeakSet<AnnGraph>();
  /** Graphs the thread could not map: walked on the event loop from then on. */
  private readonly unshareable = new WeakSet<AnnGraph>();
  private forgotten: number[] = [];
  private released = 0;
  private closed = false;

  /** Mappings the thread has let go because their graphs were collected here. */
  get releasedMappings(): number {
    return this.released;
  }

  /** Walks on the thread, started now; null when none of them can go there. */
  start(query: Float32Array, walks: readonly GraphWalk[]): Promise<GraphProposals> | null {
    const sent = walks.filter(({ graph }) => graph.file !== null && !this.unshareable.has(graph));
    if (this.closed || sent.length === 0) return null;
    for (const { graph } of sent) {
      if (this.sharedGraphs.has(graph)) continue;
      this.sharedGraphs.add(graph);
      this.shared.register(graph, graph.id);
    }
    const orders = sent.map(({ graph, count }) => ({ graph: graph.id, file: graph.file!, dimensions: query.length, nodes: graph.nodes, ask: nodesToAsk(graph.nodes, count) }));
    return this.thread.request({ kind: 'walk', query: quantizeQuery(query), walks: orders }).then(
      (reply) => {
        if (!('keys' in reply)) throw new Error('graph thread: a walk was answered with something else');
        const proposals = new Map<AnnGraph, Uint32Array>();
        sent.forEach(({ graph }, index) => {
          const keys = reply.keys[index];
          if (keys) proposals.set(graph, nodesOfKeys(keys, graph.nodes));
          else this.unshareable.add(graph);
        });
        return proposals;
      },
      // A thread that failed is replaced on the next walk; this search walks its graphs itself.
      () => new Map(),
    );
  }

  /** Mappings on the thread whose graphs are gone here, let go in batches (one message per collection). */
  private forget(graph: number): void {
    this.forgotten.push(graph);
    if (this.forgotten.length > 1) return;
    queueMicrotask(() => {
      const graphs = this.forgotten;
      this.forgotten = [];
      if (this.closed || !this.thread.running) return; // a thread that ended took its mappings with it
      this.thread.request({ kind: 'forget', graphs }).then(
        (reply) => (this.released += 'forgotten' in reply ? reply.forgotten : 0),
        () => undefined,
      );
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.thread.close();
  }
}
