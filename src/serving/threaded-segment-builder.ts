// Builds and merges segments and verifies publication evidence on the api process's segment thread, so that
// publishing a large document or compacting a large Client never stalls searches or /health. The event loop only packs the input and
// assembles the result; requests run one at a time, in order. A crashed thread is replaced on next use.

import { Worker } from 'node:worker_threads';
import { assembleSegment, deadTextsOf, indexInputOf, liveChunksOf } from './segment.ts';
import type { Segment, SegmentBuilder, SegmentIndex } from './segment.ts';
import type { ServedChunk } from './served-types.ts';
import type { LoadedGeneration } from '../domain/generation.ts';
import { evidenceInputOf } from './evidence.ts';
import type { Evidence } from './evidence.ts';
import type { SegmentThreadReply, SegmentThreadRequest } from './segment-thread.ts';

const THREAD_URL = new URL('./segment-thread.ts', import.meta.url);

/** A request without its id, for each kind (Omit over the union would merge the kinds). */
type Unnumbered<T> = T extends unknown ? Omit<T, 'id'> : never;

type Pending = { resolve: (answer: SegmentIndex | Evidence[]) => void; reject: (error: Error) => void };

export class ThreadedSegmentBuilder implements SegmentBuilder {
  private thread: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  private ensureThread(): Worker {
    if (this.thread) return this.thread;
    const thread = new Worker(THREAD_URL);
    thread.unref(); // never keeps the process alive on its own
    thread.on('message', (reply: SegmentThreadReply) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      if ('error' in reply) waiting.reject(new Error(`segment thread: ${reply.error}`));
      else waiting.resolve('evidence' in reply ? reply.evidence : reply.index);
    });
    const fail = (error: Error) => {
      if (this.thread !== thread) return;
      this.thread = null;
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
    };
    thread.on('error', fail);
    thread.on('exit', (code) => fail(new Error(`segment thread exited with code ${code}`)));
    this.thread = thread;
    return thread;
  }

  private request(message: Unnumbered<SegmentThreadRequest>): Promise<SegmentIndex | Evidence[]> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.ensureThread().postMessage({ ...message, id });
    });
  }

  async build(chunks: readonly ServedChunk[], dimensions: number): Promise<Segment> {
    const { sorted, docs, vectors } = indexInputOf(chunks, dimensions);
    const index = (await this.request({ kind: 'build', docs, vectors })) as SegmentIndex;
    return assembleSegment(sorted, index, dimensions);
  }

  async merge(segments: readonly Segment[], live: Uint8Array): Promise<Segment> {
    const dimensions = segments[0].dimensions;
    // Only the index parts cross to the thread (chunks hold references to their versions; int8 copies are redone).
    const parts: SegmentIndex[] = segments.map(({ bm25, vectors, vocabulary }) => ({ bm25, vectors, quantized: null, vocabulary }));
    const index = (await this.request({ kind: 'merge', parts, live, dimensions, deadTexts: deadTextsOf(segments, live) })) as SegmentIndex;
    return assembleSegment(liveChunksOf(segments, live), index, dimensions);
  }

  async verify(generations: readonly LoadedGeneration[]): Promise<Evidence[]> {
    if (generations.length === 0) return [];
    return (await this.request({ kind: 'verify', generations: generations.map(evidenceInputOf) })) as Evidence[];
  }

  async close(): Promise<void> {
    const thread = this.thread;
    this.thread = null;
    if (thread) await thread.terminate();
  }
}
