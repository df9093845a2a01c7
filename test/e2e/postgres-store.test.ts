// STORE=postgres end to end: two deployments of the service as two hosts would run them (each its own
// supervisor and DATA_DIR, one with a worker and one without) share one PostgreSQL database. What one
// accepts the other's worker runs, and a read on either sees what was published through the other.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { api, KEYS, removeDir, startTestServer, uploadFile, uploadText, waitForJob } from '../helpers/server.ts';
import type { TestServer } from '../helpers/server.ts';
import { postgresCluster, stopPostgres } from '../helpers/storage-adapters.ts';

let withWorker: TestServer;
let apiOnly: TestServer;

before(async () => {
  const url = await (await postgresCluster()).createDatabase();
  const store = { STORE: 'postgres', DATABASE_URL: url, API_PROCESSES: '1' };
  withWorker = await startTestServer({ ...store, WORKER_PROCESSES: '1' });
  apiOnly = await startTestServer({ ...store, WORKER_PROCESSES: '0' });
});

after(async () => {
  for (const server of [withWorker, apiOnly]) {
    if (!server) continue;
    await server.close();
    removeDir(server.dataDir);
  }
  await stopPostgres();
});

test('an upload accepted by one host is indexed by the worker of another and read on both', async () => {
  const accepted = await uploadText(apiOnly.url, KEYS.alpha, { document_id: 'statement-1', text: 'Closing balance RM 9,120.55 for the Penang branch savings account.' });
  assert.equal(accepted.status, 202);
  const job = await waitForJob(withWorker.url, KEYS.alpha, accepted.json.job_id);
  assert.equal(job.status, 'completed', JSON.stringify(job));
  for (const server of [apiOnly, withWorker]) {
    const search = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'closing balance penang', scope: 'content' } });
    assert.equal(search.status, 200, search.text);
    assert.deepEqual(search.json.results.map((row: any) => row.document_version.document_id), ['statement-1']);
    const other = await api(server.url, '/search', { key: KEYS.beta, body: { query: 'closing balance penang', scope: 'content' } });
    assert.deepEqual(other.json.results, [], 'another Client finds nothing');
  }
  const status = await api(apiOnly.url, `/status/${accepted.json.job_id}`, { key: KEYS.alpha });
  assert.equal(status.json.status, 'completed');
  assert.equal((await api(apiOnly.url, `/status/${accepted.json.job_id}`, { key: KEYS.beta })).status, 404);
});

test('a file uploaded to the host without a worker is read from the database by the worker elsewhere', async () => {
  const bytes = new TextEncoder().encode('Invoice INV-2291\nConsulting services, Kuala Lumpur office.\nTotal due: RM 4,800.00');
  const accepted = await uploadFile(apiOnly.url, KEYS.alpha, { document_id: 'invoice-1' }, { name: 'invoice.txt', bytes, type: 'text/plain' });
  assert.equal(accepted.status, 202, JSON.stringify(accepted.json));
  const job = await waitForJob(apiOnly.url, KEYS.alpha, accepted.json.job_id);
  assert.equal(job.status, 'completed', JSON.stringify(job));
  const text = await api(withWorker.url, '/document/invoice-1/text', { key: KEYS.alpha });
  assert.equal(text.status, 200);
  assert.match(text.json.chunks.map((chunk: any) => chunk.text).join(' '), /INV-2291/);
});

test('a hard delete through one host is seen by reads on the other; health reports the shared store', async () => {
  const accepted = await uploadText(withWorker.url, KEYS.alpha, { document_id: 'letter-9', text: 'Letter about the Ipoh branch relocation.' });
  await waitForJob(withWorker.url, KEYS.alpha, accepted.json.job_id);
  const deleted = await api(apiOnly.url, '/document/letter-9?mode=hard', { method: 'DELETE', key: KEYS.alpha });
  assert.equal(deleted.status, 200, deleted.text);
  assert.equal(deleted.json.status, 'hard_deleted');
  const search = await api(withWorker.url, '/search', { key: KEYS.alpha, body: { query: 'ipoh relocation', scope: 'content' } });
  assert.deepEqual(search.json.results, []);
  assert.equal((await api(withWorker.url, '/document/letter-9/text', { key: KEYS.alpha })).status, 404);
  for (const server of [apiOnly, withWorker]) {
    const health = await api(server.url, '/health');
    assert.equal(health.status, 200, health.text);
    assert.equal(health.json.components.state_store, 'ok');
    assert.equal(health.json.publishing.authority_mode, 'READY');
  }
});
