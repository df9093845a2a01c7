// POST /similar (DESIGN.md "Facets, sorting, synonyms, similar documents"): the versions most like a given one,
// by its most distinctive terms and the mean of its chunks' vectors; every version of the source document is
// left out, filters and a key's confinement narrow the candidates, and an unknown or another Client's document
// is 404.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { api, KEYS, uploadText, useTestServer, waitForJob } from '../helpers/server.ts';
import { until } from '../helpers/processes.ts';

const SOURCE = 'Tenancy agreement for the shop lot at Jalan Ampang: monthly rent RM 4,500, deposit of three months, the landlord repairs the roof and the tenant pays the electricity and water bills.';
const DOCUMENTS: [string, string, string, Record<string, string>][] = [
  ['lease', 'v1', SOURCE, { team: 'legal' }],
  ['lease', 'v2', `${SOURCE} Renewed for two more years.`, { team: 'legal' }],
  ['lease-copy', 'v1', 'Tenancy agreement for the shop lot at Jalan Ampang: monthly rent RM 4,500, deposit of three months; the landlord repairs the roof, the tenant pays electricity and water.', { team: 'finance' }],
  ['lease-other', 'v1', 'Tenancy agreement for an office at Bangsar with monthly rent and a deposit, the tenant repairs the interior.', { team: 'legal' }],
  ['recipe', 'v1', 'Boil the noodles, fry the garlic and shallots, add prawns and bean sprouts, season with soy sauce.', { team: 'kitchen' }],
];

const server = useTestServer({}, async (started) => {
  for (const [document_id, version_id, text, custom] of DOCUMENTS) {
    const accepted = await uploadText(started.url, KEYS.alpha, { document_id, version_id, text, metadata: custom });
    await waitForJob(started.url, KEYS.alpha, accepted.json.job_id);
  }
});

const similar = (body: unknown, key: string = KEYS.alpha) => api(server.url, '/similar', { key, body });
const ids = (answer: any): string[] => answer.json.results.map((row: any) => row.document_version.document_id);

test('a near-copy ranks first, and no version of the source document answers', async () => {
  const answer = await similar({ document_id: 'lease' });
  assert.equal(answer.status, 200, answer.text);
  assert.equal(ids(answer)[0], 'lease-copy');
  assert.ok(!ids(answer).includes('lease'), 'every version of the source is left out');
  assert.ok(ids(answer).indexOf('lease-other') > 0, 'a related lease still answers, after the copy');
  assert.deepEqual(answer.json.results.map((row: any) => row.rank), answer.json.results.map((_: unknown, i: number) => i + 1));
  assert.ok(answer.json.results[0].content_evidence.items.length > 0, 'rows carry their evidence');
  assert.equal(answer.json.meta.limit, 10);
  assert.equal(answer.json.meta.total, answer.json.results.length);
  assert.equal(answer.json.meta.has_more, false);
  // Both lanes ran: the source's chunks have vectors, so the dense query (their mean) is fused at the default alpha.
  assert.equal(answer.json.meta.retrieval.alpha, 0.5);
  // From the older version, by version_id: the same document's newer version is still left out.
  const fromOld = await similar({ document_id: 'lease', version_id: 'v1', limit: 1 });
  assert.equal(fromOld.status, 200, fromOld.text);
  assert.deepEqual(ids(fromOld), ['lease-copy']);
  assert.equal(fromOld.json.meta.limit, 1);
  assert.equal(fromOld.json.meta.has_more, fromOld.json.meta.total > 1);
});

test('filters narrow the candidates', async () => {
  const answer = await similar({ document_id: 'lease', filters: { 'metadata.custom.team': 'legal' } });
  assert.equal(answer.status, 200, answer.text);
  assert.deepEqual(ids(answer), ['lease-other']);
  assert.deepEqual(answer.json.meta.applied_filters, { 'metadata.custom.team': 'legal' });
});

test('an unknown document, version or another Client\'s document is 404; bad requests are 422 or 400', async () => {
  for (const [body, key] of [[{ document_id: 'nope' }, KEYS.alpha], [{ document_id: 'lease', version_id: 'v9' }, KEYS.alpha], [{ document_id: 'lease' }, KEYS.beta]] as const) {
    const answer = await similar(body, key);
    assert.equal(answer.status, 404, answer.text);
    assert.equal(answer.json.error_code, 'not_found');
  }
  for (const body of [{}, { document_id: 'lease', extra: 1 }, { document_id: 'lease', limit: 0 }, { document_id: 'lease', limit: 101 }, { document_id: 7 }]) {
    const answer = await similar(body);
    assert.equal(answer.status, 422, `${JSON.stringify(body)}: ${answer.text}`);
  }
  // An unknown filter path is the 400 of POST /search.
  const badFilter = await similar({ document_id: 'lease', filters: { nope: 1 } });
  assert.equal(badFilter.status, 400, badFilter.text);
  assert.equal(badFilter.json.error_code, 'invalid_filter');
});

test('a key confined by a filter finds only within it, and cannot start from outside it', async () => {
  const issued = await api(server.url, '/admin/clients/client-alpha/keys', { key: KEYS.operator, body: { filter: { 'metadata.custom.team': 'legal' } } });
  assert.equal(issued.status, 201, issued.text);
  const key = issued.json.key as string;
  // A key issued at runtime reaches every api process once it has read the access records: a bounded poll.
  const answer = await until('the issued key to be known', async () => {
    const tried = await similar({ document_id: 'lease' }, key);
    return tried.status === 401 ? null : tried;
  });
  assert.equal(answer.status, 200, answer.text);
  assert.deepEqual(ids(answer), ['lease-other']);
  const outside = await similar({ document_id: 'lease-copy' }, key);
  assert.equal(outside.status, 404, outside.text);
});
