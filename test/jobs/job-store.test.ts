import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openDatabase } from '../../src/storage/sqlite/database.ts';
import { CONTROL_MIGRATIONS } from '../../src/storage/sqlite/control-migrations.ts';
import { SqliteJobRepository } from '../../src/storage/sqlite/jobs.ts';
import { SqliteDiscoveryRepository } from '../../src/storage/sqlite/discovery.ts';
import { tempDataDir, removeDir } from '../helpers/server.ts';

function store() {
  const dir = tempDataDir();
  let now = 1_000_000;
  const db = openDatabase(join(dir, 'control.db'), CONTROL_MIGRATIONS);
  const jobs = new SqliteJobRepository(db, () => now);
  const discovery = new SqliteDiscoveryRepository(db, () => now);
  return { jobs, discovery, advance: (ms: number) => (now += ms), close: () => { db.close(); removeDir(dir); } };
}

const NEW_JOB = { clientId: 'c1', operation: 'embed' as const, documentId: 'd1', versionKey: 'd1', request: { source: 'text' as const, filename: null, metadata: {} }, maxAttempts: 3 };

test('a claim takes the oldest pending job with a lease and counts an attempt', async () => {
  const { jobs, close } = store();
  try {
    const first = await jobs.enqueue(NEW_JOB);
    await jobs.enqueue({ ...NEW_JOB, documentId: 'd2' });
    const claimed = (await jobs.claim('w1', 1000))!;
    assert.equal(claimed.jobId, first.jobId);
    assert.equal(claimed.status, 'started');
    assert.equal(claimed.attempts, 1);
    assert.equal(claimed.leaseOwner, 'w1');
    assert.equal((await jobs.claim('w2', 1000))!.documentId, 'd2');
    assert.equal(await jobs.claim('w3', 1000), null);
  } finally {
    close();
  }
});

test("a document's metadata updates are claimed one after another, in the order they were accepted", async () => {
  const { jobs, close } = store();
  try {
    const update = (documentId: string, clientId = 'c1') => jobs.enqueue({ ...NEW_JOB, clientId, operation: 'metadata_update', documentId, versionKey: null, request: { metadata: {}, updated_fields: [] } });
    const first = await update('d1');
    const second = await update('d1');
    const otherDocument = await update('d2');
    const otherClient = await update('d1', 'c2');
    const upload = await jobs.enqueue({ ...NEW_JOB, documentId: 'd1' });
    assert.equal((await jobs.claim('w1', 1000))!.jobId, first.jobId);
    // The second update of d1 waits for the first; everything else runs meanwhile.
    const meanwhile = [(await jobs.claim('w2', 1000))!.jobId, (await jobs.claim('w3', 1000))!.jobId, (await jobs.claim('w4', 1000))!.jobId];
    assert.deepEqual(meanwhile, [otherDocument.jobId, otherClient.jobId, upload.jobId]);
    assert.equal(await jobs.claim('w5', 1000), null, 'the second update is not claimed while the first runs');
    assert.equal((await jobs.get('c1', second.jobId))!.status, 'pending');
    await jobs.finish(first.jobId, 'w1', { status: 'completed' });
    assert.equal((await jobs.claim('w5', 1000))!.jobId, second.jobId);
  } finally {
    close();
  }
});

test('an expired lease is claimed again by another worker; the old owner can no longer finish', async () => {
  const { jobs, advance, close } = store();
  try {
    const job = await jobs.enqueue(NEW_JOB);
    await jobs.claim('dead-worker', 1000);
    assert.equal(await jobs.claim('w2', 1000), null, 'lease still valid');
    advance(1001);
    const reclaimed = (await jobs.claim('w2', 1000))!;
    assert.equal(reclaimed.jobId, job.jobId);
    assert.equal(reclaimed.attempts, 2);
    assert.equal(await jobs.finish(job.jobId, 'dead-worker', { status: 'completed' }), false);
    assert.equal(await jobs.finish(job.jobId, 'w2', { status: 'completed', result: { chunks_created: 1 } }), true);
    assert.equal((await jobs.get('c1', job.jobId))!.status, 'completed');
  } finally {
    close();
  }
});

test('a retry waits for its backoff and keeps the error', async () => {
  const { jobs, advance, close } = store();
  try {
    const job = await jobs.enqueue(NEW_JOB);
    await jobs.claim('w1', 1000);
    assert.equal(await jobs.scheduleRetry(job.jobId, 'w1', 'provider timed out', 2000), true);
    const retrying = (await jobs.get('c1', job.jobId))!;
    assert.equal(retrying.status, 'retrying');
    assert.equal(retrying.error, 'provider timed out');
    assert.equal(await jobs.claim('w1', 1000), null);
    advance(2000);
    assert.equal((await jobs.claim('w1', 1000))!.attempts, 2);
  } finally {
    close();
  }
});

test('claims go oldest first across every kind of runnable job: an expired lease, due retries and pending jobs by run time, then acceptance', async () => {
  const { jobs, advance, close } = store();
  try {
    const abandoned = await jobs.enqueue(NEW_JOB); // runs at 1,000,000; its worker dies
    await jobs.claim('dead-worker', 5000);
    const retried = await jobs.enqueue({ ...NEW_JOB, documentId: 'd2' }); // fails once, runs again at 1,000,500
    await jobs.claim('w1', 60_000);
    await jobs.scheduleRetry(retried.jobId, 'w1', 'provider timed out', 500);
    advance(100);
    const pending = [await jobs.enqueue({ ...NEW_JOB, documentId: 'd3' }), await jobs.enqueue({ ...NEW_JOB, documentId: 'd4' })]; // both at 1,000,100
    advance(10_000);
    const later = await jobs.enqueue({ ...NEW_JOB, documentId: 'd5' });
    const order: string[] = [];
    for (let job = await jobs.claim('w2', 60_000); job; job = await jobs.claim('w2', 60_000)) order.push(job.jobId);
    assert.deepEqual(order, [abandoned.jobId, pending[0].jobId, pending[1].jobId, retried.jobId, later.jobId]);
  } finally {
    close();
  }
});

test('a job is visible only to its own Client', async () => {
  const { jobs, close } = store();
  try {
    const job = await jobs.enqueue(NEW_JOB);
    assert.ok(await jobs.get('c1', job.jobId));
    assert.equal(await jobs.get('c2', job.jobId), null);
  } finally {
    close();
  }
});

test('release hands a claimed job back without spending the attempt', async () => {
  const { jobs, close } = store();
  try {
    const job = await jobs.enqueue(NEW_JOB);
    await jobs.claim('w1', 60_000);
    await jobs.release(job.jobId, 'w1');
    const released = (await jobs.get('c1', job.jobId))!;
    assert.equal(released.status, 'pending');
    assert.equal(released.attempts, 0);
    assert.equal((await jobs.claim('w2', 1000))!.attempts, 1);
  } finally {
    close();
  }
});

test('the newest upload job of a version is the one that owns it', async () => {
  const { jobs, close } = store();
  try {
    await jobs.enqueue(NEW_JOB);
    const newer = await jobs.enqueue(NEW_JOB);
    await jobs.enqueue({ ...NEW_JOB, versionKey: 'other' });
    assert.equal((await jobs.newestEmbedJob('c1', 'd1', 'd1'))!.jobId, newer.jobId);
  } finally {
    close();
  }
});

test('readiness never sticks at backfilling: a backfill that failed leaves the Client blocked', async () => {
  const { jobs, discovery, close } = store();
  try {
    const backfill = await jobs.enqueue({ clientId: 'c1', operation: 'metadata_backfill', documentId: '', versionKey: null, request: {}, maxAttempts: 3 });
    await discovery.setReadiness('c1', 'backfilling', backfill.jobId);
    assert.equal((await discovery.readiness('c1')).state, 'backfilling', 'while its job is alive');
    await jobs.claim('w1', 1000);
    await jobs.finish(backfill.jobId, 'w1', { status: 'failed', error: 'gave up' });
    assert.equal((await discovery.readiness('c1')).state, 'blocked');
    await discovery.setReadiness('c2', 'backfilling', 'a-job-that-was-purged');
    assert.equal((await discovery.readiness('c2')).state, 'blocked');
  } finally {
    close();
  }
});

test('a job keeps its request through claim, heartbeats, progress and outcome, and a hard delete removes it with the job', async () => {
  const dir = tempDataDir();
  const db = openDatabase(join(dir, 'control.db'), CONTROL_MIGRATIONS);
  const jobs = new SqliteJobRepository(db);
  try {
    const request = { source: 'text' as const, text: 'Penyata akaun '.repeat(2_000), filename: null, metadata: { branch: 'Ipoh' } };
    const job = await jobs.enqueue({ ...NEW_JOB, request });
    const claimed = (await jobs.claim('w1', 60_000))!;
    assert.deepEqual(claimed.request, request);
    assert.ok(await jobs.heartbeat(job.jobId, 'w1', 60_000, 'processing'));
    assert.ok(await jobs.recordProgress(job.jobId, 'w1', { staged_generation: 1 }));
    assert.ok(await jobs.finish(job.jobId, 'w1', { status: 'completed', result: { generation: 1 } }));
    assert.deepEqual((await jobs.get('c1', job.jobId))!.request, request);
    assert.deepEqual(await jobs.newestEmbedJob('c1', 'd1', 'd1'), { seq: job.seq, jobId: job.jobId });
    // The request row is the one written at enqueue: no update rewrote it.
    assert.deepEqual(db.prepare('SELECT seq, request FROM job_requests').all().map((row) => ({ ...row })), [{ seq: job.seq, request: JSON.stringify(request) }]);
    assert.deepEqual(await jobs.deleteForDocument('c1', 'd1', null), [job.jobId]);
    assert.equal((db.prepare('SELECT COUNT(*) AS n FROM job_requests').get() as { n: number }).n, 0);
  } finally {
    db.close();
    removeDir(dir);
  }
});

test('the job request migration keeps the requests of jobs queued before it', async () => {
  const dir = tempDataDir();
  const path = join(dir, 'control.db');
  try {
    // The store as it was just before the migration that moved requests out (later migrations append after it).
    const before = CONTROL_MIGRATIONS.findIndex((migration) => migration.includes('CREATE TABLE job_requests'));
    assert.ok(before > 0);
    const old = openDatabase(path, CONTROL_MIGRATIONS.slice(0, before));
    old
      .prepare(
        `INSERT INTO jobs (job_id, client_id, operation, document_id, version_key, status, request, max_attempts, next_run_at, created_at, updated_at)
         VALUES ('old-job', 'c1', 'embed', 'd1', 'd1', 'pending', ?, 3, 0, '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z')`,
      )
      .run(JSON.stringify({ source: 'text', text: 'queued before the upgrade' }));
    old.close();
    const db = openDatabase(path, CONTROL_MIGRATIONS);
    const jobs = new SqliteJobRepository(db);
    try {
      assert.deepEqual((await jobs.getById('old-job'))!.request, { source: 'text', text: 'queued before the upgrade' });
      assert.deepEqual((await jobs.claim('w1', 1000))!.request, { source: 'text', text: 'queued before the upgrade' });
      assert.ok(!(db.prepare('SELECT name FROM pragma_table_info(?)').all('jobs') as { name: string }[]).some((column) => column.name === 'request'));
    } finally {
      db.close();
    }
  } finally {
    removeDir(dir);
  }
});
