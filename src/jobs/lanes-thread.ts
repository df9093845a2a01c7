// The lanes thread of a worker process: turns a document's chunks into the lane data and manifest stored
// with its generation (tokenizing, stemming, quantizing and digesting every chunk), off the worker's event
// loop, so that one job's indexing runs beside another job's parsing, enrichment and embedding. Plain data in,
// plain data out, no I/O.

import { parentPort } from 'node:worker_threads';
import { lanesAndManifest } from '../serving/manifest.ts';
import type { LaneChunk } from '../serving/generation-lanes.ts';
import type { MetadataLeaf } from '../domain/generation.ts';
import type { JsonObject } from '../domain/canonical-metadata.ts';

export interface LanesRequest {
  id: number;
  ref: { documentId: string; versionId: string | null; jobId: string | null };
  /** The chunks without their vectors, which travel packed in one transferred array (a clone per vector costs more). */
  chunks: Array<Omit<LaneChunk, 'vector'>>;
  vectors: Float32Array;
  dimensions: number;
  leaves: MetadataLeaf[];
  title: string | null;
}

/** The request's chunks with their vectors as views of the packed array. */
function chunksOf(request: LanesRequest): LaneChunk[] {
  const { vectors, dimensions } = request;
  return request.chunks.map((chunk, row) => ({ ...chunk, vector: vectors.subarray(row * dimensions, (row + 1) * dimensions) }));
}

export type LanesReply = { id: number; lanes: Uint8Array; manifest: JsonObject } | { id: number; error: string };

parentPort!.on('message', (request: LanesRequest) => {
  let reply: LanesReply;
  try {
    const { lanes, manifest } = lanesAndManifest(request.ref, chunksOf(request), request.leaves, request.title);
    parentPort!.postMessage({ id: request.id, lanes, manifest } satisfies LanesReply, [lanes.buffer as ArrayBuffer]);
    return;
  } catch (error) {
    reply = { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(reply);
});
