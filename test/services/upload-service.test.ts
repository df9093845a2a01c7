// The upload service against a real SQLite store, without HTTP: an accepted upload is a durable file and a
// pending job that names it; a refused one (quota, or a queue that fails) leaves neither behind.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Storage } from '../../src/storage/sqlite/sqlite-storage.ts';
import type { StoragePort } from '../../src/storage/port.ts';
import { UploadService } from '../../src/ingest/upload-service.ts';
import { ServiceError } from '../../src/domain/service-error.ts';
import { versionKey } from '../../src/domain/identity.ts';
import { removeDir, tempDataDir } from '../helpers/server.ts';
import { seedVersions } from '../helpers/seed.ts';
import { jobOf } from '../helpers/jobs.ts';

const CLIENT = 'client-a';
const ROOMY = { maxDocuments: 100, maxChunks: 1_000, maxTextBytes: 1_000_000 };
const upload = (documentId: string) => ({ documentId, versionId: 'v1', filename: `${documentId}.txt`, metadata: { desk: 'treasury' } });

async function withStorage(fn: (storage: Storage) => Promise<void>): Promise<void> {
  const dir = tempDataDir();
  await seedVersions(dir, CLIENT, 'held', [{ versionId: 'v1', text: 'A statement already held by the Client.' }]);
  const storage = new Storage(dir);
  try {
    await fn(storage);
  } finally {
    storage.close();
    removeDir(dir);
  }
}

test('an accepted file is stored durably and queued as a pending embed job that names it; the workers are woken', async () => {
  await withStorage(async (storage) => {
    let wakes = 0;
    const service = new UploadService(storage, () => wakes++, 3, ROOMY);
    const accepted = await service.acceptFile(CLIENT, upload('invoice'), Buffer.from('Invoice 42: RM 1,200.00 due on 1 March.'));
    assert.deepEqual({ ...accepted, job_id: typeof accepted.job_id }, { job_id: 'string', status: 'pending', document_id: 'invoice', version_id: 'v1' });
    assert.equal(wakes, 1);
    const job = (await storage.jobs.get(CLIENT, accepted.job_id))!;
    assert.deepEqual([job.operation, job.status, job.documentId, job.versionKey, job.maxAttempts], ['embed', 'pending', 'invoice', versionKey('v1'), 3]);
    assert.equal(await storage.jobs.get('another-client', accepted.job_id), null, 'another Client never sees the job');
    const name = jobOf('embed', job).request.upload!;
    assert.equal((await storage.uploads.read(name))?.toString(), 'Invoice 42: RM 1,200.00 due on 1 March.');
    assert.ok((await storage.jobs.liveUploadNames()).has(name), 'the upload is live while its job is');
  });
});

test('an upload over the documents quota is refused before anything is stored or queued', async () => {
  await withStorage(async (storage) => {
    const service = new UploadService(storage, () => {}, 3, { ...ROOMY, maxDocuments: 1 });
    let refusal: unknown;
    await service.acceptFile(CLIENT, upload('second'), Buffer.from('A second document.')).catch((error) => (refusal = error));
    assert.ok(refusal instanceof ServiceError && refusal.code === 'client_quota_exceeded', String(refusal));
    assert.deepEqual(await storage.jobs.countsByOperationAndState(), []);
    assert.equal(await storage.uploads.sweep(new Set(), 0), 0, 'no upload file was written');
    // A new version of the document it already holds is not a new document.
    assert.equal((await service.acceptText(CLIENT, { ...upload('held'), versionId: 'v2' }, 'The statement, revised.')).status, 'pending');
  });
});

test('when the job cannot be queued, the stored upload file is removed again', async () => {
  await withStorage(async (storage) => {
    const failingQueue = new Proxy(storage.jobs, {
      get: (target, name) => (name === 'enqueue' ? async () => { throw new Error('the queue is unavailable'); } : Reflect.get(target, name, target)),
    });
    const port = new Proxy(storage, { get: (target, name) => (name === 'jobs' ? failingQueue : Reflect.get(target, name, target)) }) as unknown as StoragePort;
    const service = new UploadService(port, () => {}, 3, ROOMY);
    await assert.rejects(service.acceptFile(CLIENT, upload('invoice'), Buffer.from('Invoice 43.')), /the queue is unavailable/);
    assert.equal(await storage.uploads.sweep(new Set(), 0), 0, 'no orphaned upload file is left');
  });
});
