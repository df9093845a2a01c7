// A job stopped by a full store is retried with an error that names the storage, not "internal error": what an
// operator reading /status needs to know is that the disk is full. The store's error is SQLite's own
// (SQLITE_FULL from a real database on a real full disk in test/disk/full-disk.test.ts); here the handler throws
// it, as the generation write on a full disk does, so that the retry can be waited for without filling a disk.
// Each run also reports an error code for the worker's log line: the store's, a parse's own, or the worker's.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openDatabase } from '../../src/storage/sqlite/database.ts';
import { CONTROL_MIGRATIONS } from '../../src/storage/sqlite/control-migrations.ts';
import { SqliteJobRepository } from '../../src/storage/sqlite/jobs.ts';
import { storeFailureOf } from '../../src/storage/shared/store-failures.ts';
import { RUN_ERROR_CODES, Worker } from '../../src/jobs/worker.ts';
import { RetryableJobError } from '../../src/domain/jobs.ts';
import { IngestError } from '../../src/ingest/parsed-document.ts';
import type { RunOutcome, RunReport } from '../../src/jobs/worker.ts';
import { tempDataDir, removeDir } from '../helpers/server.ts';
import { handlersFor } from '../helpers/jobs.ts';

const NEW_JOB = { clientId: 'c1', operation: 'embed' as const, documentId: 'd1', versionKey: 'd1', request: { source: 'text' as const, filename: null, metadata: {} }, maxAttempts: 3 };

async function runOnce(thrown: unknown): Promise<{ outcome: RunOutcome; errorCode: string | null; error: string | null }> {
  const dir = tempDataDir();
  const db = openDatabase(join(dir, 'control.db'), CONTROL_MIGRATIONS);
  const jobs = new SqliteJobRepository(db);
  let ended!: (run: RunReport) => void;
  const run = new Promise<RunReport>((resolve) => (ended = resolve));
  const worker = new Worker(
    jobs,
    handlersFor('embed', async () => {
      throw thrown;
    }),
    {
      concurrency: 1,
      pollMs: 10,
      leaseMs: 600_000,
      retryBaseMs: 600_000,
      publicationWaitMs: 1000,
      publicationPollMs: 100,
      storeFailure: (error) => storeFailureOf(error, 'sqlite'),
      onRunEnded: (report) => ended(report),
    },
  );
  try {
    const job = await jobs.enqueue(NEW_JOB);
    worker.start();
    const { outcome, errorCode } = await run;
    await worker.stop(5_000);
    return { outcome, errorCode, error: (await jobs.get('c1', job.jobId))!.error };
  } finally {
    db.close();
    removeDir(dir);
  }
}

test('a job stopped by a full disk is retried, its error naming the storage', async () => {
  const { outcome, errorCode, error } = await runOnce(Object.assign(new Error('database or disk is full'), { errcode: 13, code: 'ERR_SQLITE_ERROR' }));
  assert.equal(outcome, 'retrying');
  assert.equal(errorCode, 'storage_full', 'the run reports the code the API answers a full store with, not the driver\'s');
  assert.match(error ?? '', /No space is left for the embedded databases/);
  assert.match(error ?? '', /\(sqlite\)/);
});

test('any other failure still reports the internal error, not its own message', async () => {
  const { outcome, errorCode, error } = await runOnce(new TypeError('a defect with a path in it: /srv/data'));
  assert.equal(outcome, 'retrying');
  assert.equal(errorCode, 'internal_error');
  assert.doesNotMatch(error ?? '', /srv|defect|No space/);
});

test('a parse that fails for good reports its own code; a retryable failure without one reports transient_error', async () => {
  const damaged = await runOnce(new IngestError('upload_damaged', 'The uploaded file could not be read'));
  assert.equal(damaged.outcome, 'failed');
  assert.equal(damaged.errorCode, 'upload_damaged');
  const flaky = await runOnce(new RetryableJobError('The embedding provider did not answer'));
  assert.equal(flaky.outcome, 'retrying');
  assert.equal(flaky.errorCode, RUN_ERROR_CODES.transient);
});
