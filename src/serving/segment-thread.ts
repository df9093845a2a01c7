// The segment thread of an api process: builds and merges segment indexes (text analysis, BM25 postings,
// vector packing, quantization, vocabulary) off the event loop. Plain data in, plain data out; no I/O.

import { parentPort } from 'node:worker_threads';
import { indexDocs, mergeIndexes } from './segment.ts';
import type { IndexDoc, SegmentIndex } from './segment.ts';

export type SegmentThreadRequest =
  | { id: number; kind: 'build'; docs: IndexDoc[]; vectors: Float32Array }
  | { id: number; kind: 'merge'; parts: SegmentIndex[]; live: Uint8Array; dimensions: number; deadTexts: string[] };

export type SegmentThreadReply = { id: number; index: SegmentIndex } | { id: number; error: string };

parentPort!.on('message', (request: SegmentThreadRequest) => {
  let reply: SegmentThreadReply;
  try {
    const index = request.kind === 'build' ? indexDocs(request.docs, request.vectors) : mergeIndexes(request.parts, request.live, request.dimensions, request.deadTexts);
    reply = { id: request.id, index };
  } catch (error) {
    reply = { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(reply);
});
