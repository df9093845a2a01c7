// The store the end-to-end suites run the service on: TEST_STORE=sqlite (default) or TEST_STORE=postgres. For
// PostgreSQL, `npm run test:postgres` starts one throwaway cluster for the whole run (postgres-global.ts) and
// names its port in TEST_POSTGRES_PORT; each data directory a test starts a service on gets a database of its
// own, the same one again when the test restarts the service on that directory (as a crash test does).

import { createHash } from 'node:crypto';
import { ensureDatabaseSync } from './postgres-cluster.ts';
import { Storage } from '../../src/storage/storage.ts';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage.ts';
import type { StoragePort } from '../../src/storage/port.ts';

export type TestStore = 'sqlite' | 'postgres';

export const TEST_STORE: TestStore = process.env.TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

/** For tests that look into SQLite files themselves: skipped, with the reason, when the suites run on PostgreSQL. */
export const SQLITE_FILES = { skip: TEST_STORE === 'postgres' ? 'reads or damages SQLite files directly' : false } as const;

/** The settings that put a service started on `dataDir` on the suites' store (none for SQLite). */
export function storeEnv(dataDir: string): Record<string, string> {
  if (TEST_STORE === 'sqlite') return {};
  const port = Number(process.env.TEST_POSTGRES_PORT);
  if (!Number.isInteger(port) || port <= 0) throw new Error('TEST_STORE=postgres needs the cluster of npm run test:postgres (TEST_POSTGRES_PORT)');
  const name = `e2e_${createHash('sha256').update(dataDir).digest('hex').slice(0, 24)}`;
  return { STORE: 'postgres', DATABASE_URL: ensureDatabaseSync(port, name) };
}

/** The store a service started on `dataDir` uses, opened by this process as another process would open it. */
export async function openTestStorage(dataDir: string): Promise<StoragePort> {
  const env = storeEnv(dataDir);
  return env.STORE === 'postgres' ? PostgresStorage.open(env.DATABASE_URL) : new Storage(dataDir);
}
