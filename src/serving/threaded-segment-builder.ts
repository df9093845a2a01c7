// Builds and merges segments, decodes segment files and verifies publication evidence on a thread of the api
// process, so that publishing a large document or compacting a large Client never stalls searches or /health.
// The event loop only packs the input and assembles the result. One thread takes the requests in order; a
// crashed thread is replaced on next use. HNSW graphs (seconds to minutes each) are built apart, in graph
// processes (graphs/graph-builder.ts), so a graph build never delays a publication.

import { RequestThread } from '../runtime/request-thread.ts';
import type { Unnumbered } from '../runtime/request-thread.ts';
import { assembleSegment, liveVersionsOf, wantsAnn } from './segment.ts';
import type { BuildSession, Segment, SegmentBuilder } from './segment.ts';
import { mergeInputOf } from './segment-assembler.ts';
import type { SegmentPart } from './segment-assembler.ts';
import type { SegmentIndex } from '../codec/segment-index.ts';
import type { ServedVersion } from './served-types.ts';
import type { ServingGeneration } from '../domain/generation.ts';
import { evidenceInputOf, proveLanes, withLanesProof } from '../codec/evidence.ts';
import type { Evidence, LanesProof } from '../codec/evidence.ts';
import type { AnnGraph } from './graphs/ann-index.ts';
import { GraphBuilder } from './graphs/graph-builder.ts';
import type { GraphCacheOptions } from './graphs/graph-builder.ts';
import type { SegmentThreadReply, SegmentThreadRequest } from './segment-thread.ts';

const THREAD_URL = new URL('./segment-thread.ts', import.meta.url);

type Answer = SegmentIndex | Evidence[] | number;

/**
 * Once the requests a thread has taken carried more than this many bytes of input in all, it is ended when
 * idle: its heap grew by about what it indexed, and a thread's heap does not shrink while it lives (a new
 * one starts on next use). Counted over the thread's life, not per request: loading 200 small Clients one
 * after another left the thread holding about 150 MiB.
 */
export const THREAD_RECYCLE_BYTES = 64 * 1024 * 1024;

/**
 * A segment thread left without requests this long is ended too, whatever it took: once a bulk load is over, the
 * heap its last builds and merges grew (tens of MiB after a 100,000-chunk load) goes with it. The next publication
 * starts a new one (some tens of milliseconds).
 */
export const THREAD_IDLE_MS = 10_000;

/** One segment thread and the requests waiting on it, ended when idle once it has taken enough input, or idle long. */
class ThreadLane {
  private readonly recycleBytes: number;
  private readonly idleMs: number;
  private readonly thread: RequestThread<SegmentThreadRequest, SegmentThreadReply>;
  private recycleWhenIdle = false;
  /** Input bytes of the requests the current thread has taken. */
  private threadBytes = 0;
  /** Build sessions open on the thread: their state lives there, so it is not ended while any is open. */
  private openSessions = 0;
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(recycleBytes: number, idleMs: number) {
    this.recycleBytes = recycleBytes;
    this.idleMs = idleMs;
    this.thread = new RequestThread(THREAD_URL, 'segment thread', { started: () => (this.threadBytes = 0), replied: () => this.recycleIfIdle() });
  }

  private get idle(): boolean {
    return this.thread.waiting === 0 && this.openSessions === 0;
  }

  private recycleIfIdle(): void {
    if (!this.idle) return;
    if (!this.recycleWhenIdle) {
      this.closeWhenIdleLong();
      return;
    }
    this.recycleWhenIdle = false;
    void this.close();
  }

  /** Ends the thread once it has stayed idle for idleMs (a request meanwhile puts that off). */
  private closeWhenIdleLong(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.idle && this.thread.running) void this.thread.close();
    }, this.idleMs);
    this.idleTimer.unref();
  }

  /** Holds the thread for a build session until `release` (see openSessions). */
  hold(): () => void {
    this.openSessions++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.openSessions--;
      this.recycleIfIdle();
    };
  }

  /** `transfer`: buffers moved to the thread instead of copied (the caller no longer reads them). */
  async request(message: Unnumbered<SegmentThreadRequest>, inputBytes = 0, transfer: ArrayBuffer[] = []): Promise<Answer> {
    let reply: SegmentThreadReply;
    try {
      // Starts a thread (and its count) when none runs; one being recycled first exits (runtime/request-thread.ts).
      reply = await this.thread.request(message, transfer);
    } finally {
      // Counted once answered (an error too: the work may have grown the heap), so by the thread that took it.
      this.threadBytes += inputBytes;
      if (this.threadBytes > this.recycleBytes) {
        this.recycleWhenIdle = true;
        this.recycleIfIdle();
      }
    }
    return 'evidence' in reply ? reply.evidence : 'added' in reply ? reply.added : reply.index;
  }

  heapBytes(): Promise<number> {
    return this.thread.heapBytes();
  }

  close(): Promise<void> {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    return this.thread.close();
  }

  /** True while a thread is started. */
  get running(): boolean {
    return this.thread.running;
  }
}

/**
 * The lane data buffers of parts that a build may take over: a load adds each batch once and keeps nothing of
 * it, so its blobs move to the thread instead of being copied. Only a blob that is its buffer's whole content
 * moves (a view into a larger buffer would take the rest with it).
 */
function movableLanes(parts: readonly SegmentPart[]): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const { source } of parts) {
    if (!('lanes' in source)) continue;
    const { lanes } = source;
    if (lanes.byteOffset === 0 && lanes.byteLength === lanes.buffer.byteLength && lanes.buffer instanceof ArrayBuffer) buffers.add(lanes.buffer);
  }
  return [...buffers];
}

function partBytes(part: SegmentPart): number {
  return 'lanes' in part.source ? part.source.lanes.byteLength : part.source.chunks.reduce((sum, chunk) => sum + chunk.text.length + chunk.vector.byteLength, 0);
}

export class ThreadedSegmentBuilder implements SegmentBuilder {
  private readonly segments: ThreadLane;
  private readonly graphs: GraphBuilder;
  private nextSession = 1;

  /** `recycleBytes` and `idleMs`: THREAD_RECYCLE_BYTES and THREAD_IDLE_MS unless a test makes threads end sooner. */
  constructor(options: { graphCache: GraphCacheOptions; recycleBytes?: number; idleMs?: number }) {
    this.segments = new ThreadLane(options.recycleBytes ?? THREAD_RECYCLE_BYTES, options.idleMs ?? THREAD_IDLE_MS);
    this.graphs = new GraphBuilder(options.graphCache);
  }

  /** A build fed batch by batch: each batch crosses to the thread and is indexed there before the next is sent. */
  begin(dimensions: number, expectedParts = 0): BuildSession {
    const session = this.nextSession++;
    const release = this.segments.hold();
    const started = this.segments.request({ kind: 'begin', session, dimensions, expectedParts });
    let bytes = 0;
    return {
      add: async (parts) => {
        try {
          await started;
          bytes += parts.reduce((sum, part) => sum + partBytes(part), 0);
          await this.segments.request({ kind: 'add', session, parts: [...parts] }, 0, movableLanes(parts));
        } catch (error) {
          release();
          throw error;
        }
      },
      finish: async (versions) => {
        try {
          await started;
          const index = (await this.segments.request({ kind: 'finish', session }, bytes)) as SegmentIndex;
          return assembleSegment(index, versions, dimensions);
        } finally {
          release();
        }
      },
      abandon: async () => {
        try {
          await started;
          await this.segments.request({ kind: 'drop', session });
        } catch {
          // the thread is gone, and the session with it
        } finally {
          release();
        }
      },
    };
  }

  async build(parts: readonly SegmentPart[], versions: readonly ServedVersion[], dimensions: number): Promise<Segment> {
    const index = (await this.segments.request({ kind: 'build', parts: [...parts], dimensions }, parts.reduce((sum, part) => sum + partBytes(part), 0))) as SegmentIndex;
    return assembleSegment(index, versions, dimensions);
  }

  async merge(segments: readonly Segment[], live: Uint8Array): Promise<Segment> {
    const dimensions = segments[0].dimensions;
    // Only the index parts cross to the thread (versions stay here).
    const parts = segments.map(mergeInputOf);
    const index = (await this.segments.request({ kind: 'merge', parts, live, dimensions }, parts.reduce((sum, part) => sum + part.codes.byteLength * 3, 0))) as SegmentIndex;
    return assembleSegment(index, liveVersionsOf(segments, live), dimensions);
  }

  /** True while a segment thread is started (it ends when recycled or idle long). */
  get threadRunning(): boolean {
    return this.segments.running;
  }

  /** The segment thread's heap and external memory (0 between recycles): part of what SERVING_MEMORY_BUDGET_MB reserves. */
  threadBytes(): Promise<number> {
    return this.segments.heapBytes();
  }

  async restore(file: Uint8Array, firstOrdinal: number): Promise<SegmentIndex> {
    // The file moves to the thread when it is its buffer's whole content; the index comes back as views of it.
    const whole = file.byteOffset === 0 && file.byteLength === file.buffer.byteLength && file.buffer instanceof ArrayBuffer;
    return (await this.segments.request({ kind: 'restore', file, firstOrdinal }, file.byteLength, whole ? [file.buffer as ArrayBuffer] : [])) as SegmentIndex;
  }

  async verify(generations: readonly ServingGeneration[], proofs?: ReadonlyMap<number, LanesProof>): Promise<Evidence[]> {
    if (generations.length === 0) return [];
    const inputs = await Promise.all(
      generations.map((generation) => {
        const proof = proofs?.get(generation.generation);
        return proof ? withLanesProof(generation, proof) : proveLanes(evidenceInputOf(generation));
      }),
    );
    return (await this.segments.request({ kind: 'verify', generations: inputs })) as Evidence[];
  }

  async buildAnn(segment: Segment, clientId?: string): Promise<AnnGraph | null> {
    if (!wantsAnn(segment)) return null;
    const holder = clientId === undefined ? undefined : { clientId, generations: segment.versions.map((version) => version.generation) };
    return this.graphs.graphOf(segment.codes, segment.dimensions, holder);
  }

  forgetGraphs(clientId: string, drop: (generation: number) => boolean): number {
    return this.graphs.forget(clientId, drop);
  }

  holdsGraphs(clientId: string): boolean {
    return this.graphs.holds(clientId);
  }

  /** Removes the graph files no Client is recorded as holding (start-up: caches/cache-sweep.ts). */
  removeUnheldGraphs(): number {
    return this.graphs.removeUnheld();
  }

  async close(): Promise<void> {
    this.graphs.close();
    await this.segments.close();
  }
}
