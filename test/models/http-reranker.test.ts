import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createHttpReranker, scoresFromAnswer } from '../../src/models/http-reranker.ts';
import { ModelProviderError } from '../../src/models/model-error.ts';
import { NEVER_ANSWERED, startFakeProvider, type RecordedRequest } from './fake-provider.ts';

// The fake cross-encoder: passages sharing more words with the query score higher.
function overlap(query: string, passage: string): number {
  const words = new Set(query.toLowerCase().split(/\s+/));
  return passage.toLowerCase().split(/\s+/).filter((word) => words.has(word)).length;
}

function cohereAnswer(request: RecordedRequest) {
  const { query, documents } = request.body as { query: string; documents: string[] };
  const results = documents.map((doc, index) => ({ index, relevance_score: overlap(query, doc) })).sort((a, b) => b.relevance_score - a.relevance_score);
  return { body: { id: 'r1', results, meta: {} } };
}

test('posts {model, query, documents, top_n} and maps results back to input order', async () => {
  const server = await startFakeProvider((request) => cohereAnswer(request));
  try {
    const reranker = createHttpReranker({ url: `${server.url}/v1/rerank`, model: 'fake-rerank', apiKey: 'key-1' });
    assert.equal(reranker.provider, 'http');
    assert.equal(reranker.model, 'fake-rerank');
    const passages = ['cuaca panas', 'kadar faedah bank naik', 'bank tutup'];
    assert.deepEqual(await reranker.rerank('kadar faedah bank', passages), [0, 3, 1]);
    const [request] = server.requests;
    assert.equal(request.url, '/v1/rerank');
    assert.equal(request.headers.authorization, 'Bearer key-1');
    assert.deepEqual(request.body, { model: 'fake-rerank', query: 'kadar faedah bank', documents: passages, top_n: 3, return_documents: false });
    assert.deepEqual(await reranker.rerank('x', []), []);
    assert.equal(server.requests.length, 1, 'no request for an empty candidate list');
  } finally {
    await server.close();
  }
});

test('TEI format: sends texts and accepts a bare [{index, score}] array', async () => {
  const server = await startFakeProvider((request) => {
    const { query, texts } = request.body as { query: string; texts: string[] };
    return { body: texts.map((text, index) => ({ index, score: overlap(query, text) / 10 })).reverse() };
  });
  try {
    const reranker = createHttpReranker({ url: `${server.url}/rerank`, requestFormat: 'texts' });
    assert.equal(reranker.model, 'http-rerank');
    assert.deepEqual(await reranker.rerank('a b', ['a', 'a b', 'c']), [0.1, 0.2, 0]);
    assert.deepEqual(Object.keys(server.requests[0].body as object).sort(), ['query', 'raw_scores', 'texts']);
  } finally {
    await server.close();
  }
});

test('errors: HTTP status, timeout and malformed answers', async () => {
  const server = await startFakeProvider((_request, index) => {
    if (index === 0) return { status: 401, body: { message: 'invalid api token' } };
    if (index === 1) return { status: 500, rawBody: 'upstream exploded', headers: { 'content-type': 'text/plain' } };
    if (index === 2) return { body: { results: [{ index: 7, relevance_score: 1 }] } };
    if (index === 3) return { body: { results: [{ index: 0 }] } };
    if (index === 4) return { rawBody: '<html>' };
    return NEVER_ANSWERED;
  });
  try {
    // The answered cases get a deadline no busy machine misses; only the request never answered meets the short one.
    const patient = createHttpReranker({ url: server.url, timeoutMs: 60_000 });
    const hasty = createHttpReranker({ url: server.url, timeoutMs: 100 });
    const rejects = (pattern: RegExp, check: (error: ModelProviderError) => boolean = () => true, reranker = patient) => assert.rejects(reranker.rerank('q', ['a', 'b']), (error: unknown) => error instanceof ModelProviderError && pattern.test(error.message) && check(error));
    await rejects(/HTTP 401, the API key is missing or not accepted: invalid api token/, (e) => !e.retryable);
    await rejects(/HTTP 500: upstream exploded/, (e) => e.retryable);
    await rejects(/result index 7 is missing, duplicated or outside 0..1/);
    await rejects(/result 0 has no numeric relevance_score or score/);
    await rejects(/HTTP 200 answer is not JSON/);
    await rejects(/no answer within 100 ms/, (e) => e.code === 'provider_unavailable', hasty);
  } finally {
    await server.close();
  }
});

test('passages the server leaves out score lowest; bad settings are refused', () => {
  assert.deepEqual(scoresFromAnswer({ results: [{ index: 1, relevance_score: 0.4 }] }, 3), [-Infinity, 0.4, -Infinity]);
  assert.deepEqual(scoresFromAnswer({ data: [{ index: 0, score: 2 }] }, 1), [2]);
  assert.throws(() => scoresFromAnswer({ results: [{ index: 0, score: 1 }, { index: 0, score: 2 }] }, 2), /duplicated/);
  assert.throws(() => scoresFromAnswer({ ok: true }, 1), /neither \{results/);
  assert.throws(() => createHttpReranker({ url: 'localhost:8080/rerank' }), (error: unknown) => error instanceof ModelProviderError && error.code === 'settings_invalid');
});
