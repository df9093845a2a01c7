// Waiting for jobs without spending the budget on it. Jobs are asked about one at a time, oldest first, since the
// worker takes them in that order: the oldest job not yet terminal is asked again after a pause that grows from
// POLL_FIRST_MS to POLL_MAX_MS; once it is terminal the next one is asked at once (it is likely done too). A
// retrying job is not asked before its next attempt, and the next job is asked meanwhile. So waiting for n jobs
// costs about n status requests, plus one for each growing pause the slowest of them needs.

import type { JobStatus, SearchClient } from '../../clients/typescript/src/index.ts';
import { TERMINAL_JOB_STATES } from '../../clients/typescript/src/index.ts';

/** The first pause before a job is asked about (again). */
export const POLL_FIRST_MS = 1_000;
/** Each pause of the same job is this much longer than the one before. */
export const POLL_GROWTH = 1.5;
/** The longest pause between two questions about one job. */
export const POLL_MAX_MS = 15_000;

interface Watched {
  jobId: string;
  /** The job may not be asked about before this time. */
  notBefore: number;
  pauseMs: number;
  /** Retrying: its next attempt is not due before notBefore, so a later job may be asked first. */
  deferred: boolean;
  resolve: (job: JobStatus) => void;
  reject: (error: unknown) => void;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class JobWatch {
  private readonly client: SearchClient;
  private readonly firstPauseMs: number;
  private readonly queue: Watched[] = [];
  private running = false;
  /** Status requests sent (shown in a summary, and the measure tests take). */
  polls = 0;

  constructor(client: SearchClient, firstPauseMs = POLL_FIRST_MS) {
    this.client = client;
    this.firstPauseMs = firstPauseMs;
  }

  /** Resolves with the job's first terminal status. */
  terminal(jobId: string): Promise<JobStatus> {
    return new Promise((resolve, reject) => {
      this.queue.push({ jobId, notBefore: Date.now() + this.firstPauseMs, pauseMs: this.firstPauseMs, deferred: false, resolve, reject });
      if (!this.running) void this.run();
    });
  }

  /** The job to ask about next: the oldest one, or an older retrying job's successor while it waits. */
  private next(now: number): Watched {
    for (const watched of this.queue) if (!watched.deferred || watched.notBefore <= now) return watched;
    return this.queue.reduce((soonest, watched) => (watched.notBefore < soonest.notBefore ? watched : soonest));
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.length > 0) {
        const watched = this.next(Date.now());
        const wait = watched.notBefore - Date.now();
        if (wait > 0) {
          await sleep(wait);
          continue;
        }
        await this.ask(watched);
      }
    } finally {
      this.running = false;
    }
  }

  private async ask(watched: Watched): Promise<void> {
    let job: JobStatus;
    try {
      this.polls++;
      job = await this.client.status(watched.jobId);
    } catch (error) {
      this.remove(watched);
      watched.reject(error);
      return;
    }
    const now = Date.now();
    if (TERMINAL_JOB_STATES.has(job.status)) {
      this.remove(watched);
      const successor = this.queue[0];
      if (successor && !successor.deferred) successor.notBefore = Math.min(successor.notBefore, now);
      watched.resolve(job);
      return;
    }
    watched.pauseMs = Math.min(watched.pauseMs * POLL_GROWTH, POLL_MAX_MS);
    const retryInMs = job.status === 'retrying' && typeof job.next_retry_in_seconds === 'number' ? job.next_retry_in_seconds * 1000 : 0;
    watched.deferred = retryInMs > watched.pauseMs;
    watched.notBefore = now + Math.max(watched.pauseMs, retryInMs);
    // Jobs behind it are not asked about before it is done (the worker takes them later), unless it waits to retry.
    if (watched.deferred) return;
    for (const later of this.queue) if (later !== watched && !later.deferred) later.notBefore = Math.max(later.notBefore, watched.notBefore);
  }

  private remove(watched: Watched): void {
    this.queue.splice(this.queue.indexOf(watched), 1);
  }
}
