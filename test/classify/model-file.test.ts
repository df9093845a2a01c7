import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClassifier } from '../../src/models/classifier-factory.ts';
import { KEYWORD_CLASSIFIER_MODEL } from '../../src/models/classifier-keyword.ts';
import {
  CLASSIFIER_MODEL_FORMAT,
  MAX_CLASSIFIER_MODEL_FILE_BYTES,
  loadClassifierModelFile,
  parseClassifierModel,
} from '../../src/models/classifier-model-file.ts';
import { ModelProviderError } from '../../src/models/model-error.ts';
import { MT940_FILE, readCorpusText } from '../entities/corpus.ts';
import { INVOICE_MALAY, LETTER_ENGLISH } from './samples.ts';

const dir = mkdtempSync(join(tmpdir(), 'classifier-model-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

let fileCounter = 0;
function writeModel(content: unknown): string {
  const path = join(dir, `model-${fileCounter++}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

const VALID_MODEL = {
  format: CLASSIFIER_MODEL_FORMAT,
  model: 'test-swift-model-v1',
  scoring: { min_score: 3, relative_threshold: 0.5, max_categories: 2 },
  categories: {
    swift_statement: { aliases: ['mt940'], keywords: { '60f': 2, '62f': 2, '28c': 2, invoice: -20 } },
    malay_invoice: { keywords: { invois: 3, 'jumlah perlu dibayar': 3, 'harga seunit': 2 } },
  },
};

test('a generated model file is loaded, named and used', async () => {
  const path = writeModel(VALID_MODEL);
  const classifier = await loadClassifierModelFile(path);
  assert.equal(classifier.model, 'test-swift-model-v1');
  assert.equal(classifier.modelFile, path);
  const categories = ['swift_statement', 'malay_invoice'];
  assert.deepEqual(await classifier.classify(readCorpusText(MT940_FILE), categories), ['swift_statement']);
  assert.deepEqual(await classifier.classify(INVOICE_MALAY, categories), ['malay_invoice']);
  assert.deepEqual(await classifier.classify(LETTER_ENGLISH, categories), []);
  assert.deepEqual(await classifier.classify(readCorpusText(MT940_FILE), ['mt940']), ['mt940']); // alias
});

test('without include_builtin the built-in prototypes are not used; with it they are', async () => {
  const own = await loadClassifierModelFile(writeModel(VALID_MODEL));
  assert.deepEqual(await own.classify(LETTER_ENGLISH, ['letter']), []);
  const extended = await loadClassifierModelFile(writeModel({ ...VALID_MODEL, include_builtin: true }));
  assert.deepEqual(await extended.classify(LETTER_ENGLISH, ['letter']), ['letter']);
});

test('negative weights count against a category', async () => {
  const classifier = await loadClassifierModelFile(writeModel(VALID_MODEL));
  const text = `${readCorpusText(MT940_FILE)}\ninvoice invoice invoice invoice invoice invoice`;
  assert.deepEqual(await classifier.classify(text, ['swift_statement']), []);
});

test('the factory picks the built-in model or the model file', async () => {
  assert.equal((await createClassifier({ modelFile: null })).model, KEYWORD_CLASSIFIER_MODEL);
  assert.equal((await createClassifier({ modelFile: '' })).modelFile, null);
  const path = writeModel(VALID_MODEL);
  const fromFile = await createClassifier({ modelFile: path });
  assert.equal(fromFile.model, 'test-swift-model-v1');
  assert.equal(fromFile.modelFile, path);
});

const INVALID_MODELS: Array<[string, unknown, RegExp]> = [
  ['not JSON', '{"format": ', /is not valid JSON/],
  ['an array', [], /the file must be a JSON object/],
  ['a wrong format', { ...VALID_MODEL, format: 'other/v2' }, /format must be "keyword-classifier\/v1"/],
  ['no model name', { ...VALID_MODEL, model: '' }, /model must be a non-empty string/],
  ['no categories', { ...VALID_MODEL, categories: {} }, /categories must hold at least one category/],
  ['categories not an object', { ...VALID_MODEL, categories: ['invoice'] }, /categories must be a JSON object/],
  ['no keywords', { ...VALID_MODEL, categories: { invoice: { keywords: {} } } }, /categories\["invoice"\]\.keywords must hold at least one keyword/],
  ['a text weight', { ...VALID_MODEL, categories: { invoice: { keywords: { invoice: 'high' } } } }, /keywords\["invoice"\] must be a non-zero number/],
  ['a zero weight', { ...VALID_MODEL, categories: { invoice: { keywords: { invoice: 0 } } } }, /must be a non-zero number/],
  ['a huge weight', { ...VALID_MODEL, categories: { invoice: { keywords: { invoice: 1e6 } } } }, /between -100 and 100/],
  ['a long phrase', { ...VALID_MODEL, categories: { invoice: { keywords: { 'one two three four five': 1 } } } }, /has more than 4 words/],
  ['a punctuation keyword', { ...VALID_MODEL, categories: { invoice: { keywords: { '::': 1 } } } }, /has no letters or digits/],
  ['bad aliases', { ...VALID_MODEL, categories: { invoice: { aliases: [''], keywords: { invoice: 1 } } } }, /aliases\[0\] must be a non-empty string/],
  ['bad scoring', { ...VALID_MODEL, scoring: { relative_threshold: 2 } }, /scoring\.relative_threshold must be a number between 0 and 1/],
  ['a fractional max', { ...VALID_MODEL, scoring: { max_categories: 1.5 } }, /scoring\.max_categories must be an integer/],
  ['a bad include_builtin', { ...VALID_MODEL, include_builtin: 'yes' }, /include_builtin must be true or false/],
];

for (const [label, content, message] of INVALID_MODELS) {
  test(`a model file with ${label} is rejected with a clear error`, async () => {
    const path = writeModel(content);
    await assert.rejects(loadClassifierModelFile(path), (error: unknown) => {
      assert.ok(error instanceof ModelProviderError);
      assert.equal(error.code, 'model_file_invalid');
      assert.ok(error.message.startsWith(`CLASSIFIER_MODEL_FILE ${path}: `), error.message);
      assert.match(error.message, message);
      return true;
    });
  });
}

test('a missing, a directory or an oversized model file is rejected', async () => {
  await assert.rejects(loadClassifierModelFile(join(dir, 'absent.json')), /cannot be read \(ENOENT\)/);
  await assert.rejects(loadClassifierModelFile(dir), /is not a regular file/);
  const big = join(dir, 'big.json');
  writeFileSync(big, Buffer.alloc(MAX_CLASSIFIER_MODEL_FILE_BYTES + 1, 0x20));
  await assert.rejects(loadClassifierModelFile(big), /is larger than/);
  await assert.rejects(createClassifier({ modelFile: join(dir, 'absent.json') }), ModelProviderError);
});

test('parseClassifierModel validates text without touching the file system', () => {
  const model = parseClassifierModel(JSON.stringify(VALID_MODEL), 'inline');
  assert.equal(model.model, 'test-swift-model-v1');
  assert.deepEqual(model.scoring, { minScore: 3, relativeThreshold: 0.5, maxCategories: 2 });
  assert.deepEqual(Object.keys(model.categories), ['swift_statement', 'malay_invoice']);
  assert.throws(() => parseClassifierModel('null', 'inline'), /CLASSIFIER_MODEL_FILE inline: the file must be a JSON object/);
});
