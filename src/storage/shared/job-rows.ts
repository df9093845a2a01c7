// A job's row as both adapters store it, read as the domain's JobRecord, and the queue's rules as the SQL both
// dialects read alike (the order metadata updates run in, the states after which a job needs nothing more).
// No driver here: each adapter writes and runs its own statements around these.

import type { JobOperation, JobState } from '../../domain/job-states.ts';
import type { JobRecord } from '../../domain/jobs.ts';
import type { JsonObject } from '../../domain/canonical-metadata.ts';

/** A job's row. The SQLite adapter keeps the request in a table of its own (job_requests), joined in. */
export interface JobRow {
  seq: number;
  job_id: string;
  client_id: string;
  operation: string;
  document_id: string;
  version_key: string | null;
  status: string;
  /** Null only where the request's own row (SQLite's job_requests) was removed by hand. */
  request: string | null;
  result: string | null;
  error: string | null;
  error_details: string | null;
  attempts: number;
  max_attempts: number;
  next_run_at: number;
  lease_owner: string | null;
  lease_expires_at: number | null;
  publication_wait_since: number | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

export function toJobRecord(row: JobRow): JobRecord {
  return {
    seq: row.seq,
    jobId: row.job_id,
    clientId: row.client_id,
    operation: row.operation as JobOperation,
    documentId: row.document_id,
    versionKey: row.version_key,
    status: row.status as JobState,
    request: JSON.parse(row.request ?? 'null'),
    result: row.result === null ? null : JSON.parse(row.result),
    error: row.error,
    errorDetails: row.error_details === null ? null : JSON.parse(row.error_details),
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    nextRunAt: row.next_run_at,
    leaseOwner: row.lease_owner,
    leaseExpiresAt: row.lease_expires_at,
    publicationWaitSince: row.publication_wait_since,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    completedAt: row.completed_at,
  };
}

/** A finished job's outcome as its columns hold it: status, result, error, error_details (JSON as text). */
export function outcomeColumns(outcome: { status: JobState; result?: JsonObject | null; error?: string | null; errorDetails?: JsonObject | null }): [string, string | null, string | null, string | null] {
  return [outcome.status, outcome.result ? JSON.stringify(outcome.result) : null, outcome.error ?? null, outcome.errorDetails ? JSON.stringify(outcome.errorDetails) : null];
}

/** Job states after which a job needs nothing more (its upload can go), as an SQL list. */
export const TERMINAL_JOB_STATES_SQL = `('completed', 'superseded', 'failed', 'partial_failed')`;

/**
 * A metadata update (the job row `j`) is not runnable while an update of its document accepted before it is
 * unfinished: updates apply in the order they were accepted, each merged onto the last, instead of racing.
 */
export const UPDATE_IN_ORDER = `NOT (j.operation = 'metadata_update' AND EXISTS (
  SELECT 1 FROM jobs earlier
  WHERE earlier.client_id = j.client_id AND earlier.document_id = j.document_id AND earlier.seq < j.seq
    AND earlier.operation = 'metadata_update' AND earlier.status IN ('pending', 'started', 'processing', 'retrying')))`;
