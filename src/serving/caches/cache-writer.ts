// Writes a settled Client's large segments to the segment cache (segment-cache.ts), each once and never one read
// back from it, when every generation in it is live, verified and has persisted lane data (the digests that name
// the file): the next load of the Client reads them back instead of merging their lane data again. A segment
// holding a generation that is not verified is never written, so it cannot come back verified.

import type { CachedGeneration } from '../../codec/segment-file.ts';
import type { Segment } from '../segment.ts';
import type { SegmentCache } from './segment-cache.ts';
import type { ResidentClients } from '../resident-clients.ts';

export interface CacheWriterOptions {
  /** Told after a file was written (memory-pressure.ts collects the bytes the write passed through). */
  changed: () => void;
  onError: (error: unknown) => void;
}

export class CacheWriter {
  private readonly cache: SegmentCache | null;
  private readonly residents: ResidentClients;
  private readonly dimensions: number;
  private readonly options: CacheWriterOptions;
  /** Segments read back from the cache, and segments written to it (neither is written again). */
  private readonly restored = new WeakSet<Segment>();
  private readonly written = new WeakSet<Segment>();
  private closed = false;

  /** `cache`: null without a segment cache (nothing is written). */
  constructor(cache: SegmentCache | null, residents: ResidentClients, dimensions: number, options: CacheWriterOptions) {
    this.cache = cache;
    this.residents = residents;
    this.dimensions = dimensions;
    this.options = options;
  }

  /** A segment that came from the cache: it is there already. */
  restoredFromCache(segment: Segment): void {
    this.restored.add(segment);
  }

  /** Writes the Client's large segments not in the cache yet, in the background. */
  write(clientId: string): void {
    const cache = this.cache;
    const snapshot = this.residents.get(clientId)?.snapshot;
    if (!cache || this.closed || !snapshot) return;
    for (const segment of snapshot.segments) {
      if (segment.rows < cache.minRows || this.restored.has(segment) || this.written.has(segment)) continue;
      this.written.add(segment);
      const generations: CachedGeneration[] = [];
      for (const version of segment.versions) {
        const { lanesDigest } = version;
        if (version.evidence.state !== 'verified' || lanesDigest === null || snapshot.live[version.firstOrdinal] !== 1) break;
        generations.push({ generation: version.generation, lanesDigest, rows: version.chunkCount });
      }
      if (generations.length < segment.versions.length) continue;
      cache.write(clientId, segment, this.dimensions, generations).then(this.options.changed, (error) => this.options.onError(error));
    }
  }

  /** Writes no more (shutdown). */
  close(): void {
    this.closed = true;
  }
}
