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
    // (A busy machine may make one /health 503 by its probe deadline; what this asks is that none is a 429.)
    for (let i = 0; i < 10; i++) {
      const health = await api(server.url, '/health', { key: null });
      assert.notEqual(health.status, 429, health.text);
      assert.equal(health.headers.get('ratelimit-limit'), null, '/health tells no budget: it has none');
    }
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

/** The RateLimit-* headers of an answer as numbers (NaN when absent). */
function budgetOf(answer: { headers: Headers }) {
  const read = (name: string) => (answer.headers.get(name) === null ? Number.NaN : Number(answer.headers.get(name)));
  return { limit: read('ratelimit-limit'), remaining: read('ratelimit-remaining'), reset: read('ratelimit-reset') };
}

test('every answer of a rate-limited route tells the budget: the limit, the room left counting down, when a slot frees', async () => {
  const server = await startTestServer({ RATE_LIMIT_PER_MINUTE: '3' });
  try {
    const resets: number[] = [];
    for (const [at, key] of [KEYS.alpha, KEYS.alpha2, KEYS.alpha].entries()) {
      const answer = await api(server.url, '/documents', { key });
      assert.equal(answer.status, 200);
      const budget = budgetOf(answer);
      assert.deepEqual({ limit: budget.limit, remaining: budget.remaining }, { limit: 3, remaining: 2 - at }, `request ${at + 1}`);
      assert.ok(Number.isInteger(budget.reset) && budget.reset >= 1 && budget.reset <= 60, `Reset ${budget.reset}`);
      resets.push(budget.reset);
    }
    // Reset is when the first request of the window leaves it: it can only come nearer.
    assert.ok(resets[1] <= resets[0] && resets[2] <= resets[1], `resets ${resets.join(', ')}`);
    const refused = await api(server.url, '/documents', { key: KEYS.alpha2 });
    assert.equal(refused.status, 429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.deepEqual(budgetOf(refused), { limit: 3, remaining: 0, reset: retryAfter });
    // The envelope SPEC.md states, with what refused it.
    assert.equal(refused.json.detail, 'Rate limit exceeded');
    assert.equal(refused.json.error_code, 'rate_limited');
    assert.equal(typeof refused.json.request_id, 'string');
    assert.deepEqual(refused.json.details, { limit: 3, window_seconds: 60, retry_after_seconds: retryAfter });
    // No budget decided a refused key, the public health answer, or an operator's scrape.
    for (const answer of [await api(server.url, '/documents', { key: 'wrong-key' }), await api(server.url, '/health', { key: null }), await api(server.url, '/metrics', { key: KEYS.operator })]) {
      assert.equal(answer.headers.get('ratelimit-limit'), null);
      assert.equal(answer.headers.get('ratelimit-remaining'), null);
    }
  } finally {
    await server.close();
    removeDir(server.dataDir);
  }
});

test('POST /search tells the search counter when it is the tighter budget, other routes the whole budget', async () => {
  const server = await startTestServer({ RATE_LIMIT_PER_MINUTE: '100', SEARCH_RATE_LIMIT_PER_MINUTE: '2' });
  try {
    const first = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'a' } });
    assert.equal(first.status, 200);
    assert.deepEqual({ ...budgetOf(first), reset: 0 }, { limit: 2, remaining: 1, reset: 0 });
    const second = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'a' } });
    assert.equal(budgetOf(second).remaining, 0);
    const refused = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'a' } });
    assert.equal(refused.status, 429);
    assert.equal(refused.json.details.limit, 2, 'the search counter refused it');
    assert.equal(refused.json.details.retry_after_seconds, Number(refused.headers.get('retry-after')));
    // The refused search counted nowhere: two searches and this listing are the whole budget's three.
    const listing = await api(server.url, '/documents', { key: KEYS.alpha });
    assert.equal(listing.status, 200);
    assert.deepEqual({ limit: budgetOf(listing).limit, remaining: budgetOf(listing).remaining }, { limit: 100, remaining: 97 });
    // An answer refused after the budget was taken (a bad body) still tells it.
    const invalid = await api(server.url, '/documents?limit=0', { key: KEYS.alpha });
    assert.equal(invalid.status, 400);
    assert.equal(budgetOf(invalid).remaining, 96);
  } finally {
    await server.close();
    removeDir(server.dataDir);
  }
});
