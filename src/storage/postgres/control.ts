// The PostgreSQL repositories of the deployment's shared records: Metadata Discovery readiness per Client,
// the publication authority record with named leases (lifecycle fences, single-writer locks), sliding
// rate-limit windows and deployment secrets. Leases and windows use the database's clock, never a process's.

import { randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { RATE_WINDOW_LOCK, sharedTransaction } from './database.ts';
import type { ReadinessState } from '../../domain/job-states.ts';
import type { DurableAuthorityMode } from '../../domain/publication-log.ts';
import { storeFailureOf } from '../shared/store-failures.ts';
import { AuthorityUnreadable } from '../../domain/publication-log.ts';
import { toAuthorityRecord, toRecordedReadiness } from '../shared/control-rows.ts';
import type { AuthorityRow, ReadinessRow } from '../shared/control-rows.ts';
import type {
  AuthorityRecord,
  AuthorityRepository,
  DiscoveryRepository,
  RateBatchPolicy,
  RateLimitRepository,
  RateSlotRequest,
  RateWindowDecision,
  RecordedReadiness,
  SecretRepository,
  SettingsRepository,
  StoredSynonyms,
} from '../port.ts';

export class PgDiscoveryRepository implements DiscoveryRepository {
  private readonly pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.pool = pool;
  }

  /** The Client's durable discovery readiness (toRecordedReadiness: ready when none was recorded). */
  async readiness(clientId: string): Promise<RecordedReadiness> {
    const { rows } = await this.pool.query<ReadinessRow>(
      `SELECT r.state, r.backfill_job_id, r.updated_at, j.status AS job_status FROM readiness r
       LEFT JOIN jobs j ON j.job_id = r.backfill_job_id WHERE r.client_id = $1`,
      [clientId],
    );
    return toRecordedReadiness(rows[0]);
  }

  async setReadiness(clientId: string, state: ReadinessState, backfillJobId: string | null = null): Promise<void> {
    await this.pool.query(
      `INSERT INTO readiness (client_id, state, backfill_job_id, updated_at) VALUES ($1, $2, $3, db_now())
       ON CONFLICT (client_id) DO UPDATE SET state = excluded.state, backfill_job_id = excluded.backfill_job_id, updated_at = excluded.updated_at`,
      [clientId, state, backfillJobId],
    );
  }
}

export class PgAuthorityRepository implements AuthorityRepository {
  private readonly pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.pool = pool;
  }

  /** The durable authority record; AuthorityUnreadable when it is missing, damaged or its table cannot be read. */
  async authority(): Promise<AuthorityRecord> {
    let row: AuthorityRow | undefined;
    try {
      row = (await this.pool.query<AuthorityRow>('SELECT mode, authority_id, changed_at FROM authority WHERE id = 1')).rows[0];
    } catch (error) {
      // A store that cannot be reached or read is the store's failure, not a damaged record: it is answered as such.
      throw storeFailureOf(error, 'postgres') ?? new AuthorityUnreadable(error instanceof Error ? error.message : String(error));
    }
    return toAuthorityRecord(row);
  }

  /**
   * Sets the mode. An operator setting a mode over a missing record recreates it (with a new authority id):
   * the repair of corrupted publication state is an operator's decision, never a process's at start-up.
   */
  async setAuthorityMode(mode: DurableAuthorityMode): Promise<AuthorityRecord> {
    await this.pool.query(
      `INSERT INTO authority (id, mode, authority_id, changed_at) VALUES (1, $1, $2, db_now())
       ON CONFLICT (id) DO UPDATE SET mode = excluded.mode, changed_at = excluded.changed_at`,
      [mode, randomUUID()],
    );
    return this.authority();
  }

  /** Takes the named lease for `owner` when it is free, expired or already this owner's (then renews it). */
  async acquireLease(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `INSERT INTO leases (name, owner, expires_at) VALUES ($1, $2, db_now_ms() + $3)
       ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
       WHERE leases.owner = excluded.owner OR leases.expires_at < db_now_ms()`,
      [name, owner, ttlMs],
    );
    return rowCount === 1;
  }

  /** Extends a lease this owner holds; false when it was lost (expired and taken). */
  async renewLease(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const { rowCount } = await this.pool.query('UPDATE leases SET expires_at = db_now_ms() + $1 WHERE name = $2 AND owner = $3', [ttlMs, name, owner]);
    return rowCount === 1;
  }

  async releaseLease(name: string, owner: string): Promise<void> {
    await this.pool.query('DELETE FROM leases WHERE name = $1 AND owner = $2', [name, owner]);
  }

  /** The live holder of a lease, or null. */
  async leaseHolder(name: string): Promise<{ owner: string; expiresAt: number } | null> {
    const { rows } = await this.pool.query<{ owner: string; expires_at: number }>('SELECT owner, expires_at FROM leases WHERE name = $1 AND expires_at >= db_now_ms()', [name]);
    return rows[0] ? { owner: rows[0].owner, expiresAt: rows[0].expires_at } : null;
  }

  async probe(): Promise<void> {
    await this.pool.query('SELECT 1 FROM authority WHERE id = 1');
  }
}

export class PgRateLimitRepository implements RateLimitRepository {
  private readonly pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.pool = pool;
  }

  /**
   * One sliding window per (Client, bucket), shared by every process on every host: one request (or a batch)
   * is counted in every bucket if each window has room, all or nothing (take_rate_batch, migrations.ts: one
   * round trip).
   */
  async takeSlots(clientId: string, buckets: readonly RateSlotRequest[], windowMs: number, batch?: RateBatchPolicy): Promise<RateWindowDecision> {
    const { rows } = await this.pool.query<{ allowed: boolean; retry_after_ms: string; granted: number[]; stamped_at: string }>(
      'SELECT allowed, retry_after_ms, granted, stamped_at FROM take_rate_batch($1, $2::text[], $3::integer[], $4::integer[], $5, $6, $7, $8)',
      [clientId, buckets.map((entry) => entry.bucket), buckets.map((entry) => entry.limit), buckets.map((entry) => entry.wanted ?? 1), windowMs, batch?.lifetimeMs ?? 0, batch?.roomShare ?? 0, batch?.minRoom ?? 0],
    );
    const row = rows[0];
    return { allowed: row.allowed, retryAfterMs: Number(row.retry_after_ms), granted: row.granted, stampedAt: Number(row.stamped_at) };
  }

  async returnSlots(clientId: string, bucket: string, count: number, stampedAt: number): Promise<void> {
    await this.pool.query('SELECT return_rate_slots($1, $2, $3, $4)', [clientId, bucket, count, stampedAt]);
  }

  async countSlots(clientId: string, bucket: string, windowMs: number): Promise<number> {
    const { rows } = await this.pool.query<{ hits: number }>('SELECT count(*)::integer AS hits FROM rate_hits WHERE client_id = $1 AND bucket = $2 AND at > db_now_ms() - $3', [clientId, bucket, windowMs]);
    return rows[0].hits;
  }

  async recordSlots(clientId: string, bucket: string, agesMs: readonly number[]): Promise<void> {
    if (agesMs.length === 0) return;
    // Under the Client's rate-window lock, as take_rate_batch counts: no decision sees half of them.
    await sharedTransaction(this.pool, async (sql) => {
      await sql.query(`SELECT pg_advisory_xact_lock(${RATE_WINDOW_LOCK}, hashtext($1))`, [clientId]);
      await sql.query('INSERT INTO rate_hits (client_id, bucket, at) SELECT $1, $2, db_now_ms() - age FROM unnest($3::bigint[]) AS age', [clientId, bucket, [...agesMs].map(Math.round)]);
      await sql.query('INSERT INTO rate_counts (client_id, bucket, hits) VALUES ($1, $2, $3) ON CONFLICT (client_id, bucket) DO UPDATE SET hits = rate_counts.hits + excluded.hits', [clientId, bucket, agesMs.length]);
    });
  }
}

export class PgSecretRepository implements SecretRepository {
  private readonly pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.pool = pool;
  }

  /**
   * A secret shared by every process of the deployment: the first caller creates it (random, 32 bytes),
   * everyone after reads the same value. Never logged or returned to callers.
   */
  async deploymentSecret(name: string): Promise<string> {
    return sharedTransaction(this.pool, async (sql) => {
      // Two statements: the read after the insert sees a value another process committed meanwhile.
      await sql.query('INSERT INTO deployment_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [name, randomBytes(32).toString('hex')]);
      return (await sql.query<{ value: string }>('SELECT value FROM deployment_secrets WHERE name = $1', [name])).rows[0].value;
    });
  }
}

/** Each Client's synonym set with its version (a shared row: search reads it outside a Client transaction). */
export class PgSettingsRepository implements SettingsRepository {
  private readonly pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.pool = pool;
  }

  async synonymsVersion(clientId: string): Promise<number> {
    const { rows } = await this.pool.query<{ version: string }>('SELECT version FROM client_synonyms WHERE client_id = $1', [clientId]);
    return rows[0] ? Number(rows[0].version) : 0;
  }

  async synonyms(clientId: string): Promise<StoredSynonyms | null> {
    const { rows } = await this.pool.query<{ version: string; rules: string }>('SELECT version, rules FROM client_synonyms WHERE client_id = $1', [clientId]);
    return rows[0] ? { version: Number(rows[0].version), rules: rows[0].rules } : null;
  }

  async setSynonyms(clientId: string, rules: string): Promise<number> {
    const { rows } = await this.pool.query<{ version: string }>(
      `INSERT INTO client_synonyms (client_id, rules, version) VALUES ($1, $2, 1)
       ON CONFLICT (client_id) DO UPDATE SET rules = excluded.rules, version = client_synonyms.version + 1
       RETURNING version`,
      [clientId, rules],
    );
    return Number(rows[0].version);
  }
}
