// The lanes thread of a worker process: turns a document's chunks into the lane data and manifest stored
// with its generation (tokenizing, stemming, quantizing and digesting every chunk), and finds its chunks'
// entities and languages, off the worker's event loop, so that one job's indexing runs beside another job's parsing,
// classification and embedding. Plain data in, plain data out, no I/O.
//
// A job asks for its chunks' languages first and for their lanes later (after classification and embedding): the
// tokens the language gate read are kept for the lanes, so a chunk is tokenized once. They are kept by text, at
// most CARRIED_TOKENS_MAX_TEXTS of them, and taken when used; a job that never asks for lanes (it failed) leaves
// its tokens until a later languages request finds the carry full and empties it.

import { parentPort } from 'node:worker_threads';
import { lanesAndManifest } from '../serving/manifest.ts';
import { extractEntities } from '../ingest/entities/extract.ts';
import { detectLanguages } from '../ingest/language.ts';
import { tokenize } from '../text/tokenize.ts';
import type { Token } from '../text/tokenize.ts';
import type { ChunkLanguage } from '../domain/chunk-language.ts';
import type { LaneChunk } from '../serving/generation-lanes.ts';
import type { MetadataLeaf } from '../domain/generation.ts';
import type { JsonObject } from '../domain/canonical-metadata.ts';
import type { Entities } from '../domain/entities.ts';

export interface LanesRequest {
  id: number;
  kind: 'lanes';
  ref: { documentId: string; versionId: string | null; jobId: string | null };
  /** The chunks without their vectors, which travel packed in one transferred array (a clone per vector costs more). */
  chunks: Array<Omit<LaneChunk, 'vector'>>;
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

/** Texts whose tokens are kept from a languages request for the lanes request that follows (about 30 KiB for a chunk of 1,500 characters). */
export const CARRIED_TOKENS_MAX_TEXTS = 256;

const carriedTokens = new Map<string, Token[]>();

function carryTokens(texts: readonly string[], tokens: readonly Token[][]): void {
  if (carriedTokens.size + texts.length > CARRIED_TOKENS_MAX_TEXTS) carriedTokens.clear();
  const room = CARRIED_TOKENS_MAX_TEXTS - carriedTokens.size;
  for (let i = 0; i < texts.length && i < room; i++) carriedTokens.set(texts[i], tokens[i]);
}

/** The carried tokens of a text, taken (so each is used once), or undefined. */
function takeTokens(text: string): Token[] | undefined {
  const tokens = carriedTokens.get(text);
  if (tokens !== undefined) carriedTokens.delete(text);
  return tokens;
}

export type LanesReply =
  | { id: number; lanes: Uint8Array; manifest: JsonObject }
  | { id: number; entities: Entities[] }
  | { id: number; languages: ChunkLanguage[] }
  | { id: number; error: string };

parentPort!.on('message', async (request: LanesRequest | EntitiesRequest | LanguagesRequest) => {
  try {
    if (request.kind === 'languages') {
      const tokens = request.texts.map((text) => tokenize(text));
      const languages = await detectLanguages(request.texts, tokens);
      carryTokens(request.texts, tokens);
      parentPort!.postMessage({ id: request.id, languages } satisfies LanesReply);
      return;
    }
    if (request.kind === 'entities') {
      parentPort!.postMessage({ id: request.id, entities: request.texts.map((text) => extractEntities(text)) } satisfies LanesReply);
      return;
    }
    const { lanes, manifest } = lanesAndManifest(request.ref, chunksOf(request), request.leaves, request.title, takeTokens);
    parentPort!.postMessage({ id: request.id, lanes, manifest } satisfies LanesReply, [lanes.buffer as ArrayBuffer]);
  } catch (error) {
    parentPort!.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) } satisfies LanesReply);
  }
});
