import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Classifier } from '../../src/models/classifier.ts';
import { createKeywordClassifier } from '../../src/models/classifier-keyword.ts';
import {
  CLASSIFICATION_STATUSES,
  MAX_CLASSIFICATION_ERROR_CHARS,
  initialClassificationStatus,
  isTerminalClassificationStatus,
  runClassification,
} from '../../src/models/classifier-status.ts';
import { BNM_MALAY_FILE, bnmNoticeContaining } from '../entities/corpus.ts';
import { INVOICE_ENGLISH } from './samples.ts';

const ALLOWED = ['bank_statement', 'invoice', 'notice'];

function fakeClassifier(classify: Classifier['classify']): Classifier {
  return { model: 'fake', modelFile: null, classify };
}

test('the status set is the one SPEC.md names', () => {
  assert.deepEqual([...CLASSIFICATION_STATUSES], ['pending', 'completed', 'failed', 'disabled']);
});

test('a new job starts pending, or disabled when classification is off', () => {
  assert.equal(initialClassificationStatus(true), 'pending');
  assert.equal(initialClassificationStatus(false), 'disabled');
  assert.equal(isTerminalClassificationStatus('pending'), false);
  for (const status of ['completed', 'failed', 'disabled'] as const) assert.equal(isTerminalClassificationStatus(status), true);
});

test('completed with the categories of a real Malay notice', async () => {
  const text = bnmNoticeContaining(BNM_MALAY_FILE, 'RM15.3 juta').content;
  const outcome = await runClassification({ enabled: true, classifier: createKeywordClassifier(), text, allowedCategories: ALLOWED });
  assert.deepEqual(outcome, { status: 'completed', categories: ['notice'], error: null });
});

test('disabled does not call the classifier', async () => {
  let called = false;
  const classifier = fakeClassifier(async () => {
    called = true;
    return ['invoice'];
  });
  const outcome = await runClassification({ enabled: false, classifier, text: INVOICE_ENGLISH, allowedCategories: ALLOWED });
  assert.deepEqual(outcome, { status: 'disabled', categories: [], error: null });
  assert.equal(called, false);
});

test('a throwing classifier fails the classification, with its cause kept short', async () => {
  const long = 'x'.repeat(MAX_CLASSIFICATION_ERROR_CHARS * 2);
  for (const classify of [async () => Promise.reject(new Error(`model exploded ${long}`)), () => { throw new Error('sync failure'); }]) {
    const outcome = await runClassification({ enabled: true, classifier: fakeClassifier(classify as Classifier['classify']), text: 't', allowedCategories: ALLOWED });
    assert.equal(outcome.status, 'failed');
    assert.deepEqual(outcome.categories, []);
    assert.ok(outcome.error !== null && outcome.error.length <= MAX_CLASSIFICATION_ERROR_CHARS);
    assert.match(outcome.error, /model exploded|sync failure/);
  }
});

test('a classifier that never answers fails after the timeout', async () => {
  const classifier = fakeClassifier(() => new Promise<string[]>(() => {}));
  const outcome = await runClassification({ enabled: true, classifier, text: 't', allowedCategories: ALLOWED, timeoutMs: 20 });
  assert.equal(outcome.status, 'failed');
  assert.match(outcome.error ?? '', /timed out after 20 ms/);
});

test('enabled without a classifier fails instead of pretending', async () => {
  const outcome = await runClassification({ enabled: true, classifier: null, text: 't', allowedCategories: ALLOWED });
  assert.equal(outcome.status, 'failed');
  assert.match(outcome.error ?? '', /no classifier/);
});

test('categories outside the allowed list, duplicates and non-strings are dropped', async () => {
  const classifier = fakeClassifier(async () => ['invoice', 'secret_category', 'invoice', 42 as unknown as string, 'notice']);
  const outcome = await runClassification({ enabled: true, classifier, text: 't', allowedCategories: ALLOWED });
  assert.deepEqual(outcome, { status: 'completed', categories: ['invoice', 'notice'], error: null });
});

test('a classifier returning something other than a list fails', async () => {
  const classifier = fakeClassifier(async () => 'invoice' as unknown as string[]);
  const outcome = await runClassification({ enabled: true, classifier, text: 't', allowedCategories: ALLOWED });
  assert.equal(outcome.status, 'failed');
});
