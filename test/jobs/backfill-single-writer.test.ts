import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Storage } from '../../src/storage/sqlite/sqlite-storage.ts';
import { Publisher } from '../../src/publication/publisher.ts';
import { createBackfillHandler, BACKFILL_ALREADY_RUNNING } from '../../src/jobs/backfill-job.ts';
import { enqueueBackfill } from '../../src/publication/backfill-service.ts';
import type { JobContext } from '../../src/domain/jobs.ts';
import type { JsonObject } from '../../src/domain/canonical-metadata.ts';
import { jobOf } from '../helpers/jobs.ts';
import { tempDataDir, removeDir } from '../helpers/server.ts';

const CONFIGURED = new Set(['c1', 'c2']);
const context: JobContext<'metadata_backfill'> = { heartbeat: async () => {}, recordProgress: async () => {} };

test('a second backfill while one is running is refused with a retry hint bounded by the lease', async () => {
  const dir = tempDataDir();
  // Two workers in two processes: two connections to one store.
  const storageA = new Storage(dir);
  const storageB = new Storage(dir);
  try {
    const leaseMs = 30_000;
    const handlerA = createBackfillHandler({ storage: storageA, publisher: new Publisher(storageA, { enabled: true }), leaseMs });
    const handlerB = createBackfillHandler({ storage: storageB, publisher: new Publisher(storageB, { enabled: true }), leaseMs });
    const first = await enqueueBackfill(storageA, 'c1', () => {}, CONFIGURED);
    const second = await enqueueBackfill(storageA, 'c1', () => {}, CONFIGURED);
    const claimedFirst = jobOf('metadata_backfill', await storageA.jobs.claim('worker-a', leaseMs));
    assert.equal(claimedFirst.jobId, first.jobId);
    // The first run holds the Client's single-writer lease while it works.
    let releaseFirst!: () => void;
    const holding = new Promise<void>((resolve) => (releaseFirst = resolve));
    assert.equal(await storageA.authority.acquireLease(`backfill:c1`, first.jobId, leaseMs), true);
    const claimed = jobOf('metadata_backfill', await storageB.jobs.claim('worker-b', leaseMs));
    assert.equal(claimed.jobId, second.jobId);
    const outcome = await handlerB(claimed, context);
    assert.equal(outcome.status, 'failed');
    assert.equal(outcome.errorDetails!.code, BACKFILL_ALREADY_RUNNING);
    assert.equal(outcome.errorDetails!.running_job_id, first.jobId);
    const refused: JsonObject = outcome.result!;
    const retry = refused.next_retry_in_seconds as number;
    assert.ok(retry >= 1 && retry <= leaseMs / 1000);
    // Another Client's backfill is not blocked by it.
    const other = await enqueueBackfill(storageA, 'c2', () => {}, CONFIGURED);
    const otherClaim = jobOf('metadata_backfill', await storageB.jobs.claim('worker-c', leaseMs));
    assert.equal(otherClaim.jobId, other.jobId);
    assert.equal((await handlerB(otherClaim, context)).status, 'completed');
    // The first run itself proceeds (it holds the lease) and frees it when done.
    releaseFirst();
    await holding;
    assert.equal((await handlerA(claimedFirst, context)).status, 'completed');
    assert.equal(await storageA.authority.leaseHolder('backfill:c1'), null);
  } finally {
    storageA.close();
    storageB.close();
    removeDir(dir);
  }
});
