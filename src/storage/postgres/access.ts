// The PostgreSQL access repository: Clients and keys made at runtime, shared rows of the deployment that every
// api process on every host reads on a short interval (access/client-registry.ts).

import type pg from 'pg';
import { sharedTransaction } from './database.ts';
import type { Sql } from './database.ts';
import type { AccessRepository, ClientChanges, ClientRecord, IssuedKeyRecord } from '../port.ts';
import { CLIENT_COLUMNS, KEY_COLUMNS, changedColumns, keyRowValues, toClientRecord, toKeyRecord } from '../shared/access-rows.ts';
import type { ClientRow, KeyRow } from '../shared/access-rows.ts';

const ENSURE_CLIENT = 'INSERT INTO runtime_clients (client_id, created_at) VALUES ($1, $2) ON CONFLICT (client_id) DO NOTHING';

export class PgAccessRepository implements AccessRepository {
  private readonly pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.pool = pool;
  }

  async createClient(clientId: string, createdAt: string): Promise<boolean> {
    return (await this.pool.query(ENSURE_CLIENT, [clientId, createdAt])).rowCount === 1;
  }

  async changeClient(clientId: string, changes: ClientChanges, createdAt?: string): Promise<ClientRecord | null> {
    const { columns, values } = changedColumns(changes);
    return sharedTransaction(this.pool, async (sql: Sql) => {
      if (createdAt !== undefined) await sql.query(ENSURE_CLIENT, [clientId, createdAt]);
      if (columns.length > 0) {
        const assignments = columns.map((column, at) => `${column} = $${at + 2}`).join(', ');
        await sql.query(`UPDATE runtime_clients SET ${assignments} WHERE client_id = $1`, [clientId, ...values]);
      }
      const { rows } = await sql.query<ClientRow>(`SELECT ${CLIENT_COLUMNS} FROM runtime_clients WHERE client_id = $1`, [clientId]);
      return rows[0] ? toClientRecord(rows[0]) : null;
    });
  }

  async issueKey(key: IssuedKeyRecord): Promise<void> {
    await sharedTransaction(this.pool, async (sql: Sql) => {
      // A Client of API_KEY_CLIENTS has no row until its first runtime key or change: the key's row needs one.
      await sql.query(ENSURE_CLIENT, [key.clientId, key.createdAt]);
      await sql.query(`INSERT INTO issued_keys (${KEY_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, keyRowValues(key));
    });
  }

  async revokeKey(keyId: string): Promise<boolean> {
    return (await this.pool.query('DELETE FROM issued_keys WHERE key_id = $1', [keyId])).rowCount === 1;
  }

  async accessRecords(): Promise<{ clients: ClientRecord[]; keys: IssuedKeyRecord[] }> {
    // One snapshot for both reads: a key is never seen without the Client row it was issued with.
    return sharedTransaction(
      this.pool,
      async (sql: Sql) => {
        const clients = (await sql.query<ClientRow>(`SELECT ${CLIENT_COLUMNS} FROM runtime_clients ORDER BY client_id`)).rows.map(toClientRecord);
        const keys = (await sql.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM issued_keys ORDER BY created_at, key_id`)).rows.map(toKeyRecord);
        return { clients, keys };
      },
      'REPEATABLE READ',
    );
  }
}
