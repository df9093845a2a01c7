// The graph thread of an api process: walks the HNSW graphs of a search's large segments while the event loop
// runs the same search's sparse lane (threaded-graph-walks.ts). It maps each graph file the first time a walk
// names it, under the number the api thread's mapping has, and lets it go when told the segment is gone.
// Plain data in, plain data out; it reads nothing but graph files.

import { parentPort } from 'node:worker_threads';
import { mapGraphFile, nearestNodes } from './ann-index.ts';
import type { NativeIndex } from './ann-index.ts';

/** One graph walk: the graph (its number and file), its size, and how many nodes nearest the query it wants. */
export interface GraphWalkOrder {
  graph: number;
  file: string;
  dimensions: number;
  nodes: number;
  count: number;
}

export type GraphThreadRequest =
  | { id: number; kind: 'walk'; query: Int8Array; walks: GraphWalkOrder[] }
  | { id: number; kind: 'forget'; graphs: number[] };

export type GraphThreadReply =
  /** Per walk, the nodes nearest first, or null where its graph could not be mapped (the caller walks it itself). */
  | { id: number; proposals: (Uint32Array | null)[] }
  | { id: number; forgotten: number }
  | { id: number; error: string };

const mapped = new Map<number, NativeIndex>();

function graphOf(walk: GraphWalkOrder): NativeIndex | null {
  let index = mapped.get(walk.graph);
  if (!index) {
    try {
      index = mapGraphFile(walk.file, walk.dimensions);
    } catch {
      return null; // removed from the graph cache meanwhile
    }
    if (index.size() !== walk.nodes) return null;
    mapped.set(walk.graph, index);
  }
  return index;
}

parentPort!.on('message', (request: GraphThreadRequest) => {
  try {
    if (request.kind === 'forget') {
      for (const graph of request.graphs) mapped.delete(graph);
      parentPort!.postMessage({ id: request.id, forgotten: request.graphs.length } satisfies GraphThreadReply);
      return;
    }
    const proposals = request.walks.map((walk) => {
      const index = graphOf(walk);
      return index ? nearestNodes(index, walk.nodes, request.query, walk.count) : null;
    });
    const buffers = proposals.flatMap((nodes) => (nodes ? [nodes.buffer as ArrayBuffer] : []));
    parentPort!.postMessage({ id: request.id, proposals } satisfies GraphThreadReply, [...new Set(buffers)]);
  } catch (error) {
    parentPort!.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) } satisfies GraphThreadReply);
  }
});
