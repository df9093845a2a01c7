// The embedded storage adapter (SQLite, safe for several processes): a control database for jobs, readiness,
// the authority record, leases and rate windows; one database file per Client; durable upload files.
// It hands out per-Client stores; it never interprets documents.

import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, existsSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { checkpointTruncate, fitPageCache, openDatabase, probeDatabaseFile } from './database.ts';
import type { Database } from './database.ts';
import { CLIENT_DB_CACHE_REFIT_USES, CLIENT_PAGE_CACHE } from './client-page-cache.ts';
import { CONTROL_MIGRATIONS } from './control-migrations.ts';
import { CLIENT_MIGRATIONS } from './client-migrations.ts';
import { ClientStore } from './client-store.ts';
import type { ClientDatabase } from './client-database.ts';
import { SqliteJobRepository } from './jobs.ts';
import { SqliteDiscoveryRepository } from './discovery.ts';
import { SqliteSettingsRepository } from './settings.ts';
import { SqliteAuthorityRepository } from './authority.ts';
import { SqliteRateLimitRepository } from './rate-limits.ts';
import { SqliteSecretRepository } from './secrets.ts';
import { SqliteAccessRepository } from './access.ts';
import { SqliteWebhookRepository } from './webhooks.ts';
import { UploadFiles } from './uploads.ts';
import type { StoragePort } from '../port.ts';
import { storeFailureOf } from '../shared/store-failures.ts';
import type { StoreFailure } from '../../domain/store-failure.ts';
import { PUBLICATION_LOG_RETAINED_ENTRIES } from '../../domain/publication-log.ts';

const CLIENT_FILE_SUFFIX = '.db';
/**
 * Client databases a process keeps open at once. An open connection costs about 0.7 MiB (page cache,
 * schema, prepared statements) whether or not its Client is served, so 200 Clients held 140 MiB; the least
 * recently used connection beyond this is closed, and connects again (in about 0.1 ms) when next used.
 */
export const DEFAULT_CLIENT_CONNECTIONS_MAX = 64;

/**
 * Client database files one state-store probe opens at most: /health costs the same with 10 Clients or 10,000;
 * the others are probed by the calls that follow, in turn.
 */
export const PROBED_CLIENT_FILES_PER_CALL = 16;

/**
 * Free space under which the state-store probe reports the store failed: SQLite needs a few pages of WAL for
 * every commit and an upload its whole size, so below 1 MiB (256 pages of 4 KiB) writes fail or soon will,
 * while reads still answer (health degrades; it does not refuse to serve).
 */
export const STORE_FREE_SPACE_FLOOR_BYTES = 1024 * 1024;

/** A file name that is unique per client id, readable, and safe on any file system. */
export function clientFileName(clientId: string): string {
  const readable = clientId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40);
  const digest = createHash('sha256').update(clientId).digest('hex').slice(0, 16);
  return `${readable}-${digest}${CLIENT_FILE_SUFFIX}`;
}

/**
 * Sizes a Client connection's page cache to its file. Only tuning: when the file cannot be read for its size now
 * (another process holds a lock past the busy timeout), the cache stays as it was and the next refit tries again,
 * rather than failing the statement that asked for the connection.
 */
function fitClientPageCache(db: Database): void {
  try {
    fitPageCache(db, CLIENT_PAGE_CACHE);
  } catch {
    // The connection works with the cache it has.
  }
}

export class Storage implements StoragePort {
  readonly jobs: SqliteJobRepository;
  readonly discovery: SqliteDiscoveryRepository;
  readonly settings: SqliteSettingsRepository;
  readonly authority: SqliteAuthorityRepository;
  readonly rateLimits: SqliteRateLimitRepository;
  readonly secrets: SqliteSecretRepository;
  readonly access: SqliteAccessRepository;
  readonly webhooks: SqliteWebhookRepository;
  readonly uploads: UploadFiles;
  readonly dataDir: string;
  private readonly controlDb: Database;
  private readonly clients = new Map<string, ClientStore>();
  private readonly clientsDir: string;

  private readonly logRetained: number;
  private readonly assertReady: (() => void) | undefined;
  private readonly connectionsMax: number;
  /** Client databases with an open connection, least recently used first. */
  private readonly connected = new Map<string, ClientDatabase>();
  private lastConnected: string | null = null;
  /** Where the state-store probe goes on (the rowid of the last Client file it read) and the files that failed it. */
  private probeCursor = 0;
  private readonly failingFiles = new Set<string>();

  /**
   * `logRetained`: publication-log entries kept per Client (tests make it small to exercise compaction).
   * `connectionsMax`: Client databases kept open (DEFAULT_CLIENT_CONNECTIONS_MAX).
   * `publicationEnabled` (PUBLICATION_ENABLED, default true): activations and removals are refused unless the
   * authority is READY, checked in their transaction.
   */
  constructor(dataDir: string, options: { logRetained?: number; connectionsMax?: number; publicationEnabled?: boolean } = {}) {
    this.logRetained = options.logRetained ?? PUBLICATION_LOG_RETAINED_ENTRIES;
    this.connectionsMax = Math.max(1, options.connectionsMax ?? DEFAULT_CLIENT_CONNECTIONS_MAX);
    this.dataDir = dataDir;
    this.clientsDir = join(dataDir, 'clients');
    mkdirSync(this.clientsDir, { recursive: true });
    this.uploads = new UploadFiles(join(dataDir, 'uploads'));
    this.controlDb = openDatabase(join(dataDir, 'control.db'), CONTROL_MIGRATIONS);
    this.jobs = new SqliteJobRepository(this.controlDb);
    this.discovery = new SqliteDiscoveryRepository(this.controlDb);
    this.settings = new SqliteSettingsRepository(this.controlDb);
    this.authority = new SqliteAuthorityRepository(this.controlDb);
    this.rateLimits = new SqliteRateLimitRepository(this.controlDb);
    this.secrets = new SqliteSecretRepository(this.controlDb);
    this.access = new SqliteAccessRepository(this.controlDb);
    this.webhooks = new SqliteWebhookRepository(this.controlDb);
    this.assertReady = (options.publicationEnabled ?? true) ? () => this.authority.assertReady() : undefined;
  }

  /** The Client's store, created on first use. */
  client(clientId: string): ClientStore {
    let store = this.clients.get(clientId);
    if (!store) {
      const file = clientFileName(clientId);
      this.controlDb.prepare('INSERT OR IGNORE INTO client_files (client_id, file) VALUES (?, ?)').run(clientId, file);
      const path = join(this.clientsDir, file);
      store = new ClientStore(
        clientId,
        {
          open: () => {
            const db = openDatabase(path, CLIENT_MIGRATIONS);
            fitClientPageCache(db);
            return db;
          },
          used: (used) => this.connectionUsed(used),
          refit: { every: CLIENT_DB_CACHE_REFIT_USES, run: fitClientPageCache },
        },
        { logRetained: this.logRetained, assertReady: this.assertReady },
      );
      this.clients.set(clientId, store);
    }
    return store;
  }

  /** Keeps the database's connection the most recently used, and closes the least recently used beyond the bound. */
  private connectionUsed(database: ClientDatabase): void {
    const { clientId } = database;
    if (this.connected.get(clientId) === database) {
      // Already the most recent: the common case of consecutive statements of one Client costs no reordering.
      if (this.lastConnected === clientId) return;
      this.connected.delete(clientId);
    }
    this.connected.set(clientId, database);
    this.lastConnected = clientId;
    while (this.connected.size > this.connectionsMax) {
      const [oldestId, oldest] = this.connected.entries().next().value as [string, ClientDatabase];
      this.connected.delete(oldestId);
      oldest.release();
    }
  }

  releaseClient(clientId: string): void {
    const database = this.connected.get(clientId);
    if (!database) return;
    this.connected.delete(clientId);
    if (this.lastConnected === clientId) this.lastConnected = null;
    database.release();
  }

  /** How many Client databases are open now. */
  get openConnections(): number {
    return this.connected.size;
  }

  async erasePurged(clientId: string): Promise<void> {
    checkpointTruncate(this.client(clientId).database.db);
    checkpointTruncate(this.controlDb);
  }

  /** Clients that have a database on disk (used to rebuild serving snapshots at start-up). */
  async knownClientIds(): Promise<string[]> {
    const rows = this.controlDb.prepare('SELECT client_id, file FROM client_files ORDER BY rowid').all() as { client_id: string; file: string }[];
    const files = new Set(readdirSync(this.clientsDir));
    return rows.filter((row) => files.has(row.file)).map((row) => row.client_id);
  }

  /**
   * The control database, and the next PROBED_CLIENT_FILES_PER_CALL Client database files in turn (the
   * first again after the last): one call costs the same whatever the number of Clients. Fails while any
   * file failed its latest probe, so a damaged store is reported by every call until it reads again. Each
   * file is opened afresh and read from disk (an open connection could answer from its cache after it broke).
   */
  async probe(): Promise<void> {
    await this.authority.probe();
    this.probeFreeSpace();
    let rows = this.controlDb.prepare('SELECT rowid, file FROM client_files WHERE rowid > ? ORDER BY rowid LIMIT ?').all(this.probeCursor, PROBED_CLIENT_FILES_PER_CALL) as { rowid: number; file: string }[];
    if (rows.length < PROBED_CLIENT_FILES_PER_CALL) {
      // Round the end: the first files again, up to the window (those not read yet in this call).
      const wrapped = this.controlDb.prepare('SELECT rowid, file FROM client_files WHERE rowid <= ? ORDER BY rowid LIMIT ?').all(this.probeCursor, PROBED_CLIENT_FILES_PER_CALL - rows.length) as { rowid: number; file: string }[];
      rows = [...rows, ...wrapped];
    }
    for (const { rowid, file } of rows) {
      this.probeCursor = rowid;
      const path = join(this.clientsDir, file);
      try {
        if (existsSync(path)) probeDatabaseFile(path);
        this.failingFiles.delete(file);
      } catch {
        this.failingFiles.add(file);
      }
    }
    if (this.failingFiles.size > 0) throw new Error(`unreadable Client stores: ${[...this.failingFiles].slice(0, 5).join(', ')}`);
  }

  /**
   * Fails when a file system of the store (DATA_DIR, its Client databases, its uploads: any may be a mount of
   * its own) has less than STORE_FREE_SPACE_FLOOR_BYTES free for the service's user.
   */
  private probeFreeSpace(): void {
    for (const [name, dir] of [['DATA_DIR', this.dataDir], ['DATA_DIR/clients', this.clientsDir], ['DATA_DIR/uploads', this.uploads.dir]] as const) {
      const { bavail, bsize } = statfsSync(dir);
      const free = bavail * bsize;
      if (free < STORE_FREE_SPACE_FLOOR_BYTES) throw new Error(`${name} has ${free} bytes free, under the ${STORE_FREE_SPACE_FLOOR_BYTES} writes need`);
    }
  }

  failureOf(error: unknown): StoreFailure | null {
    return storeFailureOf(error, 'sqlite');
  }

  /** How many Client stores have been provisioned (health drops its schema cache when this changes). */
  async provisionedClients(): Promise<number> {
    return (this.controlDb.prepare('SELECT COUNT(*) AS n FROM client_files').get() as { n: number }).n;
  }

  /**
   * The lane schemas of the Client stores as stored (the first provisioned store's, or a new store's when
   * there is none yet) and the storage engine's version: what health reports as collection schema.
   */
  async laneSchemas(): Promise<{ engineVersion: string; schemas: string[] }> {
    const engineVersion = `sqlite-${(this.controlDb.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v}`;
    const [first] = await this.knownClientIds();
    if (first !== undefined) return { engineVersion, schemas: await this.client(first).laneSchemas() };
    const blank = openDatabase(':memory:', CLIENT_MIGRATIONS);
    try {
      return { engineVersion, schemas: await new ClientStore('', { open: () => blank }, { logRetained: this.logRetained }).laneSchemas() };
    } finally {
      blank.close();
    }
  }

  close(): void {
    for (const store of this.clients.values()) store.close();
    this.clients.clear();
    this.connected.clear();
    this.controlDb.close();
  }

  /** SQLite closes synchronously: nothing to wait for. */
  async end(): Promise<void> {
    this.close();
  }
}
