import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FUZZY_LONG_WORD_LENGTH, FUZZY_MAX_KEYSTROKES_LONG, FUZZY_MAX_KEYSTROKES_SHORT, maxTypoKeystrokes, normalizeContentQuery,
} from '../../src/text/query-normalizer.ts';
import { characterSimilarity } from '../../src/text/similarity.ts';
import { buildVocabulary, vocabularyFromTexts } from '../../src/text/vocabulary.ts';
import { ABBREVIATIONS } from '../../src/text/abbreviations.ts';
import { KNOWN_TYPOS } from '../../src/text/known-typos.ts';
import { FUZZY_MIN_SIMILARITY } from '../../src/spec-limits.ts';

test('the fuzzy threshold is the spec value 0.6', () => {
  assert.equal(FUZZY_MIN_SIMILARITY, 0.6);
});

test('lossless part: NFKC, case fold and whitespace collapse', () => {
  assert.deepEqual(normalizeContentQuery('  ＢＡＫＩ   Akaun  '), { text: 'baki akaun', rewrites: [] });
});

test('English and Malay abbreviations expand (acc, txn, stmt, amt, a/c, yg, dgn, utk)', () => {
  const result = normalizeContentQuery('ACC txn stmt amt a/c yg dgn utk');
  assert.equal(result.text, 'account transaction statement amount account yang dengan untuk');
  assert.deepEqual(result.rewrites.map((r) => [r.from, r.kind]), [
    ['acc', 'abbreviation'], ['txn', 'abbreviation'], ['stmt', 'abbreviation'], ['amt', 'abbreviation'],
    ['a/c', 'abbreviation'], ['yg', 'abbreviation'], ['dgn', 'abbreviation'], ['utk', 'abbreviation'],
  ]);
});

test('known typos are corrected even with an empty vocabulary', () => {
  const result = normalizeContentQuery('recieve paymnet pembayarn');
  assert.equal(result.text, 'receive payment pembayaran');
  assert.ok(result.rewrites.every((r) => r.kind === 'typo'));
});

test('fuzzy correction goes only to a vocabulary word with similarity >= 0.6', () => {
  const v = vocabularyFromTexts(['monthly statement of the account']);
  assert.deepEqual(normalizeContentQuery('statemnt', v).rewrites, [{ from: 'statemnt', to: 'statement', kind: 'fuzzy' }]);
  assert.deepEqual(normalizeContentQuery('xqzvw', v).rewrites, []);
  assert.deepEqual(normalizeContentQuery('statemnt').rewrites, []);
});

test('the 0.6 floor: exactly 0.6 corrects (bayra -> bayar), 0.5 does not even one keystroke away (tset)', () => {
  assert.equal(characterSimilarity('bayra', 'bayar'), 0.6);
  assert.deepEqual(normalizeContentQuery('bayra', buildVocabulary([['bayar', 1]])).rewrites, [{ from: 'bayra', to: 'bayar', kind: 'fuzzy' }]);
  assert.equal(characterSimilarity('tset', 'test'), 0.5);
  assert.deepEqual(normalizeContentQuery('tset', buildVocabulary([['test', 1]])).rewrites, []);
});

test('conservative caps: one keystroke below eight letters, two from eight on', () => {
  assert.equal(maxTypoKeystrokes(7), FUZZY_MAX_KEYSTROKES_SHORT);
  assert.equal(maxTypoKeystrokes(FUZZY_LONG_WORD_LENGTH), FUZZY_MAX_KEYSTROKES_LONG);
  // 0.6 similar but two keystrokes in a five-letter word: a different word, not a typo.
  assert.deepEqual(normalizeContentQuery('kirim', buildVocabulary([['karam', 1]])).rewrites, []);
  assert.deepEqual(normalizeContentQuery('acknowlegment', buildVocabulary([['acknowledgement', 1]])).rewrites, [
    { from: 'acknowlegment', to: 'acknowledgement', kind: 'fuzzy' },
  ]);
  const far = buildVocabulary([['amendable', 4]]);
  assert.ok(characterSimilarity('albendazole', 'amendable') >= FUZZY_MIN_SIMILARITY);
  assert.deepEqual(normalizeContentQuery('albendazole', far).rewrites, []);
  assert.deepEqual(normalizeContentQuery('amendabel', far).rewrites, [{ from: 'amendabel', to: 'amendable', kind: 'fuzzy' }]);
});

test('no fix that changes the first letter, adds an affix, or re-roots a Malay affixed form', () => {
  assert.deepEqual(normalizeContentQuery('haiwan', buildVocabulary([['taiwan', 3]])).rewrites, []);
  assert.deepEqual(normalizeContentQuery('unassociated', buildVocabulary([['associated', 3]])).rewrites, []);
  assert.deepEqual(normalizeContentQuery('dilarang', buildVocabulary([['dikarang', 3]])).rewrites, []);
  assert.deepEqual(normalizeContentQuery('pittsburg', buildVocabulary([['pittsburgh', 3]])).rewrites, [
    { from: 'pittsburg', to: 'pittsburgh', kind: 'fuzzy' },
  ]);
});

test('words the vocabulary knows are never corrected, not even known typos', () => {
  const v = vocabularyFromTexts(['they recieve the acount', 'ajak']);
  assert.deepEqual(normalizeContentQuery('recieve acount ajak', v).rewrites, []);
  const stems = vocabularyFromTexts(['account statements']);
  assert.deepEqual(normalizeContentQuery('statement accounts', stems).rewrites, []);
});

test('ajar stays ajar when pelajaran/mengajar are in the vocabulary, though ajak is 0.75 similar', () => {
  const withAffixForms = vocabularyFromTexts(['pelajaran di sekolah', 'guru mengajar', 'ajak kawan']);
  assert.deepEqual(normalizeContentQuery('ajar', withAffixForms), { text: 'ajar', rewrites: [] });
  const withoutAffixForms = vocabularyFromTexts(['ajak kawan', 'sekolah']);
  assert.deepEqual(normalizeContentQuery('ajar', withoutAffixForms).rewrites, [{ from: 'ajar', to: 'ajak', kind: 'fuzzy' }]);
});

test('digits, identifiers, amounts and stopwords are never fuzzed', () => {
  const v = vocabularyFromTexts(['acc account 12346 inv invoice rm15 there']);
  const result = normalizeContentQuery('ACC-0012345 12345 INV/2020/001 RM15.3 1,234.56 the', v);
  assert.equal(result.text, 'acc-0012345 12345 inv/2020/001 rm15.3 1,234.56 the');
  assert.deepEqual(result.rewrites, []);
});

test('an abbreviation the Client itself writes as a word is kept (Acc No.)', () => {
  assert.deepEqual(normalizeContentQuery('acc no', vocabularyFromTexts(['Acc No: 12345'])).rewrites, []);
  assert.equal(normalizeContentQuery('acc no').text, 'account no');
});

test('short words are not fuzzed; a replacement is never rewritten again', () => {
  assert.deepEqual(normalizeContentQuery('bkz', buildVocabulary([['baki', 1], ['bkk', 1]])).rewrites, []);
  const v = buildVocabulary([['accounting', 3]]);
  assert.deepEqual(normalizeContentQuery('acc', v).rewrites, [{ from: 'acc', to: 'account', kind: 'abbreviation' }]);
});

test('tables: abbreviations and typos map to different words and never to themselves', () => {
  for (const [from, to] of [...ABBREVIATIONS, ...KNOWN_TYPOS]) {
    assert.notEqual(from, to);
    assert.match(from, /^[a-z]+$/);
  }
  for (const typo of KNOWN_TYPOS.keys()) assert.ok(!ABBREVIATIONS.has(typo), typo);
});

test('a remembered rewrite is the one made against the same vocabularies: another vocabulary, or one more part, asks afresh', () => {
  const bayar = vocabularyFromTexts(['bayaran bayaran']);
  const baki = vocabularyFromTexts(['bakiran bakiran']);
  const rewritten = (parts: ReturnType<typeof vocabularyFromTexts>[]) => normalizeContentQuery('bayarn', parts).text;
  for (let round = 0; round < 2; round++) {
    assert.equal(rewritten([bayar]), 'bayaran');
    assert.equal(rewritten([baki]), 'bayarn', 'nothing near it in this vocabulary');
    // A part added (a new publication) with the word itself: known to the Client, kept.
    assert.equal(rewritten([bayar, vocabularyFromTexts(['bayarn'])]), 'bayarn');
    assert.equal(rewritten([]), 'bayarn');
  }
  const first = normalizeContentQuery('bayarn', [bayar]).rewrites[0];
  assert.deepEqual(first, { from: 'bayarn', to: 'bayaran', kind: 'fuzzy' });
  assert.ok(Object.isFrozen(first), 'a rewrite shared between searches cannot be changed by one of them');
});
