// SPEC.md GET /status: publication-ready polls verify the generation's manifest (record id, content count,
// lane digests) by reading the manifest only; a mismatch fails closed with 503 and Retry-After 1. The
// manifests are corrupted in the real store, as a disk or an operator error would.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useTestServer, api, KEYS, uploadText, waitForJob } from '../helpers/server.ts';
import { clientSql, editManifests } from '../helpers/test-store.ts';

const server = useTestServer();

/** Rewrites the stored manifest of the Client's generations `where` selects, beside the running service. */
const editManifest = (where: string, param: string | number, edit: (manifest: any) => void) => editManifests(server.dataDir, 'client-alpha', where, [param], edit);

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

test('a manifest changed after publication fails the poll closed', async () => {
  const { jobId, generation } = await completedUpload('changed');
  assert.equal((await status(jobId)).status, 200);
  await editManifest('generation = ?', generation, (manifest) => (manifest.fuzzy.count = 999));
  assertFailsClosed(await status(jobId), 'publication_authority_inconsistent');
});

test('an unreadable manifest fails the poll closed, never a 500', async () => {
  const { jobId, generation } = await completedUpload('unreadable');
  await clientSql(server.dataDir, 'client-alpha', `UPDATE generations SET manifest = '{not json' WHERE generation = ?`, generation);
  assertFailsClosed(await status(jobId), 'publication_authority_inconsistent');
});

test('a retired generation verifies through its successor: record id and counts are checked, not only the shape', async () => {
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
  await editManifest(`state = 'active' AND document_id = ?`, 'succeeded', (manifest) => (manifest.content.count = 7));
  assertFailsClosed(await status(jobId), 'publication_unavailable');
  // The update's own poll checks its generation's recorded digest.
  assertFailsClosed(await status(update.json.job_id), 'publication_authority_inconsistent');
});

test('a successor published under another record id does not verify', async () => {
  const { jobId } = await completedUpload('rerecorded');
  const update = await api(server.url, '/update', { method: 'PATCH', key: KEYS.alpha, body: { document_id: 'rerecorded', filename: 'renamed.txt' } });
  assert.equal((await waitForJob(server.url, KEYS.alpha, update.json.job_id)).status, 'completed');
  await editManifest(`state = 'active' AND document_id = ?`, 'rerecorded', (manifest) => (manifest.record_id = 'ffffffffffffffffffffffffffffffff'));
  assertFailsClosed(await status(jobId), 'publication_unavailable');
});
