// The shared control records every process reads from the store, never from another process's memory: the
// publication authority record, named leases (lifecycle fences, single-writer locks) and rate-limit windows.

import { randomBytes, randomUUID } from 'node:crypto';
import type { Database } from './sqlite.ts';
import { cachedStatement, transaction } from './sqlite.ts';
import type { DurableAuthorityMode } from '../domain/publication-log.ts';
import { AuthorityUnreadable, DURABLE_AUTHORITY_MODES } from '../domain/publication-log.ts';

export interface AuthorityRecord {
  mode: DurableAuthorityMode;
  authorityId: string;
  changedAt: string;
}

export interface RateWindowDecision {
  allowed: boolean;
  /** When refused: ms until the oldest hit in the window leaves it. */
  retryAfterMs: number;
}

export class ControlStore {
  private readonly db: Database;
  private readonly now: () => number;

  /**
   * `createAuthority`: the first process to open a new store creates the record in READY; a reader that must
   * not change the store (the health probe thread) passes false, so that it never recreates a record an
   * operator or a fault removed.
   */
  constructor(db: Database, now: () => number = Date.now, createAuthority = true) {
    this.db = db;
    this.now = now;
    if (!createAuthority) return;
    this.db
      .prepare(`INSERT OR IGNORE INTO authority (id, mode, authority_id, changed_at) VALUES (1, 'READY', ?, ?)`)
      .run(randomUUID(), new Date(this.now()).toISOString());
  }

  /** The durable authority record; AuthorityUnreadable when it is missing, damaged or its table cannot be read. */
  async authority(): Promise<AuthorityRecord> {
    let row: { mode: string; authority_id: string; changed_at: string } | undefined;
    try {
      row = cachedStatement(this.db, 'SELECT mode, authority_id, changed_at FROM authority WHERE id = 1').get() as typeof row;
    } catch (error) {
      throw new AuthorityUnreadable(error instanceof Error ? error.message : String(error));
    }
    if (!row) throw new AuthorityUnreadable('the record is missing');
    if (!(DURABLE_AUTHORITY_MODES as readonly string[]).includes(row.mode)) throw new AuthorityUnreadable(`unknown mode ${JSON.stringify(row.mode)}`);
    return { mode: row.mode as DurableAuthorityMode, authorityId: row.authority_id, changedAt: row.changed_at };
  }

  async setAuthorityMode(mode: DurableAuthorityMode): Promise<AuthorityRecord> {
    this.db.prepare('UPDATE authority SET mode = ?, changed_at = ? WHERE id = 1').run(mode, new Date(this.now()).toISOString());
    return this.authority();
  }

  /** Takes the named lease for `owner` when it is free, expired or already this owner's (then renews it). */
  async acquireLease(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    const changes = this.db
      .prepare(
        `INSERT INTO leases (name, owner, expires_at) VALUES (?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
         WHERE leases.owner = excluded.owner OR leases.expires_at < ?`,
      )
      .run(name, owner, now + ttlMs, now).changes;
    return Number(changes) === 1;
  }

  /** Extends a lease this owner holds; false when it was lost (expired and taken). */
  async renewLease(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const changes = this.db.prepare('UPDATE leases SET expires_at = ? WHERE name = ? AND owner = ?').run(this.now() + ttlMs, name, owner).changes;
    return Number(changes) === 1;
  }

  async releaseLease(name: string, owner: string): Promise<void> {
    this.db.prepare('DELETE FROM leases WHERE name = ? AND owner = ?').run(name, owner);
  }

  /** The live holder of a lease, or null. */
  async leaseHolder(name: string): Promise<{ owner: string; expiresAt: number } | null> {
    const row = this.db.prepare('SELECT owner, expires_at FROM leases WHERE name = ? AND expires_at >= ?').get(name, this.now()) as
      | { owner: string; expires_at: number }
      | undefined;
    return row ? { owner: row.owner, expiresAt: row.expires_at } : null;
  }

  /**
   * One sliding window per (Client, bucket), shared by every process. Counts one request in each bucket if every bucket's window has room (all or nothing: a refused request is
   * counted nowhere). Each bucket keeps its hits' times and a running count, so a decision costs the same
   * whatever the limit: expired hits are deleted once and subtracted, and only a refusal looks up the oldest.
   */
  async takeRateSlots(clientId: string, buckets: readonly { bucket: string; limit: number }[], windowMs: number): Promise<RateWindowDecision> {
    const now = this.now();
    const db = this.db;
    return transaction(db, () => {
      let refused = false;
      let retryAfterMs = 0;
      for (const { bucket, limit } of buckets) {
        const expired = cachedStatement(db, 'DELETE FROM rate_hits WHERE client_id = ? AND bucket = ? AND at <= ?').run(clientId, bucket, now - windowMs).changes;
        if (expired > 0) cachedStatement(db, 'UPDATE rate_counts SET hits = MAX(0, hits - ?) WHERE client_id = ? AND bucket = ?').run(expired, clientId, bucket);
        const count = cachedStatement(db, 'SELECT hits FROM rate_counts WHERE client_id = ? AND bucket = ?').get(clientId, bucket) as { hits: number } | undefined;
        if ((count?.hits ?? 0) < limit) continue;
        const oldest = cachedStatement(db, 'SELECT MIN(at) AS at FROM rate_hits WHERE client_id = ? AND bucket = ?').get(clientId, bucket) as { at: number | null };
        refused = true;
        retryAfterMs = Math.max(retryAfterMs, (oldest.at ?? now) + windowMs - now);
      }
      if (refused) return { allowed: false, retryAfterMs };
      for (const { bucket } of buckets) {
        cachedStatement(db, 'INSERT INTO rate_hits (client_id, bucket, at) VALUES (?, ?, ?)').run(clientId, bucket, now);
        cachedStatement(db, 'INSERT INTO rate_counts (client_id, bucket, hits) VALUES (?, ?, 1) ON CONFLICT (client_id, bucket) DO UPDATE SET hits = hits + 1').run(clientId, bucket);
      }
      return { allowed: true, retryAfterMs: 0 };
    });
  }

  /**
   * A secret shared by every process of the deployment: the first caller creates it (random, 32 bytes),
   * everyone after reads the same value. Never logged or returned to callers.
   */
  async deploymentSecret(name: string): Promise<string> {
    this.db.prepare('INSERT OR IGNORE INTO deployment_secrets (name, value) VALUES (?, ?)').run(name, randomBytes(32).toString('hex'));
    return (this.db.prepare('SELECT value FROM deployment_secrets WHERE name = ?').get(name) as { value: string }).value;
  }

  async probe(): Promise<void> {
    this.db.prepare('SELECT 1 FROM authority WHERE id = 1').get();
  }
}
