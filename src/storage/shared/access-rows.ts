// The rows of runtime Clients and issued keys as both adapters store them (text times in ISO 8601, scopes and
// filter as JSON text), and the records they stand for.

import type { JsonObject } from '../../domain/canonical-metadata.ts';
import type { ClientRecord, IssuedKeyRecord } from '../port.ts';

export interface ClientRow {
  client_id: string;
  created_at: string;
  disabled: number | boolean;
  rate_limit_per_minute: number | null;
  search_rate_limit_per_minute: number | null;
}

export interface KeyRow {
  key_id: string;
  client_id: string;
  secret_hash: string;
  scopes: string;
  expires_at: string | null;
  filter: string | null;
  label: string | null;
  created_at: string;
}

export function toClientRecord(row: ClientRow): ClientRecord {
  return {
    clientId: row.client_id,
    createdAt: row.created_at,
    disabled: row.disabled === true || row.disabled === 1,
    rateLimitPerMinute: row.rate_limit_per_minute === null ? null : Number(row.rate_limit_per_minute),
    searchRateLimitPerMinute: row.search_rate_limit_per_minute === null ? null : Number(row.search_rate_limit_per_minute),
  };
}

export function toKeyRecord(row: KeyRow): IssuedKeyRecord {
  return {
    keyId: row.key_id,
    clientId: row.client_id,
    secretHash: row.secret_hash,
    scopes: JSON.parse(row.scopes) as string[],
    expiresAt: row.expires_at,
    filter: row.filter === null ? null : (JSON.parse(row.filter) as JsonObject),
    label: row.label,
    createdAt: row.created_at,
  };
}

/** A key's row values in column order: key_id, client_id, secret_hash, scopes, expires_at, filter, label, created_at. */
export function keyRowValues(key: IssuedKeyRecord): (string | null)[] {
  return [key.keyId, key.clientId, key.secretHash, JSON.stringify(key.scopes), key.expiresAt, key.filter === null ? null : JSON.stringify(key.filter), key.label, key.createdAt];
}

/** The columns a change sets, in the order of `values`. */
export function changedColumns(changes: { disabled?: boolean; rateLimitPerMinute?: number | null; searchRateLimitPerMinute?: number | null }): { columns: string[]; values: (number | boolean | null)[] } {
  const columns: string[] = [];
  const values: (number | boolean | null)[] = [];
  if (changes.disabled !== undefined) {
    columns.push('disabled');
    values.push(changes.disabled);
  }
  if (changes.rateLimitPerMinute !== undefined) {
    columns.push('rate_limit_per_minute');
    values.push(changes.rateLimitPerMinute);
  }
  if (changes.searchRateLimitPerMinute !== undefined) {
    columns.push('search_rate_limit_per_minute');
    values.push(changes.searchRateLimitPerMinute);
  }
  return { columns, values };
}

export const CLIENT_COLUMNS = 'client_id, created_at, disabled, rate_limit_per_minute, search_rate_limit_per_minute';
export const KEY_COLUMNS = 'key_id, client_id, secret_hash, scopes, expires_at, filter, label, created_at';
