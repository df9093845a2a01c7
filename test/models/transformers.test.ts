import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ModelProviderError } from '../../src/models/model-error.ts';
import { createTransformersEmbedder } from '../../src/models/transformers-embedder.ts';
import { createTransformersReranker } from '../../src/models/transformers-reranker.ts';
import { configureModelLocation, TRANSFORMERS_INSTALL_COMMAND } from '../../src/models/transformers-runtime.ts';

// A name that can never be installed stands in for @huggingface/transformers, which this project does not install.
const MISSING = '@hybrid-doc-search/not-installed-transformers';

function missingModuleError(setting: string) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof ModelProviderError);
    assert.equal(error.code, 'optional_module_missing');
    assert.ok(error.message.includes(`${setting} needs the optional package ${MISSING}, which is not installed`), error.message);
    assert.ok(error.message.includes(TRANSFORMERS_INSTALL_COMMAND));
    return true;
  };
}

test('the transformers embedder explains how to install the missing package', async () => {
  assert.equal(TRANSFORMERS_INSTALL_COMMAND, 'ONNXRUNTIME_NODE_INSTALL=skip npm install @huggingface/transformers');
  await assert.rejects(createTransformersEmbedder({ model: 'Xenova/bge-small-en-v1.5', moduleSpecifier: MISSING }), missingModuleError('EMBEDDING_PROVIDER=transformers'));
  // A second attempt tries again rather than replaying a cached failure.
  await assert.rejects(createTransformersEmbedder({ model: 'x', moduleSpecifier: MISSING }), missingModuleError('EMBEDDING_PROVIDER=transformers'));
});

test('the transformers reranker explains how to install the missing package', async () => {
  await assert.rejects(createTransformersReranker({ model: 'Xenova/ms-marco-MiniLM-L-6-v2', moduleSpecifier: MISSING }), missingModuleError('RERANKER_PROVIDER=transformers'));
});

test('a local model directory disables the hub; a hub id is left alone', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'transformers-model-'));
  try {
    const env = { allowLocalModels: false, allowRemoteModels: true, localModelPath: '/models/' };
    assert.equal(configureModelLocation(env, dir), dir.split('/').pop());
    assert.deepEqual(env, { allowLocalModels: true, allowRemoteModels: false, localModelPath: `${tmpdir()}/` });
    const untouched = { allowLocalModels: false, allowRemoteModels: true, localModelPath: '/models/' };
    assert.equal(configureModelLocation(untouched, 'Xenova/bge-small-en-v1.5'), 'Xenova/bge-small-en-v1.5');
    assert.deepEqual(untouched, { allowLocalModels: false, allowRemoteModels: true, localModelPath: '/models/' });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
