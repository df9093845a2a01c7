// Job outcomes of SPEC.md beyond the happy path: superseded by a newer upload, retrying then completed,
// retries exhausted, and partial_failed with the successful chunks searchable.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, api, KEYS, removeDir, uploadText, waitForJob } from '../helpers/server.ts';
import { startFakeProvider } from '../models/fake-provider.ts';
import { openTestStorage } from '../helpers/test-store.ts';
import { seedVersions } from '../helpers/seed.ts';
import type { FakeHandler, FakeProvider, RecordedRequest } from '../models/fake-provider.ts';
import { FaultHolds } from '../helpers/faults.ts';

const DIMS = 8;

/** A deterministic toy embedding: letter histogram folded into 8 dimensions. */
function toyVector(text: string): number[] {
  const vector = new Array(DIMS).fill(0.01);
  for (const char of text.toLowerCase()) if (char >= 'a' && char <= 'z') vector[char.charCodeAt(0) % DIMS] += 1;
  return vector;
}

function embeddings(request: RecordedRequest) {
  const input = (request.body as { input: string[] }).input;
  return { body: { data: input.map((text, index) => ({ index, embedding: toyVector(text) })), model: 'toy' } };
}

/** Runs fn against a service whose embedding provider is a local fake OpenAI-compatible server. */
async function withFakeEmbeddings(handler: FakeHandler, overrides: Record<string, string>, fn: (url: string, provider: FakeProvider) => Promise<void>) {
  const provider = await startFakeProvider(handler);
  const server = await startTestServer({
    EMBEDDING_PROVIDER: 'openai',
    EMBEDDING_URL: provider.url,
    EMBEDDING_MODEL: 'toy',
    EMBEDDING_DIMENSIONS: String(DIMS),
    EMBEDDING_MAX_RETRIES: '0',
    ...overrides,
  });
  try {
    await fn(server.url, provider);
  } finally {
    await server.close();
    removeDir(server.dataDir);
    await provider.close();
  }
}

test('an older upload that finishes after a newer one is superseded and never overwrites it', async () => {
  // The older upload's job is held at its first stage until the newer upload is accepted.
  const holds = new FaultHolds(['job-stage']);
  const server = await startTestServer({ WORKER_CONCURRENCY: '1', ...holds.env() });
  try {
    const older = await uploadText(server.url, KEYS.alpha, { document_id: 'race', text: 'Older text about overdraft charges.' });
    await holds.reached('job-stage');
    const newer = await uploadText(server.url, KEYS.alpha, { document_id: 'race', text: 'Newer text about mortgage arrears.' });
    holds.open('job-stage');
    const olderJob = await waitForJob(server.url, KEYS.alpha, older.json.job_id);
    const newerJob = await waitForJob(server.url, KEYS.alpha, newer.json.job_id);
    assert.equal(olderJob.status, 'superseded');
    assert.equal(olderJob.superseded_by_job_id, newer.json.job_id);
    assert.equal(olderJob.superseded_reason, 'newer_upload');
    assert.equal(olderJob.publication_status, 'superseded');
    assert.equal(olderJob.error, null);
    assert.equal(newerJob.status, 'completed');
    const text = await api(server.url, '/document/race/text', { key: KEYS.alpha });
    assert.match(text.json.chunks[0].text, /mortgage arrears/);
  } finally {
    holds.remove();
    await server.close();
    removeDir(server.dataDir);
  }
});

test('a transient provider failure puts the job in retrying with its counters, then it completes', async () => {
  let failures = 0;
  await withFakeEmbeddings(
    (request) => {
      const input = (request.body as { input: string[] }).input;
      if (input.some((text) => text.includes('RETRYME')) && failures < 1) {
        failures++;
        return { status: 503, body: { error: { message: 'overloaded' } } };
      }
      return embeddings(request);
    },
    { JOB_RETRY_BASE_SECONDS: '1' },
    async (url) => {
      const accepted = await uploadText(url, KEYS.alpha, { document_id: 'flaky', text: 'RETRYME please: savings account interest.' });
      const retrying = await waitForJob(url, KEYS.alpha, accepted.json.job_id, {
        until: (job) => job.status !== 'pending' && job.status !== 'started' && job.status !== 'processing',
      });
      assert.equal(retrying.status, 'retrying', JSON.stringify(retrying));
      assert.match(retrying.error, /Embedding provider unavailable/);
      assert.equal(retrying.retry_count, 1);
      assert.equal(retrying.max_retries, 3);
      assert.ok(retrying.next_retry_in_seconds >= 0 && retrying.next_retry_in_seconds <= 1);
      const done = await waitForJob(url, KEYS.alpha, accepted.json.job_id);
      assert.equal(done.status, 'completed');
      const text = await api(url, '/document/flaky/text', { key: KEYS.alpha });
      assert.equal(text.json.embedding.dense_dimensions, DIMS);
      assert.equal(text.json.embedding.dense_model, 'toy');
    },
  );
});

test('retries are bounded: a provider that never recovers fails the job after 3 attempts', async () => {
  await withFakeEmbeddings(
    (request) => {
      const input = (request.body as { input: string[] }).input;
      return input.some((text) => text.includes('ALWAYSDOWN')) ? { status: 503, body: {} } : embeddings(request);
    },
    { JOB_RETRY_BASE_SECONDS: '0.1' },
    async (url, provider) => {
      const accepted = await uploadText(url, KEYS.alpha, { document_id: 'down', text: 'ALWAYSDOWN statement text.' });
      const job = await waitForJob(url, KEYS.alpha, accepted.json.job_id);
      assert.equal(job.status, 'failed');
      assert.match(job.error, /Embedding provider unavailable/);
      const attempts = provider.requests.filter((request) => JSON.stringify(request.body).includes('ALWAYSDOWN')).length;
      assert.equal(attempts, 3);
    },
  );
});

test('chunks whose embedding is rejected are reported; the rest are searchable (partial_failed)', async () => {
  await withFakeEmbeddings(
    (request) => {
      const input = (request.body as { input: string[] }).input;
      return input.some((text) => text.includes('POISON')) ? { status: 400, body: { error: { message: 'rejected input' } } } : embeddings(request);
    },
    { CHUNK_TARGET_CHARS: '100', CHUNK_OVERLAP_CHARS: '0' },
    async (url) => {
      const paragraphs = Array.from({ length: 70 }, (_, i) => `Paragraph ${i} records ledger entry number ${i} for the audit trail.`);
      paragraphs[68] = 'POISON paragraph that the provider refuses to embed.';
      const accepted = await uploadText(url, KEYS.alpha, { document_id: 'partial', text: paragraphs.join('\n\n') });
      const job = await waitForJob(url, KEYS.alpha, accepted.json.job_id);
      assert.equal(job.status, 'partial_failed', JSON.stringify(job));
      assert.equal(job.chunks_created, 64, 'the first embedding batch of 64 chunks succeeded');
      assert.match(job.error, /Embedding failed/);
      assert.equal(typeof job.entities_extracted, 'object');
      const search = await api(url, '/search', { key: KEYS.alpha, body: { query: 'ledger entry number 12', alpha: 0 } });
      assert.equal(search.json.results[0].document_version.document_id, 'partial');
      const missing = await api(url, '/search', { key: KEYS.alpha, body: { query: 'POISON refuses', alpha: 0 } });
      assert.deepEqual(missing.json.results, []);
    },
  );
});

test('replacement_overtaken: a publication landing between a job\'s staging and its activation is never overwritten nor merged onto', async () => {
  // The worker is held at each job stage until the test lets it go on, so each soft delete lands between the
  // job's staging and its activation however long either takes.
  const holds = new FaultHolds(['job-stage']);
  const server = await startTestServer({ ...holds.env(), WORKER_CONCURRENCY: '1' });
  const storage = await openTestStorage(server.dataDir);
  try {
    await seedVersions(server.dataDir, 'client-alpha', 'patched', [{ versionId: 'v1', text: 'Draft facility letter.' }], { custom: { stage: 'draft' } });
    await seedVersions(server.dataDir, 'client-alpha', 'uploaded', [{ versionId: 'v1', text: 'First scan of the guarantee.' }], { custom: { stage: 'draft' } });

    // A metadata update prepares its successor; a soft delete of the version lands before it activates.
    const update = await api(server.url, '/update', { method: 'PATCH', key: KEYS.alpha, body: { document_id: 'patched', metadata: { stage: 'final' } } });
    assert.equal(update.status, 202);
    // An update's one stage point is after it prepared its successor, before it activates it.
    const prepared = await holds.reached('job-stage');
    assert.equal((await api(server.url, '/document/patched', { method: 'DELETE', key: KEYS.alpha })).status, 200);
    holds.pass(prepared);
    const updated = await waitForJob(server.url, KEYS.alpha, update.json.job_id);
    assert.equal(updated.status, 'superseded', JSON.stringify(updated));
    assert.equal(updated.superseded_reason, 'replacement_overtaken');
    assert.equal(updated.superseded_by_job_id, null);
    assert.equal(updated.publication_status, 'superseded');
    assert.equal(updated.error, null);
    const patched = await api(server.url, '/document/patched/text?include_deleted=true', { key: KEYS.alpha });
    assert.equal(patched.json.deleted, true, 'the soft delete stands');
    assert.equal(patched.json.metadata.custom.stage, 'draft', 'the update was not merged onto it');

    // An upload stages its generation; a soft delete lands before it activates.
    const upload = await uploadText(server.url, KEYS.alpha, { document_id: 'uploaded', version_id: 'v1', text: 'Second scan of the guarantee, signed.' });
    assert.equal(upload.status, 202, upload.text);
    const store = storage.client('client-alpha');
    // The ingestion stages go on one by one until the one after staging, where the delete lands.
    for (;;) {
      const stage = await holds.reached('job-stage');
      const staged = (await store.generations.stagedGenerationOf(upload.json.job_id)) !== null;
      if (staged) assert.equal((await api(server.url, '/document/uploaded', { method: 'DELETE', key: KEYS.alpha })).status, 200);
      holds.pass(stage);
      if (staged) break;
    }
    const uploaded = await waitForJob(server.url, KEYS.alpha, upload.json.job_id);
    assert.equal(uploaded.status, 'superseded', JSON.stringify(uploaded));
    assert.equal(uploaded.superseded_reason, 'replacement_overtaken');
    assert.equal(uploaded.superseded_by_job_id, null);
    const kept = await api(server.url, '/document/uploaded/text?include_deleted=true', { key: KEYS.alpha });
    assert.equal(kept.json.deleted, true);
    assert.match(kept.json.chunks[0].text, /First scan/, 'the staged content never replaced it');
    assert.equal(await store.generations.stagedGenerationOf(upload.json.job_id), null, 'the staged generation was discarded');
  } finally {
    holds.remove();
    await storage.end();
    await server.close();
    removeDir(server.dataDir);
  }
});

test('a pending upload job shows the common fields and none beyond them (SPEC.md job status table)', async () => {
  const server = await startTestServer({ WORKER_CONCURRENCY: '0' }); // no worker claims: the job stays pending
  try {
    const accepted = await uploadText(server.url, KEYS.alpha, { document_id: 'queued', version_id: 'v1', text: 'Standing order form.' });
    const status = await api(server.url, `/status/${accepted.json.job_id}`, { key: KEYS.alpha });
    assert.equal(status.status, 200);
    assert.deepEqual(status.json, { job_id: accepted.json.job_id, document_id: 'queued', status: 'pending', operation: 'embed' });
  } finally {
    await server.close();
    removeDir(server.dataDir);
  }
});
