import { test } from 'node:test';
import assert from 'node:assert/strict';
import { drainSorted, newTopK, offer } from '../../src/search/top-k.ts';

function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

test('the bounded heap keeps exactly the best k (score desc, id asc on ties)', () => {
  const random = seededRandom(7);
  for (const k of [0, 1, 5, 50]) {
    const items = Array.from({ length: 500 }, (_, id) => ({ id, score: Math.floor(random() * 40) / 4 }));
    const heap = newTopK(k);
    for (const item of items) offer(heap, item.score, item.id);
    const expected = [...items].sort((a, b) => b.score - a.score || a.id - b.id).slice(0, k);
    assert.deepEqual(drainSorted(heap), expected);
  }
});
