import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createEmbedder, createReranker, EMBEDDING_PROVIDERS, RERANKER_PROVIDERS } from '../../src/models/factory.ts';
import { ModelProviderError } from '../../src/models/model-error.ts';
import { startFakeProvider } from './fake-provider.ts';
import { writeTinyModel } from './tiny-model.ts';

const settingsError = (pattern: RegExp) => (error: unknown) => error instanceof ModelProviderError && error.code === 'settings_invalid' && pattern.test(error.message);

test('defaults to the hashing embedder and the lexical reranker', async () => {
  assert.deepEqual([...EMBEDDING_PROVIDERS], ['hashing', 'model2vec', 'transformers', 'openai']);
  assert.deepEqual([...RERANKER_PROVIDERS], ['lexical', 'transformers', 'http']);
  const embedder = await createEmbedder({});
  assert.deepEqual([embedder.provider, embedder.dimensions], ['hashing', 384]);
  assert.equal((await createEmbedder({ provider: 'hashing', dimensions: 128 })).dimensions, 128);
  const reranker = await createReranker({});
  assert.equal(reranker.provider, 'lexical');
  const [best, worst] = await reranker.rerank('kadar faedah', ['kadar faedah naik', 'cuaca']);
  assert.ok(best > worst);
});

test('builds a model2vec embedder from a directory and checks the configured dimension', async () => {
  const root = await mkdtemp(join(tmpdir(), 'factory-'));
  try {
    const model = await writeTinyModel(join(root, 'tiny-potion'), { dim: 12 });
    const embedder = await createEmbedder({ provider: 'model2vec', model: model.dir, dimensions: 12 });
    assert.deepEqual([embedder.provider, embedder.model, embedder.dimensions], ['model2vec', 'tiny-potion', 12]);
    assert.equal((await embedder.embed(['the cat']))[0].length, 12);
    await assert.rejects(createEmbedder({ provider: 'model2vec', model: model.dir, dimensions: 384 }), settingsError(/produces 12-dimensional vectors but 384 are configured; set .* to 12/));
    await assert.rejects(createEmbedder({ provider: 'model2vec' }), settingsError(/model directory \(EMBEDDING_MODEL\) is required/));
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('builds openai embedders (probing the dimension when unset) and http rerankers', async () => {
  const server = await startFakeProvider((request) => {
    const body = request.body as { input?: string[]; documents?: string[] };
    if (body.input) return { body: { data: body.input.map((_, index) => ({ index, embedding: [1, 2, 3] })) } };
    return { body: { results: (body.documents ?? []).map((_, index) => ({ index, relevance_score: index })) } };
  });
  try {
    const probed = await createEmbedder({ provider: 'openai', url: server.url, model: 'm' });
    assert.deepEqual([probed.provider, probed.model, probed.dimensions], ['openai', 'm', 3]);
    const fixed = await createEmbedder({ provider: 'openai', url: server.url, dimensions: 3 });
    assert.equal((await fixed.embed(['x']))[0].length, 3);
    const reranker = await createReranker({ provider: 'http', url: `${server.url}/rerank`, model: 'r' });
    assert.deepEqual(await reranker.rerank('q', ['a', 'b']), [0, 1]);
    await assert.rejects(createReranker({ provider: 'http' }), settingsError(/RERANKER_URL/));
  } finally {
    await server.close();
  }
});

test('unknown providers are refused with the list of known ones', async () => {
  await assert.rejects(createEmbedder({ provider: 'word2vec' }), settingsError(/unknown embedding provider "word2vec" \(known: hashing, model2vec, transformers, openai\)/));
  await assert.rejects(createReranker({ provider: 'colbert' }), settingsError(/unknown reranker provider "colbert"/));
  await assert.rejects(createEmbedder({ provider: 'transformers' }), settingsError(/EMBEDDING_MODEL/));
});
