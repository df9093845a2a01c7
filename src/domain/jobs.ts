// Durable jobs as services see them: the record, a new job, a handler's outcome and the two failures a
// handler may raise on purpose (retry later; wait for publication). Records, new jobs and outcomes are typed by
// operation (job-payloads.ts): a discriminated union on `operation`. The queue and the worker apply them.

import type { JobOperation, JobState } from './job-states.ts';
import type { JsonObject } from './canonical-metadata.ts';
import type { JobProgress, JobRequest, JobResult, SupersededResult } from './job-payloads.ts';

/** What every job record holds, whatever its operation. */
interface JobRecordFields {
  seq: number;
  jobId: string;
  clientId: string;
  documentId: string;
  /** Storage key of the target version ('' = null version); null when a job targets every version. */
  versionKey: string | null;
  status: JobState;
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

/** A job of one operation: the request it was accepted with, and its progress or result so far (null before any). */
export type JobRecordOf<O extends JobOperation> = JobRecordFields & {
  operation: O;
  request: JobRequest<O>;
  result: JobResult<O> | null;
};

/** A job of any operation: `operation` tells which request and result it carries. */
export type JobRecord = { [O in JobOperation]: JobRecordOf<O> }[JobOperation];

/** What names a job and orders it among the others: its id and its place in the queue. */
export type JobIdentity = Pick<JobRecord, 'seq' | 'jobId'>;

/** A job to accept: its operation's request. */
export type NewJob = {
  [O in JobOperation]: {
    clientId: string;
    operation: O;
    documentId: string;
    versionKey: string | null;
    request: JobRequest<O>;
    maxAttempts: number;
  };
}[JobOperation];

/** How a handler of one operation ends a job: a terminal state, and that operation's result. */
export type JobOutcomeOf<O extends JobOperation> = {
  status: Extract<JobState, 'completed' | 'failed' | 'partial_failed' | 'superseded'>;
  result?: JobResult<O>;
  error?: string | null;
  /** Why it failed, as the status answer's error_details (a code and its fields; never a stored value). */
  errorDetails?: JsonObject | null;
};

export type JobOutcome = JobOutcomeOf<JobOperation>;

/**
 * SPEC.md: a later publication of the same Document Version landed between a job's staging and its activation;
 * the job neither overwrites it nor merges onto it, and ends superseded.
 */
export const REPLACEMENT_OVERTAKEN: { status: 'superseded'; result: SupersededResult; error: null } = {
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

export interface JobContext<O extends JobOperation = JobOperation> {
  /** Renews the lease, optionally moving the job to `processing`; throws if the lease was lost. */
  heartbeat(status?: 'processing'): Promise<void>;
  /** Records what the job has durably done so far (for example the generation it staged), for a later attempt. */
  recordProgress(progress: JobProgress<O>): Promise<void>;
}

/** Runs one job of its operation to an outcome (or throws RetryableJobError, PublicationPaused, ...). */
export type JobHandler<O extends JobOperation> = (job: JobRecordOf<O>, context: JobContext<O>) => Promise<JobOutcomeOf<O>>;

/** One handler for every operation: what the worker runs (jobs/handler-registry.ts builds it at start-up). */
export type JobHandlers = { readonly [O in JobOperation]: JobHandler<O> };
