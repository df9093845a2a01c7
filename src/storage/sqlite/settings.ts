// The SQLite settings repository, in the control database: each Client's synonym set with its version.

import type { Database } from './database.ts';
import { cachedStatement } from './database.ts';
import type { SettingsRepository, StoredSynonyms } from '../port.ts';

export class SqliteSettingsRepository implements SettingsRepository {
  private readonly db: Database;

  constructor(db: Database) {
    this.db = db;
  }

  async synonymsVersion(clientId: string): Promise<number> {
    const row = cachedStatement(this.db, 'SELECT version FROM client_synonyms WHERE client_id = ?').get(clientId) as { version: number } | undefined;
    return row?.version ?? 0;
  }

  async synonyms(clientId: string): Promise<StoredSynonyms | null> {
    const row = cachedStatement(this.db, 'SELECT version, rules FROM client_synonyms WHERE client_id = ?').get(clientId) as StoredSynonyms | undefined;
    return row ? { version: Number(row.version), rules: row.rules } : null;
  }

  async setSynonyms(clientId: string, rules: string): Promise<number> {
    const row = cachedStatement(
      this.db,
      `INSERT INTO client_synonyms (client_id, rules, version) VALUES (?, ?, 1)
       ON CONFLICT (client_id) DO UPDATE SET rules = excluded.rules, version = client_synonyms.version + 1
       RETURNING version`,
    ).get(clientId, rules) as { version: number };
    return Number(row.version);
  }
}
