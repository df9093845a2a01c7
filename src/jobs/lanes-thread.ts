// The lanes thread of a worker process: turns a document's chunks into the lane data and manifest stored
// with its generation (tokenizing, stemming, quantizing and digesting every chunk), and finds its chunks'
// entities and languages, off the worker's event loop, so that one job's indexing runs beside another job's parsing,
// classification and embedding. Plain data in, plain data out, no I/O.

import { parentPort } from 'node:worker_threads';
import { lanesAndManifest } from '../codec/manifest.ts';
import type { ManifestChunk } from '../codec/manifest.ts';
import { extractEntities } from '../ingest/entities/extract.ts';
import { detectLanguages } from '../ingest/language.ts';
import type { ChunkLanguage } from '../domain/chunk-language.ts';
import type { LaneChunk } from '../codec/generation-lanes.ts';
import type { MetadataLeaf } from '../domain/generation.ts';
import type { JsonObject } from '../domain/canonical-metadata.ts';
import type { Entities } from '../domain/entities.ts';

export interface LanesRequest {
  id: number;
  kind: 'lanes';
  ref: { documentId: string; versionId: string | null; jobId: string | null };
  /**
   * The chunks without their vectors, which travel packed in one transferred array (a clone per vector costs more),
   * and with their entities, which the manifest's entities evidence is computed from.
   */
  chunks: Array<Omit<LaneChunk, 'vector'> & Pick<ManifestChunk, 'entities'>>;
  vectors: Float32Array;
  dimensions: number;
  leaves: MetadataLeaf[];
  title: string | null;
}

/** The entities of each text, in order. */
export interface EntitiesRequest {
  id: number;
  kind: 'entities';
  texts: string[];
}

/** The language of each text, in order. */
export interface LanguagesRequest {
  id: number;
  kind: 'languages';
  texts: string[];
}

/** The request's chunks with their vectors as views of the packed array. */
function chunksOf(request: LanesRequest): LaneChunk[] {
  const { vectors, dimensions } = request;
  return request.chunks.map((chunk, row) => ({ ...chunk, vector: vectors.subarray(row * dimensions, (row + 1) * dimensions) }));
}

export type LanesReply =
  | { id: number; lanes: Uint8Array; manifest: JsonObject }
  | { id: number; entities: Entities[] }
  | { id: number; languages: ChunkLanguage[] }
  | { id: number; error: string };

parentPort!.on('message', async (request: LanesRequest | EntitiesRequest | LanguagesRequest) => {
  try {
    if (request.kind === 'languages') {
      parentPort!.postMessage({ id: request.id, languages: await detectLanguages(request.texts) } satisfies LanesReply);
      return;
    }
    if (request.kind === 'entities') {
      parentPort!.postMessage({ id: request.id, entities: request.texts.map((text) => extractEntities(text)) } satisfies LanesReply);
      return;
    }
    const { lanes, manifest } = lanesAndManifest(request.ref, chunksOf(request), request.leaves, request.title);
    parentPort!.postMessage({ id: request.id, lanes, manifest } satisfies LanesReply, [lanes.buffer as ArrayBuffer]);
  } catch (error) {
    parentPort!.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) } satisfies LanesReply);
  }
});
