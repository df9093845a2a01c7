import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Storage } from '../../src/storage/storage.ts';
import { PublicationAuthority } from '../../src/publication/authority.ts';
import { createBackfillHandler, enqueueBackfill, BACKFILL_ALREADY_RUNNING } from '../../src/publication/backfill.ts';
import { tempDataDir, removeDir } from '../helpers/server.ts';

test('a second backfill while one is running is refused with a retry hint bounded by the lease', async () => {
  const dir = tempDataDir();
  const storage = new Storage(dir);
  try {
    const authority = new PublicationAuthority({ enabled: true, dimensions: 4, authorityId: 'test' });
    authority.recover(storage);
    const leaseMs = 30_000;
    const handler = createBackfillHandler({ storage, authority, leaseMs });
    const first = enqueueBackfill(storage, 'c1', () => {});
    const second = enqueueBackfill(storage, 'c1', () => {});
    assert.equal(storage.jobs.claim('worker-a', leaseMs)!.jobId, first.jobId, 'the first run is in flight');
    const claimed = storage.jobs.claim('worker-b', leaseMs)!;
    assert.equal(claimed.jobId, second.jobId);
    const outcome = await handler(claimed, { heartbeat: async () => {} });
    assert.equal(outcome.status, 'failed');
    assert.equal(outcome.errorDetails!.code, BACKFILL_ALREADY_RUNNING);
    const retry = outcome.result!.next_retry_in_seconds as number;
    assert.ok(retry >= 1 && retry <= leaseMs / 1000);
    // Another Client's backfill is not blocked by it.
    const other = enqueueBackfill(storage, 'c2', () => {});
    const otherClaim = storage.jobs.claim('worker-c', leaseMs)!;
    assert.equal(otherClaim.jobId, other.jobId);
    assert.equal((await handler(otherClaim, { heartbeat: async () => {} })).status, 'completed');
  } finally {
    storage.close();
    removeDir(dir);
  }
});
