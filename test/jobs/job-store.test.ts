import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openDatabase } from '../../src/storage/sqlite.ts';
import { CONTROL_MIGRATIONS } from '../../src/storage/control-migrations.ts';
import { JobStore } from '../../src/storage/job-store.ts';
import { tempDataDir, removeDir } from '../helpers/server.ts';

function store() {
  const dir = tempDataDir();
  let now = 1_000_000;
  const db = openDatabase(join(dir, 'control.db'), CONTROL_MIGRATIONS);
  const jobs = new JobStore(db, () => now);
  return { jobs, advance: (ms: number) => (now += ms), close: () => { db.close(); removeDir(dir); } };
}

const NEW_JOB = { clientId: 'c1', operation: 'embed' as const, documentId: 'd1', versionKey: 'd1', request: { source: 'text' }, maxAttempts: 3 };

test('a claim takes the oldest pending job with a lease and counts an attempt', () => {
  const { jobs, close } = store();
  try {
    const first = jobs.enqueue(NEW_JOB);
    jobs.enqueue({ ...NEW_JOB, documentId: 'd2' });
    const claimed = jobs.claim('w1', 1000)!;
    assert.equal(claimed.jobId, first.jobId);
    assert.equal(claimed.status, 'started');
    assert.equal(claimed.attempts, 1);
    assert.equal(claimed.leaseOwner, 'w1');
    assert.equal(jobs.claim('w2', 1000)!.documentId, 'd2');
    assert.equal(jobs.claim('w3', 1000), null);
  } finally {
    close();
  }
});

test('an expired lease is claimed again by another worker; the old owner can no longer finish', () => {
  const { jobs, advance, close } = store();
  try {
    const job = jobs.enqueue(NEW_JOB);
    jobs.claim('dead-worker', 1000);
    assert.equal(jobs.claim('w2', 1000), null, 'lease still valid');
    advance(1001);
    const reclaimed = jobs.claim('w2', 1000)!;
    assert.equal(reclaimed.jobId, job.jobId);
    assert.equal(reclaimed.attempts, 2);
    assert.equal(jobs.finish(job.jobId, 'dead-worker', { status: 'completed' }), false);
    assert.equal(jobs.finish(job.jobId, 'w2', { status: 'completed', result: { chunks_created: 1 } }), true);
    assert.equal(jobs.get('c1', job.jobId)!.status, 'completed');
  } finally {
    close();
  }
});

test('a retry waits for its backoff and keeps the error', () => {
  const { jobs, advance, close } = store();
  try {
    const job = jobs.enqueue(NEW_JOB);
    jobs.claim('w1', 1000);
    assert.equal(jobs.scheduleRetry(job.jobId, 'w1', 'provider timed out', 2000), true);
    const retrying = jobs.get('c1', job.jobId)!;
    assert.equal(retrying.status, 'retrying');
    assert.equal(retrying.error, 'provider timed out');
    assert.equal(jobs.claim('w1', 1000), null);
    advance(2000);
    assert.equal(jobs.claim('w1', 1000)!.attempts, 2);
  } finally {
    close();
  }
});

test('a job is visible only to its own Client', () => {
  const { jobs, close } = store();
  try {
    const job = jobs.enqueue(NEW_JOB);
    assert.ok(jobs.get('c1', job.jobId));
    assert.equal(jobs.get('c2', job.jobId), null);
  } finally {
    close();
  }
});

test('release hands a claimed job back without spending the attempt', () => {
  const { jobs, close } = store();
  try {
    const job = jobs.enqueue(NEW_JOB);
    jobs.claim('w1', 60_000);
    jobs.release(job.jobId, 'w1');
    const released = jobs.get('c1', job.jobId)!;
    assert.equal(released.status, 'pending');
    assert.equal(released.attempts, 0);
    assert.equal(jobs.claim('w2', 1000)!.attempts, 1);
  } finally {
    close();
  }
});

test('the newest upload job of a version is the one that owns it', () => {
  const { jobs, close } = store();
  try {
    jobs.enqueue(NEW_JOB);
    const newer = jobs.enqueue(NEW_JOB);
    jobs.enqueue({ ...NEW_JOB, versionKey: 'other' });
    assert.equal(jobs.newestEmbedJob('c1', 'd1', 'd1')!.jobId, newer.jobId);
  } finally {
    close();
  }
});
