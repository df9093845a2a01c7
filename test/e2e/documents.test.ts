import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, api, KEYS, removeDir, uploadText, waitForJob } from '../helpers/server.ts';
import type { TestServer } from '../helpers/server.ts';
import { until } from '../helpers/processes.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer();
  for (const [id, version, team, text] of [
    ['doc-a', 'v1', 'ops', 'First version of document A about card fees.'],
    ['doc-a', 'v2', 'ops', 'Second version of document A about card fees and limits.'],
    ['doc-b', 'doc-b', 'finance', 'Document B lists the branch opening hours.'],
    ['doc-c', 'doc-c', 'finance', 'Document C: the fixed deposit rate table.'],
  ]) {
    const accepted = await uploadText(server.url, KEYS.alpha, { document_id: id, version_id: version, text, metadata: { team, rank: id.length } });
    const job = await waitForJob(server.url, KEYS.alpha, accepted.json.job_id);
    assert.equal(job.status, 'completed');
    // Distinct created_at per upload (ISO milliseconds, the upload's acceptance): the next is accepted in a later millisecond.
    await until('the clock to pass this upload\'s millisecond', () => new Date().toISOString() > job.created_at);
  }
});
after(async () => {
  await server.close();
  removeDir(server.dataDir);
});

const list = (query = '') => api(server.url, `/documents${query}`, { key: KEYS.alpha });

test('one row per Document Version with metadata, chunk_count and created_at; paging with total and has_more', async () => {
  const all = await list();
  assert.equal(all.status, 200);
  assert.equal(all.json.total, 4);
  assert.deepEqual(all.json.documents.map((row: any) => `${row.document_id}@${row.version_id}`), ['doc-a@v1', 'doc-a@v2', 'doc-b@doc-b', 'doc-c@doc-c']);
  for (const row of all.json.documents) {
    assert.equal(row.metadata.schema_version, '2');
    assert.ok(row.chunk_count >= 1);
    assert.match(row.created_at, /^\d{4}-\d{2}-\d{2}T/);
    assert.equal('deleted' in row, false);
  }
  const page = await list('?limit=2&offset=1');
  assert.deepEqual(page.json.documents.map((row: any) => row.version_id), ['v2', 'doc-b']);
  assert.equal(page.json.has_more, true);
  assert.equal(page.json.limit, 2);
  assert.equal(page.json.offset, 1);
  assert.equal((await list('?limit=2&offset=2')).json.has_more, false);
  assert.equal((await list('?limit=1001')).status, 400);
});

test('metadata_filter: JSON object or key:value, scalar values, ANDed', async () => {
  const json = await list(`?metadata_filter=${encodeURIComponent('{"metadata.custom.team":"finance"}')}`);
  assert.deepEqual(json.json.documents.map((row: any) => row.document_id), ['doc-b', 'doc-c']);
  const simple = await list(`?metadata_filter=${encodeURIComponent('metadata.custom.team:ops')}`);
  assert.deepEqual(simple.json.documents.map((row: any) => row.version_id), ['v1', 'v2']);
  const anded = await list(`?metadata_filter=${encodeURIComponent('{"metadata.custom.team":"finance","document_id":"doc-c"}')}`);
  assert.deepEqual(anded.json.documents.map((row: any) => row.document_id), ['doc-c']);
  const integer = await list(`?metadata_filter=${encodeURIComponent('metadata.custom.rank:5')}`);
  assert.equal(integer.json.total, 4);
  const system = await list(`?metadata_filter=${encodeURIComponent('{"metadata.source.mime_type":"text/plain"}')}`);
  assert.equal(system.json.total, 4);
});

test('metadata_filter errors: invalid JSON, not an object, list values', async () => {
  const invalid = await list(`?metadata_filter=${encodeURIComponent('{"metadata.custom.team":')}`);
  assert.equal(invalid.status, 400);
  assert.equal(invalid.json.detail, 'Invalid metadata_filter JSON');
  const notObject = await list(`?metadata_filter=${encodeURIComponent('["a"]')}`);
  assert.equal(notObject.status, 400);
  assert.equal(notObject.json.detail, 'metadata_filter must be a JSON object');
  const listValue = await list(`?metadata_filter=${encodeURIComponent('{"metadata.custom.team":["ops","finance"]}')}`);
  assert.equal(listValue.status, 400);
  assert.match(listValue.json.detail, /scalar/);
});

test('document text: latest version, chunks in order, vectors only on request, provenance', async () => {
  const text = await api(server.url, '/document/doc-a/text', { key: KEYS.alpha });
  assert.equal(text.status, 200);
  assert.equal(text.json.version_id, 'v2', 'the latest of several versions');
  assert.equal(text.json.chunk_count, text.json.chunks.length);
  assert.deepEqual(text.json.chunks.map((chunk: any) => chunk.index), text.json.chunks.map((_: any, i: number) => i));
  const [chunk] = text.json.chunks;
  assert.equal(chunk.char_count, chunk.text.length);
  assert.equal(chunk.vector, null);
  assert.equal(typeof chunk.entities, 'object');
  assert.deepEqual(Object.keys(text.json.classification).sort(), ['categories', 'status']);
  const embedding = text.json.embedding;
  assert.equal(embedding.provenance, 'captured');
  assert.equal(embedding.dense_dimensions, 384);
  assert.equal(embedding.reranker_scope, 'query_time');
  assert.equal(embedding.classifier_scope, 'classification_only');
  assert.equal(embedding.classification_enabled, true);
  const withVector = await api(server.url, '/document/doc-a/text?include_vector=true', { key: KEYS.alpha });
  const vector = withVector.json.chunks[0].vector;
  assert.equal(vector.length, 384);
  const norm = Math.sqrt(vector.reduce((sum: number, value: number) => sum + value * value, 0));
  assert.ok(Math.abs(norm - withVector.json.chunks[0].norm) < 1e-4);
});

test('document text 404s are the same for unknown and other Client documents', async () => {
  const unknown = await api(server.url, '/document/nope/text', { key: KEYS.alpha });
  const foreign = await api(server.url, '/document/doc-a/text', { key: KEYS.beta });
  assert.equal(unknown.status, 404);
  assert.equal(foreign.status, 404);
  assert.equal(unknown.json.detail, 'Document not found');
  assert.equal(foreign.json.detail, 'Document not found');
});

test('without publication, the list has one row per document (version_id null when it has several)', async () => {
  const plain = await startTestServer({ PUBLICATION_ENABLED: 'false' });
  try {
    for (const [id, version] of [['multi', 'v1'], ['multi', 'v2'], ['single', 'only']]) {
      const accepted = await uploadText(plain.url, KEYS.alpha, { document_id: id, version_id: version, text: `Text of ${id} ${version}.` });
      await waitForJob(plain.url, KEYS.alpha, accepted.json.job_id);
    }
    const rows = (await api(plain.url, '/documents', { key: KEYS.alpha })).json.documents;
    assert.deepEqual(rows.map((row: any) => [row.document_id, row.version_id]), [['multi', null], ['single', 'only']]);
    assert.equal(rows[0].chunk_count, 2);
  } finally {
    await plain.close();
    removeDir(plain.dataDir);
  }
});
