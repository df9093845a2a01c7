import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, api, KEYS, removeDir, uploadText, waitForJob } from '../helpers/server.ts';
import type { TestServer } from '../helpers/server.ts';

let server: TestServer;
const CORPUS: [string, string][] = [
  ['ledger-1', 'The general ledger was reconciled against the bank statement for March.'],
  ['ledger-2', 'Ledger entries for April include a standing instruction to the savings account.'],
  ['ledger-3', 'A ledger is kept by the branch for every current account and fixed deposit.'],
  ['ledger-4', 'Quarterly ledger review: overdraft interest was charged twice in error.'],
  ['ledger-5', 'Ledger balances are confirmed by the auditor at year end.'],
  ['ledger-6', 'The ledger shows a remittance from Singapore credited on 3 May.'],
  ['ledger-7', 'Each ledger page lists the transaction reference and value date.'],
  ['malay-1', 'Pelajaran kewangan untuk pelajar sekolah: cara mengajar anak menabung dalam akaun simpanan.'],
  ['statement-1', 'Your monthly statement shows the closing balance and all card payments.'],
  [
    'rare-1',
    'Annual report of the cooperative with many unrelated words about farming, weather, harvests, markets, cattle, tractors, irrigation, seeds, fertiliser prices, rainfall records, village meetings, school fees, road repairs and the zyxwvut committee.',
  ],
];

before(async () => {
  server = await startTestServer({ SEARCH_CANDIDATE_CAP: '5' });
  for (const [id, text] of CORPUS) {
    const accepted = await uploadText(server.url, KEYS.alpha, { document_id: id, text });
    const job = await waitForJob(server.url, KEYS.alpha, accepted.json.job_id);
    assert.equal(job.status, 'completed');
  }
});
after(async () => {
  await server.close();
  removeDir(server.dataDir);
});

const search = async (body: Record<string, unknown>) => {
  const response = await api(server.url, '/search', { key: KEYS.alpha, body: { scope: 'content', ...body } });
  assert.equal(response.status, 200, response.text);
  return response.json;
};
const ids = (result: any) => result.results.map((row: any) => row.document_version.document_id);

test('alpha 0 runs only the sparse lane and alpha 1 only the dense lane', async () => {
  const sparse = await search({ query: 'zyxwvut', alpha: 0 });
  assert.deepEqual(ids(sparse), ['rare-1'], 'the rare word is found by keyword');
  assert.equal(sparse.meta.retrieval.alpha, 0);
  const dense = await search({ query: 'zyxwvut', alpha: 1 });
  assert.equal(dense.meta.retrieval.alpha, 1);
  assert.equal(ids(dense).includes('rare-1'), false, 'one rare word in a long text is below the dense floor');
  // A misspelt word with no keyword match anywhere is still close in the character-n-gram dense space.
  const typoDense = await search({ query: 'ledgre', alpha: 1 });
  assert.ok(ids(typoDense).some((id: string) => id.startsWith('ledger-')));
});

test('an explicit alpha overrides HYBRID_ALPHA, which is the default', async () => {
  assert.equal((await search({ query: 'ledger' })).meta.retrieval.alpha, 0.5);
  assert.equal((await search({ query: 'ledger', alpha: 0.25 })).meta.retrieval.alpha, 0.25);
});

test('page 1 + page 2 equal the first 2*limit rows of one larger page, without duplicates', async () => {
  const capped = await startTestServer({}, server.dataDir + '-paging');
  try {
    for (const [id, text] of CORPUS) {
      const accepted = await uploadText(capped.url, KEYS.alpha, { document_id: id, text });
      await waitForJob(capped.url, KEYS.alpha, accepted.json.job_id);
    }
    const page = async (offset: number, limit: number) =>
      (await api(capped.url, '/search', { key: KEYS.alpha, body: { query: 'ledger account', offset, limit } })).json;
    const first = await page(0, 3);
    const second = await page(3, 3);
    const large = await page(0, 6);
    assert.deepEqual([...ids(first), ...ids(second)], ids(large));
    assert.equal(new Set([...ids(first), ...ids(second)]).size, 6);
    // Pages of one row order only the rows up to their end (content-lane.ts rankHead): the same rows, same totals.
    for (let offset = 0; offset < 6; offset++) {
      const single = await page(offset, 1);
      assert.deepEqual(ids(single), [ids(large)[offset]], `row ${offset + 1} alone`);
      assert.equal(single.meta.total, large.meta.total);
    }
    assert.deepEqual(second.results.map((row: any) => row.rank), [4, 5, 6]);
    assert.equal(first.meta.has_more, true);
    assert.equal(large.meta.total_is_lower_bound, false);
    assert.ok(large.meta.total >= 7);
    const last = await page(large.meta.total - 1, 3);
    assert.equal(last.results.length, 1);
    assert.equal(last.meta.has_more, false);
    const beyond = await page(large.meta.total + 5, 3);
    assert.deepEqual(beyond.results, []);
    assert.equal(beyond.meta.total, 0, 'an empty page has total 0');
    assert.equal(beyond.meta.total_is_lower_bound, false);
  } finally {
    await capped.close();
    removeDir(capped.dataDir);
  }
});

test('a lane that reaches its bounded scan cap makes the total a lower bound', async () => {
  const result = await search({ query: 'ledger', alpha: 0 });
  assert.equal(result.meta.total_is_lower_bound, true, 'seven ledger chunks, cap five');
  assert.ok(result.meta.total >= 5);
  const exact = await search({ query: 'remittance Singapore', alpha: 0 });
  assert.equal(exact.meta.total_is_lower_bound, false);
  assert.equal(exact.meta.total, 1);
});

test('known typos are corrected before search, and Malay roots present in the vocabulary stay as they are', async () => {
  const typo = await search({ query: 'statment', alpha: 0 });
  assert.deepEqual(ids(typo).sort(), ['ledger-1', 'statement-1'], 'exactly the documents that say statement');
  const root = await search({ query: 'ajar', alpha: 0 });
  assert.deepEqual(ids(root), ['malay-1'], 'ajar reaches pelajaran/mengajar by affix analysis, not by correction');
  const abbreviation = await search({ query: 'stmt', alpha: 0 });
  assert.deepEqual(ids(abbreviation).sort(), ['ledger-1', 'statement-1']);
  const fuzzy = await search({ query: 'remitance', alpha: 0 });
  assert.equal(ids(fuzzy)[0], 'ledger-6', 'fuzzy correction to a vocabulary word');
});

test('filters never change rank: a filtered result keeps the relative order of the unfiltered one', async () => {
  const all = ids(await search({ query: 'ledger account statement', alpha: 0, limit: 20 }));
  const subset = ['ledger-2', 'ledger-3', 'statement-1'];
  const filtered = ids(await search({ query: 'ledger account statement', alpha: 0, limit: 20, filters: { document_id: subset } }));
  assert.deepEqual(filtered, all.filter((id: string) => subset.includes(id)));
});

test('invalid filters are 400s', async () => {
  for (const filters of [{ client_id: 'x' }, { deleted: false }, { team: 'ops' }, { 'source.nope': 1 }, { 'metadata.custom.k': { a: 1 } }]) {
    const response = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'ledger', filters } });
    assert.equal(response.status, 400, JSON.stringify(filters));
    assert.equal(response.json.error_code, 'invalid_filter');
    assert.equal(typeof response.json.detail, 'string');
    assert.equal(typeof response.json.request_id, 'string');
  }
});

test('rerank reranks min(50, max(top_k_rerank, offset + limit)) versions, capped by the candidates', async () => {
  const one = await search({ query: 'ledger account', rerank: true, top_k_rerank: 2, limit: 1 });
  assert.equal(one.meta.retrieval.reranked, true);
  assert.equal(one.meta.retrieval.reranked_count, 2);
  const wide = await search({ query: 'ledger account', rerank: true, top_k_rerank: 1, offset: 2, limit: 2 });
  assert.equal(wide.meta.retrieval.reranked_count, Math.min(4, wide.meta.total));
  const all = await search({ query: 'ledger account', rerank: true, top_k_rerank: 200, limit: 10 });
  assert.equal(all.meta.retrieval.reranked_count, Math.min(50, all.meta.total));
  const none = await search({ query: 'ledger account' });
  assert.deepEqual(none.meta.retrieval, { alpha: 0.5, reranked: false, reranked_count: 0 });
  const nothing = await search({ query: 'qqzzvvx', rerank: true, alpha: 0 });
  assert.deepEqual(nothing.meta.retrieval, { alpha: 0, reranked: false, reranked_count: 0 }, 'nothing to rerank');
  for (const row of all.results) assert.equal(JSON.stringify(row).includes('score'), false, 'no model scores are returned');
});

test('highlights point at the matched terms in the evidence text', async () => {
  const result = await search({ query: 'reconciled statement', highlight: true, alpha: 0 });
  const row = result.results.find((r: any) => r.document_version.document_id === 'ledger-1');
  const item = row.content_evidence.items[0];
  assert.ok(item.highlights.length >= 2);
  assert.equal(row.canonical_metadata.location.chunk_index, item.chunk_index, 'location is the best evidence chunk');
  assert.equal(row.canonical_metadata.location.page_number, null);
  const words = item.highlights.map((span: any) => item.text.slice(span.start, span.end).toLowerCase());
  assert.ok(words.includes('reconciled'));
  assert.ok(words.includes('statement'));
  for (let i = 1; i < item.highlights.length; i++) assert.ok(item.highlights[i].start >= item.highlights[i - 1].end, 'sorted, non-overlapping');
  const plain = await search({ query: 'reconciled statement' });
  assert.equal(plain.results[0].content_evidence.items[0].highlights, undefined);
});

test('include_deleted changes only lifecycle visibility', async () => {
  await api(server.url, '/document/ledger-5', { method: 'DELETE', key: KEYS.alpha });
  try {
    assert.equal(ids(await search({ query: 'auditor year end', alpha: 0 })).includes('ledger-5'), false);
    assert.equal(ids(await search({ query: 'auditor year end', alpha: 0, include_deleted: true }))[0], 'ledger-5');
    const other = await api(server.url, '/search', { key: KEYS.beta, body: { query: 'auditor year end', include_deleted: true } });
    assert.deepEqual(other.json.results, [], 'never another Client’s versions');
  } finally {
    await api(server.url, '/document/ledger-5/restore', { method: 'POST', key: KEYS.alpha });
  }
});
