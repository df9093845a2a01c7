// The PostgreSQL job repository: enqueue, claim with a lease (FOR UPDATE SKIP LOCKED, so workers on any host
// never wait for each other's claims), retry, finish, look up. Lease and run times are milliseconds of the
// database's clock, never a process's. Every read that serves a caller is keyed by client_id too.

import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { sharedTransaction } from './database.ts';
import type { JobOperation, JobState } from '../../domain/job-states.ts';
import { eventOfJobState } from '../../domain/webhooks.ts';
import { eventPattern, outboxRows, subscribedWebhooks } from '../shared/webhook-rows.ts';
import { writeOutbox } from './webhooks.ts';
import type { JobIdentity, JobRecord, NewJob } from '../../domain/jobs.ts';
import type { JsonObject } from '../../domain/canonical-metadata.ts';
import type { JobRepository } from '../port.ts';
import { outcomeColumns, TERMINAL_JOB_STATES_SQL, toJobRecord, UPDATE_IN_ORDER } from '../shared/job-rows.ts';
import type { JobRow } from '../shared/job-rows.ts';

/** The first eligible job of one kind in claim order, locked unless another claim holds it. */
const firstRunnable = (kind: string) =>
  `SELECT j.seq, j.next_run_at FROM jobs j WHERE ${kind} AND ${UPDATE_IN_ORDER} ORDER BY j.next_run_at, j.seq LIMIT 1 FOR UPDATE OF j SKIP LOCKED`;

/**
 * `next`: the job a claim takes. Each kind of runnable job is read in the order jobs_claim_order holds it, up to
 * its first eligible row, and the oldest of those is taken, so a claim does not sort the whole backlog (one query
 * over every runnable row took 52 ms a claim with 20,000 jobs waiting). FOR UPDATE is not allowed beside UNION,
 * hence one CTE per kind; the candidates not taken are unlocked when the statement ends.
 */
const CLAIM_CANDIDATES = `WITH due AS (${firstRunnable(`j.status = 'pending' AND j.next_run_at <= db_now_ms()`)}),
  retry AS (${firstRunnable(`j.status = 'retrying' AND j.next_run_at <= db_now_ms()`)}),
  expired AS (${firstRunnable(`j.status IN ('started', 'processing') AND j.lease_expires_at < db_now_ms()`)}),
  next AS (SELECT seq FROM (SELECT * FROM due UNION ALL SELECT * FROM retry UNION ALL SELECT * FROM expired) candidates ORDER BY next_run_at, seq LIMIT 1)`;

export class PgJobRepository implements JobRepository {
  private readonly pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.pool = pool;
  }

  /** One statement, its own transaction. */
  private async one(text: string, values: unknown[]): Promise<JobRow | undefined> {
    return (await this.pool.query<JobRow>(text, values)).rows[0];
  }

  private async changed(text: string, values: unknown[]): Promise<boolean> {
    return (await this.pool.query(text, values)).rowCount === 1;
  }

  async enqueue(job: NewJob): Promise<JobRecord> {
    const row = await this.one(
      `INSERT INTO jobs (job_id, client_id, operation, document_id, version_key, status, request, max_attempts, next_run_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, 'pending', $6, $7, db_now_ms(), db_now(), db_now()) RETURNING *`,
      [randomUUID(), job.clientId, job.operation, job.documentId, job.versionKey, JSON.stringify(job.request), job.maxAttempts],
    );
    return toJobRecord(row!);
  }

  /** The Client's job, or null for an unknown id and for another Client's id alike. */
  async get(clientId: string, jobId: string): Promise<JobRecord | null> {
    const row = await this.one('SELECT * FROM jobs WHERE job_id = $1 AND client_id = $2', [jobId, clientId]);
    return row ? toJobRecord(row) : null;
  }

  async getById(jobId: string): Promise<JobRecord | null> {
    const row = await this.one('SELECT * FROM jobs WHERE job_id = $1', [jobId]);
    return row ? toJobRecord(row) : null;
  }

  /**
   * Claims the oldest runnable job: pending or retrying and due, or started/processing with an expired lease
   * (its worker died). Each claim counts one attempt. A row another worker is claiming is skipped, not waited for.
   * A metadata update waits (pending) while an update of the same document accepted before it is not finished,
   * so that updates apply in the order they were accepted (as the SQLite adapter does).
   */
  async claim(owner: string, leaseMs: number): Promise<JobRecord | null> {
    const row = await this.one(
      `${CLAIM_CANDIDATES}
       UPDATE jobs SET status = 'started', attempts = attempts + 1, lease_owner = $1, lease_expires_at = db_now_ms() + $2, updated_at = db_now()
       FROM next WHERE jobs.seq = next.seq RETURNING jobs.*`,
      [owner, leaseMs],
    );
    return row ? toJobRecord(row) : null;
  }

  /** Extends a lease and optionally moves the job to another in-flight state; false when the lease was lost. */
  async heartbeat(jobId: string, owner: string, leaseMs: number, status?: JobState): Promise<boolean> {
    return this.changed(
      `UPDATE jobs SET lease_expires_at = db_now_ms() + $1, status = COALESCE($2, status), updated_at = db_now()
       WHERE job_id = $3 AND lease_owner = $4 AND status IN ('started', 'processing')`,
      [leaseMs, status ?? null, jobId, owner],
    );
  }

  /**
   * Records a terminal outcome, and in the same transaction one pending delivery per webhook of the Client that
   * wants its event (the outbox): no outcome is recorded without them. False when this owner no longer holds the job.
   */
  async finish(jobId: string, owner: string, outcome: { status: JobState; result?: JsonObject | null; error?: string | null; errorDetails?: JsonObject | null }): Promise<boolean> {
    return sharedTransaction(this.pool, async (sql) => {
      const { rows } = await sql.query<Pick<JobRow, 'client_id' | 'operation' | 'document_id' | 'version_key' | 'completed_at'>>(
        `UPDATE jobs SET status = $1, result = $2, error = $3, error_details = $4, lease_owner = NULL, lease_expires_at = NULL,
           updated_at = db_now(), completed_at = db_now()
         WHERE job_id = $5 AND lease_owner = $6 RETURNING client_id, operation, document_id, version_key, completed_at`,
        [...outcomeColumns(outcome), jobId, owner],
      );
      const finished = rows[0];
      if (!finished) return false;
      const event = eventOfJobState(outcome.status);
      if (event === null) return true;
      const { rows: subscribed } = await sql.query<{ webhook_id: string }>(subscribedWebhooks('$1', '$2'), [finished.client_id, eventPattern(event)]);
      const identity = { jobId, operation: finished.operation as JobOperation, documentId: finished.document_id, versionKey: finished.version_key };
      await writeOutbox(sql, finished.client_id, finished.document_id, jobId, outboxRows(identity, outcome.status, subscribed.map((row) => row.webhook_id), finished.completed_at!));
      return true;
    });
  }

  async scheduleRetry(jobId: string, owner: string, error: string, delayMs: number): Promise<boolean> {
    return this.changed(
      `UPDATE jobs SET status = 'retrying', error = $1, next_run_at = db_now_ms() + $2, lease_owner = NULL, lease_expires_at = NULL, updated_at = db_now()
       WHERE job_id = $3 AND lease_owner = $4`,
      [error, delayMs, jobId, owner],
    );
  }

  /** Keeps a running job's intermediate facts (what it staged) so a later attempt can resume from them. */
  async recordProgress(jobId: string, owner: string, progress: JsonObject): Promise<boolean> {
    return this.changed('UPDATE jobs SET result = $1 WHERE job_id = $2 AND lease_owner = $3', [JSON.stringify(progress), jobId, owner]);
  }

  /**
   * Publication is paused: the job waits for it without spending an attempt (the claim's attempt is given
   * back), remembering when the wait began. False when this owner no longer holds the job.
   */
  async waitForPublication(jobId: string, owner: string, message: string, delayMs: number): Promise<boolean> {
    return this.changed(
      `UPDATE jobs SET status = 'retrying', error = $1, next_run_at = db_now_ms() + $2, attempts = attempts - 1,
         publication_wait_since = COALESCE(publication_wait_since, db_now_ms()), lease_owner = NULL, lease_expires_at = NULL, updated_at = db_now()
       WHERE job_id = $3 AND lease_owner = $4`,
      [message, delayMs, jobId, owner],
    );
  }

  /** Hands a claimed job back untouched (graceful shutdown): the attempt does not count. */
  async release(jobId: string, owner: string): Promise<void> {
    await this.pool.query(
      `UPDATE jobs SET status = CASE WHEN attempts > 1 THEN 'retrying' ELSE 'pending' END, attempts = attempts - 1,
         lease_owner = NULL, lease_expires_at = NULL, next_run_at = db_now_ms(), updated_at = db_now()
       WHERE job_id = $1 AND lease_owner = $2`,
      [jobId, owner],
    );
  }

  /** The newest upload job accepted for a Document Version (the one that owns it). */
  async newestEmbedJob(clientId: string, documentId: string, versionKey: string): Promise<JobIdentity | null> {
    const { rows } = await this.pool.query<{ seq: number; job_id: string }>(
      `SELECT seq, job_id FROM jobs WHERE client_id = $1 AND document_id = $2 AND version_key = $3 AND operation = 'embed'
       ORDER BY seq DESC LIMIT 1`,
      [clientId, documentId, versionKey],
    );
    return rows[0] ? { seq: rows[0].seq, jobId: rows[0].job_id } : null;
  }

  /** Removes job bindings of a hard-deleted document (all versions when versionKey is null). */
  async deleteForDocument(clientId: string, documentId: string, versionKey: string | null): Promise<string[]> {
    const { rows } = await (versionKey === null
      ? this.pool.query<{ job_id: string }>('DELETE FROM jobs WHERE client_id = $1 AND document_id = $2 RETURNING job_id', [clientId, documentId])
      : this.pool.query<{ job_id: string }>('DELETE FROM jobs WHERE client_id = $1 AND document_id = $2 AND (version_key = $3 OR version_key IS NULL) RETURNING job_id', [
          clientId,
          documentId,
          versionKey,
        ]));
    return rows.map((row) => row.job_id);
  }

  async uploadsForDocument(clientId: string, documentId: string, versionKey: string | null): Promise<string[]> {
    const select = `SELECT request::json ->> 'upload' AS upload FROM jobs WHERE client_id = $1 AND document_id = $2`;
    const { rows } = await (versionKey === null
      ? this.pool.query<{ upload: string | null }>(select, [clientId, documentId])
      : this.pool.query<{ upload: string | null }>(`${select} AND (version_key = $3 OR version_key IS NULL)`, [clientId, documentId, versionKey]));
    return rows.flatMap((row) => (row.upload ? [row.upload] : []));
  }

  async countsByOperationAndState(): Promise<{ operation: string; status: string; count: number }[]> {
    const { rows } = await this.pool.query<{ operation: string; status: string; count: number }>('SELECT operation, status, count(*) AS count FROM jobs GROUP BY operation, status');
    return rows;
  }

  /** Upload files that jobs not yet terminal still need. */
  async liveUploadNames(): Promise<Set<string>> {
    return sharedTransaction(this.pool, async (sql) => {
      const { rows } = await sql.query<{ upload: string | null }>(`SELECT request::json ->> 'upload' AS upload FROM jobs WHERE status NOT IN ${TERMINAL_JOB_STATES_SQL}`);
      return new Set(rows.flatMap((row) => (row.upload ? [row.upload] : [])));
    });
  }
}
