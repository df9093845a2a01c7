// PUT and GET /settings/synonyms (DESIGN.md "Facets, sorting, synonyms, similar documents"): a Client's
// multi-way sets and one-way rules widen the content lane's keyword query and never the metadata lane; a PUT
// replaces the whole set, bad input is a 422 that changes nothing, and a change holds for the next search on
// every api process (two here, each request on a connection of its own so the kernel picks the process).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { api, KEYS, uploadText, useTestServer, waitForJob } from '../helpers/server.ts';
import { fresh } from '../helpers/processes.ts';

const DOCUMENTS = [
  ['bil-ms', 'Bil elektrik ini perlu dijelaskan sebelum akhir bulan.', {}],
  ['invoice-en', 'Invoice for consulting services rendered in March.', {}],
  ['penyata-ms', 'Penyata bank dihantar kepada pelanggan setiap bulan.', {}],
  ['statement-en', 'The quarterly statement lists every transfer.', {}],
  ['meta-only', 'Delivery schedule for the warehouse team.', { category: 'invoice' }],
] as const;

const server = useTestServer({ API_PROCESSES: '2' }, async (started) => {
  for (const [document_id, text, metadata] of DOCUMENTS) {
    const accepted = await uploadText(started.url, KEYS.alpha, { document_id, text, metadata });
    await waitForJob(started.url, KEYS.alpha, accepted.json.job_id);
  }
});

const putSynonyms = (body: unknown, key: string = KEYS.alpha) => api(server.url, '/settings/synonyms', { method: 'PUT', key, body });
const getSynonyms = (key: string = KEYS.alpha) => api(server.url, '/settings/synonyms', { key });

/** Document ids a search finds; alpha 0 leaves the keyword lane alone, the one synonyms widen. */
async function found(query: string, scope = 'content', key: string = KEYS.alpha): Promise<string[]> {
  const answer = await api(server.url, '/search', { key, body: { query, scope, alpha: 0, limit: 20 } });
  assert.equal(answer.status, 200, answer.text);
  return answer.json.results.map((row: any) => row.document_version.document_id).sort();
}

test('no synonyms: GET answers an empty set and a word finds only the documents that hold it', async () => {
  const answer = await getSynonyms(KEYS.beta);
  assert.equal(answer.status, 200);
  assert.deepEqual(answer.json, { synonyms: [] });
  assert.deepEqual(await found('bil', 'content', KEYS.beta), []);
  assert.deepEqual(await found('bil'), ['bil-ms']);
  assert.deepEqual(await found('invoice'), ['invoice-en']);
});

test('a multi-way set and a one-way rule change what a content search finds; the metadata lane is unaffected', async () => {
  const rules = [{ terms: ['bil', 'invois', 'Invoice'] }, { input: 'penyata', synonyms: ['statement'] }];
  const put = await putSynonyms({ synonyms: rules });
  assert.equal(put.status, 200, put.text);
  assert.deepEqual((await getSynonyms()).json, { synonyms: rules });
  // Multi-way: each term finds the others.
  assert.deepEqual(await found('bil'), ['bil-ms', 'invoice-en']);
  assert.deepEqual(await found('invoice'), ['bil-ms', 'invoice-en']);
  assert.deepEqual(await found('invois'), ['bil-ms', 'invoice-en']);
  // One-way: the input finds its synonyms, a synonym does not find the input.
  assert.deepEqual(await found('penyata'), ['penyata-ms', 'statement-en']);
  assert.deepEqual(await found('statement'), ['statement-en']);
  // The metadata lane matches the words as written: 'invoice' is a metadata value, its synonym 'bil' is not.
  assert.deepEqual(await found('invoice', 'metadata'), ['meta-only']);
  assert.deepEqual(await found('bil', 'metadata'), []);
  // Another Client's searches know nothing of them.
  assert.deepEqual((await getSynonyms(KEYS.beta)).json, { synonyms: [] });

  // A PUT replaces the whole set.
  const replaced = await putSynonyms({ synonyms: [{ input: 'statement', synonyms: ['penyata'] }] });
  assert.equal(replaced.status, 200, replaced.text);
  assert.deepEqual((await getSynonyms()).json, { synonyms: [{ input: 'statement', synonyms: ['penyata'] }] });
  assert.deepEqual(await found('bil'), ['bil-ms']);
  assert.deepEqual(await found('penyata'), ['penyata-ms']);
  assert.deepEqual(await found('statement'), ['penyata-ms', 'statement-en']);
  assert.equal((await putSynonyms({ synonyms: [] })).status, 200);
  assert.deepEqual((await getSynonyms()).json, { synonyms: [] });
  assert.deepEqual(await found('statement'), ['statement-en']);
});

test('bad synonym sets are 422 validation_error naming the field, and change nothing', async () => {
  const kept = [{ terms: ['akaun', 'account'] }];
  assert.equal((await putSynonyms({ synonyms: kept })).status, 200);
  const cases: [unknown, (string | number)[]][] = [
    [{ synonyms: kept, extra: true }, ['body', 'extra']],
    [{}, ['body', 'synonyms']],
    [{ synonyms: 'bil=invoice' }, ['body', 'synonyms']],
    [{ synonyms: [{ terms: ['bil', 'invoice'], weight: 2 }] }, ['body', 'synonyms', 0, 'weight']],
    [{ synonyms: [{ terms: [] }] }, ['body', 'synonyms', 0, 'terms']],
    [{ synonyms: [{ terms: ['bil'] }] }, ['body', 'synonyms', 0, 'terms']],
    [{ synonyms: [{ terms: ['bil', ''] }] }, ['body', 'synonyms', 0, 'terms', 1]],
    [{ synonyms: [{ terms: ['bil', '   '] }] }, ['body', 'synonyms', 0, 'terms', 1]],
    [{ synonyms: [{ terms: ['bil', '!!!'] }] }, ['body', 'synonyms', 0, 'terms', 1]],
    [{ synonyms: [{ terms: ['bil', 7] }] }, ['body', 'synonyms', 0, 'terms', 1]],
    [{ synonyms: [{ terms: 'bil invoice' }] }, ['body', 'synonyms', 0, 'terms']],
    [{ synonyms: [{ input: 'bil' }] }, ['body', 'synonyms', 0, 'synonyms']],
    [{ synonyms: [{ input: 'bil', synonyms: [] }] }, ['body', 'synonyms', 0, 'synonyms']],
    [{ synonyms: [{ input: 3, synonyms: ['invoice'] }] }, ['body', 'synonyms', 0, 'input']],
    [{ synonyms: [{ terms: ['a', 'b'], input: 'bil', synonyms: ['invoice'] }] }, ['body', 'synonyms', 0]],
    [{ synonyms: [{}] }, ['body', 'synonyms', 0]],
    [{ synonyms: ['bil'] }, ['body', 'synonyms', 0]],
    [{ synonyms: Array.from({ length: 10_001 }, (_, i) => ({ terms: [`w${i}`, `v${i}`] })) }, ['body', 'synonyms']],
  ];
  for (const [body, loc] of cases) {
    const answer = await putSynonyms(body);
    assert.equal(answer.status, 422, `${JSON.stringify(body).slice(0, 80)}: ${answer.text.slice(0, 300)}`);
    assert.equal(answer.json.error_code, 'validation_error');
    assert.ok(
      // Array indexes come as strings, as every schema error of the service names them.
      answer.json.details.some((detail: any) => JSON.stringify(detail.loc) === JSON.stringify(loc.map(String))),
      `${JSON.stringify(body).slice(0, 80)} names ${JSON.stringify(loc)}: ${JSON.stringify(answer.json.details).slice(0, 300)}`,
    );
    assert.deepEqual((await getSynonyms()).json, { synonyms: kept }, 'a refused PUT changes nothing');
  }
  // The most a set may hold is accepted.
  const most = Array.from({ length: 10_000 }, (_, i) => ({ terms: [`w${i}`, `v${i}`] }));
  assert.equal((await putSynonyms({ synonyms: most })).status, 200);
  assert.equal((await getSynonyms()).json.synonyms.length, 10_000);
  assert.equal((await putSynonyms({ synonyms: [] })).status, 200);
});

test('a change holds for the next search on every api process', async () => {
  const search = async (query: string) => {
    const answer = await fresh(server.url, '/search', { key: KEYS.alpha, body: { query, alpha: 0, limit: 20 } });
    assert.equal(answer.status, 200, JSON.stringify(answer.json));
    return answer.json.results.map((row: any) => row.document_version.document_id).sort();
  };
  assert.equal((await putSynonyms({ synonyms: [{ terms: ['bil', 'invoice'] }] })).status, 200);
  // Both processes search with the set (and keep it compiled) before it changes.
  for (let i = 0; i < 10; i++) assert.deepEqual(await search('bil'), ['bil-ms', 'invoice-en']);
  assert.equal((await putSynonyms({ synonyms: [{ terms: ['bil', 'penyata'] }] })).status, 200);
  for (let i = 0; i < 10; i++) assert.deepEqual(await search('bil'), ['bil-ms', 'penyata-ms'], `search ${i} after the change`);
  assert.equal((await putSynonyms({ synonyms: [] })).status, 200);
});
