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

/** The textbook full table, for comparison. */
function fullTableDistance(a: readonly number[], b: readonly number[]): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) rows[i][j] = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
  }
  return rows[a.length][b.length];
}

test('the banded distance is exact within its bound and says "over" beyond it, for any pair of words', () => {
  let seed = 7;
  const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const word = () => Array.from({ length: Math.floor(random() * 12) }, () => 97 + Math.floor(random() * 4));
  for (let n = 0; n < 3000; n++) {
    const a = word();
    const b = random() < 0.5 ? word() : a.map((c) => (random() < 0.2 ? 97 + Math.floor(random() * 4) : c)).slice(Math.floor(random() * 2));
    const exact = fullTableDistance(a, b);
    assert.equal(levenshteinDistance(a, b), exact, `${a} / ${b}`);
    for (const bound of [0, 1, 2, 3, 5]) {
      const banded = levenshteinDistance(a, b, bound);
      if (exact <= bound) assert.equal(banded, exact, `${a} / ${b} within ${bound}`);
      else assert.equal(banded, bound + 1, `${a} / ${b} over ${bound}`);
    }
  }
  const typed = Int32Array.from([...'kebersihan'].map((c) => c.codePointAt(0)!));
  assert.equal(levenshteinDistance(typed, codePoints('kebersihn'), 2, 10), 1, 'typed arrays and explicit lengths');
  assert.equal(levenshteinDistance(typed, codePoints('keber'), 2, 5), 0, 'only the first aLength entries count');
});
