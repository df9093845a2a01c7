// SPEC.md GET /health rules 1-6 with real faults: every component is probed; a failing component other than
// publication degrades the answer (200); the schema evidence is read from the stored lane schemas, cached,
// and re-read once a Client store is provisioned.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { KEYS, removeDir, startTestServer, tempDataDir, uploadText, waitForJob, api } from '../helpers/server.ts';
import { fresh } from '../helpers/processes.ts';
import { clientDbFile } from '../helpers/client-db.ts';
import { clientSql, controlSql, TEST_STORE } from '../helpers/test-store.ts';

const CLASSIFIER_MODEL = JSON.stringify({ format: 'keyword-classifier/v1', model: 'health-test', categories: { invoice: { keywords: { invoice: 3 } } } });

/** Health from every api process (fresh connections reach them in turn). */
async function healthSamples(url: string, count = 4) {
  const samples = [];
  for (let i = 0; i < count; i++) samples.push(await fresh(url, '/health'));
  return samples;
}

test('an unreadable Client store and an unreadable classifier model file degrade health (200); publication stays ok', async () => {
  const dataDir = tempDataDir();
  const modelFile = join(dataDir, 'classifier.json');
  writeFileSync(modelFile, CLASSIFIER_MODEL);
  const server = await startTestServer({ API_PROCESSES: '2', CLASSIFIER_MODEL_FILE: modelFile }, dataDir);
  try {
    const accepted = await uploadText(server.url, KEYS.alpha, { document_id: 'inv', text: 'Invoice for cleaning services.' });
    await waitForJob(server.url, KEYS.alpha, accepted.json.job_id);
    for (const sample of await healthSamples(server.url)) {
      assert.equal(sample.status, 200);
      assert.equal(sample.json.status, 'healthy');
    }

    writeFileSync(modelFile, '{ this is not a model');
    for (const sample of await healthSamples(server.url)) {
      assert.equal(sample.status, 200);
      assert.equal(sample.json.status, 'degraded');
      assert.equal(sample.json.components.classifier, 'error');
      assert.equal(sample.json.components.publication, 'ok');
    }
    writeFileSync(modelFile, CLASSIFIER_MODEL);

    if (TEST_STORE === 'postgres') {
      // A table every Client's rows live in is gone (as a botched migration would leave it): the store cannot be read.
      await controlSql(dataDir, 'ALTER TABLE publication_log RENAME TO publication_log_damaged');
    } else {
      // Overwrite the Client database's header (after a checkpoint, so its pages live in the file itself):
      // the store can no longer be read.
      const path = clientDbFile(dataDir, 'client-alpha');
      const checkpoint = new DatabaseSync(path);
      checkpoint.exec('PRAGMA busy_timeout = 5000; PRAGMA wal_checkpoint(TRUNCATE)');
      checkpoint.close();
      const fd = openSync(path, 'r+');
      writeSync(fd, Buffer.alloc(100, 0x5a), 0, 100, 0);
      closeSync(fd);
    }
    for (const sample of await healthSamples(server.url)) {
      assert.equal(sample.status, 200, JSON.stringify(sample.json));
      assert.equal(sample.json.status, 'degraded');
      assert.equal(sample.json.components.state_store, 'error');
      assert.equal(sample.json.components.classifier, 'ok');
      assert.equal(sample.json.components.publication, 'ok');
      assert.equal(sample.json.publishing.status, 'ready');
    }
  } finally {
    await server.close();
    removeDir(dataDir);
  }
});

test('schema evidence is read from the stored lane schemas, cached, and re-read once a Client store is provisioned', async () => {
  const server = await startTestServer({ API_PROCESSES: '2' });
  try {
    const accepted = await uploadText(server.url, KEYS.alpha, { document_id: 'first', text: 'Standing order form.' });
    await waitForJob(server.url, KEYS.alpha, accepted.json.job_id);
    const digests = (samples: Awaited<ReturnType<typeof healthSamples>>) => new Set(samples.map((sample) => sample.json.diagnostics.publication.collection_schema_digest));
    const before = digests(await healthSamples(server.url));
    assert.equal(before.size, 1, 'every api process reads the same schema');
    const [digest] = before;
    assert.match(digest, /^[0-9a-f]{16}$/);
    assert.equal((await fresh(server.url, '/health')).json.diagnostics.publication.state_store_id, TEST_STORE === 'postgres' ? 'postgresql' : 'sqlite');
    assert.match((await fresh(server.url, '/health')).json.diagnostics.publication.vector_store_version, TEST_STORE === 'postgres' ? /^postgresql-\d+(\.\d+)?\+in-memory-segments-v1$/ : /^sqlite-\d+\.\d+\.\d+\+in-memory-segments-v1$/);

    // The stored schema changes (an index is added to a lane table): the cache still answers...
    await clientSql(server.dataDir, 'client-alpha', 'CREATE INDEX chunks_by_page ON chunks (page)');
    assert.deepEqual(digests(await healthSamples(server.url)), before, 'cached');
    // ...until a Client store is provisioned, after which the next probe re-reads the schemas.
    const beta = await uploadText(server.url, KEYS.beta, { document_id: 'other', text: 'Letter of credit.' });
    await waitForJob(server.url, KEYS.beta, beta.json.job_id);
    const after = digests(await healthSamples(server.url));
    assert.equal(after.size, 1);
    assert.notDeepEqual(after, before);
    assert.equal((await api(server.url, '/health')).status, 200);
  } finally {
    await server.close();
    removeDir(server.dataDir);
  }
});
