// A job's heartbeats: a state change is always written; a plain renewal right after the claim (or the last
// renewal) is skipped, since the lease is still good and only its holder can change the job.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openDatabase } from '../../src/storage/sqlite/database.ts';
import { CONTROL_MIGRATIONS } from '../../src/storage/sqlite/control-migrations.ts';
import { SqliteJobRepository } from '../../src/storage/sqlite/jobs.ts';
import { Worker } from '../../src/jobs/worker.ts';
import type { JobOutcomeOf } from '../../src/domain/jobs.ts';
import { tempDataDir, removeDir } from '../helpers/server.ts';
import { handlersFor } from '../helpers/jobs.ts';

const NEW_JOB = { clientId: 'c1', operation: 'embed' as const, documentId: 'd1', versionKey: 'd1', request: { source: 'text' as const, filename: null, metadata: {} }, maxAttempts: 3 };

test('stage heartbeats just after a renewal are not written; state changes are, and the job ends with its lease held', async () => {
  const dir = tempDataDir();
  const db = openDatabase(join(dir, 'control.db'), CONTROL_MIGRATIONS);
  const jobs = new SqliteJobRepository(db);
  const written: Array<string | undefined> = [];
  const heartbeat = jobs.heartbeat.bind(jobs);
  jobs.heartbeat = (jobId, owner, leaseMs, status) => {
    written.push(status);
    return heartbeat(jobId, owner, leaseMs, status);
  };
  let done!: (outcome: JobOutcomeOf<'embed'>) => void;
  const finished = new Promise<JobOutcomeOf<'embed'>>((resolve) => (done = resolve));
  const worker = new Worker(
    jobs,
    handlersFor('embed', async (_job, context) => {
      await context.heartbeat('processing');
      for (let stage = 0; stage < 4; stage++) await context.heartbeat();
      const outcome: JobOutcomeOf<'embed'> = { status: 'completed' };
      done(outcome);
      return outcome;
    }),
    { concurrency: 1, pollMs: 10, leaseMs: 600_000, retryBaseMs: 1000, publicationWaitMs: 1000, publicationPollMs: 100 },
  );
  try {
    const job = await jobs.enqueue(NEW_JOB);
    worker.start();
    await finished;
    await worker.stop(5_000);
    assert.deepEqual(written, ['processing'], 'only the state change reached the store');
    assert.equal((await jobs.get('c1', job.jobId))!.status, 'completed');
  } finally {
    db.close();
    removeDir(dir);
  }
});
