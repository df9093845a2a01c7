import { test } from 'node:test';
import assert from 'node:assert/strict';
import { caseFold, normalizeText, normalizeToken } from '../../src/text/normalize.ts';

test('NFKC folds compatibility forms: full-width letters and digits, ligatures', () => {
  assert.equal(normalizeText('ＡＣＣ－００１２'), 'acc-0012');
  assert.equal(normalizeText('ﬁnance'), 'finance');
  assert.equal(normalizeText('RM１５.３'), 'rm15.3');
});

test('case folding maps case variants to one form, including ß and final sigma', () => {
  assert.equal(caseFold('STRASSE'), caseFold('straße'));
  assert.equal(caseFold('ΟΔΟΣ'), caseFold('οδος'));
  assert.equal(normalizeText('Bank NEGARA Malaysia'), 'bank negara malaysia');
});

test('whitespace runs collapse to one space and the ends are trimmed', () => {
  assert.equal(normalizeText('  account\t\tstatement \n\n 2020  '), 'account statement 2020');
  assert.equal(normalizeText('a\u00A0b\u2003c'), 'a b c');
});

test('invisible format characters are removed, words are not changed otherwise', () => {
  assert.equal(normalizeText('pay\u00ADment\u200B due'), 'payment due');
  assert.equal(normalizeText('pelajaran mengajar'), 'pelajaran mengajar');
});

test('normalization is idempotent', () => {
  for (const s of ['ＡＢＣ  ｄｅｆ', 'STRAẞE', 'İstanbul', 'ǅemal', '  Ω  ', 'ﬀ\u200Bx']) {
    const once = normalizeText(s);
    assert.equal(normalizeText(once), once, s);
    assert.equal(normalizeToken(normalizeToken(s)), normalizeToken(s), s);
  }
});
