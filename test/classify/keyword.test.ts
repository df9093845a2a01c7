import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createKeywordClassifier, KEYWORD_CLASSIFIER_MODEL } from '../../src/models/classifier-keyword.ts';
import { classifierTokens, countPhrases, phrasePrefixes } from '../../src/models/classifier-scoring.ts';
import { BNM_ENGLISH_FILE, BNM_MALAY_FILE, MT940_FILE, bnmNoticeContaining, bnmNotices, readCorpusText } from '../entities/corpus.ts';
import * as samples from './samples.ts';

const CATEGORIES = ['bank_statement', 'invoice', 'receipt', 'letter', 'form', 'contract', 'notice', 'report'];
const classifier = createKeywordClassifier();

async function top(text: string, categories: readonly string[] = CATEGORIES): Promise<string | undefined> {
  return (await classifier.classify(text, categories))[0];
}

test('the built-in classifier names its model and has no model file', () => {
  assert.equal(classifier.model, KEYWORD_CLASSIFIER_MODEL);
  assert.equal(classifier.modelFile, null);
});

test('the MT940 statement is a bank_statement and nothing else', async () => {
  assert.deepEqual(await classifier.classify(readCorpusText(MT940_FILE), CATEGORIES), ['bank_statement']);
});

test('BNM public notices in Malay and English are notices, not statements or invoices', async () => {
  for (const [file, needle] of [[BNM_MALAY_FILE, 'RM15.3 juta'], [BNM_ENGLISH_FILE, 'RM15.3 millio']] as const) {
    const result = await classifier.classify(bnmNoticeContaining(file, needle).content, CATEGORIES);
    assert.equal(result[0], 'notice', `${file}: ${JSON.stringify(result)}`);
    assert.ok(!result.includes('bank_statement') && !result.includes('invoice'), JSON.stringify(result));
  }
});

test('most BNM notices are classified as notices', async () => {
  for (const file of [BNM_ENGLISH_FILE, BNM_MALAY_FILE]) {
    const notices = bnmNotices(file);
    let asNotice = 0;
    for (const notice of notices) if ((await classifier.classify(notice.content, CATEGORIES)).includes('notice')) asNotice++;
    assert.ok(asNotice / notices.length >= 0.85, `${file}: ${asNotice}/${notices.length}`);
  }
});

test('English and Malay samples get their category first', async () => {
  const expectations: Array<[string, string]> = [
    [samples.INVOICE_ENGLISH, 'invoice'],
    [samples.INVOICE_MALAY, 'invoice'],
    [samples.LETTER_ENGLISH, 'letter'],
    [samples.LETTER_MALAY, 'letter'],
    [samples.FORM_ENGLISH, 'form'],
    [samples.FORM_MALAY, 'form'],
    [samples.RECEIPT_ENGLISH, 'receipt'],
    [samples.RECEIPT_MALAY, 'receipt'],
    [samples.CONTRACT_ENGLISH, 'contract'],
    [samples.CONTRACT_MALAY, 'contract'],
    [samples.STATEMENT_MALAY, 'bank_statement'],
    [samples.REPORT_ENGLISH, 'report'],
    [samples.REPORT_MALAY, 'report'],
    [samples.NOTICE_MALAY, 'notice'],
  ];
  for (const [text, expected] of expectations) {
    const result = await classifier.classify(text, CATEGORIES);
    assert.equal(result[0], expected, `${expected} sample -> ${JSON.stringify(result)}: ${text.slice(0, 40)}`);
  }
});

test('only allowed categories are ever returned', async () => {
  assert.deepEqual(await classifier.classify(readCorpusText(MT940_FILE), ['notice', 'invoice']), []);
  assert.deepEqual(await classifier.classify(samples.INVOICE_ENGLISH, []), []);
  const result = await classifier.classify(samples.INVOICE_MALAY, ['invoice', 'receipt']);
  assert.ok(result.every((c) => ['invoice', 'receipt'].includes(c)), JSON.stringify(result));
});

test('aliases and unknown category names: the name as given is returned', async () => {
  assert.equal(await top(readCorpusText(MT940_FILE), ['penyata', 'invois']), 'penyata');
  assert.equal(await top(samples.INVOICE_MALAY, ['Penyata Bank', 'Invois']), 'Invois');
  // a category without a prototype is scored by its own name
  assert.equal(await top('Legal opinion. This legal memo reviews the legal position. Legal advice follows.', ['legal', 'invoice']), 'legal');
});

test('text with no evidence gets no category', async () => {
  assert.deepEqual(await classifier.classify('', CATEGORIES), []);
  assert.deepEqual(await classifier.classify('The quick brown fox jumps over the lazy dog.', CATEGORIES), []);
});

test('scoring options bound the number of categories and the minimum score', async () => {
  const mixed = `${samples.INVOICE_ENGLISH}\n${samples.RECEIPT_ENGLISH}\n${samples.LETTER_ENGLISH}`;
  const one = createKeywordClassifier({ scoring: { maxCategories: 1, relativeThreshold: 0 } });
  assert.equal((await one.classify(mixed, CATEGORIES)).length, 1);
  const many = createKeywordClassifier({ scoring: { maxCategories: 8, relativeThreshold: 0 } });
  assert.ok((await many.classify(mixed, CATEGORIES)).length >= 3);
  const strict = createKeywordClassifier({ scoring: { minScore: 1000 } });
  assert.deepEqual(await strict.classify(mixed, CATEGORIES), []);
});

test('phrases are counted wherever they occur, also inside longer phrases and when a prefix is not itself wanted', () => {
  const wanted = new Set(['bank statement', 'statement', 'fixed deposit account', 'account', 'no such phrase here']);
  const tokens = classifierTokens('Bank statement for the fixed deposit account; account closed. Fixed deposit rates. Statement ends.');
  const counts = countPhrases(tokens, wanted);
  assert.deepEqual(Object.fromEntries([...counts].sort()), { account: 2, 'bank statement': 1, 'fixed deposit account': 1, statement: 2 });
  assert.deepEqual([...phrasePrefixes(wanted)].sort(), ['bank', 'fixed', 'fixed deposit', 'no', 'no such', 'no such phrase']);
});
