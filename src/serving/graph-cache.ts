// HNSW graphs kept on disk beside the store, one file per distinct set of int8 codes, so that an api process
// restarting over the same Client, or a second api process serving it, maps the graph instead of spending
// about a CPU-minute per 100,000 rows rebuilding it. A file is named by the digest of what it indexes (the
// build parameters and the codes) and by the digest of its own bytes, which is checked before it is used: a
// truncated or damaged file is removed and rebuilt, never mapped. A graph only proposes rows, which the dense
// lane scores from its own codes and checks for eligibility, so even a foreign graph could cost recall, never
// correctness. The directory is a cache: anything in it may be deleted at any time; the oldest files go first
// once it holds more than its budget.

import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ANN_CONNECTIVITY, ANN_EXPANSION_ADD } from './ann-index.ts';

/** Bumped when the file format or the way graphs are built changes, so that older files are never reused. */
export const GRAPH_FORMAT = 'usearch-i8-ip-v1';
const GRAPH_SUFFIX = '.usearch';
const LOCK_SUFFIX = '.lock';
const PARTIAL_MARK = '.partial-';

/** What a graph indexes: its build parameters and the codes, row by row. */
export function graphKey(codes: Int8Array, dimensions: number): string {
  const hash = createHash('sha256');
  hash.update(`${GRAPH_FORMAT} M=${ANN_CONNECTIVITY} ef=${ANN_EXPANSION_ADD} dimensions=${dimensions} rows=${codes.length / dimensions}\n`);
  hash.update(codes);
  return hash.digest('hex').slice(0, 32);
}

function fileDigest(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex').slice(0, 16);
}

/** The graph of `key` when a file for it exists and its bytes match its name; a damaged one is removed. */
export function cachedGraph(dir: string, key: string): string | null {
  for (const name of safeList(dir)) {
    if (!name.startsWith(`${key}.`) || !name.endsWith(GRAPH_SUFFIX) || name.includes(PARTIAL_MARK)) continue;
    const path = join(dir, name);
    const recorded = name.slice(key.length + 1, -GRAPH_SUFFIX.length);
    try {
      if (fileDigest(path) === recorded) {
        const now = new Date();
        utimesSync(path, now, now); // in use: the last to be pruned
        return path;
      }
    } catch {
      // gone meanwhile (pruned by another process): look on, then build
    }
    rmSync(path, { force: true });
  }
  return null;
}

/** Moves a finished graph file into the cache under its key and its bytes' digest; returns its path. */
export function storeGraph(dir: string, key: string, written: string): string {
  const path = join(dir, `${key}.${fileDigest(written)}${GRAPH_SUFFIX}`);
  renameSync(written, path);
  return path;
}

/** A path in the cache for a graph being written by this process (never taken for a finished graph). */
export function partialPath(dir: string, key: string): string {
  return join(dir, `${key}${PARTIAL_MARK}${process.pid}`);
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the build lock of `key` (one builder per graph across the processes sharing the directory): true when
 * taken, false while a live process holds it. A lock left by a process that died is taken over.
 */
export function tryLock(dir: string, key: string): boolean {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${key}${LOCK_SUFFIX}`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      let holder = 0;
      try {
        holder = Number(readFileSync(path, 'utf8'));
      } catch {
        continue; // released meanwhile
      }
      if (processAlive(holder)) return false;
      rmSync(path, { force: true });
    }
  }
  return false;
}

export function unlock(dir: string, key: string): void {
  rmSync(join(dir, `${key}${LOCK_SUFFIX}`), { force: true });
}

/**
 * Keeps the cache within `budgetBytes`: finished graphs are removed oldest first (by last use), except `keep`;
 * partial files and locks of processes that died are removed.
 */
export function pruneGraphs(dir: string, budgetBytes: number, keep: string | null): void {
  const graphs: { path: string; bytes: number; used: number }[] = [];
  for (const name of safeList(dir)) {
    const path = join(dir, name);
    const partial = name.indexOf(PARTIAL_MARK);
    if (partial >= 0) {
      if (!processAlive(Number(name.slice(partial + PARTIAL_MARK.length)))) rmSync(path, { force: true });
      continue;
    }
    if (!name.endsWith(GRAPH_SUFFIX)) continue;
    try {
      const stat = statSync(path);
      graphs.push({ path, bytes: stat.size, used: stat.mtimeMs });
    } catch {
      // removed meanwhile
    }
  }
  graphs.sort((a, b) => b.used - a.used);
  let total = 0;
  for (const graph of graphs) {
    total += graph.bytes;
    if (total > budgetBytes && graph.path !== keep) rmSync(graph.path, { force: true });
  }
}
