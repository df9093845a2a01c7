// Builds and merges segments, verifies publication evidence and builds HNSW graphs on threads of the api
// process, so that publishing a large document or compacting a large Client never stalls searches or /health.
// The event loop only packs the input and assembles the result. Two lanes, each one thread taking requests in
// order: segments and evidence on one, graphs (seconds each for a large segment) on the other, so a graph
// build never delays a publication. A crashed thread is replaced on next use.

import { Worker } from 'node:worker_threads';
import { rmSync } from 'node:fs';
import { assembleSegment, liveVersionsOf, wantsAnn } from './segment.ts';
import type { Segment, SegmentBuilder, SegmentIndex, SegmentPart } from './segment.ts';
import type { ServedVersion } from './served-types.ts';
import type { ServingGeneration } from '../domain/generation.ts';
import { evidenceInputOf } from './evidence.ts';
import type { Evidence } from './evidence.ts';
import { AnnGraph, annFilePath } from './ann-index.ts';
import type { SegmentThreadReply, SegmentThreadRequest } from './segment-thread.ts';

const THREAD_URL = new URL('./segment-thread.ts', import.meta.url);

/** A request without its id, for each kind (Omit over the union would merge the kinds). */
type Unnumbered<T> = T extends unknown ? Omit<T, 'id'> : never;

type Answer = SegmentIndex | Evidence[] | string;
type Pending = { resolve: (answer: Answer) => void; reject: (error: Error) => void };

/** One segment thread and the requests waiting on it. */
class ThreadLane {
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
      else waiting.resolve('evidence' in reply ? reply.evidence : 'written' in reply ? reply.written : reply.index);
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

  request(message: Unnumbered<SegmentThreadRequest>): Promise<Answer> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.ensureThread().postMessage({ ...message, id });
    });
  }

  async close(): Promise<void> {
    const thread = this.thread;
    this.thread = null;
    if (thread) await thread.terminate();
  }
}

/** The plain index part of a segment (what crosses to the thread). */
function indexPartOf(segment: Segment): SegmentIndex {
  const { bm25, codes, vocabulary, generationRows, wordStarts, wordIds, wordCounts, chunkIndexes, pages, textHashes, labelRows, labels } = segment;
  return { bm25, codes, vocabulary, generationRows, wordStarts, wordIds, wordCounts, chunkIndexes, pages, textHashes, labelRows, labels };
}

export class ThreadedSegmentBuilder implements SegmentBuilder {
  private readonly segments = new ThreadLane();
  private readonly graphs = new ThreadLane();

  async build(parts: readonly SegmentPart[], versions: readonly ServedVersion[], dimensions: number): Promise<Segment> {
    const index = (await this.segments.request({ kind: 'build', parts: [...parts], dimensions })) as SegmentIndex;
    return assembleSegment(index, versions, dimensions);
  }

  async merge(segments: readonly Segment[], live: Uint8Array): Promise<Segment> {
    const dimensions = segments[0].dimensions;
    // Only the index parts cross to the thread (versions stay here).
    const parts: SegmentIndex[] = segments.map(indexPartOf);
    const index = (await this.segments.request({ kind: 'merge', parts, live, dimensions })) as SegmentIndex;
    return assembleSegment(index, liveVersionsOf(segments, live), dimensions);
  }

  async verify(generations: readonly ServingGeneration[]): Promise<Evidence[]> {
    if (generations.length === 0) return [];
    return (await this.segments.request({ kind: 'verify', generations: generations.map(evidenceInputOf) })) as Evidence[];
  }

  async buildAnn(segment: Segment): Promise<AnnGraph | null> {
    if (!wantsAnn(segment)) return null;
    const path = annFilePath();
    try {
      await this.graphs.request({ kind: 'ann', codes: segment.codes, dimensions: segment.dimensions, path });
      return AnnGraph.open(path, segment.dimensions);
    } catch (error) {
      rmSync(path, { force: true });
      throw error;
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.segments.close(), this.graphs.close()]);
  }
}
