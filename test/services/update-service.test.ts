// Metadata updates against a real SQLite store, without HTTP: the service refuses a patch that can never comply
// before queueing anything, and the job merges the patch into every targeted version in one publication.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Storage } from '../../src/storage/sqlite/sqlite-storage.ts';
import { Publisher } from '../../src/publication/publisher.ts';
import { UpdateService } from '../../src/publication/update-service.ts';
import { createMetadataUpdateHandler } from '../../src/jobs/metadata-update-job.ts';
import type { AuthorityMode } from '../../src/domain/publication-log.ts';
import { RequestValidationError } from '../../src/domain/validation-error.ts';
import { ServiceError } from '../../src/domain/service-error.ts';
import type { JobContext } from '../../src/domain/jobs.ts';
import type { JsonObject } from '../../src/domain/canonical-metadata.ts';
import { jobOf } from '../helpers/jobs.ts';
import { removeDir, tempDataDir } from '../helpers/server.ts';
import { seedVersions } from '../helpers/seed.ts';

const CLIENT = 'client-a';
const context: JobContext<'metadata_update'> = { heartbeat: async () => {}, recordProgress: async () => {} };

async function withUpdates(fn: (context: { storage: Storage; updates: UpdateService; setMode: (mode: AuthorityMode) => void }) => Promise<void>): Promise<void> {
  const dir = tempDataDir();
  await seedVersions(dir, CLIENT, 'contract', [{ versionId: 'v1', text: 'Loan agreement, first draft.' }, { versionId: 'v2', text: 'Loan agreement, signed.' }], { custom: { desk: 'lending', tier: 1 } });
  const storage = new Storage(dir);
  let mode: AuthorityMode = 'READY';
  const updates = new UpdateService(storage, { enabled: true, mode: async () => mode, wake: () => {} });
  try {
    await fn({ storage, updates, setMode: (next) => (mode = next) });
  } finally {
    storage.close();
    removeDir(dir);
  }
}

test('an accepted update is one queued job; run, it merges the patch into every version in one publication', async () => {
  await withUpdates(async ({ storage, updates }) => {
    const store = storage.client(CLIENT);
    const accepted = await updates.accept(CLIENT, { document_id: 'contract', metadata: { tier: 2, reviewer: 'Aminah' } });
    assert.deepEqual(accepted.updated_fields, ['metadata.custom.tier', 'metadata.custom.reviewer']);
    const job = jobOf('metadata_update', await storage.jobs.claim('worker-1', 30_000));
    assert.equal(job.jobId, accepted.job_id);
    const head = await store.publicationLog.head();

    const outcome = await createMetadataUpdateHandler({ storage, publisher: new Publisher(storage, { enabled: true }) })(job, context);
    assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
    const result: JsonObject = outcome.result!;
    assert.equal(result.versions_completed, 2);
    const versions = await store.generations.activeGenerationsOf('contract');
    assert.deepEqual(versions.map((generation) => generation.canonicalMetadata.custom), [
      { desk: 'lending', tier: 2, reviewer: 'Aminah' },
      { desk: 'lending', tier: 2, reviewer: 'Aminah' },
    ]);
    assert.ok(versions.every((generation) => generation.jobId === job.jobId), 'the new generations belong to the update job');
    const changes = await store.publicationLog.changesSince(head, 100);
    assert.deepEqual(changes.entries.map((entry) => entry.kind), ['activate', 'activate']);
    assert.ok(changes.entries.every((entry) => changes.generations.has(entry.generation!)), 'both versions were published together and are active');
  });
});

test('a patch that breaks the metadata contract on its own, or an update while RECOVERING, is refused and nothing is queued', async () => {
  await withUpdates(async ({ storage, updates, setMode }) => {
    let deep: Record<string, unknown> = { leaf: true };
    for (let level = 0; level < 10; level++) deep = { nested: deep };
    await assert.rejects(updates.accept(CLIENT, { document_id: 'contract', metadata: { deep } as never }), (error) => error instanceof RequestValidationError);
    // Refused before any document is resolved: this one does not exist.
    await assert.rejects(updates.accept(CLIENT, { document_id: 'missing', metadata: { ['k'.repeat(200)]: 1 } }), (error) => error instanceof RequestValidationError);
    setMode('RECOVERING');
    await assert.rejects(updates.accept(CLIENT, { document_id: 'contract', metadata: { tier: 3 } }), (error) => error instanceof ServiceError && error.code === 'publication_unavailable');
    assert.deepEqual(await storage.jobs.countsByOperationAndState(), []);
  });
});

test('a patch that complies alone is accepted; merged over the contract, the job fails with error_details and publishes nothing', async () => {
  await withUpdates(async ({ storage, updates }) => {
    const store = storage.client(CLIENT);
    // 511 leaves comply alone; with the 2 the versions hold (desk and tier) the merge has 513, one over 512.
    const leaves = Object.fromEntries(Array.from({ length: 511 }, (_, index) => [`leaf${index}`, index]));
    // A member only deleted never counts against the contract, however long its key.
    const accepted = await updates.accept(CLIENT, { document_id: 'contract', metadata: { ...leaves, ['k'.repeat(200)]: null } });
    assert.equal(accepted.status, 'pending');
    const job = jobOf('metadata_update', await storage.jobs.claim('worker-1', 30_000));
    assert.equal(job.jobId, accepted.job_id);
    const head = await store.publicationLog.head();
    const outcome = await createMetadataUpdateHandler({ storage, publisher: new Publisher(storage, { enabled: true }) })(job, context);
    assert.equal(outcome.status, 'failed');
    assert.equal(outcome.error, 'Metadata update validation failed');
    assert.deepEqual(outcome.errorDetails, { code: 'metadata_leaf_count_limit', path: ['metadata', 'custom'], observed: 513, limit: 512, unit: 'leaves' });
    assert.equal(await store.publicationLog.head(), head, 'nothing published');
    const versions = await store.generations.activeGenerationsOf('contract');
    assert.deepEqual(versions.map((generation) => generation.canonicalMetadata.custom), [
      { desk: 'lending', tier: 1 },
      { desk: 'lending', tier: 1 },
    ]);
  });
});
