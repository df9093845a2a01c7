// SPEC.md search rule 12 where a search really reads over the network: the query embedding by a remote
// (OpenAI-compatible) embedder and the http reranker, both played by a real local HTTP server that can drop
// its connections. One drop is retried; a second gives 503 internal_error with Retry-After 1; other
// transport errors are not retried. A search waiting on either holds up no other search of its api process.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { api, KEYS, removeDir, startTestServer, uploadText, waitForJob } from '../helpers/server.ts';
import type { TestServer } from '../helpers/server.ts';
import { startFakeProvider } from '../models/fake-provider.ts';
import type { FakeAnswer, FakeProvider, RecordedRequest } from '../models/fake-provider.ts';

const DIMS = 16;
type Mode = 'answer' | 'drop-once' | 'drop-always' | 'fail-500';
/** What the fake provider does with the next embedding and rerank requests. */
let embedMode: Mode = 'answer';
let rerankMode: Mode = 'answer';
let dropsLeft = 0;

function toyVector(text: string): number[] {
  const vector = new Array(DIMS).fill(0);
  for (const char of text.toLowerCase()) if (char >= 'a' && char <= 'z') vector[char.charCodeAt(0) % DIMS] += 1;
  return vector;
}

function answerOrFault(mode: Mode, answer: () => FakeAnswer): FakeAnswer {
  if (mode === 'drop-always') return { destroy: true };
  if (mode === 'drop-once' && dropsLeft > 0) {
    dropsLeft--;
    return { destroy: true };
  }
  if (mode === 'fail-500') return { status: 500, body: { error: { message: 'model crashed' } } };
  return answer();
}

/** Requests of kind `heldKind` whose texts include HELD_WORD wait for `held` (a slow provider). */
const HELD_WORD = 'stalled';
let heldKind: 'embed' | 'rerank' = 'embed';
let releaseHeld: () => void = () => {};
let held: Promise<void> = Promise.resolve();

const kindOf = (request: RecordedRequest) => (request.url.includes('rerank') ? 'rerank' : 'embed');
const isHeld = (request: RecordedRequest) => kindOf(request) === heldKind && JSON.stringify(request.body).includes(HELD_WORD);

function handle(request: RecordedRequest): FakeAnswer | Promise<FakeAnswer> {
  return isHeld(request) ? held.then(() => answer(request)) : answer(request);
}

function answer(request: RecordedRequest): FakeAnswer {
  if (request.url.includes('rerank')) {
    const documents = (request.body as { documents: string[] }).documents;
    // Scores reverse the fused order, so a reranked page is recognisable.
    return answerOrFault(rerankMode, () => ({ body: { results: documents.map((_, index) => ({ index, relevance_score: index })) } }));
  }
  const input = (request.body as { input: string[] }).input;
  return answerOrFault(embedMode, () => ({ body: { data: input.map((text, index) => ({ index, embedding: toyVector(text) })), model: 'toy' } }));
}

let provider: FakeProvider;
let server: TestServer;

before(async () => {
  provider = await startFakeProvider(handle);
  server = await startTestServer({
    // One api process: a search that waits and the searches answered meanwhile are the same process's.
    API_PROCESSES: '1',
    EMBEDDING_PROVIDER: 'openai',
    EMBEDDING_URL: provider.url,
    EMBEDDING_MODEL: 'toy',
    EMBEDDING_DIMENSIONS: String(DIMS),
    RERANKER_PROVIDER: 'http',
    RERANKER_URL: `${provider.url}/rerank`,
  });
  for (const [id, text] of [['a', 'Ledger of the Penang branch.'], ['b', 'Ledger summary for Melaka.']]) {
    // A descriptive metadata value, so that a metadata-scope search embeds its query and the value.
    const accepted = await uploadText(server.url, KEYS.alpha, { document_id: id, text, metadata: { team: `retail banking ${id}` } });
    assert.equal((await waitForJob(server.url, KEYS.alpha, accepted.json.job_id)).status, 'completed');
  }
});

after(async () => {
  await server.close();
  removeDir(server.dataDir);
  await provider.close();
});

/** Requests the fake provider received for `kind` while `fn` ran. */
async function counting(kind: 'embed' | 'rerank', fn: () => Promise<void>): Promise<number> {
  const before = provider.requests.length;
  await fn();
  return provider.requests.slice(before).filter((request) => request.url.includes('rerank') === (kind === 'rerank')).length;
}

test('a dropped query-embedding connection is retried once and the search answers', async () => {
  embedMode = 'drop-once';
  dropsLeft = 1;
  const requests = await counting('embed', async () => {
    const search = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'ledger', alpha: 1 } });
    assert.equal(search.status, 200, search.text);
    assert.equal(search.json.results.length, 2);
  });
  assert.equal(requests, 2, 'the first attempt dropped, the retry answered');
  embedMode = 'answer';
});

test('a second consecutive drop of the query embedding is 503 internal_error with Retry-After 1', async () => {
  embedMode = 'drop-always';
  const requests = await counting('embed', async () => {
    const search = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'ledger', alpha: 1 } });
    assert.equal(search.status, 503);
    assert.equal(search.json.error_code, 'internal_error');
    assert.equal(search.headers.get('retry-after'), '1');
  });
  assert.equal(requests, 2, 'exactly one retry');
  embedMode = 'answer';
});

test('other transport errors of the query embedding are not retried', async () => {
  embedMode = 'fail-500';
  const requests = await counting('embed', async () => {
    const search = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'ledger', alpha: 1 } });
    assert.equal(search.status, 500);
    assert.equal(search.json.error_code, 'internal_error');
  });
  assert.equal(requests, 1);
  embedMode = 'answer';
});

for (const scope of ['metadata', 'both'] as const) {
  test(`scope ${scope}: the metadata lane's embeddings get the same single retry of a dropped connection`, async () => {
    // In scope both the two lanes read side by side, so only scope metadata counts the provider's requests.
    const expectRequests = (count: number, expected: number, what: string) => {
      if (scope === 'metadata') assert.equal(count, expected, `${what} (${count} embedding requests)`);
    };
    try {
      embedMode = 'drop-once';
      dropsLeft = 1;
      const once = await counting('embed', async () => {
        const search = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'retail banking team', scope } });
        assert.equal(search.status, 200, search.text);
        assert.ok(search.json.results.length > 0);
      });
      assert.ok(once >= 2, `the first attempt dropped and was retried (${once} embedding requests)`);
      embedMode = 'drop-always';
      const twice = await counting('embed', async () => {
        const search = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'retail banking team', scope } });
        assert.equal(search.status, 503, search.text);
        assert.equal(search.json.error_code, 'internal_error');
        assert.equal(search.headers.get('retry-after'), '1');
      });
      expectRequests(twice, 2, 'exactly one retry');
      embedMode = 'fail-500';
      const failing = await counting('embed', async () => {
        const search = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'retail banking team', scope } });
        assert.equal(search.status, 500, search.text);
        assert.equal(search.headers.get('retry-after'), null);
      });
      expectRequests(failing, 1, 'other transport errors are not retried');
    } finally {
      embedMode = 'answer';
    }
  });
}

test('the http reranker: one drop is retried and the page is reranked; a second drop is 503', async () => {
  rerankMode = 'drop-once';
  dropsLeft = 1;
  const once = await counting('rerank', async () => {
    const search = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'ledger', rerank: true } });
    assert.equal(search.status, 200, search.text);
    assert.equal(search.json.meta.retrieval.reranked, true);
    assert.equal(search.json.meta.retrieval.reranked_count, 2);
  });
  assert.equal(once, 2);
  rerankMode = 'drop-always';
  const twice = await counting('rerank', async () => {
    const search = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'ledger', rerank: true } });
    assert.equal(search.status, 503);
    assert.equal(search.json.error_code, 'internal_error');
    assert.equal(search.headers.get('retry-after'), '1');
  });
  assert.equal(twice, 2);
  rerankMode = 'fail-500';
  const failing = await counting('rerank', async () => {
    const search = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'ledger', rerank: true } });
    assert.equal(search.status, 200, 'a failing reranker leaves the fused order');
    assert.equal(search.json.meta.retrieval.reranked_count, 0);
  });
  assert.equal(failing, 1, 'not retried');
  rerankMode = 'answer';
});

for (const wait of ['embed', 'rerank'] as const) {
  test(`a search waiting on the ${wait === 'embed' ? 'remote embedder' : 'http reranker'} lets other searches answer meanwhile`, { timeout: 60_000 }, async () => {
    heldKind = wait;
    held = new Promise((resolve) => (releaseHeld = resolve));
    try {
      const body = wait === 'embed' ? { query: `${HELD_WORD} ledger`, alpha: 1 } : { query: `${HELD_WORD} ledger`, rerank: true };
      const waiting = api(server.url, '/search', { key: KEYS.alpha, body });
      // Once the provider holds its request, the search is waiting on it.
      while (!provider.requests.some(isHeld)) await new Promise((resolve) => setTimeout(resolve, 5));
      for (const query of ['ledger', 'summary']) {
        const other = await api(server.url, '/search', { key: KEYS.alpha, body: { query, rerank: wait === 'rerank' } });
        assert.equal(other.status, 200, other.text);
        assert.ok(other.json.results.length > 0);
      }
      releaseHeld();
      const answered = await waiting;
      assert.equal(answered.status, 200, answered.text);
      if (wait === 'rerank') assert.equal(answered.json.meta.retrieval.reranked, true);
    } finally {
      releaseHeld();
    }
  });
}
