// A backfill that dies part-way through a batch resumes from its recorded progress and counts every version
// it republished exactly once, even one whose publication committed just before the death and was never
// recorded: the death is played by a publisher that fails right after a republication commits.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Storage } from '../../src/storage/sqlite/sqlite-storage.ts';
import { Publisher } from '../../src/publication/publisher.ts';
import { BACKFILL_BATCH_VERSIONS, createBackfillHandler } from '../../src/jobs/backfill-job.ts';
import type { JobContext, JobRecordOf } from '../../src/domain/jobs.ts';
import type { BackfillProgress } from '../../src/domain/job-payloads.ts';
import type { JsonObject } from '../../src/domain/canonical-metadata.ts';
import { removeDir, tempDataDir } from '../helpers/server.ts';
import { seedVersions } from '../helpers/seed.ts';

class WorkerDied extends Error {}

/** The publisher of a worker that dies right after its `survives`-th republication has committed. */
class DyingPublisher extends Publisher {
  private left: number;
  constructor(storage: Storage, survives: number) {
    super(storage, { enabled: true });
    this.left = survives;
  }
  override async replace(...args: Parameters<Publisher['replace']>): ReturnType<Publisher['replace']> {
    const result = await super.replace(...args);
    if (--this.left === 0) throw new WorkerDied();
    return result;
  }
}

test('a backfill that dies mid-batch resumes after the last version it recorded, counting each version once', async () => {
  const VERSIONS = BACKFILL_BATCH_VERSIONS + 20;
  const dir = tempDataDir();
  await seedVersions(dir, 'c1', 'ledger', Array.from({ length: VERSIONS }, (_, i) => ({ versionId: `v${String(i).padStart(3, '0')}`, text: `Ledger page ${i}.` })), {
    custom: { desk: 'treasury' },
    staleLeaves: true,
  });
  const storage = new Storage(dir);
  try {
    let recorded: BackfillProgress | null = null;
    const context: JobContext<'metadata_backfill'> = { heartbeat: async () => {}, recordProgress: async (progress) => void (recorded = structuredClone(progress)) };
    const job = { jobId: 'backfill-1', clientId: 'c1', operation: 'metadata_backfill', result: null } as unknown as JobRecordOf<'metadata_backfill'>;
    // Dies inside the first batch, after 37 versions were republished.
    const dying = createBackfillHandler({ storage, publisher: new DyingPublisher(storage, 37), leaseMs: 30_000 });
    await assert.rejects(dying(job, context), WorkerDied);
    assert.equal(recorded!.versions_backfilled, 36, 'the 37th committed, but the worker died before recording it');
    assert.equal(recorded!.republishing?.version_key !== undefined, true, 'what it was republishing is recorded');

    const resumed = createBackfillHandler({ storage, publisher: new Publisher(storage, { enabled: true }), leaseMs: 30_000 });
    const outcome = await resumed({ ...job, result: recorded }, context);
    assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
    const result: JsonObject = outcome.result!;
    assert.equal(result.versions_total, VERSIONS);
    assert.equal(result.versions_completed, VERSIONS);
    assert.equal(result.versions_backfilled, VERSIONS, 'the versions republished before the death are not counted as already indexed');
    assert.equal(result.readiness_state, 'ready');
    assert.equal('republishing' in result, false);
    assert.equal('cursor' in result, false);
  } finally {
    storage.close();
    removeDir(dir);
  }
});
