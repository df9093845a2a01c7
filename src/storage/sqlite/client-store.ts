// One Client's durable state as the SQLite adapter keeps it: one database file, shared by the Client's
// repositories (generations with their chunks, the publication log, the purge journal).

import { ClientDatabase } from './client-database.ts';
import type { ClientConnection } from './client-database.ts';
import { SqliteGenerationRepository } from './generations.ts';
import { SqlitePublicationLog } from './publication-log.ts';
import type { LogPolicy } from './publication-log.ts';
import { SqlitePurgeJournal } from './purge-journal.ts';
import type { ClientRepositories } from '../port.ts';

export class ClientStore implements ClientRepositories {
  readonly clientId: string;
  readonly generations: SqliteGenerationRepository;
  readonly publicationLog: SqlitePublicationLog;
  readonly purges: SqlitePurgeJournal;
  readonly database: ClientDatabase;

  /**
   * `logRetained`: publication-log entries kept (tests make it small to exercise compaction).
   * `assertReady`: refuses an append unless the authority is READY (LogPolicy); none without publication.
   */
  constructor(clientId: string, connection: ClientConnection, options: { now?: () => number; logRetained: number; assertReady?: () => void }) {
    this.clientId = clientId;
    this.database = new ClientDatabase(clientId, connection, options.now);
    const log: LogPolicy = { retained: options.logRetained, assertReady: options.assertReady ?? null };
    this.generations = new SqliteGenerationRepository(this.database, log);
    this.publicationLog = new SqlitePublicationLog(this.database);
    this.purges = new SqlitePurgeJournal(this.database, log);
  }

  /** Whether the store holds an open connection now. */
  get isConnected(): boolean {
    return this.database.isConnected;
  }

  /** Closes the connection (and its page cache and prepared statements); the next call connects again. */
  release(): void {
    this.database.release();
  }

  close(): void {
    this.database.close();
  }

  async laneSchemas(): Promise<string[]> {
    const rows = this.database.db
      .prepare(
        `SELECT type, name, sql FROM sqlite_master WHERE tbl_name IN ('versions', 'generations', 'chunks', 'metadata_leaves', 'publication_log')
         AND sql IS NOT NULL ORDER BY type, name`,
      )
      .all() as { type: string; name: string; sql: string }[];
    return rows.map((row) => `${row.type} ${row.name}: ${row.sql}`);
  }

  async probe(): Promise<void> {
    this.database.db.prepare('SELECT 1 FROM publication_log LIMIT 1').get();
  }
}
