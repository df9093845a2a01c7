// Lane data and manifests built on one thread of the worker process (lanes-thread.ts). With WORKER_CONCURRENCY
// jobs in flight, a job's indexing runs there while another job parses, enriches and embeds on the event loop,
// so one worker process keeps two cores busy during bulk ingest. A crashed thread fails the requests it held
// (their jobs retry) and is replaced on next use.

import { RequestThread } from '../serving/request-thread.ts';
import { lanesAndManifest } from '../serving/manifest.ts';
import type { LaneChunk } from '../serving/generation-lanes.ts';
import type { MetadataLeaf } from '../domain/generation.ts';
import type { JsonObject } from '../domain/canonical-metadata.ts';
import type { LanesReply, LanesRequest } from './lanes-thread.ts';

const THREAD_URL = new URL('./lanes-thread.ts', import.meta.url);

export type LanesAndManifest = { lanes: Uint8Array; manifest: JsonObject };

/** Builds a generation's lane data and manifest from its chunks (serving/manifest.ts lanesAndManifest). */
export type LanesBuilder = (ref: LanesRequest['ref'], chunks: readonly LaneChunk[], leaves: readonly MetadataLeaf[], title: string | null) => Promise<LanesAndManifest>;

/** On the calling thread: tests and tools, and generations whose vectors differ in length. */
export const inlineLanesBuilder: LanesBuilder = async (ref, chunks, leaves, title) => lanesAndManifest(ref, chunks, leaves, title);

export class LanesThread {
  private readonly thread = new RequestThread<LanesRequest, LanesReply>(THREAD_URL, 'lanes thread');

  readonly build: LanesBuilder = async (ref, chunks, leaves, title) => {
    const dimensions = chunks[0]?.vector.length ?? 0;
    // Vectors of one length pack into one array; anything else is built here, exactly as given.
    if (chunks.some((chunk) => chunk.vector.length !== dimensions)) return inlineLanesBuilder(ref, chunks, leaves, title);
    const vectors = new Float32Array(chunks.length * dimensions);
    const plain = chunks.map(({ vector, ...chunk }, row) => {
      vectors.set(vector, row * dimensions);
      return chunk;
    });
    const { lanes, manifest } = await this.thread.request({ ref, chunks: plain, vectors, dimensions, leaves: [...leaves], title }, [vectors.buffer]);
    return { lanes, manifest };
  };

  close(): Promise<void> {
    return this.thread.close();
  }
}
