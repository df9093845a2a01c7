// Lane data and manifests built on one thread of the worker process (lanes-thread.ts). With WORKER_CONCURRENCY
// jobs in flight, a job's indexing runs there while another job parses, enriches and embeds on the event loop,
// so one worker process keeps two cores busy during bulk ingest. A crashed thread fails the requests it held
// (their jobs retry) and is replaced on next use.

import { Worker } from 'node:worker_threads';
import { lanesAndManifest } from '../serving/manifest.ts';
import type { LaneChunk } from '../serving/generation-lanes.ts';
import type { MetadataLeaf } from '../domain/generation.ts';
import type { JsonObject } from '../domain/canonical-metadata.ts';
import type { LanesReply, LanesRequest } from './lanes-thread.ts';

const THREAD_URL = new URL('./lanes-thread.ts', import.meta.url);

export type LanesAndManifest = { lanes: Uint8Array; manifest: JsonObject };

/** Builds a generation's lane data and manifest from its chunks (serving/manifest.ts lanesAndManifest). */
export type LanesBuilder = (ref: LanesRequest['ref'], chunks: readonly LaneChunk[], leaves: readonly MetadataLeaf[], title: string | null) => Promise<LanesAndManifest>;

/** On the calling thread: tests, tools, and a worker configured without threads. */
export const inlineLanesBuilder: LanesBuilder = async (ref, chunks, leaves, title) => lanesAndManifest(ref, chunks, leaves, title);

export class LanesThread {
  private thread: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (answer: LanesAndManifest) => void; reject: (error: Error) => void }>();

  private ensureThread(): Worker {
    if (this.thread) return this.thread;
    const thread = new Worker(THREAD_URL);
    thread.unref(); // never keeps the process alive on its own
    thread.on('message', (reply: LanesReply) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      if ('error' in reply) waiting.reject(new Error(`lanes thread: ${reply.error}`));
      else waiting.resolve({ lanes: reply.lanes, manifest: reply.manifest });
    });
    const fail = (error: Error) => {
      if (this.thread !== thread) return;
      this.thread = null;
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
    };
    thread.on('error', fail);
    thread.on('exit', (code) => fail(new Error(`lanes thread exited with code ${code}`)));
    this.thread = thread;
    return thread;
  }

  readonly build: LanesBuilder = (ref, chunks, leaves, title) => {
    const dimensions = chunks[0]?.vector.length ?? 0;
    // Vectors of one length pack into one array; anything else is built here, exactly as given.
    if (chunks.some((chunk) => chunk.vector.length !== dimensions)) return inlineLanesBuilder(ref, chunks, leaves, title);
    const vectors = new Float32Array(chunks.length * dimensions);
    const plain = chunks.map(({ vector, ...chunk }, row) => {
      vectors.set(vector, row * dimensions);
      return chunk;
    });
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.ensureThread().postMessage({ id, ref, chunks: plain, vectors, dimensions, leaves: [...leaves], title } satisfies LanesRequest, [vectors.buffer]);
    });
  };

  async close(): Promise<void> {
    const thread = this.thread;
    this.thread = null;
    if (thread) await thread.terminate();
  }
}
