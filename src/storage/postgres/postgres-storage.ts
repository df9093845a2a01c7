// The PostgreSQL storage adapter, for a deployment whose api and worker processes run on several hosts: one
// database holds what the SQLite adapter keeps in its control database, its Client files and its upload
// directory. It opens a connection pool, refuses a role that row-level security would not bind, applies the
// migrations, and hands out per-Client repositories. It never interprets documents.

import type pg from 'pg';
import { assertIsolatingRole, clientTransaction, createPool, DEFAULT_POOL_MAX } from './database.ts';
import type { Sql } from './database.ts';
import { migrate } from './migrations.ts';
import { PgGenerationRepository } from './generations.ts';
import { PgPublicationLog } from './publication-log.ts';
import type { LogPolicy } from './publication-log.ts';
import { PgPurgeJournal } from './purge-journal.ts';
import { PgJobRepository } from './jobs.ts';
import { PgWebhookRepository } from './webhooks.ts';
import { PgAuthorityRepository, PgDiscoveryRepository, PgRateLimitRepository, PgSecretRepository, PgSettingsRepository } from './control.ts';
import { PgUploadRepository } from './uploads.ts';
import { PgAccessRepository } from './access.ts';
import { storeFailureOf } from '../shared/store-failures.ts';
import type { StoreFailure } from '../../domain/store-failure.ts';
import type { ClientRepositories, PublicationWatch, StoragePort } from '../port.ts';
import { PublicationNotices } from './publication-notices.ts';
import { PUBLICATION_LOG_RETAINED_ENTRIES } from '../../domain/publication-log.ts';

/** The tables whose schema health reports as the lanes' collection schema (as the SQLite adapter does). */
const LANE_TABLES = ['versions', 'generations', 'chunks', 'metadata_leaves', 'publication_log'];

async function readLaneSchemas(sql: Sql): Promise<string[]> {
  const { rows } = await sql.query<{ line: string }>(
    `SELECT 'table ' || c.relname || ': ' || string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END, ', ' ORDER BY a.attnum) AS line
     FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
     WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND c.relname = ANY($1::text[])
     GROUP BY c.relname
     UNION ALL
     SELECT 'index ' || indexname || ': ' || indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = ANY($1::text[])
     ORDER BY 1`,
    [LANE_TABLES],
  );
  return rows.map((row) => row.line);
}

class PgClientRepositories implements ClientRepositories {
  readonly clientId: string;
  readonly generations: PgGenerationRepository;
  readonly publicationLog: PgPublicationLog;
  readonly purges: PgPurgeJournal;
  private readonly pool: pg.Pool;

  constructor(pool: pg.Pool, clientId: string, log: LogPolicy) {
    this.pool = pool;
    this.clientId = clientId;
    this.generations = new PgGenerationRepository(pool, clientId, log);
    this.publicationLog = new PgPublicationLog(pool, clientId);
    this.purges = new PgPurgeJournal(pool, clientId, log);
  }

  async laneSchemas(): Promise<string[]> {
    return readLaneSchemas(this.pool);
  }

  async probe(): Promise<void> {
    await clientTransaction(this.pool, this.clientId, 'read', (sql) => sql.query('SELECT 1 FROM publication_log LIMIT 1'));
  }
}

export interface PostgresStorageOptions {
  /** Publication-log entries kept per Client (tests make it small to exercise compaction). */
  logRetained?: number;
  /** Connections this process keeps (DATABASE_POOL_MAX). */
  poolMax?: number;
  /** PUBLICATION_ENABLED (default true): activations and removals are refused unless the authority is READY. */
  publicationEnabled?: boolean;
}

export class PostgresStorage implements StoragePort {
  readonly jobs: PgJobRepository;
  readonly discovery: PgDiscoveryRepository;
  readonly settings: PgSettingsRepository;
  readonly authority: PgAuthorityRepository;
  readonly rateLimits: PgRateLimitRepository;
  readonly secrets: PgSecretRepository;
  readonly access: PgAccessRepository;
  readonly webhooks: PgWebhookRepository;
  readonly uploads: PgUploadRepository;
  /** The connection pool (tests and tools run their own statements on it, as the adapter's role). */
  readonly pool: pg.Pool;
  private readonly log: LogPolicy;
  private readonly clients = new Map<string, PgClientRepositories>();
  private ending: Promise<void> | null = null;

  private readonly url: string;

  private constructor(url: string, pool: pg.Pool, log: LogPolicy) {
    this.url = url;
    this.pool = pool;
    this.log = log;
    this.jobs = new PgJobRepository(pool);
    this.discovery = new PgDiscoveryRepository(pool);
    this.settings = new PgSettingsRepository(pool);
    this.authority = new PgAuthorityRepository(pool);
    this.rateLimits = new PgRateLimitRepository(pool);
    this.secrets = new PgSecretRepository(pool);
    this.access = new PgAccessRepository(pool);
    this.webhooks = new PgWebhookRepository(pool);
    this.uploads = new PgUploadRepository(pool);
  }

  /** Connects, checks the role and migrates (under the migration lock; a new store's authority record with it). */
  static async open(url: string, options: PostgresStorageOptions = {}): Promise<PostgresStorage> {
    const pool = createPool(url, options.poolMax ?? DEFAULT_POOL_MAX);
    try {
      await assertIsolatingRole(pool);
      await migrate(pool);
      const storage = new PostgresStorage(url, pool, { retained: options.logRetained ?? PUBLICATION_LOG_RETAINED_ENTRIES, fenced: options.publicationEnabled ?? true });
      return storage;
    } catch (error) {
      await pool.end().catch(() => {});
      throw error;
    }
  }

  client(clientId: string): PgClientRepositories {
    let repositories = this.clients.get(clientId);
    if (!repositories) {
      repositories = new PgClientRepositories(this.pool, clientId, this.log);
      this.clients.set(clientId, repositories);
    }
    return repositories;
  }

  /** Nothing per Client is held open: every Client shares the pool's connections. */
  releaseClient(clientId: string): void {
    this.clients.delete(clientId);
  }

  /** Dead tuples of a purge are PostgreSQL's to reclaim (autovacuum, or an operator's VACUUM): see StoragePort. */
  async erasePurged(_clientId: string): Promise<void> {}

  /** Clients that have written to the store, in the order they first did. */
  async knownClientIds(): Promise<string[]> {
    const { rows } = await this.pool.query<{ client_id: string }>('SELECT client_id FROM clients ORDER BY ordinal');
    return rows.map((row) => row.client_id);
  }

  /** One database answers for every Client: the shared records and the Client tables are read once. */
  async probe(): Promise<void> {
    await this.authority.probe();
    await this.pool.query('SELECT 1 FROM clients LIMIT 1');
    await this.pool.query('SELECT 1 FROM publication_log LIMIT 1');
  }

  failureOf(error: unknown): StoreFailure | null {
    return storeFailureOf(error, 'postgres');
  }

  async provisionedClients(): Promise<number> {
    return (await this.pool.query<{ n: number }>('SELECT count(*) AS n FROM clients')).rows[0].n;
  }

  async laneSchemas(): Promise<{ engineVersion: string; schemas: string[] }> {
    const engineVersion = (await this.pool.query<{ server_version: string }>('SHOW server_version')).rows[0].server_version;
    // server_version may carry a packager's suffix ("16.10 (Debian 16.10-1.pgdg12+1)"): the version is its first word.
    return { engineVersion: `postgresql-${engineVersion.split(' ')[0]}`, schemas: await readLaneSchemas(this.pool) };
  }

  /** Publications announced over LISTEN/NOTIFY, on a connection of the watch's own (publication-notices.ts). */
  watchPublications(onPublished: (clientId: string | null) => void): PublicationWatch {
    return new PublicationNotices(this.url, onPublished);
  }

  /** Starts closing the pool; end() waits for it. */
  close(): void {
    void this.end();
  }

  end(): Promise<void> {
    this.ending ??= this.pool.end();
    return this.ending;
  }
}
