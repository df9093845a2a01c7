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
