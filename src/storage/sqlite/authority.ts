// The SQLite authority repository, in the control database: the durable publication authority record every
// process reads (never another process's memory), and named leases (lifecycle fences, single-writer locks).

import { randomUUID } from 'node:crypto';
import type { Database } from './database.ts';
import { cachedStatement, transaction } from './database.ts';
import type { DurableAuthorityMode } from '../../domain/publication-log.ts';
import { storeFailureOf } from '../shared/store-failures.ts';
import { AuthorityUnreadable } from '../../domain/publication-log.ts';
import { toAuthorityRecord } from '../shared/control-rows.ts';
import type { AuthorityRow } from '../shared/control-rows.ts';
import type { AuthorityRecord, AuthorityRepository } from '../port.ts';
import { PublicationPaused } from '../../domain/jobs.ts';

export class SqliteAuthorityRepository implements AuthorityRepository {
  private readonly db: Database;
  private readonly now: () => number;

  /**
   * The record itself is created once, with the control database (control-migrations.ts): opening a store
   * never recreates a record an operator or a fault removed.
   */
  constructor(db: Database, now: () => number = Date.now) {
    this.db = db;
    this.now = now;
  }

  /** The durable authority record; AuthorityUnreadable when it is missing, damaged or its table cannot be read. */
  async authority(): Promise<AuthorityRecord> {
    let row: AuthorityRow | undefined;
    try {
      row = cachedStatement(this.db, 'SELECT mode, authority_id, changed_at FROM authority WHERE id = 1').get() as AuthorityRow | undefined;
    } catch (error) {
      // A store that cannot be reached or read is the store's failure, not a damaged record: it is answered as such.
      throw storeFailureOf(error, 'sqlite') ?? new AuthorityUnreadable(error instanceof Error ? error.message : String(error));
    }
    return toAuthorityRecord(row);
  }

  /**
   * Throws PublicationPaused unless the mode is READY (a missing or unreadable record counts as not READY).
   * Synchronous, so a Client's write transaction can ask it between its statements (sqlite/publication-log.ts).
   */
  assertReady(): void {
    let mode: string | undefined;
    try {
      mode = (cachedStatement(this.db, 'SELECT mode FROM authority WHERE id = 1').get() as { mode: string } | undefined)?.mode;
    } catch {
      mode = undefined;
    }
    if (mode !== 'READY') throw new PublicationPaused(mode ?? 'unreadable');
  }

  /**
   * Sets the mode. An operator setting a mode over a missing record recreates it (with a new authority id):
   * the repair of corrupted publication state is an operator's decision, never a process's at start-up.
   */
  async setAuthorityMode(mode: DurableAuthorityMode): Promise<AuthorityRecord> {
    transaction(this.db, () => {
      // Each change is later than the one before, by a millisecond at least: a fence is named by its start
      // (sqlite/publication-log.ts), so two fences begun within one millisecond must not share the name.
      const previous = (cachedStatement(this.db, 'SELECT changed_at FROM authority WHERE id = 1').get() as { changed_at: string } | undefined)?.changed_at;
      const previousMs = previous === undefined ? Number.NaN : Date.parse(previous);
      const changedAt = Number.isNaN(previousMs) ? this.now() : Math.max(this.now(), previousMs + 1);
      this.db
        .prepare(
          `INSERT INTO authority (id, mode, authority_id, changed_at) VALUES (1, ?, ?, ?)
           ON CONFLICT (id) DO UPDATE SET mode = excluded.mode, changed_at = excluded.changed_at`,
        )
        .run(mode, randomUUID(), new Date(changedAt).toISOString());
    });
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

  async probe(): Promise<void> {
    this.db.prepare('SELECT 1 FROM authority WHERE id = 1').get();
  }
}
