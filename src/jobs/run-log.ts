// The worker's log line for each run of a job as it ends, so that a failed job shows in the log and not only
// in its status. It names the job and how the run went (id, operation, attempt, outcome, duration, error code)
// and never what the job carried: no document text, no metadata, not even the error message, which may quote
// a document (a parse error) or a metadata path.

import type { RunOutcome, RunReport } from './worker.ts';

export const JOB_OUTCOME_EVENT = 'job_outcome';

/**
 * The level of each outcome. A failure, a partial one, a retry and a lost lease are warnings: an operator reads
 * them at LOG_LEVEL warn. A run that completed, was superseded or waits for publication (the operator's own
 * MAINTENANCE, usually) is routine.
 */
export const JOB_OUTCOME_LOG_LEVELS: Record<RunOutcome, 'info' | 'warn'> = {
  completed: 'info',
  superseded: 'info',
  waiting: 'info',
  failed: 'warn',
  partial_failed: 'warn',
  retrying: 'warn',
  lease_lost: 'warn',
};

export interface RunLogLine {
  level: 'info' | 'warn';
  msg: string;
  fields: Record<string, unknown>;
}

export function runLogLine(run: RunReport): RunLogLine {
  return {
    level: JOB_OUTCOME_LOG_LEVELS[run.outcome],
    msg: `job ${run.outcome}`,
    fields: {
      event: JOB_OUTCOME_EVENT,
      job_id: run.job.jobId,
      client_id: run.job.clientId,
      operation: run.job.operation,
      attempt: run.job.attempts,
      state: run.outcome,
      duration_ms: Math.round(run.seconds * 10_000) / 10,
      error_code: run.errorCode,
    },
  };
}
