import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useTestServer, api, KEYS } from '../helpers/server.ts';

const server = useTestServer();

async function search(body: unknown) {
  return api(server.url, '/search', { key: KEYS.alpha, body });
}

function assertEnvelope(response: { status: number; json: any }) {
  assert.equal(response.status, 422);
  assert.equal(response.json.detail, 'Request validation failed');
  assert.equal(response.json.error_code, 'validation_error');
  assert.equal(typeof response.json.request_id, 'string');
  assert.ok(Array.isArray(response.json.details) && response.json.details.length > 0);
}

test('an unknown body key is rejected with extra_forbidden at its location', async () => {
  const response = await search({ query: 'invoice', colour: 'red' });
  assertEnvelope(response);
  assert.deepEqual(response.json.details, [{ type: 'extra_forbidden', loc: ['body', 'colour'], msg: 'Extra inputs are not permitted', input: 'red' }]);
});

test('a wrong type is rejected, not coerced', async () => {
  const response = await search({ query: 'invoice', limit: '10' });
  assertEnvelope(response);
  const [detail] = response.json.details;
  assert.deepEqual(detail.loc, ['body', 'limit']);
  assert.equal(detail.type, 'int_type');
  assert.equal(detail.input, '10');
  assert.equal(typeof detail.msg, 'string');
});

test('out-of-range values are rejected with their bounds', async () => {
  const tooBig = await search({ query: 'invoice', limit: 101 });
  assertEnvelope(tooBig);
  assert.deepEqual(tooBig.json.details[0], { type: 'less_than_equal', loc: ['body', 'limit'], msg: 'Input should be less than or equal to 100', input: 101 });
  const alpha = await search({ query: 'invoice', alpha: 1.5 });
  assertEnvelope(alpha);
  assert.deepEqual(alpha.json.details[0].loc, ['body', 'alpha']);
  const rerank = await search({ query: 'invoice', top_k_rerank: 0 });
  assertEnvelope(rerank);
  assert.equal(rerank.json.details[0].type, 'greater_than_equal');
});

test('offset + limit over 200 is a 422', async () => {
  const response = await search({ query: 'invoice', offset: 150, limit: 51 });
  assertEnvelope(response);
  assert.deepEqual(response.json.details[0].loc, ['body', 'offset']);
  assert.equal((await search({ query: 'invoice', offset: 150, limit: 50 })).status, 200);
});

test('a missing or blank query is a 422', async () => {
  const missing = await search({ limit: 5 });
  assertEnvelope(missing);
  assert.deepEqual(missing.json.details[0], { type: 'missing', loc: ['body', 'query'], msg: 'Field required', input: { limit: 5 } });
  assertEnvelope(await search({ query: '   ' }));
});

test('scope is case-insensitive and validated', async () => {
  assert.equal((await search({ query: 'invoice', scope: 'CONTENT' })).status, 200);
  const bad = await search({ query: 'invoice', scope: 'everything' });
  assertEnvelope(bad);
  assert.deepEqual(bad.json.details[0].loc, ['body', 'scope']);
});

test('a malformed JSON body is a 422, and a body that is not an object too', async () => {
  assertEnvelope(await search('{"query": '));
  assertEnvelope(await search('[1,2]'));
});

test('query-string parameters are bad requests (400) with the same details', async () => {
  const response = await api(server.url, '/documents?limit=0', { key: KEYS.alpha });
  assert.equal(response.status, 400);
  assert.equal(response.json.error_code, 'invalid_request');
  assert.match(response.json.detail, /query\.limit/);
  assert.deepEqual(response.json.details[0].loc, ['query', 'limit']);
});

test('a malformed path escape gets the envelope with a request id', async () => {
  const response = await api(server.url, '/document/%zz/text', { key: KEYS.alpha });
  assert.equal(response.status, 400);
  assert.equal(typeof response.json.request_id, 'string');
  assert.equal(response.headers.get('x-request-id'), response.json.request_id);
});
