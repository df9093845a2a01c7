import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, api, KEYS, removeDir, uploadText, waitForJob } from '../helpers/server.ts';
import type { TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer();
  for (const [id, text, metadata] of [
    ['inv-1', 'Consulting services for the third quarter.', { invoice_number: 'INV-2024-0042', vendor: 'Acme Trading Sdn Bhd', department: 'finance operations' }],
    ['inv-2', 'Hardware purchase for the Penang branch office.', { invoice_number: 'INV-2024-0043', vendor: 'Borneo Supplies', department: 'branch operations' }],
    ['memo-1', 'Acme Trading delivered the consulting report late.', { category: 'memo' }],
  ] as const) {
    const accepted = await uploadText(server.url, KEYS.alpha, { document_id: id, text, metadata });
    await waitForJob(server.url, KEYS.alpha, accepted.json.job_id);
  }
});
after(async () => {
  await server.close();
  removeDir(server.dataDir);
});

const search = (body: Record<string, unknown>) => api(server.url, '/search', { key: KEYS.alpha, body });

test('scope metadata: a complete identifier matches only by whole-value equality', async () => {
  const exact = await search({ query: 'inv-2024-0042', scope: 'metadata' });
  assert.equal(exact.status, 200);
  assert.deepEqual(exact.json.results.map((row: any) => row.document_version.document_id), ['inv-1']);
  const [item] = exact.json.results[0].metadata_evidence.items;
  assert.deepEqual(item, { path: ['custom', 'invoice_number'], value: 'INV-2024-0042', value_type: 'string', match_kind: 'exact' });
  assert.deepEqual(exact.json.results[0].retrieval_contributions, [{ lane: 'metadata', rank: 1 }]);
  assert.deepEqual(exact.json.results[0].content_evidence, { items: [], total: 0, truncated: false });
  // A prefix of an identifier is not a match: structured values never match lexically.
  assert.equal((await search({ query: 'INV-2024', scope: 'metadata' })).json.results.length, 0);
});

test('scope metadata: descriptive values match lexically, exact ranks above lexical', async () => {
  const response = await search({ query: 'operations', scope: 'metadata', highlight: true });
  const ids = response.json.results.map((row: any) => row.document_version.document_id).sort();
  assert.deepEqual(ids, ['inv-1', 'inv-2']);
  for (const row of response.json.results) {
    const [item] = row.metadata_evidence.items;
    assert.equal(item.match_kind, 'lexical');
    const [span] = item.highlights;
    assert.equal(item.value.slice(span.start, span.end).toLowerCase(), 'operations');
  }
  const exactFirst = await search({ query: 'Finance Operations', scope: 'metadata' });
  assert.equal(exactFirst.json.results[0].document_version.document_id, 'inv-1');
  assert.equal(exactFirst.json.results[0].metadata_evidence.items[0].match_kind, 'exact');
});

test('a path name alone never matches', async () => {
  assert.equal((await search({ query: 'vendor', scope: 'metadata' })).json.results.length, 0);
  assert.equal((await search({ query: 'invoice_number', scope: 'metadata' })).json.results.length, 0);
});

test('scope both merges lanes per Document Version with both contributions', async () => {
  const response = await search({ query: 'Acme Trading', scope: 'both' });
  assert.equal(response.status, 200);
  const rows = new Map(response.json.results.map((row: any) => [row.document_version.document_id, row]));
  const inv1: any = rows.get('inv-1');
  const memo: any = rows.get('memo-1');
  assert.ok(inv1 && memo);
  assert.deepEqual(inv1.retrieval_contributions.map((c: any) => c.lane), ['metadata']);
  assert.ok(memo.retrieval_contributions.some((c: any) => c.lane === 'content'));
  assert.equal(new Set(response.json.results.map((row: any) => row.document_version.document_id)).size, response.json.results.length, 'one row per version');
  assert.equal(response.json.meta.total, response.json.results.length);
});

test('filters constrain the metadata lane too', async () => {
  const response = await search({ query: 'operations', scope: 'metadata', filters: { document_id: 'inv-2' } });
  assert.deepEqual(response.json.results.map((row: any) => row.document_version.document_id), ['inv-2']);
});
