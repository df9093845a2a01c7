import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ModelProviderError } from '../../src/models/model-error.ts';
import { createOpenAIEmbedder, embeddingsUrl, probeOpenAIDimensions } from '../../src/models/openai-embedder.ts';
import { l2Norm } from '../../src/models/vector-math.ts';
import { NEVER_ANSWERED, startFakeProvider, type RecordedRequest } from './fake-provider.ts';

const DIM = 4;
const FAST_RETRY = { retryBaseDelayMs: 1, retryMaxDelayMs: 5 };
const ANSWERED_RETRY_TIMEOUT_MS = 2_000;

// The fake model's vector for a text: deterministic and not yet normalized.
function fakeVector(text: string, dim = DIM): number[] {
  return Array.from({ length: dim }, (_, d) => text.length + d + 1);
}

function embeddingsAnswer(request: RecordedRequest, dim = DIM) {
  const input = (request.body as { input: string[] }).input;
  // Answer out of order, as the API allows: clients must use `index`.
  const data = input.map((text, index) => ({ object: 'embedding', index, embedding: fakeVector(text, dim) })).reverse();
  return { body: { object: 'list', data, model: 'fake' } };
}

function assertNormalizedCopyOf(actual: Float32Array, raw: number[]): void {
  const norm = Math.hypot(...raw);
  raw.forEach((x, d) => assert.ok(Math.abs(actual[d] - x / norm) < 1e-6));
  assert.ok(Math.abs(l2Norm(actual) - 1) < 1e-6);
}

test('posts batches to /v1/embeddings with the key, keeps input order, normalizes, skips empty texts', async () => {
  const server = await startFakeProvider((request) => embeddingsAnswer(request));
  try {
    const embedder = createOpenAIEmbedder({ baseUrl: server.url, apiKey: 'sk-test', model: 'fake-embed', dimensions: DIM, batchSize: 2 });
    assert.equal(embedder.provider, 'openai');
    assert.equal(embedder.model, 'fake-embed');
    const texts = ['alpha', '', 'be', 'gamma ray', '   '];
    const vectors = await embedder.embed(texts);
    assert.equal(vectors.length, 5);
    assertNormalizedCopyOf(vectors[0], fakeVector('alpha'));
    assertNormalizedCopyOf(vectors[2], fakeVector('be'));
    assertNormalizedCopyOf(vectors[3], fakeVector('gamma ray'));
    assert.ok(vectors[1].every((x) => x === 0) && vectors[4].every((x) => x === 0));
    assert.equal(server.requests.length, 2);
    assert.deepEqual(server.requests.map((r) => (r.body as { input: string[] }).input), [['alpha', 'be'], ['gamma ray']]);
    for (const request of server.requests) {
      assert.equal(request.method, 'POST');
      assert.equal(request.url, '/v1/embeddings');
      assert.equal(request.headers.authorization, 'Bearer sk-test');
      assert.equal((request.body as { model: string }).model, 'fake-embed');
      assert.equal('dimensions' in (request.body as object), false);
    }
  } finally {
    await server.close();
  }
});

test('retries a 500 and a 429, then succeeds', async () => {
  const server = await startFakeProvider((request, index) => {
    if (index === 0) return { status: 500, body: { error: { message: 'overloaded' } } };
    if (index === 1) return { status: 429, body: { error: { message: 'slow down' } }, headers: { 'retry-after': '0' } };
    return embeddingsAnswer(request);
  });
  try {
    const embedder = createOpenAIEmbedder({ baseUrl: `${server.url}/v1/`, dimensions: DIM, ...FAST_RETRY });
    const [vector] = await embedder.embed(['retry me']);
    assertNormalizedCopyOf(vector, fakeVector('retry me'));
    assert.equal(server.requests.length, 3);
    assert.equal(server.requests[2].url, '/v1/embeddings');
  } finally {
    await server.close();
  }
});

test('gives up after the bounded number of retries with the last error', async () => {
  const server = await startFakeProvider(() => ({ status: 503, body: { error: 'maintenance' } }));
  try {
    const embedder = createOpenAIEmbedder({ baseUrl: server.url, dimensions: DIM, maxRetries: 2, ...FAST_RETRY });
    await assert.rejects(embedder.embed(['x']), (error: unknown) => error instanceof ModelProviderError && error.retryable && error.status === 503 && /HTTP 503: maintenance/.test(error.message));
    assert.equal(server.requests.length, 3);
  } finally {
    await server.close();
  }
});

test('401 is a clear, non-retryable error that does not leak the key', async () => {
  const server = await startFakeProvider(() => ({ status: 401, body: { error: { message: 'Incorrect API key provided' } } }));
  try {
    const embedder = createOpenAIEmbedder({ baseUrl: server.url, apiKey: 'sk-secret-value', dimensions: DIM, ...FAST_RETRY });
    await assert.rejects(embedder.embed(['x']), (error: unknown) => {
      assert.ok(error instanceof ModelProviderError);
      assert.equal(error.code, 'provider_rejected');
      assert.equal(error.retryable, false);
      assert.match(error.message, /HTTP 401, the API key is missing or not accepted: Incorrect API key provided/);
      assert.doesNotMatch(error.message, /sk-secret-value/);
      return true;
    });
    assert.equal(server.requests.length, 1);
  } finally {
    await server.close();
  }
});

test('a wrong dimension or malformed answer is rejected without retrying', async () => {
  const server = await startFakeProvider((request, index) => (index === 0 ? embeddingsAnswer(request, DIM + 2) : { body: { data: [{ index: 5, embedding: [1] }] } }));
  try {
    const embedder = createOpenAIEmbedder({ baseUrl: server.url, dimensions: DIM, ...FAST_RETRY });
    await assert.rejects(embedder.embed(['x']), /model returned 6-dimensional vectors, 4 are configured/);
    await assert.rejects(embedder.embed(['x']), /missing, duplicate or out-of-range index/);
    assert.equal(server.requests.length, 2);
  } finally {
    await server.close();
  }
});

test('times out a slow answer and retries it', async () => {
  const server = await startFakeProvider((request, index) => (index === 0 ? NEVER_ANSWERED : embeddingsAnswer(request)));
  try {
    // One timeout serves both attempts: long enough that the answered retry (from this very process, however
    // busy the machine) never meets it, short enough to keep the test quick; the first attempt is never answered.
    const embedder = createOpenAIEmbedder({ baseUrl: server.url, dimensions: DIM, timeoutMs: ANSWERED_RETRY_TIMEOUT_MS, ...FAST_RETRY });
    const [vector] = await embedder.embed(['slow']);
    assertNormalizedCopyOf(vector, fakeVector('slow'));
    assert.equal(server.requests.length, 2);
  } finally {
    await server.close();
  }
});

test('a timeout without retries left is a retryable error naming the limit', async () => {
  const server = await startFakeProvider(() => NEVER_ANSWERED);
  try {
    const embedder = createOpenAIEmbedder({ baseUrl: server.url, dimensions: DIM, timeoutMs: 100, maxRetries: 0 });
    await assert.rejects(embedder.embed(['x']), (error: unknown) => error instanceof ModelProviderError && error.retryable && /no answer within 100 ms/.test(error.message));
  } finally {
    await server.close();
  }
});

test('an unreachable server is a retryable provider_unavailable error', async () => {
  const server = await startFakeProvider((request) => embeddingsAnswer(request));
  const url = server.url;
  await server.close();
  const embedder = createOpenAIEmbedder({ baseUrl: url, dimensions: DIM, maxRetries: 1, ...FAST_RETRY });
  await assert.rejects(embedder.embed(['x']), (error: unknown) => error instanceof ModelProviderError && error.code === 'provider_unavailable' && error.retryable);
});

test('probes the dimension and can ask the server for a given dimension', async () => {
  const server = await startFakeProvider((request) => embeddingsAnswer(request, (request.body as { dimensions?: number }).dimensions ?? 6));
  try {
    assert.equal(await probeOpenAIDimensions({ baseUrl: server.url }), 6);
    const embedder = createOpenAIEmbedder({ baseUrl: server.url, dimensions: 3, requestDimensions: true });
    const [vector] = await embedder.embed(['short']);
    assert.equal(vector.length, 3);
    assert.equal((server.requests[1].body as { dimensions: number }).dimensions, 3);
  } finally {
    await server.close();
  }
});

test('base URLs with or without /v1 resolve to the same endpoint', () => {
  assert.equal(embeddingsUrl('https://api.openai.com'), 'https://api.openai.com/v1/embeddings');
  assert.equal(embeddingsUrl('https://api.openai.com/v1/'), 'https://api.openai.com/v1/embeddings');
  assert.equal(embeddingsUrl('http://localhost:8080/proxy'), 'http://localhost:8080/proxy/v1/embeddings');
});

test('settings are validated up front', () => {
  const refused = (pattern: RegExp) => (error: unknown) => error instanceof ModelProviderError && error.code === 'settings_invalid' && pattern.test(error.message);
  assert.throws(() => createOpenAIEmbedder({ baseUrl: 'localhost:8080', dimensions: DIM }), refused(/not an absolute http\(s\) URL/));
  assert.throws(() => createOpenAIEmbedder({ dimensions: 0 }), refused(/dimensions must be an integer/));
  assert.throws(() => createOpenAIEmbedder({ dimensions: DIM, batchSize: 5000 }), refused(/batchSize must be an integer in \[1, 2048\]/));
});
