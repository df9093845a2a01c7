import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useTestServer, startTestServer, api, KEYS, removeDir, untilHealthy } from '../helpers/server.ts';

function assertAuthFailed(response: { status: number; json: any; headers: Headers }) {
  assert.equal(response.status, 401);
  assert.equal(response.json.detail, 'Invalid API key');
  assert.equal(response.json.error_code, 'auth_failed');
  assert.equal(typeof response.json.request_id, 'string');
  assert.equal(response.headers.get('x-request-id'), response.json.request_id);
}

const server = useTestServer();

test('a missing key gives 401 auth_failed on every protected route', async () => {
  for (const [method, path] of [
    ['GET', '/documents'],
    ['POST', '/search'],
    ['GET', '/status/abc'],
    ['GET', '/document/x/text'],
    ['GET', '/openapi.json'],
    ['GET', '/metrics'],
    ['GET', '/discovery/readiness'],
  ]) {
    const response = await api(server.url, path, { method, key: null, body: method === 'POST' ? { query: 'x' } : undefined });
    assertAuthFailed(response);
  }
});

test('an unknown key gives 401', async () => {
  assertAuthFailed(await api(server.url, '/documents', { key: 'not-a-key' }));
});

test('an operator key is not a client key, and a client key does not open admin routes', async () => {
  assertAuthFailed(await api(server.url, '/documents', { key: KEYS.operator }));
  assertAuthFailed(await api(server.url, '/admin/authority', { key: KEYS.alpha }));
  const admin = await api(server.url, '/admin/authority', { key: KEYS.operator });
  assert.equal(admin.status, 200);
  assert.equal(admin.json.authority_mode, 'READY');
});

test('/metrics answers an operator key only: a Client key gets 401 auth_failed, as on the /admin routes', async () => {
  for (const key of [KEYS.alpha, KEYS.beta]) assertAuthFailed(await api(server.url, '/metrics', { key }));
  // The router decodes /%6detrics to /metrics: the same route, the same refusal.
  assertAuthFailed(await api(server.url, '/%6detrics', { key: KEYS.alpha }));
  const scrape = await api(server.url, '/metrics', { key: KEYS.operator });
  assert.equal(scrape.status, 200);
  assert.match(scrape.text, /^http_requests_total\{/m);
});

test('a percent-encoded path reaches no admin route with a Client key, and is counted as the route it is', async () => {
  for (const [method, path] of [
    ['GET', '/%61dmin/authority'],
    ['GET', '/adm%69n/authority'],
    ['POST', '/%61dmin/authority/mode'],
    ['POST', '/admin%2Fbackfill'],
  ]) {
    const response = await api(server.url, path, { method, key: KEYS.alpha, body: method === 'POST' ? { mode: 'MAINTENANCE', client_id: 'client-alpha' } : undefined });
    assert.ok(response.status === 401 || response.status === 404, `${method} ${path} answered ${response.status} ${response.text}`);
    assert.notEqual(response.json.authority_mode, 'MAINTENANCE');
  }
  assert.equal((await api(server.url, '/admin/authority', { key: KEYS.operator })).json.authority_mode, 'READY', 'the mode did not change');
  // The operator's own key works through an encoded path too: it is the same route.
  assert.equal((await api(server.url, '/%61dmin/authority', { key: KEYS.operator })).status, 200);
});

test('HEAD /health needs no key, as monitors send it', async () => {
  const response = await fetch(`${server.url}/health`, { method: 'HEAD' });
  assert.ok(response.status === 200 || response.status === 503, String(response.status));
  assert.ok(response.headers.get('x-request-id'));
});

test('GET /health needs no key and carries a request id', async () => {
  const response = await api(server.url, '/health', { key: null });
  assert.equal(response.status, 200);
  assert.match(response.headers.get('x-request-id') ?? '', /.+/);
});

test('a valid key reaches the route', async () => {
  const response = await api(server.url, '/documents', { key: KEYS.alpha });
  assert.equal(response.status, 200);
  assert.deepEqual(response.json.documents, []);
});

for (const [name, mapping] of [
  ['empty', '{}'],
  ['invalid JSON', 'not json'],
  ['not an object', '["a"]'],
  ['missing', ''],
]) {
  test(`an ${name} API_KEY_CLIENTS mapping fails closed with 401`, async () => {
    const closed = await startTestServer({ API_KEY_CLIENTS: mapping });
    try {
      assertAuthFailed(await api(closed.url, '/documents', { key: KEYS.alpha }));
      assertAuthFailed(await api(closed.url, '/search', { key: KEYS.alpha, body: { query: 'x' } }));
      const health = await untilHealthy(closed.url);
      assert.equal(health.status, 200, health.text);
    } finally {
      await closed.close();
      removeDir(closed.dataDir);
    }
  });
}
