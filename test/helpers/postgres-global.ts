// Global setup of `npm run test:postgres`: one throwaway PostgreSQL cluster for every test file of the run,
// its port passed to them in TEST_POSTGRES_PORT (test-store.ts), stopped when the run ends.

import { startPostgresCluster } from './postgres-cluster.ts';
import type { PostgresCluster } from './postgres-cluster.ts';

let cluster: PostgresCluster | null = null;

export async function globalSetup(): Promise<void> {
  cluster = await startPostgresCluster();
  process.env.TEST_POSTGRES_PORT = String(cluster.port);
  process.env.TEST_STORE = 'postgres';
}

export async function globalTeardown(): Promise<void> {
  cluster?.stop();
  cluster = null;
}
