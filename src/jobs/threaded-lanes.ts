// Lane data and manifests built, and chunks' entities extracted, on one thread of the worker process
// (lanes-thread.ts). With WORKER_CONCURRENCY jobs in flight, a job's indexing runs there while another job
// parses, classifies and embeds on the event loop, and a job's entities and languages are found there while it
// classifies and embeds, so one worker process keeps two cores busy during bulk ingest. A crashed thread fails the
// requests it held (their jobs retry) and is replaced on next use.

import { RequestThread } from '../runtime/request-thread.ts';
import { lanesAndManifest } from '../codec/manifest.ts';
import type { ManifestChunk } from '../codec/manifest.ts';
import type { LaneChunk } from '../codec/generation-lanes.ts';
import type { MetadataLeaf } from '../domain/generation.ts';
import type { JsonObject } from '../domain/canonical-metadata.ts';
import type { Entities } from '../domain/entities.ts';
import type { EntitiesRequest, LanesReply, LanesRequest, LanguagesRequest } from './lanes-thread.ts';
import type { ChunkLanguage } from '../domain/chunk-language.ts';

const THREAD_URL = new URL('./lanes-thread.ts', import.meta.url);

export type LanesAndManifest = { lanes: Uint8Array; manifest: JsonObject };

/** Builds a generation's lane data and manifest from its chunks (codec/manifest.ts lanesAndManifest). */
export type LanesBuilder = (ref: LanesRequest['ref'], chunks: readonly (LaneChunk & Pick<ManifestChunk, 'entities'>)[], leaves: readonly MetadataLeaf[], title: string | null) => Promise<LanesAndManifest>;

/** On the calling thread: tests and tools, and generations whose vectors differ in length. */
export const inlineLanesBuilder: LanesBuilder = async (ref, chunks, leaves, title) => lanesAndManifest(ref, chunks, leaves, title);

export class LanesThread {
  private readonly thread = new RequestThread<LanesRequest | EntitiesRequest | LanguagesRequest, LanesReply>(THREAD_URL, 'lanes thread');

  readonly build: LanesBuilder = async (ref, chunks, leaves, title) => {
    const dimensions = chunks[0]?.vector.length ?? 0;
    // Vectors of one length pack into one array; anything else is built here, exactly as given.
    if (chunks.some((chunk) => chunk.vector.length !== dimensions)) return inlineLanesBuilder(ref, chunks, leaves, title);
    const vectors = new Float32Array(chunks.length * dimensions);
    const plain = chunks.map(({ vector, ...chunk }, row) => {
      vectors.set(vector, row * dimensions);
      return chunk;
    });
    const reply = await this.thread.request({ kind: 'lanes', ref, chunks: plain, vectors, dimensions, leaves: [...leaves], title }, [vectors.buffer]);
    if (!('lanes' in reply)) throw new Error('lanes thread: a lanes request was answered with something else');
    return { lanes: reply.lanes, manifest: reply.manifest };
  };

  /** The entities of each chunk text, extracted on the thread (ingest/entities/extract.ts). */
  readonly extractEntities = async (texts: readonly string[]): Promise<Entities[]> => {
    const reply = await this.thread.request({ kind: 'entities', texts: [...texts] });
    if (!('entities' in reply)) throw new Error('lanes thread: an entities request was answered with something else');
    return reply.entities;
  };

  /** The language of each chunk text, detected on the thread (text/language.ts). */
  readonly detectLanguages = async (texts: readonly string[]): Promise<ChunkLanguage[]> => {
    const reply = await this.thread.request({ kind: 'languages', texts: [...texts] });
    if (!('languages' in reply)) throw new Error('lanes thread: a languages request was answered with something else');
    return reply.languages;
  };

  close(): Promise<void> {
    return this.thread.close();
  }
}
