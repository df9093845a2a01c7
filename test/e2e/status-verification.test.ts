// SPEC.md GET /status: publication-ready polls verify the generation's manifest (record id, content count,
// lane digests) by reading the manifest only; a mismatch fails closed with 503 and Retry-After 1. The
// manifests are corrupted in the real store, as a disk or an operator error would.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openClientDb } from '../helpers/client-db.ts';
import { useTestServer, api, KEYS, uploadText, waitForJob } from '../helpers/server.ts';
import { SQLITE_FILES } from '../helpers/test-store.ts';

const server = useTestServer();

/** Runs one statement on the Client's database file, beside the running service. */
function tamper(clientId: string, sql: string, ...params: (string | number)[]): void {
  const db = openClientDb(server.dataDir, clientId);
  try {
    db.prepare(sql).run(...params);
  } finally {
    db.close();
  }
}

async function completedUpload(documentId: string): Promise<{ jobId: string; generation: number }> {
  const accepted = await uploadText(server.url, KEYS.alpha, { document_id: documentId, text: `Remittance advice for ${documentId}.` });
  const job = await waitForJob(server.url, KEYS.alpha, accepted.json.job_id);
  assert.equal(job.status, 'completed');
  return { jobId: accepted.json.job_id, generation: job.snapshot_generation };
}

const status = (jobId: string) => api(server.url, `/status/${jobId}`, { key: KEYS.alpha });

function assertFailsClosed(response: Awaited<ReturnType<typeof status>>, errorCode: string): void {
  assert.equal(response.status, 503, response.text);
  assert.equal(response.json.error_code, errorCode);
  assert.equal(response.headers.get('retry-after'), '1');
}

test('a manifest changed after publication fails the poll closed', SQLITE_FILES, async () => {
  const { jobId, generation } = await completedUpload('changed');
  assert.equal((await status(jobId)).status, 200);
  tamper('client-alpha', `UPDATE generations SET manifest = json_set(manifest, '$.fuzzy.count', 999) WHERE generation = ?`, generation);
  assertFailsClosed(await status(jobId), 'publication_authority_inconsistent');
});

test('an unreadable manifest fails the poll closed, never a 500', SQLITE_FILES, async () => {
  const { jobId, generation } = await completedUpload('unreadable');
  tamper('client-alpha', `UPDATE generations SET manifest = '{not json' WHERE generation = ?`, generation);
  assertFailsClosed(await status(jobId), 'publication_authority_inconsistent');
});

test('a retired generation verifies through its successor: record id and counts are checked, not only the shape', SQLITE_FILES, async () => {
  const { jobId } = await completedUpload('succeeded');
  const update = await api(server.url, '/update', { method: 'PATCH', key: KEYS.alpha, body: { document_id: 'succeeded', metadata: { reviewed: true } } });
  const updated = await waitForJob(server.url, KEYS.alpha, update.json.job_id);
  assert.equal(updated.status, 'completed');
  assert.equal(updated.publication_status, 'ready');
  assert.equal('published' in updated, false, 'publication evidence stays internal');
  const upload = await status(jobId);
  assert.equal(upload.status, 200, 'the upload stays completed: its successor verifies');
  assert.equal(upload.json.status, 'completed');

  // The successor's manifest keeps a valid shape but counts chunks it does not have.
  tamper('client-alpha', `UPDATE generations SET manifest = json_set(manifest, '$.content.count', 7) WHERE state = 'active' AND document_id = ?`, 'succeeded');
  assertFailsClosed(await status(jobId), 'publication_unavailable');
  // The update's own poll checks its generation's recorded digest.
  assertFailsClosed(await status(update.json.job_id), 'publication_authority_inconsistent');
});

test('a successor published under another record id does not verify', SQLITE_FILES, async () => {
  const { jobId } = await completedUpload('rerecorded');
  const update = await api(server.url, '/update', { method: 'PATCH', key: KEYS.alpha, body: { document_id: 'rerecorded', filename: 'renamed.txt' } });
  assert.equal((await waitForJob(server.url, KEYS.alpha, update.json.job_id)).status, 'completed');
  tamper('client-alpha', `UPDATE generations SET manifest = json_set(manifest, '$.record_id', 'ffffffffffffffffffffffffffffffff') WHERE state = 'active' AND document_id = ?`, 'rerecorded');
  assertFailsClosed(await status(jobId), 'publication_unavailable');
});
