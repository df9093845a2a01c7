// The SQLite job repository, in the control database: enqueue, claim with a lease, retry, finish, look up.
// Every read that serves a caller is keyed by client_id too, so one Client never sees another's job.

import { randomUUID } from 'node:crypto';
import type { Database } from './database.ts';
import { cachedStatement, transaction } from './database.ts';
import type { JobOperation, JobState } from '../../domain/job-states.ts';
import type { JobIdentity, JobRecord, NewJob } from '../../domain/jobs.ts';
import type { JsonObject } from '../../domain/canonical-metadata.ts';
import type { JobRepository } from '../port.ts';
import { outcomeColumns, TERMINAL_JOB_STATES_SQL, toJobRecord, UPDATE_IN_ORDER } from '../shared/job-rows.ts';
import type { JobRow } from '../shared/job-rows.ts';
import { eventOfJobState } from '../../domain/webhooks.ts';
import { eventPattern, outboxRows, subscribedWebhooks } from '../shared/webhook-rows.ts';
import { writeOutbox } from './webhooks.ts';

/** The first eligible job of one kind, in (next_run_at, seq) order; ?1 is now. */
const firstRunnable = (kind: string) => `SELECT * FROM (SELECT j.seq, j.next_run_at FROM jobs j WHERE ${kind} AND ${UPDATE_IN_ORDER} ORDER BY j.next_run_at, j.seq LIMIT 1)`;

/** The seq of the job to claim next (SqliteJobRepository.claim); ?1 is now. */
const CLAIM_NEXT = `SELECT seq FROM (
  ${firstRunnable(`j.status = 'pending' AND j.next_run_at <= ?1`)}
  UNION ALL ${firstRunnable(`j.status = 'retrying' AND j.next_run_at <= ?1`)}
  UNION ALL ${firstRunnable(`j.status IN ('started', 'processing') AND j.lease_expires_at < ?1`)}
) ORDER BY next_run_at, seq LIMIT 1`;

/**
 * A job with its request. The request (an upload's whole text, for a text upload) lives in job_requests, written
 * once: SQLite rewrites a whole row on any update, and a job's row changes at every step of its life.
 */
const JOB_WITH_REQUEST = 'SELECT j.*, r.request FROM jobs j LEFT JOIN job_requests r ON r.seq = j.seq';

export class SqliteJobRepository implements JobRepository {
  private readonly db: Database;
  private readonly now: () => number;

  constructor(db: Database, now: () => number = Date.now) {
    this.db = db;
    this.now = now;
  }

  async enqueue(job: NewJob): Promise<JobRecord> {
    const at = new Date(this.now()).toISOString();
    const request = JSON.stringify(job.request);
    const row = transaction(this.db, () => {
      const inserted = cachedStatement(
          this.db,
          `INSERT INTO jobs (job_id, client_id, operation, document_id, version_key, status, max_attempts, next_run_at, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?) RETURNING *`,
        )
        .get(randomUUID(), job.clientId, job.operation, job.documentId, job.versionKey, job.maxAttempts, this.now(), at, at) as unknown as JobRow;
      cachedStatement(this.db, 'INSERT INTO job_requests (seq, request) VALUES (?, ?)').run(inserted.seq, request);
      return inserted;
    });
    return toJobRecord({ ...row, request });
  }

  /** The Client's job, or null for an unknown id and for another Client's id alike. */
  async get(clientId: string, jobId: string): Promise<JobRecord | null> {
    const row = cachedStatement(this.db, `${JOB_WITH_REQUEST} WHERE j.job_id = ? AND j.client_id = ?`).get(jobId, clientId) as JobRow | undefined;
    return row ? toJobRecord(row) : null;
  }

  async getById(jobId: string): Promise<JobRecord | null> {
    const row = cachedStatement(this.db, `${JOB_WITH_REQUEST} WHERE j.job_id = ?`).get(jobId) as JobRow | undefined;
    return row ? toJobRecord(row) : null;
  }

  /**
   * Claims the oldest runnable job: pending or retrying and due, or started/processing with an expired
   * lease (its worker died). Each claim counts one attempt. A metadata update waits (pending) while an update
   * of the same document accepted before it is not finished: updates apply in the order they were accepted,
   * each merged onto the last, instead of racing and superseding one another.
   * Each kind of runnable job is found in the order jobs_runnable already holds it (status, next_run_at, seq),
   * stopping at its first eligible row, and the oldest of those is taken: the cost of a claim does not grow with
   * the backlog. (One query over all the runnable rows at once sorted every one of them: 28 ms a claim with
   * 20,000 jobs waiting, against 0.03 ms.)
   */
  async claim(owner: string, leaseMs: number): Promise<JobRecord | null> {
    const now = this.now();
    return transaction(this.db, () => {
      const row = cachedStatement(this.db, CLAIM_NEXT).get(now) as { seq: number } | undefined;
      if (!row) return null;
      const claimed = cachedStatement(
          this.db,
          `UPDATE jobs SET status = 'started', attempts = attempts + 1, lease_owner = ?, lease_expires_at = ?, updated_at = ?
           WHERE seq = ? RETURNING *`,
        )
        .get(owner, now + leaseMs, new Date(now).toISOString(), row.seq) as unknown as JobRow;
      const request = cachedStatement(this.db, 'SELECT request FROM job_requests WHERE seq = ?').get(row.seq) as { request: string } | undefined;
      return toJobRecord({ ...claimed, request: request?.request ?? null });
    });
  }

  /** Extends a lease and optionally moves the job to another in-flight state; false when the lease was lost. */
  async heartbeat(jobId: string, owner: string, leaseMs: number, status?: JobState): Promise<boolean> {
    const now = this.now();
    const changes = cachedStatement(
        this.db,
        `UPDATE jobs SET lease_expires_at = ?, status = COALESCE(?, status), updated_at = ?
         WHERE job_id = ? AND lease_owner = ? AND status IN ('started', 'processing')`,
      )
      .run(now + leaseMs, status ?? null, new Date(now).toISOString(), jobId, owner).changes;
    return Number(changes) === 1;
  }

  /**
   * Records a terminal outcome, and in the same transaction one pending delivery per webhook of the Client that
   * wants its event (the outbox): no outcome is recorded without them. False when this owner no longer holds the job.
   */
  async finish(jobId: string, owner: string, outcome: { status: JobState; result?: JsonObject | null; error?: string | null; errorDetails?: JsonObject | null }): Promise<boolean> {
    const now = this.now();
    const at = new Date(now).toISOString();
    return transaction(this.db, () => {
      const finished = cachedStatement(
          this.db,
          `UPDATE jobs SET status = ?, result = ?, error = ?, error_details = ?, lease_owner = NULL, lease_expires_at = NULL,
             updated_at = ?, completed_at = ?
           WHERE job_id = ? AND lease_owner = ? RETURNING client_id, operation, document_id, version_key`,
        )
        .get(...outcomeColumns(outcome), at, at, jobId, owner) as Pick<JobRow, 'client_id' | 'operation' | 'document_id' | 'version_key'> | undefined;
      if (!finished) return false;
      const event = eventOfJobState(outcome.status);
      if (event === null) return true;
      const subscribed = cachedStatement(this.db, subscribedWebhooks('?', '?')).all(finished.client_id, eventPattern(event)) as { webhook_id: string }[];
      const identity = { jobId, operation: finished.operation as JobOperation, documentId: finished.document_id, versionKey: finished.version_key };
      writeOutbox(this.db, finished.client_id, finished.document_id, jobId, outboxRows(identity, outcome.status, subscribed.map((row) => row.webhook_id), at), now);
      return true;
    });
  }

  async scheduleRetry(jobId: string, owner: string, error: string, delayMs: number): Promise<boolean> {
    const now = this.now();
    const changes = cachedStatement(
        this.db,
        `UPDATE jobs SET status = 'retrying', error = ?, next_run_at = ?, lease_owner = NULL, lease_expires_at = NULL, updated_at = ?
         WHERE job_id = ? AND lease_owner = ?`,
      )
      .run(error, now + delayMs, new Date(now).toISOString(), jobId, owner).changes;
    return Number(changes) === 1;
  }

  /** Keeps a running job's intermediate facts (what it staged) so a later attempt can resume from them. */
  async recordProgress(jobId: string, owner: string, progress: JsonObject): Promise<boolean> {
    const changes = cachedStatement(this.db, 'UPDATE jobs SET result = ? WHERE job_id = ? AND lease_owner = ?').run(JSON.stringify(progress), jobId, owner).changes;
    return Number(changes) === 1;
  }

  /**
   * Publication is paused: the job waits for it without spending an attempt (the claim's attempt is given
   * back), remembering when the wait began. False when this owner no longer holds the job.
   */
  async waitForPublication(jobId: string, owner: string, message: string, delayMs: number): Promise<boolean> {
    const now = this.now();
    const changes = cachedStatement(
        this.db,
        `UPDATE jobs SET status = 'retrying', error = ?, next_run_at = ?, attempts = attempts - 1,
           publication_wait_since = COALESCE(publication_wait_since, ?), lease_owner = NULL, lease_expires_at = NULL, updated_at = ?
         WHERE job_id = ? AND lease_owner = ?`,
      )
      .run(message, now + delayMs, now, new Date(now).toISOString(), jobId, owner).changes;
    return Number(changes) === 1;
  }

  /** Hands a claimed job back untouched (graceful shutdown): the attempt does not count. */
  async release(jobId: string, owner: string): Promise<void> {
    cachedStatement(
        this.db,
        `UPDATE jobs SET status = CASE WHEN attempts > 1 THEN 'retrying' ELSE 'pending' END, attempts = attempts - 1,
           lease_owner = NULL, lease_expires_at = NULL, next_run_at = ?, updated_at = ?
         WHERE job_id = ? AND lease_owner = ?`,
      )
      .run(this.now(), new Date(this.now()).toISOString(), jobId, owner);
  }

  /** The newest upload job accepted for a Document Version (the one that owns it). */
  async newestEmbedJob(clientId: string, documentId: string, versionKey: string): Promise<JobIdentity | null> {
    const row = cachedStatement(
        this.db,
        `SELECT seq, job_id FROM jobs WHERE client_id = ? AND document_id = ? AND version_key = ? AND operation = 'embed'
         ORDER BY seq DESC LIMIT 1`,
      )
      .get(clientId, documentId, versionKey) as { seq: number; job_id: string } | undefined;
    return row ? { seq: row.seq, jobId: row.job_id } : null;
  }

  /** Removes job bindings of a hard-deleted document (all versions when versionKey is null). */
  async deleteForDocument(clientId: string, documentId: string, versionKey: string | null): Promise<string[]> {
    const rows = (versionKey === null
      ? cachedStatement(this.db, 'DELETE FROM jobs WHERE client_id = ? AND document_id = ? RETURNING job_id').all(clientId, documentId)
      : cachedStatement(this.db, 'DELETE FROM jobs WHERE client_id = ? AND document_id = ? AND (version_key = ? OR version_key IS NULL) RETURNING job_id')
          .all(clientId, documentId, versionKey)) as { job_id: string }[];
    return rows.map((row) => row.job_id);
  }

  async uploadsForDocument(clientId: string, documentId: string, versionKey: string | null): Promise<string[]> {
    const select = `SELECT json_extract(r.request, '$.upload') AS upload FROM jobs j JOIN job_requests r ON r.seq = j.seq WHERE j.client_id = ? AND j.document_id = ?`;
    const rows = (versionKey === null
      ? cachedStatement(this.db, select).all(clientId, documentId)
      : cachedStatement(this.db, `${select} AND (j.version_key = ? OR j.version_key IS NULL)`).all(clientId, documentId, versionKey)) as { upload: string | null }[];
    return rows.flatMap((row) => (row.upload ? [row.upload] : []));
  }

  async countsByOperationAndState(): Promise<{ operation: string; status: string; count: number }[]> {
    return cachedStatement(this.db, 'SELECT operation, status, COUNT(*) AS count FROM jobs GROUP BY operation, status').all() as {
      operation: string;
      status: string;
      count: number;
    }[];
  }

  /** Upload files that jobs not yet terminal still need. */
  async liveUploadNames(): Promise<Set<string>> {
    const rows = cachedStatement(this.db, `SELECT json_extract(r.request, '$.upload') AS upload FROM jobs j JOIN job_requests r ON r.seq = j.seq
       WHERE j.status NOT IN ${TERMINAL_JOB_STATES_SQL}`)
      .all() as { upload: string | null }[];
    return new Set(rows.flatMap((row) => (row.upload ? [row.upload] : [])));
  }
}
