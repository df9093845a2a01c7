// The SQLite access repository, in the control database: Clients and keys made at runtime. Every api process
// reads them all on a short interval (access/client-registry.ts); writes are the operator's, rare and small.

import type { Database } from './database.ts';
import { cachedStatement, readTransaction, transaction } from './database.ts';
import type { AccessRepository, ClientChanges, ClientRecord, IssuedKeyRecord } from '../port.ts';
import { CLIENT_COLUMNS, KEY_COLUMNS, changedColumns, keyRowValues, toClientRecord, toKeyRecord } from '../shared/access-rows.ts';
import type { ClientRow, KeyRow } from '../shared/access-rows.ts';

export class SqliteAccessRepository implements AccessRepository {
  private readonly db: Database;

  constructor(db: Database) {
    this.db = db;
  }

  async createClient(clientId: string, createdAt: string): Promise<boolean> {
    return cachedStatement(this.db, 'INSERT OR IGNORE INTO runtime_clients (client_id, created_at) VALUES (?, ?)').run(clientId, createdAt).changes === 1;
  }

  async changeClient(clientId: string, changes: ClientChanges, createdAt?: string): Promise<ClientRecord | null> {
    const { columns, values } = changedColumns(changes);
    return transaction(this.db, () => {
      if (createdAt !== undefined) cachedStatement(this.db, 'INSERT OR IGNORE INTO runtime_clients (client_id, created_at) VALUES (?, ?)').run(clientId, createdAt);
      if (columns.length > 0) {
        const assignments = columns.map((column) => `${column} = ?`).join(', ');
        this.db.prepare(`UPDATE runtime_clients SET ${assignments} WHERE client_id = ?`).run(...values.map((value) => (typeof value === 'boolean' ? Number(value) : value)), clientId);
      }
      const row = cachedStatement(this.db, `SELECT ${CLIENT_COLUMNS} FROM runtime_clients WHERE client_id = ?`).get(clientId) as ClientRow | undefined;
      return row ? toClientRecord(row) : null;
    });
  }

  async issueKey(key: IssuedKeyRecord): Promise<void> {
    transaction(this.db, () => {
      // A Client of API_KEY_CLIENTS has no row until its first runtime key or change: the key's row needs one.
      cachedStatement(this.db, 'INSERT OR IGNORE INTO runtime_clients (client_id, created_at) VALUES (?, ?)').run(key.clientId, key.createdAt);
      cachedStatement(this.db, `INSERT INTO issued_keys (${KEY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`).run(...keyRowValues(key));
    });
  }

  async revokeKey(keyId: string): Promise<boolean> {
    return cachedStatement(this.db, 'DELETE FROM issued_keys WHERE key_id = ?').run(keyId).changes === 1;
  }

  async accessRecords(): Promise<{ clients: ClientRecord[]; keys: IssuedKeyRecord[] }> {
    // One read transaction: a key is never seen without the Client row it was issued with.
    return readTransaction(this.db, () => {
      const clients = (cachedStatement(this.db, `SELECT ${CLIENT_COLUMNS} FROM runtime_clients ORDER BY client_id`).all() as unknown as ClientRow[]).map(toClientRecord);
      const keys = (cachedStatement(this.db, `SELECT ${KEY_COLUMNS} FROM issued_keys ORDER BY created_at, key_id`).all() as unknown as KeyRow[]).map(toKeyRecord);
      return { clients, keys };
    });
  }
}
