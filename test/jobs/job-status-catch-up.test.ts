// GET /status as a service over a real store and a real serving index: a poll catches this api process's
// snapshot up only when the answer could change by it. A job in flight is answered from the snapshot as it is; a
// completed upload not served yet catches up first, so search_ready is true on the poll that first sees it
// completed; one already served catches up only when the log names its version after what was applied.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Storage } from '../../src/storage/sqlite/sqlite-storage.ts';
import { ServingIndex } from '../../src/serving/serving-index.ts';
import { ReadGuard } from '../../src/serving/read-guard.ts';
import { inlineSegmentBuilder } from '../../src/serving/segment.ts';
import { JobStatusService } from '../../src/reads/job-status-service.ts';
import { generationInput } from '../helpers/storage-adapters.ts';
import { removeDir, tempDataDir } from '../helpers/server.ts';

const DIMENSIONS = 4;

test('a status poll catches the snapshot up only when its answer could change by it', async () => {
  const dir = tempDataDir();
  const storage = new Storage(dir);
  const index = new ServingIndex(storage, DIMENSIONS, inlineSegmentBuilder);
  const guard = new ReadGuard(storage, index, { enabled: false, catchUpDeadlineMs: 30_000 });
  guard.recovered();
  const status = new JobStatusService(storage, guard, { publicationEnabled: false });
  try {
    await index.catchUp('acme');
    const upload = await storage.jobs.enqueue({ clientId: 'acme', operation: 'embed', documentId: 'doc-1', versionKey: 'v1', request: { source: 'text', filename: null, metadata: {} }, maxAttempts: 3 });
    // Another document is published meanwhile: the log moves past what this process applied.
    await storage.client('acme').generations.stageAndActivate(generationInput('doc-0', ['published by another job']));

    const pending = await status.view('acme', upload.jobId);
    assert.equal(pending.status, 'pending');
    assert.equal(index.appliedSeq('acme'), 0, 'a poll of a job in flight reads nothing a catch-up would change');

    // The upload publishes and completes.
    const published = await storage.client('acme').generations.stageAndActivate(generationInput('doc-1', ['the upload'], { versionKey: 'v1', jobId: upload.jobId }));
    assert.ok(published);
    await storage.jobs.claim('w1', 30_000);
    await storage.jobs.finish(upload.jobId, 'w1', { status: 'completed', result: { generation: published.generation, chunks_created: 1 } });

    const completed = await status.view('acme', upload.jobId);
    assert.equal(completed.status, 'completed');
    assert.equal(completed.search_ready, true, 'the poll that first sees the job completed caught up to serve it');
    assert.equal(completed.snapshot_generation, published.generation);
    assert.equal(index.appliedSeq('acme'), 2);

    // Once served, later polls answer from the snapshot as it is while the log moves on elsewhere...
    await storage.client('acme').generations.stageAndActivate(generationInput('doc-2', ['a later upload']));
    const again = await status.view('acme', upload.jobId);
    assert.equal(again.search_ready, true);
    assert.equal(index.appliedSeq('acme'), 2, 'nothing after what was applied names the job\'s version: no catch-up');

    // ...and catch up as soon as an entry names the job's version: its answer is current, never stale.
    const newer = await storage.client('acme').generations.stageAndActivate(generationInput('doc-1', ['the upload, replaced'], { versionKey: 'v1' }));
    const replaced = await status.view('acme', upload.jobId);
    assert.equal(index.appliedSeq('acme'), 4);
    assert.equal(replaced.snapshot_generation, newer!.generation);
    assert.equal(replaced.search_ready, true, 'a newer generation of the version serves the job too');
  } finally {
    index.close();
    storage.close();
    removeDir(dir);
  }
});

test('a status poll of a job that is not completed never loads a Client this process has not loaded', async () => {
  const dir = tempDataDir();
  const storage = new Storage(dir);
  const index = new ServingIndex(storage, DIMENSIONS, inlineSegmentBuilder);
  const guard = new ReadGuard(storage, index, { enabled: false, catchUpDeadlineMs: 30_000 });
  guard.recovered();
  const status = new JobStatusService(storage, guard, { publicationEnabled: false });
  try {
    // The Client holds published data (as a large Client would) that this process has never read.
    await storage.client('acme').generations.stageAndActivate(generationInput('doc-0', ['published before this process started', 'a second chunk']));
    const failing = await storage.jobs.enqueue({ clientId: 'acme', operation: 'embed', documentId: 'doc-1', versionKey: 'doc-1', request: { source: 'text', filename: null, metadata: {} }, maxAttempts: 1 });
    await storage.jobs.claim('w1', 30_000);
    await storage.jobs.finish(failing.jobId, 'w1', { status: 'failed', error: 'Document could not be parsed' });
    const pending = await storage.jobs.enqueue({ clientId: 'acme', operation: 'embed', documentId: 'doc-2', versionKey: 'doc-2', request: { source: 'text', filename: null, metadata: {} }, maxAttempts: 3 });

    assert.equal((await status.view('acme', pending.jobId)).status, 'pending');
    assert.equal((await status.view('acme', failing.jobId)).status, 'failed');
    assert.deepEqual(index.loadedClientIds(), [], 'neither poll loaded the Client');
    assert.equal(index.stats().loads, 0);

    // A read that needs the Client still loads it: what the polls left alone is there to be served.
    await guard.guard('acme');
    assert.deepEqual(index.loadedClientIds(), ['acme']);
    assert.equal(index.snapshot('acme').versions.size, 1);
  } finally {
    index.close();
    storage.close();
    removeDir(dir);
  }
});
