// Durable jobs as services see them: the record, a new job, a handler's outcome and the two failures a
// handler may raise on purpose (retry later; wait for publication). The queue and the worker apply them.

import type { JobOperation, JobState } from './job-states.ts';
import type { JsonObject } from './canonical-metadata.ts';

export interface JobRecord {
  seq: number;
  jobId: string;
  clientId: string;
  operation: JobOperation;
  documentId: string;
  /** Storage key of the target version ('' = null version); null when a job targets every version. */
  versionKey: string | null;
  status: JobState;
  request: JsonObject;
  result: JsonObject | null;
  error: string | null;
  errorDetails: JsonObject | null;
  attempts: number;
  maxAttempts: number;
  nextRunAt: number;
  leaseOwner: string | null;
  leaseExpiresAt: number | null;
  /** When the job first found publication paused (ms since epoch), or null. */
  publicationWaitSince: number | null;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
}

/** What names a job and orders it among the others: its id and its place in the queue. */
export type JobIdentity = Pick<JobRecord, 'seq' | 'jobId'>;

export interface NewJob {
  clientId: string;
  operation: JobOperation;
  documentId: string;
  versionKey: string | null;
  request: JsonObject;
  maxAttempts: number;
}

export interface JobOutcome {
  status: Extract<JobState, 'completed' | 'failed' | 'partial_failed' | 'superseded'>;
  result?: JsonObject;
  error?: string | null;
  errorDetails?: JsonObject | null;
}

/**
 * SPEC.md: a later publication of the same Document Version landed between a job's staging and its activation;
 * the job neither overwrites it nor merges onto it, and ends superseded.
 */
export const REPLACEMENT_OVERTAKEN: JobOutcome = {
  status: 'superseded',
  result: { publication_status: 'superseded', superseded_by_job_id: null, superseded_reason: 'replacement_overtaken' },
  error: null,
};

/** A failure worth another attempt (a flaky provider, a busy file system). */
export class RetryableJobError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RetryableJobError';
  }
}

/**
 * Publication is not READY, so the job cannot activate. Its work so far (a staged generation) is kept and the
 * job waits, without spending an attempt, until READY returns or PUBLICATION_WAIT_SECONDS run out.
 */
export class PublicationPaused extends Error {
  readonly mode: string;
  constructor(mode: string) {
    super(`Waiting for publication (authority ${mode})`);
    this.name = 'PublicationPaused';
    this.mode = mode;
  }
}

export interface JobContext {
  /** Renews the lease, optionally moving the job to `processing`; throws if the lease was lost. */
  heartbeat(status?: 'processing'): Promise<void>;
  /** Records what the job has durably done so far (for example the generation it staged), for a later attempt. */
  recordProgress(progress: JsonObject): Promise<void>;
}

export type JobHandler = (job: JobRecord, context: JobContext) => Promise<JobOutcome>;
