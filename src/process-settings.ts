// How the supervisor starts an api or worker process: the V8 flags and the allocator setting each role runs
// with. Benchmarks that time the api's search path in a process of their own start it the same way.

import type { Config } from './config.ts';
import { EXPOSE_GC_FLAG } from './serving/memory-pressure.ts';

export type ProcessRole = 'api' | 'worker';

/**
 * V8 flag of the api processes: no allocation site is promoted to allocating straight into the old generation.
 * V8 decides that for a site when nearly all of its objects outlive one young-generation collection, judged on
 * about a hundred objects. A search builds a thousand hit objects in a burst, and when a collection falls in the
 * middle of one, every one of them is still alive: the site is then tenured for good, and from then on every
 * search's short-lived hits are old-generation garbage, which only full collections reclaim. Measured with wrk
 * (16 connections, 2 api processes, 100,000 chunks): the old generation grew by about 1 MB per young collection
 * and was collected every 2-3 s, with the committed heap up to 235 MB; without pretenuring it stays near 80 MB,
 * and requests/s rose from 389-424 to 452-473 with p99 from 100-103 ms to 60-66 ms. An api process's long-lived
 * objects (its snapshots) are built once, so it gives up little.
 */
export const API_NO_PRETENURING_FLAG = '--no-allocation-site-pretenuring';

/**
 * How far V8 lets an api process's old generation grow past what its last full collection kept before it
 * collects again: 1.25 times, where V8 otherwise picks up to 4 times on a machine with this much memory when its
 * collections are quick. Concurrent searches promote their short-lived objects (a search in flight across an
 * await outlives a young collection), so the old generation fills with garbage between full collections, up to
 * that factor times the live heap. In-process at 100,000 chunks, 16 searches at once: RSS 497-499 MiB at V8's
 * choice (the old generation up to 243 MiB), 403 at 100%, 371-379 at 50%, 365 at 25%. Over HTTP (wrk, 16
 * connections, 3 rounds of 20 s): 2 api processes 325-347 MiB at 25% against 333-360 at 50%; 1 api process 390
 * against 405 without the flag. A full collection (about 8 ms, most of the marking incremental) then comes every
 * 10-15 s per process under that load; mutator utilization stays 0.999.
 */
export const API_HEAP_GROWING_FLAG = '--heap-growing-percent=25';

/** The V8 flags a process of this role runs with, after the supervisor's own. */
export function roleExecArgv(role: ProcessRole, config: Pick<Config, 'v8MaxSemiSpaceMb'>): string[] {
  // An api process gets its young generation whole from the start: grown by V8 as reads come, it would be
  // resident memory rising minutes after start-up in whichever api process is busiest, outside what its budget
  // measured at start-up. A worker's grows with its first upload, and its peak is bounded as it is.
  const youngGeneration = [...(role === 'api' ? [`--min-semi-space-size=${config.v8MaxSemiSpaceMb}`] : []), `--max-semi-space-size=${config.v8MaxSemiSpaceMb}`];
  return [...youngGeneration, ...(role === 'api' ? [EXPOSE_GC_FLAG, API_NO_PRETENURING_FLAG, API_HEAP_GROWING_FLAG] : [])];
}

/** The allocator setting of this role, read by glibc when the process starts: it travels in its environment. */
export function roleEnvironment(role: ProcessRole, config: Pick<Config, 'apiMallocMmapThreshold' | 'mallocMmapThreshold'>): Record<string, string> {
  return { MALLOC_MMAP_THRESHOLD_: role === 'api' ? config.apiMallocMmapThreshold : config.mallocMmapThreshold };
}

/** The supervisor's number for a child within its role (0, 1, ...): kept across restarts of that child. */
export const PROCESS_INDEX_VARIABLE = 'HDS_PROCESS_INDEX';

/**
 * The `process` label of a process's metrics and log lines: its role and its number, `api-0`, `worker-1`. Not
 * its pid, which changes at each restart and would start a new series each time; a process started alone (no
 * supervisor) is number 0 of its role.
 */
export function processLabel(role: ProcessRole, env: NodeJS.ProcessEnv = process.env): string {
  const index = env[PROCESS_INDEX_VARIABLE];
  return `${role}-${index !== undefined && /^\d+$/.test(index) ? index : '0'}`;
}
