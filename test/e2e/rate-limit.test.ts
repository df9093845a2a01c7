import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, api, KEYS, removeDir } from '../helpers/server.ts';

test('the protected-route budget is per Client and shared by all its keys', async () => {
  const server = await startTestServer({ RATE_LIMIT_PER_MINUTE: '4' });
  try {
    for (const key of [KEYS.alpha, KEYS.alpha2, KEYS.alpha, KEYS.alpha2]) {
      assert.equal((await api(server.url, '/documents', { key })).status, 200);
    }
    const limited = await api(server.url, '/documents', { key: KEYS.alpha2 });
    assert.equal(limited.status, 429);
    assert.equal(limited.json.error_code, 'rate_limited');
    const retryAfter = Number(limited.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    // Another Client has its own budget, and /health is never limited.
    assert.equal((await api(server.url, '/documents', { key: KEYS.beta })).status, 200);
    for (let i = 0; i < 10; i++) assert.equal((await api(server.url, '/health', { key: null })).status, 200);
  } finally {
    await server.close();
    removeDir(server.dataDir);
  }
});

test('operator scrapes of /metrics spend no Client budget', async () => {
  const server = await startTestServer({ RATE_LIMIT_PER_MINUTE: '2' });
  try {
    for (let scrape = 0; scrape < 4; scrape++) assert.equal((await api(server.url, '/metrics', { key: KEYS.operator })).status, 200);
    // Both of the Client's slots are still there, and a third request is refused: the budget is counting.
    for (const key of [KEYS.alpha, KEYS.alpha2]) assert.equal((await api(server.url, '/documents', { key })).status, 200);
    assert.equal((await api(server.url, '/documents', { key: KEYS.alpha })).status, 429);
    assert.equal((await api(server.url, '/metrics', { key: KEYS.operator })).status, 200, 'nor is the operator held by a Client out of budget');
  } finally {
    await server.close();
    removeDir(server.dataDir);
  }
});

test('POST /search has its own additional counter', async () => {
  const server = await startTestServer({ RATE_LIMIT_PER_MINUTE: '100', SEARCH_RATE_LIMIT_PER_MINUTE: '2' });
  try {
    assert.equal((await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'a' } })).status, 200);
    assert.equal((await api(server.url, '/search', { key: KEYS.alpha2, body: { query: 'a' } })).status, 200);
    const limited = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'a' } });
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    // The router decodes /%73earch to /search: it draws on the same counter.
    assert.equal((await api(server.url, '/%73earch', { key: KEYS.alpha, body: { query: 'a' } })).status, 429);
    // Other protected routes still have budget left.
    assert.equal((await api(server.url, '/documents', { key: KEYS.alpha })).status, 200);
  } finally {
    await server.close();
    removeDir(server.dataDir);
  }
});
