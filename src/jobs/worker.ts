// The worker loop: claims durable jobs with a lease, runs their handler, records the outcome or a retry.
// A job whose worker dies is claimed again when its lease expires; an accepted job is never dropped.

import { randomUUID } from 'node:crypto';
import type { JobRepository } from '../storage/port.ts';
import type { JobOperation, JobState } from '../domain/job-states.ts';
import { PublicationPaused, RetryableJobError } from '../domain/jobs.ts';
import type { JobContext, JobHandler, JobHandlers, JobOutcome, JobOutcomeOf, JobRecord, JobRecordOf } from '../domain/jobs.ts';
import type { StoreFailure } from '../domain/store-failure.ts';

export interface WorkerOptions {
  concurrency: number;
  pollMs: number;
  leaseMs: number;
  retryBaseMs: number;
  /** PUBLICATION_WAIT_SECONDS in ms: how long a job may wait for publication to return to READY. */
  publicationWaitMs: number;
  /** How often a waiting job looks at the authority again. */
  publicationPollMs: number;
  /** Called for each state a job enters, for metrics. */
  onTransition?: (operation: string, status: JobState) => void;
  onError?: (job: JobRecord, error: unknown) => void;
  /** The error a failed job of this operation reports when the worker ends it (its contract may fix the text). */
  failureMessage?: (job: JobRecord, message: string) => string;
  /**
   * The store failure an error means (StoragePort.failureOf): a job stopped by a full or unreachable store says
   * so in its error, and is retried, instead of reporting an internal error.
   */
  storeFailure?: (error: unknown) => StoreFailure | null;
  /** Called when a run of a job ends: how it ended, why, and how long it ran, for metrics and the log. */
  onRunEnded?: (run: RunReport) => void;
}

/**
 * How one run of a job ended: the terminal state it recorded, `retrying` (it will run again), `waiting` (for
 * publication to return to READY), or `lease_lost` (another worker owns it now).
 */
export type RunOutcome = JobOutcome['status'] | 'retrying' | 'waiting' | 'lease_lost';

/** One run of a job, as it ended: what the worker's log line and job_duration_seconds say of it. */
export interface RunReport {
  job: JobRecord;
  outcome: RunOutcome;
  /** Why the run did not complete (RUN_ERROR_CODES, an ingest code, error_details' code); null when it did. */
  errorCode: string | null;
  seconds: number;
}

/**
 * The error codes of a run the worker ended itself. A parse that fails names its own (IngestError: no_text,
 * upload_damaged, ...), a store failure names store_unavailable or storage_full as the API does, and an
 * outcome with error_details names their code (client_quota_exceeded, a metadata contract's violation).
 */
export const RUN_ERROR_CODES = {
  abandoned: 'job_abandoned',
  noHandler: 'no_handler',
  internal: 'internal_error',
  /** A failure worth another attempt that names no code of its own (a flaky provider, a busy file system). */
  transient: 'transient_error',
  publicationPaused: 'publication_paused',
  publicationWaitExceeded: 'publication_wait_exceeded',
  /** A handler's failed or partial_failed outcome that carries no code in its error_details. */
  failed: 'job_failed',
  partialFailed: 'partial_failure',
} as const;

/** How a run ended and why, before its duration is known. */
interface RunEnd {
  outcome: RunOutcome;
  errorCode: string | null;
}

export class LeaseLost extends Error {
  constructor(jobId: string) {
    super(`lease on job ${jobId} was lost`);
    this.name = 'LeaseLost';
  }
}

export const ABANDONED_JOB_ERROR = 'The job was abandoned after its worker stopped repeatedly';
export const INTERNAL_JOB_ERROR = 'Internal processing error';
export const PUBLICATION_WAIT_EXCEEDED = 'Publication did not return to READY in time';
/**
 * A heartbeat that changes no state is skipped when the lease was renewed less than this fraction of it ago: the
 * lease is then good for most of its length, and only its holder changes a claimed job (a claim needs it expired),
 * so the skipped write could neither fail nor tell anything. Short stages of small documents renew once, not at each stage.
 */
export const HEARTBEAT_SKIP_FRACTION = 0.1;

/** Another worker owns the job now: this run says nothing of how the job ends. */
const LEASE_LOST: RunEnd = { outcome: 'lease_lost', errorCode: null };

/** The code an error names of itself (an IngestError's `code`), if any. */
function ownCode(error: unknown): string | null {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : null;
}

/** The error code of an outcome a handler returned: its error_details' code, else one for its state. */
export function outcomeErrorCode(outcome: JobOutcome): string | null {
  if (outcome.status !== 'failed' && outcome.status !== 'partial_failed') return null;
  const code = outcome.errorDetails?.code;
  if (typeof code === 'string') return code;
  return outcome.status === 'failed' ? RUN_ERROR_CODES.failed : RUN_ERROR_CODES.partialFailed;
}

export class Worker {
  readonly owner = `worker-${randomUUID()}`;
  private readonly jobs: JobRepository;
  private readonly handlers: JobHandlers;
  private readonly options: WorkerOptions;
  private readonly running = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private stopping = false;

  /** `handlers`: one per operation, from the JobHandlerRegistry that refuses a missing or duplicate one. */
  constructor(jobs: JobRepository, handlers: JobHandlers, options: WorkerOptions) {
    this.jobs = jobs;
    this.handlers = handlers;
    this.options = options;
  }

  start(): void {
    if (this.options.concurrency === 0) return;
    this.schedule(0);
  }

  /** Looks for work now instead of at the next poll (called when a job is enqueued). */
  wake(): void {
    if (this.stopping || this.options.concurrency === 0) return;
    this.schedule(0);
  }

  get inFlight(): number {
    return this.running.size;
  }

  private schedule(delayMs: number): void {
    if (this.stopping) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.poll(), delayMs);
  }

  private polling = false;

  private poll(): void {
    this.timer = null;
    if (this.polling) return;
    this.polling = true;
    this.claimAvailable()
      .catch(() => {}) // the store is busy; try again at the next poll
      .finally(() => {
        this.polling = false;
        this.schedule(this.options.pollMs);
      });
  }

  private async claimAvailable(): Promise<void> {
    while (!this.stopping && this.running.size < this.options.concurrency) {
      const job = await this.jobs.claim(this.owner, this.options.leaseMs);
      if (!job) return;
      const run = this.execute(job).finally(() => {
        this.running.delete(job.jobId);
        this.schedule(0);
      });
      this.running.set(job.jobId, run);
    }
  }

  private async execute(job: JobRecord): Promise<void> {
    const started = performance.now();
    const end = await this.run(job);
    this.options.onRunEnded?.({ job, ...end, seconds: (performance.now() - started) / 1000 });
  }

  private async run(job: JobRecord): Promise<RunEnd> {
    this.options.onTransition?.(job.operation, 'started');
    if (job.attempts > job.maxAttempts) return this.fail(job, ABANDONED_JOB_ERROR, RUN_ERROR_CODES.abandoned);
    // Every operation this release knows has its handler (the registry saw to it): only a record whose operation
    // it does not know, written by a later release sharing the store, has none. It fails rather than waits.
    if (!Object.hasOwn(this.handlers, job.operation)) return this.finish(job, { status: 'failed', error: `No worker handles ${job.operation} jobs` }, RUN_ERROR_CODES.noHandler);
    let renewedAt = performance.now(); // the claim took the lease
    const context: JobContext = {
      heartbeat: async (status) => {
        if (status === undefined && performance.now() - renewedAt < this.options.leaseMs * HEARTBEAT_SKIP_FRACTION) return;
        const asked = performance.now();
        if (!(await this.jobs.heartbeat(job.jobId, this.owner, this.options.leaseMs, status))) throw new LeaseLost(job.jobId);
        renewedAt = asked;
        if (status) this.options.onTransition?.(job.operation, status);
      },
      recordProgress: async (progress) => {
        if (!(await this.jobs.recordProgress(job.jobId, this.owner, progress))) throw new LeaseLost(job.jobId);
      },
    };
    const keepAlive = setInterval(() => {
      const asked = performance.now();
      void this.jobs
        .heartbeat(job.jobId, this.owner, this.options.leaseMs)
        .then((renewed) => {
          if (renewed) renewedAt = Math.max(renewedAt, asked);
        })
        .catch(() => {});
    }, Math.max(50, this.options.leaseMs / 3));
    try {
      const outcome = await this.handle(job, context);
      return await this.finish(job, outcome, outcomeErrorCode(outcome));
    } catch (error) {
      if (error instanceof LeaseLost) return LEASE_LOST;
      if (error instanceof PublicationPaused) return await this.waitForPublication(job, error);
      this.options.onError?.(job, error);
      const retryable = error instanceof RetryableJobError || !(error instanceof Error && 'transient' in error && error.transient === false);
      const legible = error instanceof RetryableJobError || (error instanceof Error && error.name === 'IngestError');
      const failure = legible ? null : (this.options.storeFailure?.(error) ?? null);
      const message = failure ? `${failure.message} (${failure.storage})` : legible ? (error as Error).message : INTERNAL_JOB_ERROR;
      const errorCode = failure
        ? failure.kind === 'full' ? 'storage_full' : 'store_unavailable'
        : legible ? (ownCode(error) ?? RUN_ERROR_CODES.transient) : RUN_ERROR_CODES.internal;
      if (retryable && job.attempts < job.maxAttempts) {
        const delay = this.options.retryBaseMs * 2 ** (job.attempts - 1);
        if (!(await this.jobs.scheduleRetry(job.jobId, this.owner, message, delay))) return LEASE_LOST;
        this.options.onTransition?.(job.operation, 'retrying');
        return { outcome: 'retrying', errorCode };
      }
      return await this.fail(job, retryable ? `${message} (gave up after ${job.attempts} attempts)` : message, errorCode);
    } finally {
      clearInterval(keepAlive);
    }
  }

  /** Runs the job's own operation's handler on it: the record and the handler agree on its payloads. */
  private handle<O extends JobOperation>(job: JobRecordOf<O>, context: JobContext<O>): Promise<JobOutcomeOf<O>> {
    const handler: JobHandler<O> = this.handlers[job.operation];
    return handler(job, context);
  }

  /**
   * Publication is not READY: the job keeps what it staged and waits (status retrying, no attempt spent)
   * until READY returns, for at most PUBLICATION_WAIT_SECONDS from when its wait began.
   */
  private async waitForPublication(job: JobRecord, paused: PublicationPaused): Promise<RunEnd> {
    const since = job.publicationWaitSince ?? Date.now();
    if (Date.now() - since > this.options.publicationWaitMs) return this.fail(job, `${PUBLICATION_WAIT_EXCEEDED} (authority ${paused.mode})`, RUN_ERROR_CODES.publicationWaitExceeded);
    if (!(await this.jobs.waitForPublication(job.jobId, this.owner, paused.message, this.options.publicationPollMs))) return LEASE_LOST;
    this.options.onTransition?.(job.operation, 'retrying');
    return { outcome: 'waiting', errorCode: RUN_ERROR_CODES.publicationPaused };
  }

  private async fail(job: JobRecord, message: string, errorCode: string): Promise<RunEnd> {
    return this.finish(job, { status: 'failed', error: this.options.failureMessage?.(job, message) ?? message }, errorCode);
  }

  /** Records the outcome; `lease_lost` when this owner no longer holds the job. */
  private async finish(job: JobRecord, outcome: JobOutcome, errorCode: string | null): Promise<RunEnd> {
    if (!(await this.jobs.finish(job.jobId, this.owner, outcome))) return LEASE_LOST;
    this.options.onTransition?.(job.operation, outcome.status);
    return { outcome: outcome.status, errorCode };
  }

  /** Stops claiming, waits up to graceMs for running jobs, then hands the rest back to the queue. */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    const all = Promise.allSettled([...this.running.values()]);
    await Promise.race([all, new Promise((resolve) => setTimeout(resolve, graceMs))]);
    for (const jobId of this.running.keys()) await this.jobs.release(jobId, this.owner);
  }
}
