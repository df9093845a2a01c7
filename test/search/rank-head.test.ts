// A content answer orders only the versions a page (or the reranked prefix) needs: the head must be exactly
// what a full sort puts first, and no version may be lost or repeated, since totals count them all.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareVersionHits, rankHead } from '../../src/search/content-lane.ts';
import type { VersionHit } from '../../src/search/content-lane.ts';
import type { ServedVersion } from '../../src/serving/served-types.ts';

function hits(count: number, seed: number): VersionHit[] {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  // Few distinct scores, so ties on score and tie-break fall back to the identity.
  return Array.from({ length: count }, (_, i) => ({
    version: { identity: `doc-${String(i).padStart(4, '0')}` } as ServedVersion,
    score: Math.floor(next() * 20) / 20,
    tieBreak: Math.floor(next() * 3),
    chunks: [],
  }));
}

test('the ranked head equals the head of a full sort, and every hit is kept once', () => {
  for (const [count, head] of [[1000, 10], [1000, 0], [1000, 1], [1000, 50], [1000, 400], [7, 3], [0, 10], [30, 30]] as const) {
    const input = hits(count, count + head);
    const expected = [...input].sort(compareVersionHits);
    const ranked = rankHead([...input], head);
    assert.equal(ranked.length, count);
    assert.deepEqual(ranked.slice(0, head).map((hit) => hit.version.identity), expected.slice(0, head).map((hit) => hit.version.identity), `${count} hits, head ${head}`);
    assert.deepEqual(new Set(ranked), new Set(input));
  }
});

test('a head as long as the list orders it all', () => {
  const input = hits(200, 7);
  assert.deepEqual(rankHead([...input], Number.POSITIVE_INFINITY).map((hit) => hit.version.identity), [...input].sort(compareVersionHits).map((hit) => hit.version.identity));
});
