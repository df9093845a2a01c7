// Jobs in tests: a stored record narrowed to its operation, for tests that hand a claimed job to that operation's
// handler (the test fails when the record is missing or of another operation), and a worker's handlers for a test
// of one operation.

import assert from 'node:assert/strict';
import { JOB_OPERATIONS } from '../../src/domain/job-states.ts';
import type { JobOperation } from '../../src/domain/job-states.ts';
import type { JobHandler, JobHandlers, JobRecord } from '../../src/domain/jobs.ts';
import { JobHandlerRegistry } from '../../src/jobs/handler-registry.ts';

function isOf<O extends JobOperation>(job: JobRecord, operation: O): job is Extract<JobRecord, { operation: O }> {
  return job.operation === operation;
}

export function jobOf<O extends JobOperation>(operation: O, job: JobRecord | null | undefined): Extract<JobRecord, { operation: O }> {
  assert.ok(job, `a ${operation} job`);
  assert.ok(isOf(job, operation), `a ${operation} job, not ${job.operation}`);
  return job;
}

/**
 * The worker's handlers for a test that runs jobs of one operation: its handler, and for every other operation
 * one that fails the job loudly (no job of it is enqueued), since the registry refuses a worker without them.
 */
export function handlersFor<O extends JobOperation>(operation: O, handler: JobHandler<O>): JobHandlers {
  const registry = new JobHandlerRegistry().register(operation, handler);
  for (const other of JOB_OPERATIONS) {
    if (other !== operation) registry.register(other, async () => ({ status: 'failed', error: `no ${other} job belongs in this test` }));
  }
  return registry.handlers();
}
