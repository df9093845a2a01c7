import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze, analyzeFields, analyzeQuery, analyzeQueryTerms, analyzeTerms, detectAnalysisMode, isLettersOnly } from '../../src/text/analyzer.ts';
import { ENGLISH_STOPWORDS, MALAY_STOPWORDS, isStopword } from '../../src/text/stopwords.ts';

test('English text: stopwords dropped, Porter stems, identifiers whole plus their parts', () => {
  assert.deepEqual(analyzeTerms('The statements of ACC-0012345 were transferred'), [
    'statement', 'acc-0012345', 'acc', '0012345', 'transfer',
  ]);
});

test('terms carry original offsets and token positions; identifier parts share the position', () => {
  const text = 'Paid INV/2020/001 in full';
  const terms = analyze(text);
  assert.deepEqual(terms.map((t) => [t.term, text.slice(t.start, t.end), t.position]), [
    ['paid', 'Paid', 0],
    ['inv/2020/001', 'INV/2020/001', 1],
    ['inv', 'INV', 1],
    ['2020', '2020', 1],
    ['001', '001', 1],
    ['full', 'full', 3],
  ]);
});

test('amounts with thousands separators index as plain digits; currency amounts stay whole', () => {
  assert.deepEqual(analyzeTerms('Total 1,234.56 and RM15.30', 'english'), ['total', '1234.56', 'rm15.30']);
  assert.deepEqual(analyzeTerms('1234.56'), analyzeTerms('1,234.56'));
});

test('mode: English function words give english; Malay, mixed or none give malay', () => {
  assert.equal(detectAnalysisMode('The balance of the account is due'), 'english');
  assert.equal(detectAnalysisMode('Baki akaun ini perlu dibayar dengan segera'), 'malay');
  assert.equal(detectAnalysisMode('Statement Date Account Number'), 'malay');
});

test('Malay text gets Malay roots; English text keeps Porter conflations only', () => {
  assert.deepEqual(analyzeTerms('Pelajaran dan guru yang mengajar'), ['ajar', 'guru', 'ajar']);
  assert.deepEqual(analyzeTerms('The personal loans of the digital terminal'), ['person', 'loan', 'digit', 'termin']);
});

test('a query word yields both stems at one position, so it meets texts of either mode', () => {
  const query = analyzeQuery('personal pelajaran');
  assert.deepEqual(query.map((t) => [t.term, t.position]), [['sonal', 0], ['person', 0], ['ajar', 1], ['pelajaran', 1]]);
  const englishDoc = new Set(analyzeTerms('The personal account of the client'));
  const malayDoc = new Set(analyzeTerms('Buku pelajaran untuk pinjaman peribadi personal'));
  assert.ok(analyzeQueryTerms('personal').some((t) => englishDoc.has(t)));
  assert.ok(analyzeQueryTerms('personal').some((t) => malayDoc.has(t)));
  assert.ok(analyzeQueryTerms('pelajaran').some((t) => malayDoc.has(t)));
  assert.ok(analyzeQueryTerms('mengajar').some((t) => malayDoc.has(t)));
});

test('fields: the body decides the mode of the title too', () => {
  const fields = analyzeFields('The balance of the personal account', 'Personal');
  assert.equal(fields.mode, 'english');
  assert.deepEqual(fields.title, ['person']);
  assert.deepEqual(analyzeFields('', 'Pelajaran').title, ['ajar']);
});

test('possessives and apostrophes: patient\'s -> patient, don\'t is a stopword', () => {
  assert.deepEqual(analyzeTerms("the patient's doctor don't", 'english'), ['patient', 'doctor']);
});

test('stopword lists are exported, disjoint from content words, and used for both languages', () => {
  assert.ok(ENGLISH_STOPWORDS.has('the') && MALAY_STOPWORDS.has('yang'));
  for (const word of ['account', 'baki', 'kata', 'akaun', 'bayar', 'statement']) assert.equal(isStopword(word), false, word);
  assert.deepEqual(analyzeTerms('yang dan the of'), []);
});

test('a letters-only word is exactly what /^[\\p{L}\\p{M}]+$/u accepts', () => {
  const LETTERS = /^[\p{L}\p{M}]+$/u;
  const cases = ['', 'a', 'Z', 'abcXYZ', 'a1', 'a-b', "don't", '@', '[', '`', '{', 'café', 'CAFÉ', 'Zé', 'e\u0301', 'ΣΊΣΥΦΟΣ', 'ǅemal', '𝐀𝐁', 'a\ud800', 'ⅻ', '½', 'a b', 'Ａｂｃ', '漢字'];
  for (let code = 0; code < 256; code++) cases.push(String.fromCharCode(code), `a${String.fromCharCode(code)}`, `${String.fromCharCode(code)}é`);
  for (const word of cases) assert.equal(isLettersOnly(word), LETTERS.test(word), JSON.stringify(word));
});
