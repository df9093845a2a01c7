// The PostgreSQL connection pool of the adapter and its transactions: every repository method is one
// transaction on one pooled connection. A Client's transaction names its Client (row-level security reads it)
// and a Client's writes are serialized, as a SQLite Client file serializes them. Nothing here knows documents.

import pg from 'pg';
import type { PoolClient, QueryResultRow } from 'pg';

/** What a repository runs its statements on inside a transaction. */
export interface Sql {
  query<R extends QueryResultRow = QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

/** Connections one process keeps to the database (DATABASE_POOL_MAX). */
export const DEFAULT_POOL_MAX = 10;

/**
 * Advisory-lock namespaces (the first key of pg_advisory_lock's two): migrations, a Client's writes, a Client's
 * rate windows. The second key is the Client's hashed id: two Clients that share a hash only wait for each other.
 */
export const MIGRATION_LOCK = 1_501;
export const CLIENT_WRITE_LOCK = 1_502;
export const RATE_WINDOW_LOCK = 1_503;

const TIMESTAMPTZ_OID = 1184;
const INT8_OID = 20;
const NUMERIC_OID = 1700;

/**
 * Rows read as the domain speaks: times as ISO strings (the SQLite adapter stores them so), 64-bit integers
 * (sequences, counts, milliseconds) as numbers; none of them comes near 2^53.
 */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === TIMESTAMPTZ_OID) {
      const parse = pg.types.getTypeParser(TIMESTAMPTZ_OID, 'text') as (value: string) => Date;
      return (value: string) => parse(value).toISOString();
    }
    if (oid === INT8_OID || oid === NUMERIC_OID) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format ?? 'text');
  },
} as pg.CustomTypesConfig;

export function createPool(url: string, max: number = DEFAULT_POOL_MAX): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, types });
  // An idle connection that the server drops (restart, network) is reported here; the pool replaces it.
  pool.on('error', () => {});
  return pool;
}

type Isolation = 'READ COMMITTED' | 'REPEATABLE READ';

const guarded = new WeakSet<PoolClient>();

/**
 * A pooled connection taken for a transaction. A connection the server drops between two statements reports
 * it as an event, which would crash the process unheard; the next statement fails instead, and its
 * transaction with it.
 */
export async function checkOut(pool: pg.Pool): Promise<PoolClient> {
  const connection = await pool.connect();
  if (!guarded.has(connection)) {
    guarded.add(connection);
    connection.on('error', () => {});
  }
  return connection;
}

async function run<T>(pool: pg.Pool, begin: string, fn: (sql: Sql) => Promise<T>): Promise<T> {
  const connection = await checkOut(pool);
  let broken: Error | undefined;
  try {
    await connection.query(begin);
    const result = await fn(connection);
    await connection.query('COMMIT');
    return result;
  } catch (error) {
    try {
      await connection.query('ROLLBACK');
    } catch (rollbackError) {
      // The connection is unusable (it broke mid-transaction): the pool must not hand it out again.
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    }
    throw error;
  } finally {
    connection.release(broken);
  }
}

/** One transaction of the deployment's shared tables (jobs, authority, leases, secrets, uploads). */
export function sharedTransaction<T>(pool: pg.Pool, fn: (sql: Sql) => Promise<T>, isolation: Isolation = 'READ COMMITTED'): Promise<T> {
  return run(pool, `BEGIN ISOLATION LEVEL ${isolation}`, fn);
}

/**
 * One transaction of a Client: `app.client_id` is set for it alone (SET LOCAL semantics), so the row-level
 * security policies of the Client tables (migrations.ts) show and accept that Client's rows only, whatever a
 * statement forgets to filter. `write`: the Client's writers take its lock first and then run in READ
 * COMMITTED, so each statement sees every write committed before it (an activation reads the version's
 * current generation and replaces it with nobody in between, and the per-Client log sequence commits in
 * order). `consistent`: a read of several statements sees one snapshot (REPEATABLE READ, READ ONLY).
 */
export function clientTransaction<T>(pool: pg.Pool, clientId: string, mode: 'read' | 'consistent' | 'write', fn: (sql: Sql) => Promise<T>): Promise<T> {
  const client = pg.escapeLiteral(clientId);
  const begin =
    mode === 'consistent'
      ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY'
      : mode === 'read'
        ? 'BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY'
        : 'BEGIN ISOLATION LEVEL READ COMMITTED';
  const statements = [begin, `SELECT set_config('app.client_id', ${client}, true)`];
  if (mode === 'write') {
    statements.push(`SELECT pg_advisory_xact_lock(${CLIENT_WRITE_LOCK}, hashtext(${client}))`);
    // The registry of provisioned Clients (knownClientIds): a Client exists once it has written.
    statements.push(`INSERT INTO clients (client_id) VALUES (${client}) ON CONFLICT (client_id) DO NOTHING`);
  }
  return run(pool, statements.join('; '), fn);
}

/**
 * One read statement of a Client in one round trip, for the reads every search makes: the Client is named and the
 * statement run in one simple-protocol message, which PostgreSQL runs as one implicit transaction, so the setting
 * ends with it (as a clientTransaction's does) and a failure leaves nothing open on the connection. A message of
 * several statements takes no bind parameters: the caller writes its values into `statement` (sqlIntegers, or
 * pg.escapeLiteral for text), never text it was handed.
 */
export async function clientReadStatement<R extends QueryResultRow>(pool: pg.Pool, clientId: string, statement: string): Promise<R[]> {
  const results: unknown = await pool.query(`SELECT set_config('app.client_id', ${pg.escapeLiteral(clientId)}, true); ${statement}`);
  if (!Array.isArray(results) || results.length !== 2) throw new Error('a Client read statement must be exactly one statement');
  return (results[1] as pg.QueryResult<R>).rows;
}

/** Integers as a PostgreSQL array literal (`'{1,2}'::bigint[]`), each checked to be one, for clientReadStatement. */
export function sqlIntegers(values: readonly number[], type: 'bigint' | 'integer'): string {
  for (const value of values) if (!Number.isSafeInteger(value)) throw new RangeError(`not an integer: ${value}`);
  return `'{${values.join(',')}}'::${type}[]`;
}

/**
 * Refuses a role that row-level security would not bind: a superuser or a role with BYPASSRLS sees every
 * Client's rows whatever the policies say, so the adapter does not start on one.
 */
export async function assertIsolatingRole(pool: pg.Pool): Promise<void> {
  const { rows } = await pool.query<{ role: string; bypasses: boolean }>('SELECT current_user AS role, (rolsuper OR rolbypassrls) AS bypasses FROM pg_roles WHERE rolname = current_user');
  if (rows[0]?.bypasses !== false) {
    throw new Error(
      `the database role ${rows[0]?.role ?? '(unknown)'} is a superuser or bypasses row-level security, so Client isolation would not hold: connect DATABASE_URL as an ordinary role`,
    );
  }
}
