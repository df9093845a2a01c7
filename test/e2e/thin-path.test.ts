import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useTestServer, startTestServer, api, KEYS, removeDir, uploadText, uploadFile, waitForJob } from '../helpers/server.ts';

const server = useTestServer();

const LETTER = [
  'Dear Customer,',
  '',
  'Your savings account statement for March is ready. The closing balance is RM 12,450.00.',
  '',
  'Please contact the branch in Kuala Lumpur if any transaction looks unfamiliar.',
].join('\n');

test('a text upload is accepted, indexed, found by search and read back', async () => {
  const accepted = await uploadText(server.url, KEYS.alpha, { document_id: 'letter-1', text: LETTER, filename: 'letter.txt', metadata: { team: 'retail' } });
  assert.equal(accepted.status, 202);
  assert.equal(accepted.json.status, 'pending');
  assert.equal(accepted.json.document_id, 'letter-1');
  assert.equal(accepted.json.version_id, 'letter-1');
  assert.equal(typeof accepted.json.job_id, 'string');

  const job = await waitForJob(server.url, KEYS.alpha, accepted.json.job_id);
  assert.equal(job.status, 'completed', JSON.stringify(job));
  assert.equal(job.operation, 'embed');
  assert.equal(job.search_ready, true);
  assert.equal(typeof job.snapshot_generation, 'number');
  assert.ok(job.chunks_created >= 1);
  assert.match(job.created_at, /^\d{4}-\d{2}-\d{2}T.*(Z|[+-]\d{2}:\d{2})$/);
  assert.match(job.completed_at, /^\d{4}-\d{2}-\d{2}T.*(Z|[+-]\d{2}:\d{2})$/);
  assert.equal(job.metadata_ready, true);
  assert.equal(job.readiness_state, 'ready');
  assert.ok(Array.isArray(job.categories));
  assert.equal(typeof job.entities_extracted, 'object');

  const search = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'closing balance', scope: 'content' } });
  assert.equal(search.status, 200);
  const [row] = search.json.results;
  assert.equal(row.rank, 1);
  assert.deepEqual(row.document_version, { document_id: 'letter-1', version_id: 'letter-1' });
  assert.equal(row.canonical_metadata.schema_version, '2');
  assert.equal(row.canonical_metadata.source.filename, 'letter.txt');
  assert.deepEqual(row.canonical_metadata.custom, { team: 'retail' });
  assert.deepEqual(row.retrieval_contributions, [{ lane: 'content', rank: 1 }]);
  assert.ok(row.content_evidence.items[0].text.includes('closing balance'));
  assert.equal(row.content_evidence.items[0].page, null);
  assert.equal(typeof row.content_evidence.items[0].chunk_id, 'string');
  assert.equal(row.content_evidence.items[0].chunk_index, 0);
  assert.equal(typeof row.content_evidence.total, 'number');
  assert.equal(typeof row.content_evidence.truncated, 'boolean');
  const meta = search.json.meta;
  assert.equal(meta.query, 'closing balance');
  assert.equal(meta.total, 1);
  assert.equal(meta.total_is_lower_bound, false);
  assert.equal(meta.offset, 0);
  assert.equal(meta.limit, 10);
  assert.equal(meta.has_more, false);
  assert.equal(typeof meta.query_time_ms, 'number');
  assert.deepEqual(meta.retrieval, { alpha: 0.5, reranked: false, reranked_count: 0 });
  assert.deepEqual(meta.applied_filters, {});
  assert.equal(meta.publication_view, 'ready');

  const text = await api(server.url, '/document/letter-1/text', { key: KEYS.alpha });
  assert.equal(text.status, 200);
  assert.equal(text.json.document_id, 'letter-1');
  assert.equal(text.json.chunks.map((chunk: any) => chunk.text).join(' ').includes('Kuala Lumpur'), true);
  assert.equal(text.json.chunks[0].vector, null);
  assert.equal(text.json.chunks[0].vector_dim, 384);
  assert.ok(Math.abs(text.json.chunks[0].norm - 1) < 1e-3);
  assert.equal(text.json.embedding.provenance, 'captured');

  const list = await api(server.url, '/documents', { key: KEYS.alpha });
  assert.equal(list.json.total, 1);
  assert.equal(list.json.documents[0].document_id, 'letter-1');
  assert.equal(list.json.documents[0].version_id, 'letter-1');
  assert.ok(list.json.documents[0].chunk_count >= 1);
});

test('the same document_id in two Clients never collides', async () => {
  const a = await uploadText(server.url, KEYS.alpha, { document_id: 'shared-id', text: 'Invoice for consulting services rendered in Penang.' });
  const b = await uploadText(server.url, KEYS.beta, { document_id: 'shared-id', text: 'Minutes of the annual general meeting in Johor Bahru.' });
  await waitForJob(server.url, KEYS.alpha, a.json.job_id);
  await waitForJob(server.url, KEYS.beta, b.json.job_id);

  const alphaText = await api(server.url, '/document/shared-id/text', { key: KEYS.alpha });
  const betaText = await api(server.url, '/document/shared-id/text', { key: KEYS.beta });
  assert.match(alphaText.json.chunks[0].text, /Penang/);
  assert.match(betaText.json.chunks[0].text, /Johor Bahru/);

  const betaSearch = await api(server.url, '/search', { key: KEYS.beta, body: { query: 'consulting invoice Penang' } });
  assert.equal(betaSearch.json.results.some((row: any) => row.content_evidence.items.some((item: any) => /Penang/.test(item.text))), false);
  // A job id of one Client is the same 404 as an unknown one for another.
  const foreign = await api(server.url, `/status/${a.json.job_id}`, { key: KEYS.beta });
  const unknown = await api(server.url, '/status/00000000-0000-0000-0000-000000000000', { key: KEYS.beta });
  assert.equal(foreign.status, 404);
  assert.equal(foreign.json.detail, unknown.json.detail);
  assert.equal(foreign.json.error_code, unknown.json.error_code);
});

test('.txt and .md files upload through multipart', async () => {
  const md = await uploadFile(server.url, KEYS.alpha, { document_id: 'notes', version_id: 'v2' }, {
    name: 'notes.md',
    bytes: new TextEncoder().encode('# Quarterly notes\n\nThe remittance advice for shipment 4471 arrived late.\n'),
    type: 'text/markdown',
  });
  assert.equal(md.status, 202);
  assert.equal(md.json.version_id, 'v2');
  const job = await waitForJob(server.url, KEYS.alpha, md.json.job_id);
  assert.equal(job.status, 'completed', JSON.stringify(job));
  const search = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'remittance advice' } });
  assert.deepEqual(search.json.results[0].document_version, { document_id: 'notes', version_id: 'v2' });
  assert.equal(search.json.results[0].canonical_metadata.source.filename, 'notes.md');
});

test('an unknown multipart field or a missing file is a 422', async () => {
  const extra = await uploadFile(server.url, KEYS.alpha, { document_id: 'x', colour: 'red' }, { name: 'a.txt', bytes: new TextEncoder().encode('hello') });
  assert.equal(extra.status, 422);
  assert.deepEqual(extra.json.details[0].loc, ['body', 'colour']);
  const form = new FormData();
  form.append('document_id', 'x');
  const response = await fetch(`${server.url}/embed`, { method: 'POST', headers: { 'X-API-Key': KEYS.alpha }, body: form });
  assert.equal(response.status, 422);
});

test('a JSON upload with an unknown key or no document_id is a 422 and enqueues nothing', async () => {
  const before = (await api(server.url, '/metrics', { key: KEYS.operator })).text;
  const count = (text: string) => [...text.matchAll(/^jobs\{[^}]*\} (\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
  const extra = await uploadText(server.url, KEYS.alpha, { document_id: 'x', text: 'hello', colour: 'red' });
  assert.equal(extra.status, 422);
  const missing = await uploadText(server.url, KEYS.alpha, { text: 'hello' });
  assert.equal(missing.status, 422);
  assert.deepEqual(missing.json.details[0].loc, ['body', 'document_id']);
  const after = (await api(server.url, '/metrics', { key: KEYS.operator })).text;
  assert.equal(count(after), count(before));
});

test('an upload over MAX_UPLOAD_BYTES is a 413', async () => {
  const small = await startTestServer({ MAX_UPLOAD_BYTES: '2048' });
  try {
    const response = await uploadFile(small.url, KEYS.alpha, { document_id: 'big' }, { name: 'big.txt', bytes: new Uint8Array(4096).fill(65) });
    assert.equal(response.status, 413);
    assert.equal(response.json.error_code, 'payload_too_large');
  } finally {
    await small.close();
    removeDir(small.dataDir);
  }
});
