// U+0000 in what a caller sends: a PostgreSQL text value cannot hold it, a SQLite one can, and the answers
// must be the same on both stores. Chunk text takes a space for it; JSON values (stored as JSON text) keep
// it; an id holding it names no document or job, so reads and deletes by such an id are 404, never 500.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { api, KEYS, uploadText, useTestServer, waitForJob } from '../helpers/server.ts';

const server = useTestServer();

test('a text and metadata holding U+0000 are indexed, read back and filtered on, on every store', async () => {
  const upload = await uploadText(server.url, KEYS.alpha, { document_id: 'nul-doc', text: 'opening\u0000balance zebra statement', metadata: { branch: 'kl\u0000central' } });
  assert.equal(upload.status, 202);
  const job = await waitForJob(server.url, KEYS.alpha, upload.json.job_id);
  assert.equal(job.status, 'completed', JSON.stringify(job));
  const text = await api(server.url, '/document/nul-doc/text', { key: KEYS.alpha });
  assert.equal(text.status, 200);
  assert.equal(text.json.chunks[0].text, 'opening balance zebra statement', 'U+0000 in text is a space');
  const search = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'zebra', scope: 'content', filters: { 'metadata.custom.branch': 'kl\u0000central' } } });
  assert.equal(search.status, 200);
  assert.deepEqual(search.json.results.map((row: any) => row.document_version.document_id), ['nul-doc']);
  assert.equal(search.json.results[0].canonical_metadata.custom.branch, 'kl\u0000central', 'a JSON value keeps it');
  const listed = await api(server.url, `/documents?metadata_filter=${encodeURIComponent(JSON.stringify({ 'metadata.custom.branch': 'kl\u0000central' }))}`, { key: KEYS.alpha });
  assert.equal(listed.status, 200);
  assert.deepEqual(listed.json.documents.map((row: any) => row.document_id), ['nul-doc']);
});

test('an id holding U+0000 names nothing: status, delete and restore answer 404, and nothing changes', async () => {
  for (const [method, path] of [
    ['GET', '/status/%00'],
    ['GET', '/status/job%00'],
    ['DELETE', '/document/%00'],
    ['DELETE', '/document/nul-doc%00?mode=hard'],
    ['DELETE', '/document/nul-doc?version_id=%00'],
    ['POST', '/document/%00/restore'],
    ['GET', '/document/%00/text'],
  ] as const) {
    const answer = await api(server.url, path, { method, key: KEYS.alpha });
    assert.equal(answer.status, 404, `${method} ${path}: ${answer.text}`);
    assert.ok(answer.json?.request_id, 'the error envelope');
  }
  const text = await api(server.url, '/document/nul-doc/text', { key: KEYS.alpha });
  assert.equal(text.status, 200, 'the document whose id the refused ids extend is untouched');
});
