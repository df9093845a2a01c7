// The SQLite purge journal of one Client: a hard delete is recorded (and hidden by a removal in the
// publication log) before anything is removed, so that a purge interrupted by a crash is resumed.

import type { ClientDatabase } from './client-database.ts';
import { transaction } from './database.ts';
import { appendLogEntry } from './publication-log.ts';
import type { LogPolicy } from './publication-log.ts';
import type { PurgeJournalRepository } from '../port.ts';

export class SqlitePurgeJournal implements PurgeJournalRepository {
  private readonly database: ClientDatabase;
  private readonly log: LogPolicy;

  constructor(database: ClientDatabase, log: LogPolicy) {
    this.database = database;
    this.log = log;
  }

  async begin(documentId: string, versionKeys: string[]): Promise<void> {
    const db = this.database.db;
    const at = this.database.at();
    transaction(db, () => {
      const insert = db.prepare('INSERT OR IGNORE INTO purge_journal (document_id, version_key, started_at) VALUES (?, ?, ?)');
      for (const versionKey of versionKeys) {
        insert.run(documentId, versionKey, at);
        appendLogEntry(this.database, this.log, { kind: 'remove', documentId, versionKey, generation: null });
      }
    });
  }

  async open(documentId: string): Promise<string[]> {
    const rows = this.database.db.prepare('SELECT version_key FROM purge_journal WHERE document_id = ? ORDER BY version_key').all(documentId) as { version_key: string }[];
    return rows.map((row) => row.version_key);
  }

  async purgeVersion(documentId: string, versionKey: string): Promise<number> {
    const db = this.database.db;
    return transaction(db, () => {
      // The chunks the version served (its active generation's), not those of generations it replaced, which
      // linger until the retired-content cleanup removes them.
      const chunks = db
        .prepare('SELECT COUNT(*) AS n FROM versions v JOIN chunks c ON c.generation = v.active_generation WHERE v.document_id = ? AND v.version_key = ?')
        .get(documentId, versionKey) as { n: number };
      db.prepare('DELETE FROM generations WHERE document_id = ? AND version_key = ?').run(documentId, versionKey);
      db.prepare('DELETE FROM versions WHERE document_id = ? AND version_key = ?').run(documentId, versionKey);
      db.prepare('DELETE FROM purge_journal WHERE document_id = ? AND version_key = ?').run(documentId, versionKey);
      return chunks.n;
    });
  }

  async remainingRecords(documentId: string, versionKey: string): Promise<number> {
    const row = this.database.db.prepare('SELECT COUNT(*) AS n FROM generations WHERE document_id = ? AND version_key = ?').get(documentId, versionKey) as { n: number };
    return row.n;
  }
}
