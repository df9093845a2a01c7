// The segment thread of an api process: builds segment indexes from generations' lane data and merges them,
// builds HNSW graphs of large segments and verifies publication evidence, off the event loop. Plain data in,
// plain data out; its only I/O is writing a graph file.

import { parentPort } from 'node:worker_threads';
import { indexParts, mergeIndexes } from './segment.ts';
import type { SegmentIndex, SegmentPart } from './segment.ts';
import { verifyEvidence } from './evidence.ts';
import type { Evidence, EvidenceInput } from './evidence.ts';
import { writeAnnGraph } from './ann-index.ts';

export type SegmentThreadRequest =
  | { id: number; kind: 'build'; parts: SegmentPart[]; dimensions: number }
  | { id: number; kind: 'merge'; parts: SegmentIndex[]; live: Uint8Array; dimensions: number }
  | { id: number; kind: 'verify'; generations: EvidenceInput[] }
  | { id: number; kind: 'ann'; codes: Int8Array; dimensions: number; path: string };

export type SegmentThreadReply =
  | { id: number; index: SegmentIndex }
  | { id: number; evidence: Evidence[] }
  | { id: number; written: string }
  | { id: number; error: string };

parentPort!.on('message', (request: SegmentThreadRequest) => {
  let reply: SegmentThreadReply;
  try {
    if (request.kind === 'verify') reply = { id: request.id, evidence: request.generations.map(verifyEvidence) };
    else if (request.kind === 'ann') {
      writeAnnGraph(request.codes, request.dimensions, request.path);
      reply = { id: request.id, written: request.path };
    } else if (request.kind === 'build') reply = { id: request.id, index: indexParts(request.parts, request.dimensions) };
    else reply = { id: request.id, index: mergeIndexes(request.parts, request.live, request.dimensions) };
  } catch (error) {
    reply = { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(reply);
});
