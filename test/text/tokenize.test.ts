import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_TOKEN_LENGTH, tokenize } from '../../src/text/tokenize.ts';

function texts(s: string): string[] {
  return tokenize(s).map((t) => t.text);
}

test('identifiers and amounts stay whole tokens', () => {
  assert.deepEqual(texts('Ref ACC-0012345, INV/2020/001 for RM15.3 and 1,234.56.'), [
    'ref', 'acc-0012345', 'inv/2020/001', 'for', 'rm15.3', 'and', '1,234.56',
  ]);
  assert.deepEqual(texts('IBAN NL12ASNB0708271685 at 10:30'), ['iban', 'nl12asnb0708271685', 'at', '10:30']);
});

test('e-mail-like tokens stay whole', () => {
  assert.deepEqual(texts('Write to John.Doe@Example.com today'), ['write', 'to', 'john.doe@example.com', 'today']);
});

test('ordinary punctuation splits words; hyphenated and dotted words without digits split', () => {
  assert.deepEqual(texts('state-of-the-art (e.g. U.S.A.), masing-masing; end.Start'), [
    'state', 'of', 'the', 'art', 'e', 'g', 'u', 's', 'a', 'masing', 'masing', 'end', 'start',
  ]);
  assert.deepEqual(texts('"quoted" [brackets] {braces} x+y=z'), ['quoted', 'brackets', 'braces', 'x', 'y', 'z']);
});

test('trailing and leading joiners are not part of a token', () => {
  assert.deepEqual(texts('-ACC-001- ends 2020. and 5,'), ['acc-001', 'ends', '2020', 'and', '5']);
});

test("an apostrophe between letters stays inside the word (patient's, don't)", () => {
  assert.deepEqual(texts("the patient's doctor don't 'quoted'"), ['the', "patient's", 'doctor', "don't", 'quoted']);
});

test('offsets are UTF-16 offsets into the original string, even when normalization changes length', () => {
  const original = 'Ｐａｙ  ﬁnal straße 😀 ACC-１２ pay\u00ADment';
  const tokens = tokenize(original);
  assert.deepEqual(tokens.map((t) => t.text), ['pay', 'final', 'strasse', 'acc-12', 'payment']);
  for (const token of tokens) {
    assert.ok(token.start >= 0 && token.end <= original.length && token.start < token.end);
  }
  assert.equal(original.slice(tokens[0].start, tokens[0].end), 'Ｐａｙ');
  assert.equal(original.slice(tokens[1].start, tokens[1].end), 'ﬁnal');
  assert.equal(original.slice(tokens[3].start, tokens[3].end), 'ACC-１２');
  assert.equal(original.slice(tokens[4].start, tokens[4].end), 'pay\u00ADment');
});

test('offsets of plain ASCII text match the source spans exactly', () => {
  const original = 'Statement: Account ACC-0012345 (balance 1,234.56)';
  for (const token of tokenize(original)) assert.equal(original.slice(token.start, token.end).toLowerCase(), token.text);
});

test('non-Latin scripts are words too', () => {
  assert.deepEqual(texts('银行 账户 مصرف'), ['银行', '账户', 'مصرف']);
});

test('very long runs are cut at MAX_TOKEN_LENGTH', () => {
  const tokens = tokenize('a'.repeat(MAX_TOKEN_LENGTH * 2) + ' tail');
  assert.equal(tokens[0].text.length, MAX_TOKEN_LENGTH);
  assert.equal(tokens[0].end - tokens[0].start, MAX_TOKEN_LENGTH);
  assert.equal(tokens[1].text, 'tail');
});

test('empty and separator-only input gives no tokens', () => {
  assert.deepEqual(tokenize(''), []);
  assert.deepEqual(tokenize(' .,;-/ '), []);
});
