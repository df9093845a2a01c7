import { test } from 'node:test';
import assert from 'node:assert/strict';
import { characterSimilarity, codePoints, keystrokeDistance, levenshteinDistance, maxEditsFor } from '../../src/text/similarity.ts';

test('similarity is 1 - Levenshtein / longer length', () => {
  assert.equal(characterSimilarity('account', 'account'), 1);
  assert.equal(characterSimilarity('acount', 'account'), 1 - 1 / 7);
  assert.equal(characterSimilarity('ajar', 'ajak'), 0.75);
  assert.equal(characterSimilarity('abc', 'xyz'), 0);
  assert.equal(characterSimilarity('', ''), 1);
});

test('exact 0.6 boundary: two edits in five characters is 0.6, three in six is 0.5', () => {
  assert.equal(characterSimilarity('kirim', 'karam'), 0.6);
  assert.equal(characterSimilarity('kirim', 'karamu'), 0.5);
  assert.equal(maxEditsFor(5, 5, 0.6), 2);
  assert.equal(maxEditsFor(10, 8, 0.6), 4);
  assert.equal(maxEditsFor(4, 4, 0.6), 1);
});

test('symmetric, bounded, and counted in code points', () => {
  const words = ['bayar', 'bayaran', 'pembayaran', 'payment', 'paymnet', '😀a', 'a😀', 'straße'];
  for (const a of words) {
    for (const b of words) {
      const s = characterSimilarity(a, b);
      assert.ok(s >= 0 && s <= 1);
      assert.equal(s, characterSimilarity(b, a));
      assert.equal(s === 1, a === b);
    }
  }
  assert.equal(characterSimilarity('😀a', 'a😀'), 0);
  assert.equal(characterSimilarity('😀b', '😀a'), 0.5);
});

test('Levenshtein with a cap stops early but never under-reports', () => {
  const a = codePoints('transaction');
  const b = codePoints('transcation');
  assert.equal(levenshteinDistance(a, b), 2);
  assert.equal(levenshteinDistance(a, b, 2), 2);
  assert.equal(levenshteinDistance(a, b, 1), 2);
  assert.equal(levenshteinDistance(codePoints('abc'), codePoints('abcdefgh'), 2), 3);
});

test('keystroke distance counts an adjacent transposition once', () => {
  assert.equal(keystrokeDistance(codePoints('tset'), codePoints('test')), 1);
  assert.equal(levenshteinDistance(codePoints('tset'), codePoints('test')), 2);
  assert.equal(keystrokeDistance(codePoints('statemnet'), codePoints('statement')), 1);
  assert.equal(keystrokeDistance(codePoints('kirim'), codePoints('karam')), 2);
  assert.equal(keystrokeDistance(codePoints(''), codePoints('abc')), 3);
});
