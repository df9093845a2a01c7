import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fuseLanes, DENSE_EVIDENCE_FLOOR } from '../../src/search/fusion.ts';
import type { FusedCandidates } from '../../src/search/fusion.ts';

/** Each ordinal's fused score and tie-break; fails when an ordinal appears twice. */
function byOrdinal(fused: FusedCandidates): Map<number, { score: number; tieBreak: number }> {
  const map = new Map<number, { score: number; tieBreak: number }>();
  for (let i = 0; i < fused.size; i++) {
    assert.ok(!map.has(fused.ordinals[i]), `ordinal ${fused.ordinals[i]} is fused once`);
    map.set(fused.ordinals[i], { score: fused.scores[i], tieBreak: fused.tieBreaks[i] });
  }
  return map;
}

const sparse = { hits: [{ ordinal: 1, score: 8 }, { ordinal: 2, score: 4 }], matched: 2, exhausted: true };
const dense = { hits: [{ ordinal: 2, score: 1 }, { ordinal: 3, score: DENSE_EVIDENCE_FLOOR }], matched: 2, exhausted: true };

test('alpha 0 keeps only normalized sparse scores; alpha 1 only dense evidence', () => {
  const sparseOnly = byOrdinal(fuseLanes(sparse, dense, 0));
  assert.equal(sparseOnly.get(1)!.score, 1);
  assert.equal(sparseOnly.get(2)!.score, 0.5);
  assert.equal(sparseOnly.get(3)!.score, 0);
  const denseOnly = byOrdinal(fuseLanes(sparse, dense, 1));
  assert.equal(denseOnly.get(1)!.score, 0);
  assert.equal(denseOnly.get(2)!.score, 1);
  assert.equal(denseOnly.get(3)!.score, 0, 'a cosine at the evidence floor adds nothing');
  assert.equal(denseOnly.get(3)!.tieBreak, DENSE_EVIDENCE_FLOOR, 'but it still orders by its raw similarity');
  assert.ok(denseOnly.get(3)!.tieBreak > denseOnly.get(1)!.tieBreak);
});

test('between, the lanes are weighted by alpha and 1 - alpha', () => {
  const fused = byOrdinal(fuseLanes(sparse, dense, 0.25));
  assert.equal(fused.size, 3, 'a chunk both lanes found is one candidate');
  assert.equal(fused.get(1)!.score, 0.75 * 1);
  assert.equal(fused.get(2)!.score, 0.75 * 0.5 + 0.25 * 1);
  assert.ok(Math.abs(byOrdinal(fuseLanes(sparse, dense, 0.5, 0)).get(3)!.score - 0.5 * DENSE_EVIDENCE_FLOOR) < 1e-12, 'with a zero floor the cosine itself counts');
});

/** Candidates in fused order (score, then tie-break, then ordinal), by ordinal. */
function fusedOrder(fused: FusedCandidates): number[] {
  const order = Array.from({ length: fused.size }, (_, i) => i);
  order.sort((a, b) => fused.scores[b] - fused.scores[a] || fused.tieBreaks[b] - fused.tieBreaks[a] || fused.ordinals[a] - fused.ordinals[b]);
  return order.map((i) => fused.ordinals[i]);
}

test('a filter that hides the best keyword match does not rescale the others (SPEC search rule 7 at alpha 0.5)', () => {
  // A: BM25 10, cosine 0.40; B: BM25 2, cosine 0.70; C: BM25 40, which the filter removes.
  const [A, B, C] = [1, 2, 3];
  const dense = { hits: [{ ordinal: A, score: 0.4 }, { ordinal: B, score: 0.7 }], matched: 2, exhausted: true };
  const all = { hits: [{ ordinal: A, score: 10 }, { ordinal: B, score: 2 }, { ordinal: C, score: 40 }], matched: 3, exhausted: true };
  const withoutC = { hits: [{ ordinal: A, score: 10 }, { ordinal: B, score: 2 }], matched: 2, exhausted: true };
  const unfiltered = fusedOrder(fuseLanes(all, dense, 0.5));
  assert.deepEqual(unfiltered, [C, B, A], 'with C present, B ranks above A');
  // The best score before the filter (C's) stays the normalizer: B still ranks above A.
  const filtered = fuseLanes(withoutC, dense, 0.5, DENSE_EVIDENCE_FLOOR, undefined, 40);
  assert.deepEqual(fusedOrder(filtered), [B, A]);
  const scores = byOrdinal(fuseLanes(all, dense, 0.5));
  for (const [ordinal, fused] of byOrdinal(filtered)) assert.equal(fused.score, scores.get(ordinal)!.score, `ordinal ${ordinal} scores as without the filter`);
  // Normalized by the best of the filtered hits, A would take C's place at 1 and overtake B.
  assert.deepEqual(fusedOrder(fuseLanes(withoutC, dense, 0.5)), [A, B], 'the normalizer is what keeps the order');
});
