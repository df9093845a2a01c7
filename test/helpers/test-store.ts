// The store the end-to-end suites run the service on: TEST_STORE=sqlite (default) or TEST_STORE=postgres. For
// PostgreSQL, `npm run test:postgres` starts one throwaway cluster for the whole run (postgres-global.ts) and
// names its port in TEST_POSTGRES_PORT; each data directory a test starts a service on gets a database of its
// own, the same one again when the test restarts the service on that directory (as a crash test does).

import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { Client as PgClient } from 'pg';
import { clientDbFile, openClientDb } from './client-db.ts';
import { ensureDatabaseSync } from './postgres-cluster.ts';
import type { StoragePort } from '../../src/storage/port.ts';

// The storage adapters and the PostgreSQL driver load when a helper needs them: every end-to-end file imports
// this module (through server.ts), and most never open a store themselves.
const pgClient = async (connectionString: string): Promise<PgClient> => new (await import('pg')).default.Client({ connectionString });

export type TestStore = 'sqlite' | 'postgres';

export const TEST_STORE: TestStore = process.env.TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';


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
  if (env.STORE === 'postgres') return (await import('../../src/storage/postgres/postgres-storage.ts')).PostgresStorage.open(env.DATABASE_URL);
  return new (await import('../../src/storage/sqlite/sqlite-storage.ts')).Storage(dataDir);
}

type SqlValue = string | number | null | Uint8Array;

/** `?` placeholders as PostgreSQL's $1, $2, ... (the tests' statements hold no literal question marks). */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

async function onPostgres<T>(url: string, run: (client: PgClient) => Promise<T>): Promise<T> {
  const client = await pgClient(url);
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/**
 * Runs one statement on a Client's rows in the store of a service started on `dataDir`, beside the running
 * service, as an operator's tool or a damaged disk would touch them; returns the rows it reads. SQLite: the
 * Client's database file. PostgreSQL: a transaction of the application role scoped to the Client, so that
 * row-level security confines the statement to its rows. Write it in SQL both engines read alike (no json_set).
 */
export async function clientSql(dataDir: string, clientId: string, sql: string, ...params: SqlValue[]): Promise<Record<string, unknown>[]> {
  const env = storeEnv(dataDir);
  if (env.STORE !== 'postgres') {
    const db = openClientDb(dataDir, clientId);
    try {
      const statement = db.prepare(sql);
      return statement.columns().length > 0 ? (statement.all(...params) as Record<string, unknown>[]) : (statement.run(...params), []);
    } finally {
      db.close();
    }
  }
  return onPostgres(env.DATABASE_URL, async (client) => {
    await client.query('BEGIN');
    try {
      await client.query(`SELECT set_config('app.client_id', $1, true)`, [clientId]);
      const { rows } = await client.query(numbered(sql), params);
      await client.query('COMMIT');
      return rows;
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    }
  });
}

/**
 * Runs one statement on the deployment's shared tables (jobs, authority, leases) of a service started on
 * `dataDir`: SQLite's control.db, or the PostgreSQL database as its owner's superuser (beside row-level
 * security, as an operator would). Returns the rows it reads.
 */
export async function controlSql(dataDir: string, sql: string, ...params: SqlValue[]): Promise<Record<string, unknown>[]> {
  const env = storeEnv(dataDir);
  if (env.STORE !== 'postgres') {
    const db = new DatabaseSync(join(dataDir, 'control.db'));
    try {
      db.exec('PRAGMA busy_timeout = 5000');
      const statement = db.prepare(sql);
      return statement.columns().length > 0 ? (statement.all(...params) as Record<string, unknown>[]) : (statement.run(...params), []);
    } finally {
      db.close();
    }
  }
  const superuser = new URL(env.DATABASE_URL);
  superuser.username = 'postgres';
  return onPostgres(superuser.href, async (client) => (await client.query(numbered(sql), params)).rows);
}

/** Rewrites the stored manifest of each generation `where` selects (at least one), beside the running service. */
export async function editManifests(dataDir: string, clientId: string, where: string, params: SqlValue[], edit: (manifest: any) => void): Promise<void> {
  const rows = await clientSql(dataDir, clientId, `SELECT generation, manifest FROM generations WHERE ${where}`, ...params);
  if (rows.length === 0) throw new Error(`no generation of ${clientId} where ${where}`);
  for (const row of rows) {
    const manifest = JSON.parse(row.manifest as string);
    edit(manifest);
    await clientSql(dataDir, clientId, 'UPDATE generations SET manifest = ? WHERE generation = ?', JSON.stringify(manifest), row.generation as number);
  }
}

/**
 * Makes reads of a Client's publication log block, as another process holding a lock would, until `release`:
 * SQLite: an exclusive lock on the Client's database file. PostgreSQL: an ACCESS EXCLUSIVE lock on the shared
 * publication_log table (every Client's rows), held by an open transaction of the superuser.
 */
export async function holdPublicationLogLock(dataDir: string, clientId: string): Promise<() => Promise<void>> {
  const env = storeEnv(dataDir);
  if (env.STORE !== 'postgres') {
    const holder = new DatabaseSync(clientDbFile(dataDir, clientId));
    holder.exec('PRAGMA busy_timeout = 5000; PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; DELETE FROM publication_log WHERE 0');
    return async () => {
      holder.exec('ROLLBACK');
      holder.close();
    };
  }
  const superuser = new URL(env.DATABASE_URL);
  superuser.username = 'postgres';
  const client = await pgClient(superuser.href);
  await client.connect();
  await client.query('BEGIN');
  await client.query('LOCK TABLE publication_log IN ACCESS EXCLUSIVE MODE');
  return async () => {
    await client.query('ROLLBACK');
    await client.end();
  };
}
