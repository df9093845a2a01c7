// Builds HNSW graphs of an api process's large segments in graph processes (graph-process.ts), one at a time
// per api process, through the graph cache in the data directory: a graph already built for the same codes,
// by this process before a restart or by another api process, is mapped instead of rebuilt.
// The codes reach the graph process as a file on its stdin, written in one step off the event loop: through a
// pipe they would cross 64 KiB per turn of the api process's event loop, and under load (a turn answers many
// searches) the 38 MB of 100,000 rows took minutes to cross while every search scanned exactly.

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, open, rm } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnnGraph } from './ann-index.ts';
import { forgetGraphs, holdsGraphs, recordHolder, removeUnheld } from './graph-cache.ts';
import type { CachedGraph } from './graph-cache.ts';
import { cacheClientKey } from '../caches/cache-client-key.ts';

const GRAPH_PROCESS = new URL('./graph-process.ts', import.meta.url).pathname;
/** HDS_PROCESS_ROLE of a graph process (the supervisor's children are `api` and `worker`). */
export const GRAPH_PROCESS_ROLE = 'graph';
/** The graph cache's directory under DATA_DIR. */
export const GRAPH_CACHE_DIR = 'graphs';

/** Whose rows a graph indexes: a Client and the generations of the segment it is built for. */
export interface GraphHolder {
  clientId: string;
  generations: readonly number[];
}

export interface GraphCacheOptions {
  /** The cache directory (DATA_DIR/GRAPH_CACHE_DIR for an api process). */
  dir: string;
  /** Finished graphs beyond this many bytes are removed, least recently used first. */
  budgetBytes: number;
}

/**
 * A temporary file whose name is removed as soon as it is open: its space is returned when the last descriptor
 * of it closes, so that codes are never left behind in the temporary directory, even by a process that dies.
 */
async function openNamelessFile(): Promise<FileHandle> {
  const dir = await mkdtemp(join(tmpdir(), 'hds-graph-codes-'));
  try {
    return await open(join(dir, 'codes'), 'w+');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export class GraphBuilder {
  private readonly options: GraphCacheOptions;
  private readonly running = new Set<ChildProcess>();
  private closed = false;

  constructor(options: GraphCacheOptions) {
    this.options = options;
  }

  /**
   * The graph of these codes (row-major int8), built or found in the cache, mapped into this process; `holder`:
   * the Client and the generations whose rows the codes are, recorded beside the graph before it is mapped
   * (graph-cache.ts recordHolder), so that a hard delete finds it.
   */
  async graphOf(codes: Int8Array, dimensions: number, holder?: GraphHolder): Promise<AnnGraph> {
    const files = await this.run(codes, dimensions);
    if (holder) recordHolder(this.options.dir, files.graph, cacheClientKey(holder.clientId), holder.generations);
    return AnnGraph.open(files.graph, files.groups, dimensions, codes.length / dimensions);
  }

  /** Removes the cached graphs whose holder files say they cover a generation of the Client that `drop` picks. */
  forget(clientId: string, drop: (generation: number) => boolean): number {
    return forgetGraphs(this.options.dir, cacheClientKey(clientId), drop);
  }

  /** Whether a cached graph is recorded as held by the Client. */
  holds(clientId: string): boolean {
    return holdsGraphs(this.options.dir, cacheClientKey(clientId));
  }

  /** Removes the cached graphs no Client is recorded as holding (start-up). */
  removeUnheld(): number {
    return removeUnheld(this.options.dir);
  }

  /** Graph processes started and not yet ended. */
  get building(): number {
    return this.running.size;
  }

  private async run(codes: Int8Array, dimensions: number): Promise<CachedGraph> {
    if (this.closed) throw new Error('graph builder is closed');
    const file = await openNamelessFile();
    let building: Promise<CachedGraph>;
    try {
      // One write call in the thread pool (a regular file takes it whole, up to 2 GiB a call), then the process
      // reads it from offset 0.
      const bytes = Buffer.from(codes.buffer, codes.byteOffset, codes.byteLength);
      for (let at = 0; at < bytes.byteLength; ) at += (await file.write(bytes, at, bytes.byteLength - at, at)).bytesWritten;
      if (this.closed) throw new Error('graph builder is closed');
      building = this.spawnProcess(file.fd, dimensions);
    } catch (error) {
      await file.close();
      throw error;
    }
    // The graph process has its own descriptor of the file: ours closes while it runs. The two are awaited
    // together, so that a build which ends before the close does (a shutdown kills its process) is a failure
    // this call reports, never a rejection nobody handles yet (an unhandled rejection ends the api process).
    const [closed, built] = await Promise.allSettled([file.close(), building]);
    if (built.status === 'rejected') throw built.reason;
    if (closed.status === 'rejected') throw closed.reason;
    return built.value;
  }

  private spawnProcess(codesFd: number, dimensions: number): Promise<CachedGraph> {
    return new Promise((resolve, reject) => {
      // Its role names it apart from the api process that started it (bench/ reports memory and CPU by role).
      const env = { ...process.env, HDS_PROCESS_ROLE: GRAPH_PROCESS_ROLE };
      const child = spawn(process.execPath, [GRAPH_PROCESS, this.options.dir, String(dimensions), String(this.options.budgetBytes)], { stdio: [codesFd, 'pipe', 'pipe'], env });
      this.running.add(child);
      let out = '';
      let err = '';
      child.stdout!.setEncoding('utf8').on('data', (text: string) => (out += text));
      child.stderr!.setEncoding('utf8').on('data', (text: string) => (err = (err + text).slice(-2000)));
      child.on('error', (error) => {
        this.running.delete(child);
        reject(error);
      });
      child.on('close', (code, signal) => {
        this.running.delete(child);
        try {
          if (code !== 0) throw new Error(`graph process ended with ${signal ?? `code ${code}`}: ${err.trim()}`);
          resolve(JSON.parse(out) as CachedGraph);
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
    });
  }

  /** Ends any build in progress (shutdown). */
  close(): void {
    this.closed = true;
    for (const child of this.running) child.kill();
  }
}
