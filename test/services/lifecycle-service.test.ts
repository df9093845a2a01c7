// The lifecycle service against a real SQLite store, without HTTP: what soft delete, restore and hard delete
// write through the storage port, and what they refuse, read back from the repositories themselves.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Storage } from '../../src/storage/sqlite/sqlite-storage.ts';
import { Publisher } from '../../src/publication/publisher.ts';
import { LifecycleService } from '../../src/publication/lifecycle-service.ts';
import { fenceName } from '../../src/publication/fence.ts';
import { ServiceError } from '../../src/domain/service-error.ts';
import { versionKey } from '../../src/domain/identity.ts';
import { removeDir, tempDataDir } from '../helpers/server.ts';
import { seedVersions } from '../helpers/seed.ts';

const CLIENT = 'client-a';

async function withLifecycle(fn: (context: { storage: Storage; lifecycle: LifecycleService }) => Promise<void>, fenceWaitMs = 5_000): Promise<void> {
  const dir = tempDataDir();
  await seedVersions(dir, CLIENT, 'ledger', [
    { versionId: 'v1', text: 'Ledger for March: transfer to savings.' },
    { versionId: 'v2', text: 'Ledger for April: cheque clearing.', chunks: ['Ledger for April:', 'cheque clearing.'] },
  ]);
  await seedVersions(dir, CLIENT, 'memo', [{ versionId: 'm1', text: 'Memo on branch opening hours.' }]);
  const storage = new Storage(dir);
  const lifecycle = new LifecycleService(storage, new Publisher(storage, { enabled: true }), { enabled: true, fenceWaitMs, purgeDeadlineMs: 60_000 });
  try {
    await fn({ storage, lifecycle });
  } finally {
    storage.close();
    removeDir(dir);
  }
}

async function serviceError(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  assert.fail('the service did not refuse');
}

test('soft delete republishes each version with deletion markers, restore clears them, each a logged publication', async () => {
  await withLifecycle(async ({ storage, lifecycle }) => {
    const store = storage.client(CLIENT);
    const headBefore = await store.publicationLog.head();
    const before = await store.generations.activeGenerationsOf('ledger');

    assert.deepEqual(await lifecycle.delete(CLIENT, 'ledger', undefined, 'soft'), { document_id: 'ledger', deleted_chunks: 3, status: 'soft_deleted' });
    const deleted = await store.generations.activeGenerationsOf('ledger');
    assert.deepEqual(deleted.map((generation) => [generation.versionKey, generation.deletion.deleted, generation.deletion.deletedBy]), [
      [versionKey('v1'), true, CLIENT],
      [versionKey('v2'), true, CLIENT],
    ]);
    // New generations replaced the old ones; the old ones are retired, and the memo is untouched.
    assert.ok(deleted.every((generation, at) => generation.generation > before[at].generation));
    assert.equal((await store.generations.generation(before[0].generation))!.state, 'retired');
    assert.equal((await store.generations.activeGenerationsOf('memo'))[0].deletion.deleted, false);
    assert.equal(await store.publicationLog.head(), headBefore + 2, 'one publication per version');

    assert.equal((await serviceError(lifecycle.delete(CLIENT, 'ledger', undefined, 'soft'))).code, 'document_not_found', 'nothing left to soft-delete');
    assert.deepEqual(await lifecycle.restore(CLIENT, 'ledger', 'v2'), { document_id: 'ledger', restored_chunks: 2, status: 'restored' });
    assert.deepEqual((await store.generations.activeGenerationsOf('ledger')).map((generation) => generation.deletion.deleted), [true, false]);
  });
});

test('hard delete journals the removal, purges every row of the version and its jobs, and a repeat finds nothing', async () => {
  await withLifecycle(async ({ storage, lifecycle }) => {
    const store = storage.client(CLIENT);
    const job = await storage.jobs.enqueue({ clientId: CLIENT, operation: 'embed', documentId: 'ledger', versionKey: versionKey('v1'), request: { source: 'text', filename: null, metadata: {} }, maxAttempts: 3 });
    const headBefore = await store.publicationLog.head();

    assert.deepEqual(await lifecycle.delete(CLIENT, 'ledger', 'v1', 'hard'), { document_id: 'ledger', deleted_chunks: 1, status: 'hard_deleted' });
    assert.equal(await store.purges.remainingRecords('ledger', versionKey('v1')), 0);
    assert.deepEqual(await store.purges.open('ledger'), [], 'the journal entry is closed');
    assert.equal(await storage.jobs.get(CLIENT, job.jobId), null, 'the job binding is gone');
    const changes = await store.publicationLog.changesSince(headBefore, 100);
    assert.deepEqual(changes.entries.map((entry) => [entry.kind, entry.versionKey]), [['remove', versionKey('v1')]]);
    assert.equal((await store.generations.activeGenerationsOf('ledger')).length, 1, 'v2 stays');

    assert.equal((await serviceError(lifecycle.delete(CLIENT, 'ledger', 'v1', 'hard'))).code, 'document_not_found');
  });
});

test('MAINTENANCE and a held fence refuse a lifecycle write as publication_busy, and nothing is written', async () => {
  await withLifecycle(async ({ storage, lifecycle }) => {
    const store = storage.client(CLIENT);
    const head = await store.publicationLog.head();
    await storage.authority.setAuthorityMode('MAINTENANCE');
    assert.equal((await serviceError(lifecycle.delete(CLIENT, 'memo', undefined, 'hard'))).code, 'publication_busy');
    await storage.authority.setAuthorityMode('READY');

    // Another writer holds the Client's fence for longer than this service waits.
    assert.ok(await storage.authority.acquireLease(fenceName(CLIENT), 'another-writer', 60_000));
    assert.equal((await serviceError(lifecycle.delete(CLIENT, 'memo', undefined, 'soft'))).code, 'publication_busy');
    assert.equal(await store.publicationLog.head(), head, 'no publication was made');
    assert.equal((await store.generations.activeGenerationsOf('memo'))[0].deletion.deleted, false);

    await storage.authority.releaseLease(fenceName(CLIENT), 'another-writer');
    assert.equal((await lifecycle.delete(CLIENT, 'memo', undefined, 'soft')).status, 'soft_deleted', 'free again');
  }, 50);
});
