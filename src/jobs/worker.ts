// The worker loop: claims durable jobs with a lease, runs their handler, records the outcome or a retry.
// A job whose worker dies is claimed again when its lease expires; an accepted job is never dropped.

import { randomUUID } from 'node:crypto';
import type { JobRepository } from '../storage/port.ts';
import type { JobOperation, JobState } from '../domain/job-states.ts';
import { PublicationPaused, RetryableJobError } from '../domain/jobs.ts';
import type { JobContext, JobHandler, JobOutcome, JobRecord } from '../domain/jobs.ts';
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
  /** Called when a run of a job ends, with how it ended and how long it ran (seconds), for metrics. */
  onRunEnded?: (operation: string, outcome: RunOutcome, seconds: number) => void;
}

/**
 * How one run of a job ended: the terminal state it recorded, `retrying` (it will run again), `waiting` (for
 * publication to return to READY), or `lease_lost` (another worker owns it now).
 */
export type RunOutcome = JobState | 'waiting' | 'lease_lost';

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

export class Worker {
  readonly owner = `worker-${randomUUID()}`;
  private readonly jobs: JobRepository;
  private readonly handlers: Partial<Record<JobOperation, JobHandler>>;
  private readonly options: WorkerOptions;
  private readonly running = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private stopping = false;

  constructor(jobs: JobRepository, handlers: Partial<Record<JobOperation, JobHandler>>, options: WorkerOptions) {
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
    const outcome = await this.run(job);
    this.options.onRunEnded?.(job.operation, outcome, (performance.now() - started) / 1000);
  }

  private async run(job: JobRecord): Promise<RunOutcome> {
    this.options.onTransition?.(job.operation, 'started');
    if (job.attempts > job.maxAttempts) return this.fail(job, ABANDONED_JOB_ERROR);
    const handler = this.handlers[job.operation];
    if (!handler) return this.finish(job, { status: 'failed', error: `No worker handles ${job.operation} jobs` });
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
      const outcome = await handler(job, context);
      return await this.finish(job, outcome);
    } catch (error) {
      if (error instanceof LeaseLost) return 'lease_lost';
      if (error instanceof PublicationPaused) return await this.waitForPublication(job, error);
      this.options.onError?.(job, error);
      const retryable = error instanceof RetryableJobError || !(error instanceof Error && 'transient' in error && error.transient === false);
      const legible = error instanceof RetryableJobError || (error instanceof Error && error.name === 'IngestError');
      const failure = legible ? null : (this.options.storeFailure?.(error) ?? null);
      const message = failure ? `${failure.message} (${failure.storage})` : legible ? (error as Error).message : INTERNAL_JOB_ERROR;
      if (retryable && job.attempts < job.maxAttempts) {
        const delay = this.options.retryBaseMs * 2 ** (job.attempts - 1);
        if (!(await this.jobs.scheduleRetry(job.jobId, this.owner, message, delay))) return 'lease_lost';
        this.options.onTransition?.(job.operation, 'retrying');
        return 'retrying';
      }
      return await this.fail(job, retryable ? `${message} (gave up after ${job.attempts} attempts)` : message);
    } finally {
      clearInterval(keepAlive);
    }
  }

  /**
   * Publication is not READY: the job keeps what it staged and waits (status retrying, no attempt spent)
   * until READY returns, for at most PUBLICATION_WAIT_SECONDS from when its wait began.
   */
  private async waitForPublication(job: JobRecord, paused: PublicationPaused): Promise<RunOutcome> {
    const since = job.publicationWaitSince ?? Date.now();
    if (Date.now() - since > this.options.publicationWaitMs) return this.fail(job, `${PUBLICATION_WAIT_EXCEEDED} (authority ${paused.mode})`);
    if (!(await this.jobs.waitForPublication(job.jobId, this.owner, paused.message, this.options.publicationPollMs))) return 'lease_lost';
    this.options.onTransition?.(job.operation, 'retrying');
    return 'waiting';
  }

  private async fail(job: JobRecord, message: string): Promise<RunOutcome> {
    return this.finish(job, { status: 'failed', error: this.options.failureMessage?.(job, message) ?? message });
  }

  /** Records the outcome; `lease_lost` when this owner no longer holds the job. */
  private async finish(job: JobRecord, outcome: JobOutcome): Promise<RunOutcome> {
    if (!(await this.jobs.finish(job.jobId, this.owner, outcome))) return 'lease_lost';
    this.options.onTransition?.(job.operation, outcome.status);
    return outcome.status;
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
