// One job handler per operation, registered at start-up: a registry missing one, or given two for one, refuses
// (the worker process does not start); the worker runs each job with its own operation's handler, and fails a
// stored job whose operation this release does not know (a later release's) instead of leaving it queued.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openDatabase } from '../../src/storage/sqlite/database.ts';
import { CONTROL_MIGRATIONS } from '../../src/storage/sqlite/control-migrations.ts';
import { SqliteJobRepository } from '../../src/storage/sqlite/jobs.ts';
import { JobHandlerRegistry, JobHandlerRegistryError } from '../../src/jobs/handler-registry.ts';
import { RUN_ERROR_CODES, Worker } from '../../src/jobs/worker.ts';
import type { RunReport } from '../../src/jobs/worker.ts';
import { JOB_OPERATIONS } from '../../src/domain/job-states.ts';
import type { JobOperation } from '../../src/domain/job-states.ts';
import type { JobHandler, NewJob } from '../../src/domain/jobs.ts';
import { tempDataDir, removeDir } from '../helpers/server.ts';

/** A handler that completes its job and says which operation's handler ran. */
function completing<O extends JobOperation>(operation: O): JobHandler<O> {
  return async () => ({ status: 'completed', error: `ran the ${operation} handler` });
}

test('a registry with one handler per operation hands each to the worker', () => {
  const handlers = new JobHandlerRegistry().register('embed', completing('embed')).register('metadata_update', completing('metadata_update')).register('metadata_backfill', completing('metadata_backfill')).handlers();
  assert.deepEqual(Object.keys(handlers).sort(), [...JOB_OPERATIONS].sort());
});

test('a second handler for one operation is refused, naming it', () => {
  const registry = new JobHandlerRegistry().register('embed', completing('embed'));
  assert.throws(() => registry.register('embed', completing('embed')), (error: unknown) => error instanceof JobHandlerRegistryError && /Two handlers .* embed jobs/.test(error.message));
});

test('an operation left without a handler refuses the worker its handlers, naming each missing one', () => {
  const registry = new JobHandlerRegistry().register('embed', completing('embed'));
  assert.throws(() => registry.handlers(), (error: unknown) => error instanceof JobHandlerRegistryError && error.message === 'No handler was registered for metadata_update, metadata_backfill jobs');
  assert.throws(() => new JobHandlerRegistry().handlers(), /No handler was registered for embed, metadata_update, metadata_backfill jobs/);
});

test('the worker runs each job with its own operation\'s handler, and fails one whose operation it does not know', async () => {
  const dir = tempDataDir();
  const db = openDatabase(join(dir, 'control.db'), CONTROL_MIGRATIONS);
  const jobs = new SqliteJobRepository(db);
  const reports = new Map<string, RunReport>();
  let ended!: () => void;
  const allEnded = new Promise<void>((resolve) => (ended = resolve));
  const handlers = new JobHandlerRegistry().register('embed', completing('embed')).register('metadata_update', completing('metadata_update')).register('metadata_backfill', completing('metadata_backfill')).handlers();
  const worker = new Worker(jobs, handlers, {
    concurrency: 1,
    pollMs: 10,
    leaseMs: 600_000,
    retryBaseMs: 600_000,
    publicationWaitMs: 1000,
    publicationPollMs: 100,
    onRunEnded: (report) => {
      reports.set(report.job.jobId, report);
      if (reports.size === 4) ended();
    },
  });
  const base = { clientId: 'c1', documentId: 'd1', versionKey: null, maxAttempts: 3 };
  const accepted: NewJob[] = [
    { ...base, operation: 'embed', versionKey: 'd1', request: { source: 'text', text: 'Penyata akaun.', filename: null, metadata: {} } },
    { ...base, operation: 'metadata_update', request: { metadata: { desk: 'treasury' }, updated_fields: ['metadata.custom.desk'] } },
    { ...base, operation: 'metadata_backfill', documentId: '', request: {} },
  ];
  try {
    const known = [];
    for (const job of accepted) known.push(await jobs.enqueue(job));
    // A row as a later release with a fourth operation would write it into the shared store.
    const unknown = await jobs.enqueue({ ...base, operation: 'metadata_backfill', documentId: '', request: {} });
    db.prepare("UPDATE jobs SET operation = 'reindex' WHERE job_id = ?").run(unknown.jobId);
    worker.start();
    await allEnded;
    await worker.stop(5_000);
    for (const job of known) {
      const stored = (await jobs.get('c1', job.jobId))!;
      assert.deepEqual([stored.status, stored.error], ['completed', `ran the ${job.operation} handler`]);
    }
    const refused = (await jobs.get('c1', unknown.jobId))!;
    assert.deepEqual([refused.status, refused.error], ['failed', 'No worker handles reindex jobs']);
    assert.equal(reports.get(unknown.jobId)!.errorCode, RUN_ERROR_CODES.noHandler);
  } finally {
    db.close();
    removeDir(dir);
  }
});
