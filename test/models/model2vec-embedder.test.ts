import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ModelProviderError } from '../../src/models/model-error.ts';
import { loadModel2VecEmbedder, MODEL2VEC_MAX_TOKENS } from '../../src/models/model2vec-embedder.ts';
import { l2Norm } from '../../src/models/vector-math.ts';
import { expectedEmbedding, safetensorsFile, tensorBytes, TINY_WORDPIECE_VOCAB, wordPieceTokenizerJson, writeTinyModel } from './tiny-model.ts';

let root: string;
before(async () => { root = await mkdtemp(join(tmpdir(), 'model2vec-test-')); });
after(async () => { await rm(root, { recursive: true, force: true }); });

const id = (token: string): number => TINY_WORDPIECE_VOCAB.indexOf(token);

function assertClose(actual: Float32Array, expected: number[], tolerance = 1e-6): void {
  assert.equal(actual.length, expected.length);
  expected.forEach((value, d) => assert.ok(Math.abs(actual[d] - value) <= tolerance, `dim ${d}: ${actual[d]} vs ${value}`));
}

async function rejectsWith(promise: Promise<unknown>, code: string, pattern: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof ModelProviderError, `not a ModelProviderError: ${error}`);
    assert.equal(error.code, code);
    assert.match(error.message, pattern);
    return true;
  });
}

test('WordPiece tokenization: lowercase, accents, ## continuations, punctuation, CJK and unknown words', async () => {
  await writeTinyModel(join(root, 'tokenize'));
  const embedder = await loadModel2VecEmbedder({ path: join(root, 'tokenize') });
  const tokens = (text: string) => embedder.tokenizer.tokens(text);
  assert.deepEqual(tokens('The cats sat on the mat.'), ['the', 'cat', '##s', 'sat', 'on', 'the', 'mat', '.']);
  assert.deepEqual(tokens('Playing, UNBELIEVABLE!'), ['play', '##ing', ',', 'un', '##believ', '##able', '!']);
  assert.deepEqual(tokens('Café'), ['cafe']);
  assert.deepEqual(tokens('pekerja kerjaan'), ['pe', '##ker', '##ja', 'kerja', '##an']);
  assert.deepEqual(tokens('中文'), ['中', '文']);
  // A word the vocabulary cannot cover becomes one [UNK], as does an over-long word (max 20 chars here).
  assert.deepEqual(tokens('cats dogs'), ['cat', '##s', '[UNK]']);
  assert.deepEqual(tokens('cat\u0000s\tsat'), ['cat', '##s', 'sat']);
  assert.deepEqual(tokens('the' + 'ed'.repeat(10)), ['[UNK]']);
  // Pooling drops unknown tokens and adds no [CLS]/[SEP].
  assert.deepEqual(embedder.poolingIds('cats dogs'), [id('cat'), id('##s')]);
});

test('embedding is the L2-normalized mean of token vectors, exactly', async () => {
  const model = await writeTinyModel(join(root, 'mean'), { dim: 16, seed: 7 });
  const embedder = await loadModel2VecEmbedder({ path: model.dir });
  assert.equal(embedder.provider, 'model2vec');
  assert.equal(embedder.model, 'mean');
  assert.equal(embedder.dimensions, 16);
  assert.equal(embedder.dtype, 'F32');
  assert.equal(embedder.configNormalize, true);
  const [vector, repeated, unknownOnly, empty] = await embedder.embed(['The cats sat, zzz!', 'cat cat sat', 'zzz qqq', '']);
  assertClose(vector, expectedEmbedding(model.matrix, [id('the'), id('cat'), id('##s'), id('sat'), id(','), id('!')]));
  // Repeats count once per occurrence (a mean, not a set).
  assertClose(repeated, expectedEmbedding(model.matrix, [id('cat'), id('cat'), id('sat')]));
  assert.ok(Math.abs(l2Norm(vector) - 1) < 1e-6);
  assert.ok(unknownOnly.every((x) => x === 0));
  assert.ok(empty.every((x) => x === 0));
});

test('float16 weights decode to the same vectors as float32', async () => {
  const f32 = await writeTinyModel(join(root, 'f32'), { dtype: 'F32', seed: 3 });
  await writeTinyModel(join(root, 'f16'), { dtype: 'F16', seed: 3, config: null });
  const a = await loadModel2VecEmbedder({ path: f32.dir });
  const b = await loadModel2VecEmbedder({ path: join(root, 'f16'), model: 'tiny-f16' });
  assert.equal(b.dtype, 'F16');
  assert.equal(b.model, 'tiny-f16');
  assert.equal(b.configNormalize, null);
  const text = 'the cat sat on the mat playing';
  const [va] = await a.embed([text]);
  const [vb] = await b.embed([text]);
  assertClose(vb, Array.from(va), 1e-7);
  assertClose(vb, expectedEmbedding(f32.matrix, a.poolingIds(text)));
});

test('per-token weights and a token -> row mapping (vocabulary quantization) are applied', async () => {
  const vocabSize = TINY_WORDPIECE_VOCAB.length;
  const mapping = Array.from({ length: vocabSize }, (_, i) => i % 5);
  const weights = Array.from({ length: vocabSize }, (_, i) => 0.5 + (i % 3) * 0.25);
  const model = await writeTinyModel(join(root, 'quantized'), {
    rows: 5,
    extraTensors: [
      { name: 'weights', dtype: 'F32', shape: [vocabSize], bytes: tensorBytes('F32', weights) },
      { name: 'mapping', dtype: 'I64', shape: [vocabSize], bytes: tensorBytes('I64', mapping) },
    ],
  });
  const embedder = await loadModel2VecEmbedder({ path: model.dir });
  const [vector] = await embedder.embed(['the mat sat']);
  assertClose(vector, expectedEmbedding(model.matrix, [id('the'), id('mat'), id('sat')], weights, mapping));
});

test('only the first maxTokens known tokens are pooled', async () => {
  const model = await writeTinyModel(join(root, 'truncate'));
  const embedder = await loadModel2VecEmbedder({ path: model.dir, maxTokens: 2 });
  assert.deepEqual(embedder.poolingIds('the cat sat mat'), [id('the'), id('cat')]);
  const [vector] = await embedder.embed(['the cat sat mat']);
  assertClose(vector, expectedEmbedding(model.matrix, [id('the'), id('cat')]));
  assert.equal(MODEL2VEC_MAX_TOKENS, 512);
});

test('missing and corrupt files fail with clear errors', async () => {
  await rejectsWith(loadModel2VecEmbedder({ path: join(root, 'does-not-exist') }), 'model_file_invalid', /does-not-exist.*model\.safetensors/);

  const good = await writeTinyModel(join(root, 'corrupt'));
  const weightsPath = join(good.dir, 'model.safetensors');
  const valid = safetensorsFile([{ name: 'embeddings', dtype: 'F32', shape: [good.vocab.length, 8], bytes: tensorBytes('F32', good.matrix.flat()) }]);

  await writeFile(weightsPath, valid.subarray(0, 4));
  await rejectsWith(loadModel2VecEmbedder({ path: good.dir }), 'model_file_invalid', /not a valid safetensors file \(only 4 bytes\)/);

  await writeFile(weightsPath, valid.subarray(0, valid.byteLength - 8));
  await rejectsWith(loadModel2VecEmbedder({ path: good.dir }), 'model_file_invalid', /lies outside the .*data section/);

  const lying = valid.slice();
  new DataView(lying.buffer).setBigUint64(0, 1n << 40n, true);
  await writeFile(weightsPath, lying);
  await rejectsWith(loadModel2VecEmbedder({ path: good.dir }), 'model_file_invalid', /header length \d+ exceeds/);

  const notJson = new Uint8Array(16);
  new DataView(notJson.buffer).setBigUint64(0, 8n, true);
  notJson.set(Buffer.from('{"broken'), 8);
  await writeFile(weightsPath, notJson);
  await rejectsWith(loadModel2VecEmbedder({ path: good.dir }), 'model_file_invalid', /header is not JSON/);

  await writeFile(weightsPath, safetensorsFile([{ name: 'embeddings', dtype: 'F32', shape: [good.vocab.length, 9], bytes: tensorBytes('F32', good.matrix.flat()) }]));
  await rejectsWith(loadModel2VecEmbedder({ path: good.dir }), 'model_file_invalid', /dtype and shape need/);

  await writeFile(weightsPath, safetensorsFile([{ name: 'vectors', dtype: 'F32', shape: [good.vocab.length, 8], bytes: tensorBytes('F32', good.matrix.flat()) }]));
  await rejectsWith(loadModel2VecEmbedder({ path: good.dir }), 'model_file_invalid', /no "embeddings" tensor \(found: vectors\)/);

  await writeFile(weightsPath, safetensorsFile([{ name: 'embeddings', dtype: 'I32', shape: [good.vocab.length, 8], bytes: tensorBytes('I32', good.matrix.flat().map(() => 1)) }]));
  await rejectsWith(loadModel2VecEmbedder({ path: good.dir }), 'model_file_invalid', /dtype I32; supported: F32, F16, BF16, I8/);

  await writeFile(weightsPath, safetensorsFile([{ name: 'embeddings', dtype: 'F32', shape: [4, 8], bytes: tensorBytes('F32', good.matrix.slice(0, 4).flat()) }]));
  await rejectsWith(loadModel2VecEmbedder({ path: good.dir }), 'model_file_invalid', /4 rows, the tokenizer has 28 tokens/);
});

test('unsupported or broken tokenizers and configs fail clearly', async () => {
  const wordLevel = wordPieceTokenizerJson(undefined, { model: { type: 'WordLevel', vocab: { a: 0 }, unk_token: 'a' } });
  await writeTinyModel(join(root, 'wordlevel'), { tokenizer: wordLevel });
  await rejectsWith(loadModel2VecEmbedder({ path: join(root, 'wordlevel') }), 'tokenizer_unsupported', /tokenizer model "WordLevel" is not supported \(supported: WordPiece, Unigram, BPE\)/);

  const oddNormalizer = wordPieceTokenizerJson(undefined, { normalizer: { type: 'Nmt' } });
  await writeTinyModel(join(root, 'nmt'), { tokenizer: oddNormalizer });
  await rejectsWith(loadModel2VecEmbedder({ path: join(root, 'nmt') }), 'tokenizer_unsupported', /normalizer "Nmt" is not supported/);

  const model = await writeTinyModel(join(root, 'badjson'));
  await writeFile(join(model.dir, 'tokenizer.json'), '{"model": ');
  await rejectsWith(loadModel2VecEmbedder({ path: model.dir }), 'model_file_invalid', /tokenizer\.json is not valid JSON/);

  const config = await writeTinyModel(join(root, 'badconfig'));
  await writeFile(join(config.dir, 'config.json'), '[1, 2]');
  await rejectsWith(loadModel2VecEmbedder({ path: config.dir }), 'model_file_invalid', /config\.json is not a JSON object/);
});
