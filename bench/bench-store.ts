// The durable store a benchmark runs the service on, chosen with --store: `sqlite` (the files under the
// benchmark's DATA_DIR, the embedded default) or `postgres` (a throwaway local cluster started for the run, with
// SQLite's durability: data and WAL synced, commits not waiting for their flush; see test/helpers/postgres-cluster.ts).
// The cluster needs the Debian package postgresql, as the PostgreSQL test suites do.

import { readdirSync } from 'node:fs';
import { cpuSecondsOf, statFields, TICKS_PER_SECOND } from './proc-stat.ts';
import { startPostgresCluster } from '../test/helpers/postgres-cluster.ts';
import { Storage } from '../src/storage/sqlite/sqlite-storage.ts';
import { PostgresStorage } from '../src/storage/postgres/postgres-storage.ts';
import type { StoragePort } from '../src/storage/port.ts';

export const BENCH_STORES = ['sqlite', 'postgres'] as const;
export type BenchStore = (typeof BENCH_STORES)[number];

export interface BenchStoreHandle {
  store: BenchStore;
  /** The settings that put a service on this store (none for SQLite: DATA_DIR is enough). */
  env: Record<string, string>;
  /** The store opened by the benchmark itself (to seed it), as a service process would open it. */
  open(): Promise<StoragePort>;
  /** CPU seconds the database server has used so far (0 for SQLite, which runs inside the service's processes). */
  serverCpuSeconds(): number;
  /** Stops and removes the cluster (nothing for SQLite: the caller removes its DATA_DIR). */
  close(): void;
}

/** CPU time of a process and of its children, running or ended (Linux /proc, 100 ticks a second). */
function processTreeCpuSeconds(root: number): number {
  let seconds = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = statFields(`/proc/${entry}/stat`);
      // The server's own time includes that of connection processes that ended (cutime, cstime), reaped by it.
      if (Number(entry) === root) seconds += cpuSecondsOf(fields) + (Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND;
      else if (Number(fields[1]) === root) seconds += cpuSecondsOf(fields);
    } catch {
      // the process ended meanwhile
    }
  }
  return seconds;
}

export function parseBenchStore(value: string | undefined): BenchStore {
  const store = value ?? 'sqlite';
  if (!(BENCH_STORES as readonly string[]).includes(store)) throw new Error(`--store must be one of ${BENCH_STORES.join(', ')}, got ${store}`);
  return store as BenchStore;
}

export async function openBenchStore(store: BenchStore, dataDir: string): Promise<BenchStoreHandle> {
  if (store === 'sqlite') return { store, env: {}, open: async () => new Storage(dataDir), serverCpuSeconds: () => 0, close: () => {} };
  const cluster = await startPostgresCluster({ durability: 'like-sqlite' });
  try {
    const url = await cluster.createDatabase('bench');
    return {
      store,
      env: { STORE: 'postgres', DATABASE_URL: url },
      open: () => PostgresStorage.open(url),
      serverCpuSeconds: () => processTreeCpuSeconds(cluster.serverPid()),
      close: () => cluster.stop(),
    };
  } catch (error) {
    cluster.stop();
    throw error;
  }
}
