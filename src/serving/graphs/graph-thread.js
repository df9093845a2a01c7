// The graph thread of an api process: walks the HNSW graphs of a search's large segments while the event loop
// runs the same search's sparse lane (threaded-graph-walks.ts). It maps each graph file the first time a walk
// names it, under the number the api thread's mapping has, and lets it go when told the graph is gone there.
// Plain data in, plain data out; it reads nothing but graph files.
//
// Plain JavaScript, type-checked through its JSDoc (tsconfig checkJs): a thread that loads TypeScript starts
// Node's type stripper in its own isolate, which measured about 27 MiB more resident memory per api process
// than this file with usearch alone (16 MiB). The index options come from ann-index.ts through workerData.

import { workerData } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { answerRequests } from '../../runtime/answer-requests.js';

/** @typedef {import('./threaded-graph-walks.ts').GraphThreadRequest} GraphThreadRequest */
/** @typedef {import('./threaded-graph-walks.ts').GraphThreadReply} GraphThreadReply */
/** @typedef {import('./threaded-graph-walks.ts').GraphWalkOrder} GraphWalkOrder */
/** @typedef {import('./threaded-graph-walks.ts').GraphThreadData} GraphThreadData */
/** @typedef {{ view(path: string): void; size(): number; search(query: Int8Array, count: number, threads: number): { keys: BigUint64Array } }} MappedIndex */

const { Index } = /** @type {{ Index: new (options: GraphThreadData['indexOptions']) => MappedIndex }} */ (createRequire(import.meta.url)('usearch'));
const { indexOptions } = /** @type {GraphThreadData} */ (workerData);

/** @type {Map<number, MappedIndex>} */
const mapped = new Map();

/**
 * The graph of a walk, mapped on first use; null when its file is gone from the graph cache, or is not a graph
 * of that many nodes.
 * @param {GraphWalkOrder} walk
 * @returns {MappedIndex | null}
 */
function graphOf(walk) {
  let index = mapped.get(walk.graph);
  if (index) return index;
  try {
    index = new Index({ ...indexOptions, dimensions: walk.dimensions });
    index.view(walk.file);
  } catch {
    return null;
  }
  if (index.size() !== walk.nodes) return null;
  mapped.set(walk.graph, index);
  return index;
}

answerRequests(
  /** @param {GraphThreadRequest} request @returns {{ reply: GraphThreadReply }} */
  (request) => {
    if (request.kind === 'forget') {
      for (const graph of request.graphs) mapped.delete(graph);
      return { reply: { id: request.id, forgotten: request.graphs.length } };
    }
    return { reply: { id: request.id, keys: request.walks.map((walk) => graphOf(walk)?.search(request.query, walk.ask, 1).keys ?? null) } };
  },
);
