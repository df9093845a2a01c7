// HNSW graphs kept on disk beside the store, one file per distinct set of int8 codes, so that an api process
// restarting over the same Client, or a second api process serving it, maps the graph instead of spending
// about a CPU-minute per 100,000 rows rebuilding it. A file is named by the digest of what it indexes (the
// build parameters and the codes) and by the digest of its own bytes, which is checked before it is used (its
// groups file beside it likewise): a
// truncated or damaged file is removed and rebuilt, never mapped. A graph only proposes rows, which the dense
// lane scores from its own codes and checks for eligibility, so even a foreign graph could cost recall, never
// correctness. The directory is a cache: anything in it may be deleted at any time; the oldest files go first
// once it holds more than its budget. A graph holds the int8 codes of its rows, so each Client serving one records
// which of its generations it covers (a holder file beside it): a hard delete removes every graph holding a purged
// version, on this host whether or not a process here serves the Client, and a graph no holder names is removed
// at start-up, since nothing shows it free of purged rows.

import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ANN_CONNECTIVITY, ANN_EXPANSION_ADD } from './ann-index.ts';
import { processAlive } from '../../runtime/process-alive.ts';

/** Bumped when the file format or the way graphs are built changes, so that older files are never reused. */
export const GRAPH_FORMAT = 'usearch-i8-ip-groups-v2';
const GRAPH_SUFFIX = '.usearch';
/** Beside each graph, the group of every row of the segment (distinct-rows.ts), little-endian uint32. */
const GROUPS_SUFFIX = '.groups';
const LOCK_SUFFIX = '.lock';
/** Beside a graph, one file per Client serving it: `<key>.<client key>.holds`, the generations it covers, one a line. */
const HOLDS_SUFFIX = '.holds';
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

/** The verified file of `key` with this suffix (touched: in use), or null; a damaged one is removed. */
function cachedFile(dir: string, key: string, suffix: string): string | null {
  for (const name of safeList(dir)) {
    if (!name.startsWith(`${key}.`) || !name.endsWith(suffix) || name.includes(PARTIAL_MARK)) continue;
    const path = join(dir, name);
    const recorded = name.slice(key.length + 1, -suffix.length);
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

/** A graph and the row groups it was built over. */
export interface CachedGraph {
  graph: string;
  groups: string;
}

/** The graph of `key` with its groups when both exist and their bytes match their names. */
export function cachedGraph(dir: string, key: string): CachedGraph | null {
  const graph = cachedFile(dir, key, GRAPH_SUFFIX);
  const groups = graph && cachedFile(dir, key, GROUPS_SUFFIX);
  return graph && groups ? { graph, groups } : null;
}

/** Moves a finished graph file and its groups file into the cache under the key and their bytes' digests. */
export function storeGraph(dir: string, key: string, written: CachedGraph): CachedGraph {
  const groups = join(dir, `${key}.${fileDigest(written.groups)}${GROUPS_SUFFIX}`);
  renameSync(written.groups, groups);
  const graph = join(dir, `${key}.${fileDigest(written.graph)}${GRAPH_SUFFIX}`);
  renameSync(written.graph, graph);
  return { graph, groups };
}

/** Paths in the cache for a graph and its groups being written by this process (never taken for finished ones). */
export function partialPaths(dir: string, key: string): CachedGraph {
  return { graph: join(dir, `${key}${PARTIAL_MARK}${process.pid}`), groups: join(dir, `${key}${PARTIAL_MARK}groups-${process.pid}`) };
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
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
 * Keeps the cache within `budgetBytes`: finished files are removed oldest first (by last use), except those
 * of `keep`; partial files of processes that died are removed.
 */
export function pruneGraphs(dir: string, budgetBytes: number, keep: CachedGraph | null): void {
  const graphs: { path: string; bytes: number; used: number }[] = [];
  for (const name of safeList(dir)) {
    const path = join(dir, name);
    const partial = name.indexOf(PARTIAL_MARK);
    if (partial >= 0) {
      if (!processAlive(Number(name.slice(partial + PARTIAL_MARK.length).replace('groups-', '')))) rmSync(path, { force: true });
      continue;
    }
    if (!name.endsWith(GRAPH_SUFFIX) && !name.endsWith(GROUPS_SUFFIX)) continue;
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
    if (total > budgetBytes && graph.path !== keep?.graph && graph.path !== keep?.groups) {
      rmSync(graph.path, { force: true });
      // Its holder files name a graph that is gone.
      if (graph.path.endsWith(GRAPH_SUFFIX)) for (const name of safeList(dir)) if (name.startsWith(`${keyOfName(basename(graph.path))}.`) && name.endsWith(HOLDS_SUFFIX)) rmSync(join(dir, name), { force: true });
    }
  }
}

/** The key a file of the cache is named by: its name up to the first dot. */
function keyOfName(name: string): string {
  return name.slice(0, name.indexOf('.'));
}

function heldGenerations(path: string): number[] | null {
  try {
    return readFileSync(path, 'utf8').split('\n').filter(Boolean).map(Number);
  } catch {
    return null; // removed meanwhile
  }
}

/**
 * Records that a Client serves the graph at `graphPath` over rows of these generations (added to what it recorded
 * before for that graph: two of its segments may have the same codes).
 */
export function recordHolder(dir: string, graphPath: string, clientKey: string, generations: readonly number[]): void {
  const path = join(dir, `${keyOfName(basename(graphPath))}.${clientKey}${HOLDS_SUFFIX}`);
  const held = new Set([...(heldGenerations(path) ?? []), ...generations]);
  const partial = `${path}${PARTIAL_MARK}${process.pid}`;
  writeFileSync(partial, [...held].join('\n'));
  renameSync(partial, path);
}

/** Removes the finished files of one graph: the graph, its groups and every holder file (not a build's lock or partial files). */
function removeGraph(dir: string, key: string, names: readonly string[]): void {
  for (const name of names) {
    if (name.startsWith(`${key}.`) && !name.includes(PARTIAL_MARK) && !name.endsWith(LOCK_SUFFIX)) rmSync(join(dir, name), { force: true });
  }
}

/** Whether a holder file of the Client is in the cache. */
export function holdsGraphs(dir: string, clientKey: string): boolean {
  return safeList(dir).some((name) => name.endsWith(`.${clientKey}${HOLDS_SUFFIX}`) && !name.includes(PARTIAL_MARK));
}

/**
 * Removes every graph a holder file of the Client says covers a generation `drop` picks (a purged version's, or
 * one no longer active), with its groups and holder files; returns how many graphs went. A process mapping one
 * keeps its mapping (the space is freed when it lets go); none can map it again.
 */
export function forgetGraphs(dir: string, clientKey: string, drop: (generation: number) => boolean): number {
  const names = safeList(dir);
  let removed = 0;
  for (const name of names) {
    if (!name.endsWith(`.${clientKey}${HOLDS_SUFFIX}`) || name.includes(PARTIAL_MARK)) continue;
    if (!heldGenerations(join(dir, name))?.some(drop)) continue;
    removeGraph(dir, keyOfName(name), names);
    removed++;
  }
  return removed;
}

/**
 * Removes graphs that no holder file names (written before holders were recorded, or by a process that ended
 * between storing a graph and recording its holder), and holder files of graphs gone; returns how many graphs went.
 */
export function removeUnheld(dir: string): number {
  const names = safeList(dir);
  const held = new Set(names.filter((name) => name.endsWith(HOLDS_SUFFIX) && !name.includes(PARTIAL_MARK)).map(keyOfName));
  const graphs = new Set(names.filter((name) => name.endsWith(GRAPH_SUFFIX) && !name.includes(PARTIAL_MARK)).map(keyOfName));
  let removed = 0;
  for (const key of graphs) {
    if (held.has(key)) continue;
    removeGraph(dir, key, names);
    removed++;
  }
  for (const key of held) if (!graphs.has(key)) removeGraph(dir, key, names);
  return removed;
}
