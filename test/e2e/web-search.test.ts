// POST /web-search and its capabilities route against local fake SearXNG and Brave servers.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, api, KEYS, removeDir } from '../helpers/server.ts';
import { NEVER_ANSWERED, startFakeProvider } from '../models/fake-provider.ts';
import type { FakeAnswer } from '../models/fake-provider.ts';

/** A local provider answering by the request URL (the shared fake records every request). */
function fakeProvider(answer: (url: URL) => FakeAnswer | Promise<FakeAnswer>) {
  return startFakeProvider((request) => answer(new URL(request.url, 'http://x')));
}

/**
 * How long the service waits for a provider that answers: the setting's largest, so that no answer of a fake
 * provider on a busy machine arrives after it (a test of the timeout itself sets TIMEOUT_WAIT_MS instead).
 */
const ANSWER_WAIT_MS = 60_000;
/** The timeout of the test that meets one, against a provider that never answers (NEVER_ANSWERED). */
const TIMEOUT_WAIT_MS = 300;

async function withService(env: Record<string, string>, fn: (url: string) => Promise<void>) {
  const server = await startTestServer({ WEB_SEARCH_TIMEOUT_MS: String(ANSWER_WAIT_MS), ...env });
  try {
    await fn(server.url);
  } finally {
    await server.close();
    removeDir(server.dataDir);
  }
}

const search = (url: string, body: unknown) => api(url, '/web-search', { key: KEYS.alpha, body });

test('gate off: capabilities say so, the provider is never called, 200 unavailable, never cached', async () => {
  const provider = await fakeProvider(() => ({ body: { results: [{ title: 't', url: 'https://a', content: 'c' }] } }));
  try {
    await withService({ WEB_SEARCH_PROVIDER: 'searxng', WEB_SEARCH_URL: provider.url }, async (url) => {
      const capabilities = await api(url, '/web-search/capabilities', { key: KEYS.alpha });
      assert.deepEqual(capabilities.json, { enabled: false });
      assert.equal(capabilities.headers.get('cache-control'), 'private, no-store');
      const response = await search(url, { query: 'ringgit exchange rate' });
      assert.equal(response.status, 200);
      assert.deepEqual(response.json.results, []);
      assert.equal(response.json.meta.status, 'unavailable');
      assert.equal(response.json.meta.count, 0);
      assert.equal(response.headers.get('cache-control'), 'private, no-store');
      assert.equal(provider.requests.length, 0);
    });
  } finally {
    await provider.close();
  }
});

test('searxng: the query goes verbatim, results are ranked and limited', async () => {
  const provider = await fakeProvider(() => ({
    body: { results: Array.from({ length: 8 }, (_, i) => ({ title: `Title ${i}`, url: `https://example.test/${i}`, content: `Snippet ${i}` })) },
  }));
  try {
    await withService({ WEB_SEARCH_ENABLED: 'true', WEB_SEARCH_PROVIDER: 'searxng', WEB_SEARCH_URL: provider.url }, async (url) => {
      assert.deepEqual((await api(url, '/web-search/capabilities', { key: KEYS.alpha })).json, { enabled: true });
      const response = await search(url, { query: 'Bank Negara  "OPR" 2024', limit: 3 });
      assert.equal(response.status, 200);
      assert.equal(response.json.meta.status, 'ok');
      assert.equal(response.json.meta.provider, 'searxng');
      assert.equal(response.json.meta.count, 3);
      assert.deepEqual(response.json.results[1], { source: 'web', title: 'Title 1', url: 'https://example.test/1', snippet: 'Snippet 1', rank: 2 });
      assert.equal(new URL(provider.requests[0].url, 'http://x').searchParams.get('q'), 'Bank Negara  "OPR" 2024');
      assert.equal((await search(url, { query: 'anything' })).json.results.length, 5, 'default limit 5');
    });
  } finally {
    await provider.close();
  }
});

test('fail-open: no results, rate limits, errors and timeouts are 200 with their status', async () => {
  const provider = await fakeProvider((url) => {
    const q = url.searchParams.get('q');
    if (q === 'empty') return { body: { results: [] } };
    if (q === 'busy') return { status: 429 };
    if (q === 'down') return { status: 503 };
    if (q === 'broken') return { status: 200, rawBody: 'not json' };
    if (q === 'slow') return NEVER_ANSWERED;
    return { status: 500 };
  });
  try {
    const expectOutcomes = async (url: string, outcomes: Array<[string, string]>) => {
      for (const [query, status] of outcomes) {
        const response = await search(url, { query });
        assert.equal(response.status, 200, query);
        assert.deepEqual(response.json.results, [], query);
        assert.equal(response.json.meta.status, status, query);
      }
    };
    const searxng = { WEB_SEARCH_ENABLED: 'true', WEB_SEARCH_PROVIDER: 'searxng', WEB_SEARCH_URL: provider.url };
    // Every answer the provider gives is waited for as long as the setting allows (withService), so that on a
    // busy machine a slow "broken" answer is still a provider_error and never passes for a timeout.
    await withService(searxng, async (url) => {
      await expectOutcomes(url, [
        ['empty', 'no_results'],
        ['busy', 'rate_limited'],
        ['down', 'unavailable'],
        ['broken', 'provider_error'],
        ['error', 'provider_error'],
      ]);
    });
    // A timeout is met only where the provider never answers at all: the short wait cannot be outrun.
    await withService({ ...searxng, WEB_SEARCH_TIMEOUT_MS: String(TIMEOUT_WAIT_MS) }, async (url) => {
      await expectOutcomes(url, [['slow', 'timeout']]);
    });
  } finally {
    await provider.close();
  }
});

test('brave: the key goes in X-Subscription-Token and descriptions become snippets', async () => {
  const provider = await fakeProvider(() => ({ body: { web: { results: [{ title: 'Maybank', url: 'https://maybank.test', description: 'Bank in Malaysia' }] } } }));
  try {
    await withService({ WEB_SEARCH_ENABLED: 'true', WEB_SEARCH_PROVIDER: 'brave', WEB_SEARCH_API_KEY: 'brave-secret', WEB_SEARCH_URL: `${provider.url}/res/v1/web/search` }, async (url) => {
      const response = await search(url, { query: 'maybank', limit: 2 });
      assert.deepEqual(response.json.results, [{ source: 'web', title: 'Maybank', url: 'https://maybank.test', snippet: 'Bank in Malaysia', rank: 1 }]);
      assert.equal(provider.requests[0].headers['x-subscription-token'], 'brave-secret');
      assert.equal(new URL(provider.requests[0].url, 'http://x').searchParams.get('count'), '2');
    });
  } finally {
    await provider.close();
  }
});

test('422 for a blank or over-long query, extra fields and limits out of range; 401 without a key', async () => {
  await withService({}, async (url) => {
    for (const body of [{ query: '   ' }, { query: '' }, { query: 'x'.repeat(501) }, { query: 'ok', extra: 1 }, { query: 'ok', limit: 6 }, { query: 'ok', limit: 0 }, {}]) {
      const response = await search(url, body);
      assert.equal(response.status, 422, JSON.stringify(body).slice(0, 60));
      assert.equal(response.json.error_code, 'validation_error');
    }
    assert.equal((await api(url, '/web-search', { key: null, body: { query: 'x' } })).status, 401);
    assert.equal((await api(url, '/web-search/capabilities', { key: null })).status, 401);
  });
});
