// Loads a Client's snapshot whole from the store: the log head first, then the large segments the segment cache
// holds for generations still active, then the other generations, read, verified and sent to one build session
// in batches, so that a load holds one batch of lane data at a time and they make one segment. Entries committed
// during a load are applied afterwards from that head by the next catch-up (log-applier.ts), so nothing is missed.

import pLimit from 'p-limit';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { StoragePort } from '../storage/port.ts';
import type { ServingGeneration } from '../domain/generation.ts';
import type { Evidence } from '../codec/evidence.ts';
import { recordedLanesDigest } from '../codec/manifest.ts';
import { commitChange, emptySnapshot, planChange } from './snapshot.ts';
import type { ClientSnapshot } from './snapshot.ts';
import type { ServedVersion } from './served-types.ts';
import { assembleSegment } from './segment.ts';
import type { Segment, SegmentBuilder } from './segment.ts';
import { chooseEntries } from './caches/segment-cache.ts';
import type { SegmentCache } from './caches/segment-cache.ts';
import type { Served } from './resident-clients.ts';

/** A load sends generations to its build session in batches of about this many chunks (what it holds at once). */
export const REBUILD_BATCH_CHUNKS = 10_000;
/** Generations read from the store per query during a rebuild. */
const REBUILD_READ_BATCH = 200;
/**
 * Clients a process loads at once; more wait their turn. A load holds a batch of lane data and the segment being
 * built until it is stored, and a burst of first searches (bench/many-clients: 8 at a time over 200 Clients) took
 * an api process 10-25 MiB past its memory budget at peaks. The builds run one at a time on the segment thread
 * anyway; two at once let a small Client's load pass a large one's.
 */
export const CONCURRENT_LOADS = 2;

/** Each generation's publication evidence, verified by the builder (off the event loop in api processes). */
export async function evidenceOf(builder: SegmentBuilder, generations: readonly ServingGeneration[]): Promise<Map<number, Evidence>> {
  const verified = await builder.verify(generations);
  return new Map(generations.map((generation, index) => [generation.generation, verified[index]]));
}

export interface LoaderOptions {
  /** Large segments kept on disk for the next load (none: every load merges lane data). */
  segmentCache: SegmentCache | null;
  /** A segment read back from the segment cache (it is not written there again). */
  restored: (segment: Segment) => void;
  /** Takes the loaded Client, while the load still holds its turn (so the next load starts after it is stored). */
  loaded: (clientId: string, served: Served) => void;
}

export class ClientLoader {
  private readonly storage: StoragePort;
  private readonly dimensions: number;
  private readonly builder: SegmentBuilder;
  private readonly options: LoaderOptions;
  private readonly turns = pLimit(CONCURRENT_LOADS);
  /** Segments read back from the segment cache by loads so far. */
  restoredSegments = 0;

  constructor(storage: StoragePort, dimensions: number, builder: SegmentBuilder, options: LoaderOptions) {
    this.storage = storage;
    this.dimensions = dimensions;
    this.builder = builder;
    this.options = options;
  }

  /** Loads the Client whole once it has its turn (at most CONCURRENT_LOADS at once), and hands it on (`loaded`). */
  load(clientId: string): Promise<void> {
    return this.turns(() => this.loadWhole(clientId));
  }

  private async loadWhole(clientId: string): Promise<void> {
    const store = this.storage.client(clientId);
    const head = await store.publicationLog.head();
    const ids = await store.generations.servedGenerationIds();
    const restored = await this.restoreCached(clientId, ids);
    const rest = restored.covered.size === 0 ? ids : ids.filter((id) => !restored.covered.has(id));
    const session = this.builder.begin(this.dimensions, rest.length);
    let snapshot = restored.snapshot;
    const versions: ServedVersion[] = [];
    let batch: ServingGeneration[] = [];
    let batchChunks = 0;
    // One batch is being indexed on the segment thread while the next is read and verified here.
    let adding: Promise<void> = Promise.resolve();
    const flush = async () => {
      if (batch.length === 0) return;
      const plan = planChange(snapshot, { activated: batch, evidence: await evidenceOf(this.builder, batch) });
      await adding;
      adding = session.add(plan.added);
      // Handled here so a failure waiting for its turn is not unhandled; awaited again (and thrown) below.
      adding.catch(() => undefined);
      versions.push(...plan.addedVersions);
      snapshot = commitChange(snapshot, plan, null);
      batch = [];
      batchChunks = 0;
    };
    let segment: Segment | null = null;
    try {
      for (let start = 0; start < rest.length; start += REBUILD_READ_BATCH) {
        for (const generation of await store.generations.loadActiveGenerations(rest.slice(start, start + REBUILD_READ_BATCH))) {
          batch.push(generation);
          batchChunks += generation.chunkCount;
        }
        if (batchChunks >= REBUILD_BATCH_CHUNKS) await flush();
        await yieldToEventLoop();
      }
      await flush();
      await adding;
    } catch (error) {
      await adding.catch(() => undefined);
      await session.abandon();
      throw error;
    }
    if (versions.length > 0) segment = await session.finish(versions);
    else await session.abandon();
    this.options.loaded(clientId, { snapshot: segment ? { ...snapshot, segments: [...snapshot.segments, segment] } : snapshot, appliedSeq: head });
  }

  /**
   * The Client's segments read back from the segment cache: the files chosen (chooseEntries) whose every
   * generation is still active with the lane data the file was built from (its manifest's digest and chunk
   * count), each verified through that proof and given the next ordinals. Files no load can use any more are
   * removed; a file that is gone or damaged is removed and its generations are left to their lane data.
   */
  private async restoreCached(clientId: string, ids: readonly number[]): Promise<{ snapshot: ClientSnapshot; covered: Set<number> }> {
    let snapshot = emptySnapshot(clientId, this.dimensions);
    const covered = new Set<number>();
    const cache = this.options.segmentCache;
    if (!cache) return { snapshot, covered };
    const entries = await cache.entries(clientId);
    const chosen = chooseEntries(entries, new Set(ids));
    for (const entry of entries) if (!chosen.includes(entry)) await cache.remove(entry);
    const store = this.storage.client(clientId);
    for (const entry of chosen) {
      // The file is read while the generations' records are (their lane data is not kept: the file replaces it).
      const reading = cache.read(entry);
      reading.catch(() => undefined);
      const wanted = entry.generations.map(({ generation }) => generation);
      const loaded = new Map<number, ServingGeneration>();
      for (let start = 0; start < wanted.length; start += REBUILD_READ_BATCH) {
        for (const generation of await store.generations.loadActiveGenerations(wanted.slice(start, start + REBUILD_READ_BATCH), { content: false })) loaded.set(generation.generation, generation);
        await yieldToEventLoop();
      }
      const generations = entry.generations.map(({ generation, lanesDigest, rows }) => {
        const found = loaded.get(generation);
        return found && found.chunkCount === rows && recordedLanesDigest(found.manifest) === lanesDigest ? found : null;
      });
      const file = await reading;
      if (!file || generations.some((generation) => generation === null)) {
        await cache.remove(entry);
        continue;
      }
      const activated = generations as ServingGeneration[];
      const proofs = new Map(entry.generations.map(({ generation, lanesDigest, rows }) => [generation, { digest: lanesDigest, chunkCount: rows }]));
      const verified = await this.builder.verify(activated, proofs);
      const plan = planChange(snapshot, { activated, evidence: new Map(activated.map((generation, i) => [generation.generation, verified[i]])) });
      let segment: Segment;
      try {
        segment = assembleSegment(await this.builder.restore(file, snapshot.nextOrdinal), plan.addedVersions, this.dimensions);
      } catch {
        // Damaged (its digest or layout), or it could not be decoded: the lane data load its generations instead.
        await cache.remove(entry);
        continue;
      }
      this.options.restored(segment);
      this.restoredSegments++;
      snapshot = commitChange(snapshot, plan, segment);
      for (const generation of wanted) covered.add(generation);
    }
    return { snapshot, covered };
  }
}
