// Segments kept on disk beside the store (DATA_DIR/segments), so that an api process loading a Client reads
// back the large segments it or another process built before, instead of merging the lane data of every one
// of their generations again (a Client of 100,000 chunks in 10,000 documents: seconds of one core).
//
// A file holds one segment's index (codec/segment-file.ts) and is named by the digest of what it was built from:
// its generations in order, each with the digest of its lane data as the manifest records it, and its rows.
// A load uses a file only when every generation in it is still active with that very lane data, and checks
// the file's own digest before decoding it; anything else is left to the lane data, as if the file were not
// there. The directory is a cache: anything in it may be deleted at any time; a Client's files that a load
// could not use are removed by it, files superseded by a larger one by the write of that one, and the oldest
// go first once the directory holds more than its budget.

import { createHash, webcrypto } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import type { SegmentIndex } from '../../codec/segment-index.ts';
import { headerBytes, headerLength, readHeader, SEGMENT_FILE_FORMAT, SEGMENT_FILE_PREFIX_BYTES, sectionPadding, segmentFileParts, SegmentFileError } from '../../codec/segment-file.ts';
import type { CachedGeneration } from '../../codec/segment-file.ts';
import { processAlive } from '../../runtime/process-alive.ts';
import { chainSettled } from '../../runtime/chain-settled.ts';
import { cacheClientKey } from './cache-client-key.ts';

/** The cache's directory under DATA_DIR. */
export const SEGMENT_CACHE_DIR = 'segments';
/** Smaller segments are not written: their generations' lane data load about as fast as a file. */
export const SEGMENT_CACHE_MIN_ROWS = 4096;
const SUFFIX = '.segment';
const PARTIAL_MARK = '.partial-';

/** A file of the cache as its header describes it. */
export interface CacheEntry {
  path: string;
  key: string;
  generations: CachedGeneration[];
  rows: number;
}

/** What a segment file is named by: the file format, the dimensions and its generations in order. */
export function segmentKey(dimensions: number, generations: readonly CachedGeneration[]): string {
  const hash = createHash('sha256').update(`segment format ${SEGMENT_FILE_FORMAT} dimensions=${dimensions}\n`);
  for (const { generation, lanesDigest, rows } of generations) hash.update(`${generation} ${lanesDigest} ${rows}\n`);
  return hash.digest('hex').slice(0, 32);
}

/**
 * The entries a load can use together: each with every generation active (with the lane data recorded, checked
 * by the load against the manifests), no two sharing one, the largest first.
 */
export function chooseEntries(entries: readonly CacheEntry[], active: ReadonlySet<number>): CacheEntry[] {
  const taken = new Set<number>();
  const chosen: CacheEntry[] = [];
  for (const entry of [...entries].sort((a, b) => b.rows - a.rows)) {
    if (!entry.generations.every(({ generation }) => active.has(generation) && !taken.has(generation))) continue;
    for (const { generation } of entry.generations) taken.add(generation);
    chosen.push(entry);
  }
  return chosen;
}

async function digestOffThread(section: ArrayBufferView): Promise<string> {
  return Buffer.from(await webcrypto.subtle.digest('SHA-256', section)).toString('hex');
}

async function removeQuietly(path: string): Promise<void> {
  await rm(path, { force: true }).catch(() => undefined);
}

export class SegmentCache {
  private readonly dir: string;
  private readonly budgetBytes: number;
  /** Segments with fewer rows are not written (SEGMENT_CACHE_MIN_ROWS unless a test writes smaller ones). */
  readonly minRows: number;
  /** Writes (and removals after deletions) run one at a time; each write holds a segment's arrays meanwhile. */
  private writing: Promise<void> = Promise.resolve();

  constructor(dir: string, budgetBytes: number, options: { minRows?: number } = {}) {
    this.dir = dir;
    this.budgetBytes = budgetBytes;
    this.minRows = options.minRows ?? SEGMENT_CACHE_MIN_ROWS;
  }

  /** Resolves once every write queued so far has ended (tests and benchmarks). */
  settled(): Promise<void> {
    return chainSettled(() => this.writing);
  }

  private clientDir(clientId: string): string {
    return join(this.dir, cacheClientKey(clientId));
  }

  /** Whether this directory holds any file of the Client (a sweep of a Client with none reads nothing else). */
  async holds(clientId: string): Promise<boolean> {
    const names = await readdir(this.clientDir(clientId)).catch(() => [] as string[]);
    return names.some((name) => name.endsWith(SUFFIX));
  }

  /**
   * Removes the Client's files holding any generation that is not active now (`active`: the Client's active
   * generations, read before), after the writes queued before: a hard delete's versions, and versions replaced
   * since, whose files no load could use. Returns how many were removed.
   */
  sweep(clientId: string, active: ReadonlySet<number>): Promise<number> {
    let removed = 0;
    return this.queue(async () => {
      for (const entry of await this.entries(clientId)) {
        if (entry.generations.every(({ generation }) => active.has(generation))) continue;
        await this.remove(entry);
        removed++;
      }
    }).then(() => removed);
  }

  /** The Client's files, from their headers; a file whose header is damaged or disagrees with its name is removed. */
  async entries(clientId: string): Promise<CacheEntry[]> {
    const dir = this.clientDir(clientId);
    const names = await readdir(dir).catch(() => [] as string[]);
    const entries: CacheEntry[] = [];
    for (const name of names) {
      if (!name.endsWith(SUFFIX) || name.includes(PARTIAL_MARK)) continue;
      const path = join(dir, name);
      const entry = await this.entryAt(path).catch((error: unknown) => {
        if (error instanceof SegmentFileError) return null;
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined; // removed meanwhile
        throw error;
      });
      if (entry === undefined) continue;
      if (entry && name === `${entry.key}${SUFFIX}`) entries.push(entry);
      else await removeQuietly(path);
    }
    return entries;
  }

  private async entryAt(path: string): Promise<CacheEntry> {
    const file = await open(path, 'r');
    try {
      const prefix = new Uint8Array(SEGMENT_FILE_PREFIX_BYTES);
      await file.read(prefix, 0, prefix.length, 0);
      const length = headerLength(prefix);
      if (length === null) throw new SegmentFileError('not a segment file of this format');
      const bytes = new Uint8Array(SEGMENT_FILE_PREFIX_BYTES + length);
      const { bytesRead } = await file.read(bytes, 0, bytes.length, 0);
      const { header } = readHeader(bytes.subarray(0, bytesRead));
      return { path, key: segmentKey(header.dimensions, header.generations), generations: header.generations, rows: header.rows };
    } finally {
      await file.close();
    }
  }

  /** The whole file of an entry (marked as used), or null when it is gone. */
  async read(entry: CacheEntry): Promise<Uint8Array | null> {
    try {
      const bytes = await readFile(entry.path);
      const now = new Date();
      await utimes(entry.path, now, now).catch(() => undefined);
      return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async remove(entry: CacheEntry): Promise<void> {
    await removeQuietly(entry.path);
  }

  /**
   * Removes the Client's files that hold any of these generations (their documents were deleted for good),
   * after the writes queued before (one of them may hold them too).
   */
  forget(clientId: string, generations: ReadonlySet<number>): Promise<void> {
    return this.queue(async () => {
      for (const entry of await this.entries(clientId)) {
        if (entry.generations.some(({ generation }) => generations.has(generation))) await this.remove(entry);
      }
    });
  }

  private queue(work: () => Promise<void>): Promise<void> {
    const done = this.writing.then(work);
    this.writing = done.catch(() => undefined);
    return done;
  }

  /**
   * Writes a segment's index under its key (nothing when the file exists), then removes the Client's files whose
   * generations it holds all of, and keeps the directory within its budget. Writes queue one after another.
   */
  write(clientId: string, index: SegmentIndex, dimensions: number, generations: CachedGeneration[]): Promise<void> {
    return this.queue(() => this.writeNow(clientId, index, dimensions, generations));
  }

  private async writeNow(clientId: string, index: SegmentIndex, dimensions: number, generations: CachedGeneration[]): Promise<void> {
    const dir = this.clientDir(clientId);
    const key = segmentKey(dimensions, generations);
    const path = join(dir, `${key}${SUFFIX}`);
    const exists = await stat(path).then(() => true, () => false);
    if (!exists) {
      await mkdir(dir, { recursive: true });
      const parts = await segmentFileParts(index, dimensions, generations, digestOffThread);
      const partial = `${path}${PARTIAL_MARK}${process.pid}`;
      const paddings = sectionPadding(parts);
      const buffers: Uint8Array[] = [headerBytes(parts.header)];
      parts.sections.forEach((section, i) => {
        if (paddings[i] > 0) buffers.push(new Uint8Array(paddings[i]));
        buffers.push(new Uint8Array(section.buffer, section.byteOffset, section.byteLength));
      });
      try {
        const file = await open(partial, 'w');
        try {
          // One buffer at a time: writev may write less than asked (a segment of a million chunks exceeds what one call writes).
          for (const buffer of buffers) {
            for (let at = 0; at < buffer.byteLength; ) at += (await file.write(buffer, at)).bytesWritten;
          }
        } finally {
          await file.close();
        }
        await rename(partial, path);
      } catch (error) {
        await removeQuietly(partial);
        throw error;
      }
    }
    const held = new Set(generations.map(({ generation }) => generation));
    for (const entry of await this.entries(clientId)) {
      if (entry.path !== path && entry.generations.every(({ generation }) => held.has(generation))) await this.remove(entry);
    }
    await this.prune(path);
  }

  /** Removes files oldest first (by last use) while the directory holds more than its budget, and partial files of processes gone. */
  private async prune(keep: string): Promise<void> {
    const files: { path: string; bytes: number; used: number }[] = [];
    for (const client of await readdir(this.dir).catch(() => [] as string[])) {
      for (const name of await readdir(join(this.dir, client)).catch(() => [] as string[])) {
        const path = join(this.dir, client, name);
        const partial = name.indexOf(PARTIAL_MARK);
        if (partial >= 0) {
          if (!processAlive(Number(name.slice(partial + PARTIAL_MARK.length)))) await removeQuietly(path);
          continue;
        }
        const info = await stat(path).catch(() => null);
        if (info) files.push({ path, bytes: info.size, used: info.mtimeMs });
      }
    }
    files.sort((a, b) => b.used - a.used);
    let total = 0;
    for (const file of files) {
      total += file.bytes;
      if (total > this.budgetBytes && file.path !== keep) await removeQuietly(file.path);
    }
  }
}
