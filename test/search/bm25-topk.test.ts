import { test } from 'node:test';
import assert from 'node:assert/strict';
import { drainSorted, drainUnordered, newTopK, offer } from '../../src/search/top-k.ts';

function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

test('the bounded heap keeps the best k whatever order candidates come in, and whether or not it fills', () => {
  const random = seededRandom(11);
  const base = Array.from({ length: 300 }, (_, id) => ({ id, score: Math.floor(random() * 30) / 3 }));
  const orders = {
    'best first': [...base].sort((a, b) => b.score - a.score || a.id - b.id),
    'worst first': [...base].sort((a, b) => a.score - b.score || b.id - a.id),
    shuffled: base,
  };
  for (const [order, items] of Object.entries(orders)) {
    for (const k of [1, 7, 299, 300, 301, 1000]) {
      const expected = [...items].sort((a, b) => b.score - a.score || a.id - b.id).slice(0, k);
      const sorted = newTopK(k);
      const unordered = newTopK(k);
      for (const item of items) {
        offer(sorted, item.score, item.id);
        offer(unordered, item.score, item.id);
      }
      if (items.length >= k) assert.deepEqual({ score: sorted.scores[0], id: sorted.ids[0] }, { score: expected[k - 1].score, id: expected[k - 1].id }, `${order}, k ${k}: a full heap's root is the k-th best`);
      assert.deepEqual(drainSorted(sorted), expected, `${order}, k ${k}`);
      const byId = (a: { id: number }, b: { id: number }) => a.id - b.id;
      assert.deepEqual(drainUnordered(unordered).sort(byId), [...expected].sort(byId), `${order}, k ${k}, unordered`);
    }
  }
});

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
