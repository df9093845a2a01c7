// The worker loop: claims durable jobs with a lease, runs their handler, records the outcome or a retry.
// A job whose worker dies is claimed again when its lease expires; an accepted job is never dropped.

import { randomUUID } from 'node:crypto';
import type { JobStore, JobRecord } from '../storage/job-store.ts';
import type { JobOperation, JobState } from '../domain/job-states.ts';
import type { JsonObject } from '../domain/canonical-metadata.ts';

export interface JobOutcome {
  status: Extract<JobState, 'completed' | 'failed' | 'partial_failed' | 'superseded'>;
  result?: JsonObject;
  error?: string | null;
  errorDetails?: JsonObject | null;
}

/** A failure worth another attempt (a flaky provider, a busy file system). */
export class RetryableJobError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RetryableJobError';
  }
}

export interface JobContext {
  /** Renews the lease, optionally moving the job to `processing`; throws if the lease was lost. */
  heartbeat(status?: 'processing'): Promise<void>;
}

export type JobHandler = (job: JobRecord, context: JobContext) => Promise<JobOutcome>;

export interface WorkerOptions {
  concurrency: number;
  pollMs: number;
  leaseMs: number;
  retryBaseMs: number;
  /** Called for each state a job enters, for metrics. */
  onTransition?: (operation: string, status: JobState) => void;
  onError?: (job: JobRecord, error: unknown) => void;
  /** The error a failed job of this operation reports when the worker ends it (its contract may fix the text). */
  failureMessage?: (job: JobRecord, message: string) => string;
}

export class LeaseLost extends Error {
  constructor(jobId: string) {
    super(`lease on job ${jobId} was lost`);
    this.name = 'LeaseLost';
  }
}

export const ABANDONED_JOB_ERROR = 'The job was abandoned after its worker stopped repeatedly';
export const INTERNAL_JOB_ERROR = 'Internal processing error';

export class Worker {
  readonly owner = `worker-${randomUUID()}`;
  private readonly jobs: JobStore;
  private readonly handlers: Partial<Record<JobOperation, JobHandler>>;
  private readonly options: WorkerOptions;
  private readonly running = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private stopping = false;

  constructor(jobs: JobStore, handlers: Partial<Record<JobOperation, JobHandler>>, options: WorkerOptions) {
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

  private poll(): void {
    this.timer = null;
    while (!this.stopping && this.running.size < this.options.concurrency) {
      let job: JobRecord | null;
      try {
        job = this.jobs.claim(this.owner, this.options.leaseMs);
      } catch {
        break; // the store is busy; try again at the next poll
      }
      if (!job) break;
      const claimed = job;
      const run = this.execute(claimed).finally(() => {
        this.running.delete(claimed.jobId);
        this.schedule(0);
      });
      this.running.set(claimed.jobId, run);
    }
    this.schedule(this.options.pollMs);
  }

  private async execute(job: JobRecord): Promise<void> {
    this.options.onTransition?.(job.operation, 'started');
    if (job.attempts > job.maxAttempts) {
      this.fail(job, ABANDONED_JOB_ERROR);
      return;
    }
    const handler = this.handlers[job.operation];
    if (!handler) {
      this.finish(job, { status: 'failed', error: `No worker handles ${job.operation} jobs` });
      return;
    }
    const context: JobContext = {
      heartbeat: async (status) => {
        if (!this.jobs.heartbeat(job.jobId, this.owner, this.options.leaseMs, status)) throw new LeaseLost(job.jobId);
        if (status) this.options.onTransition?.(job.operation, status);
      },
    };
    const keepAlive = setInterval(() => this.jobs.heartbeat(job.jobId, this.owner, this.options.leaseMs), Math.max(50, this.options.leaseMs / 3));
    try {
      const outcome = await handler(job, context);
      this.finish(job, outcome);
    } catch (error) {
      if (error instanceof LeaseLost) return;
      this.options.onError?.(job, error);
      const retryable = error instanceof RetryableJobError || !(error instanceof Error && 'transient' in error && error.transient === false);
      const legible = error instanceof RetryableJobError || (error instanceof Error && error.name === 'IngestError');
      const message = legible ? (error as Error).message : INTERNAL_JOB_ERROR;
      if (retryable && job.attempts < job.maxAttempts) {
        const delay = this.options.retryBaseMs * 2 ** (job.attempts - 1);
        if (this.jobs.scheduleRetry(job.jobId, this.owner, message, delay)) this.options.onTransition?.(job.operation, 'retrying');
      } else {
        this.fail(job, retryable ? `${message} (gave up after ${job.attempts} attempts)` : message);
      }
    } finally {
      clearInterval(keepAlive);
    }
  }

  private fail(job: JobRecord, message: string): void {
    this.finish(job, { status: 'failed', error: this.options.failureMessage?.(job, message) ?? message });
  }

  private finish(job: JobRecord, outcome: JobOutcome): void {
    if (this.jobs.finish(job.jobId, this.owner, outcome)) this.options.onTransition?.(job.operation, outcome.status);
  }

  /** Stops claiming, waits up to graceMs for running jobs, then hands the rest back to the queue. */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    const all = Promise.allSettled([...this.running.values()]);
    await Promise.race([all, new Promise((resolve) => setTimeout(resolve, graceMs))]);
    for (const jobId of this.running.keys()) this.jobs.release(jobId, this.owner);
  }
}
