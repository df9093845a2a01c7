// The PostgreSQL purge journal of one Client: a hard delete is recorded (and hidden by a removal in the
// publication log) before anything is removed, so that a purge interrupted by a crash is resumed.

import type pg from 'pg';
import { clientTransaction } from './database.ts';
import { appendLogEntry } from './publication-log.ts';
import type { LogPolicy } from './publication-log.ts';
import type { PurgeJournalRepository } from '../port.ts';

export class PgPurgeJournal implements PurgeJournalRepository {
  private readonly pool: pg.Pool;
  private readonly clientId: string;
  private readonly log: LogPolicy;

  constructor(pool: pg.Pool, clientId: string, log: LogPolicy) {
    this.pool = pool;
    this.clientId = clientId;
    this.log = log;
  }

  async begin(documentId: string, versionKeys: string[]): Promise<void> {
    await clientTransaction(this.pool, this.clientId, 'write', async (sql) => {
      for (const versionKey of versionKeys) {
        await sql.query(
          `INSERT INTO purge_journal (client_id, document_id, version_key, started_at) VALUES ($1, $2, $3, db_now())
           ON CONFLICT (client_id, document_id, version_key) DO NOTHING`,
          [this.clientId, documentId, versionKey],
        );
        await appendLogEntry(sql, this.clientId, this.log, { kind: 'remove', documentId, versionKey, generation: null });
      }
    });
  }

  async open(documentId: string): Promise<string[]> {
    const { rows } = await clientTransaction(this.pool, this.clientId, 'read', (sql) =>
      sql.query<{ version_key: string }>('SELECT version_key FROM purge_journal WHERE document_id = $1 ORDER BY version_key', [documentId]),
    );
    return rows.map((row) => row.version_key);
  }

  async purgeVersion(documentId: string, versionKey: string): Promise<number> {
    return clientTransaction(this.pool, this.clientId, 'write', async (sql) => {
      // The chunks the version served (its active generation's), not those of generations it replaced, which
      // linger until the retired-content cleanup removes them.
      const { rows } = await sql.query<{ n: number }>(
        `SELECT count(*) AS n FROM versions v JOIN chunks c ON c.client_id = v.client_id AND c.generation = v.active_generation
         WHERE v.document_id = $1 AND v.version_key = $2`,
        [documentId, versionKey],
      );
      // Chunks, leaves and lane data go with their generations (ON DELETE CASCADE); the usage triggers see the active one leave.
      await sql.query('DELETE FROM generations WHERE document_id = $1 AND version_key = $2', [documentId, versionKey]);
      await sql.query('DELETE FROM versions WHERE document_id = $1 AND version_key = $2', [documentId, versionKey]);
      await sql.query('DELETE FROM purge_journal WHERE document_id = $1 AND version_key = $2', [documentId, versionKey]);
      return rows[0].n;
    });
  }

  async remainingRecords(documentId: string, versionKey: string): Promise<number> {
    const { rows } = await clientTransaction(this.pool, this.clientId, 'read', (sql) =>
      sql.query<{ n: number }>('SELECT count(*) AS n FROM generations WHERE document_id = $1 AND version_key = $2', [documentId, versionKey]),
    );
    return rows[0].n;
  }
}
