import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bestOf, Candidates, COMPACT_MIN, SCORE_BINS } from '../../src/search/best-of.ts';

function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

function candidatesOf(items: Array<{ id: number; score: number }>, upperBound: number): Candidates {
  const candidates = new Candidates();
  candidates.start(upperBound, 0);
  candidates.reserve(items.length);
  items.forEach((item, i) => {
    candidates.scores[i] = item.score;
    candidates.ids[i] = item.id;
  });
  candidates.size = items.length;
  return candidates;
}

/** What a full sort keeps: score descending, ties by ascending id. */
function expectedBest(items: Array<{ id: number; score: number }>, limit: number): Array<{ id: number; score: number }> {
  return [...items].sort((a, b) => b.score - a.score || a.id - b.id).slice(0, limit);
}

function sorted(hits: Array<{ id: number; score: number }>): Array<{ id: number; score: number }> {
  return [...hits].sort((a, b) => b.score - a.score || a.id - b.id);
}

test('bestOf keeps exactly the best limit (score desc, id asc on ties) for spread, tied and skewed scores', () => {
  const random = seededRandom(11);
  const shapes: Record<string, () => number> = {
    spread: () => Math.fround(random() * 20),
    tied: () => Math.floor(random() * 12) / 4,
    // Most scores low and close together, as BM25 scores of many weak matches are.
    skewed: () => Math.fround(Math.pow(random(), 6) * 20),
  };
  for (const [shape, score] of Object.entries(shapes)) {
    for (const limit of [1, 7, 100, 999]) {
      // Shuffled ids: the order candidates arrive in must not matter.
      const items = Array.from({ length: 5000 }, (_, i) => ({ id: (i * 7919) % 5000, score: score() }));
      const hits = bestOf(candidatesOf(items, 20), limit);
      assert.deepEqual(sorted(hits), expectedBest(items, limit), `${shape}, limit ${limit}`);
    }
  }
});

test('bestOf is exact when every score is equal, when the bound is too low, and at the edges of the limit', () => {
  const equal = Array.from({ length: 3000 }, (_, i) => ({ id: 3000 - i, score: 1.5 }));
  assert.deepEqual(sorted(bestOf(candidatesOf(equal, 3), 10)), expectedBest(equal, 10));
  // An upper bound below the real scores puts them all in the top bin: still exact, just slower.
  const random = seededRandom(5);
  const beyond = Array.from({ length: 2000 }, (_, id) => ({ id, score: Math.fround(5 + random() * 5) }));
  assert.deepEqual(sorted(bestOf(candidatesOf(beyond, 1), 50)), expectedBest(beyond, 50));
  // An unknown bound (0) works the same way.
  assert.deepEqual(sorted(bestOf(candidatesOf(beyond, 0), 50)), expectedBest(beyond, 50));
  assert.deepEqual(bestOf(candidatesOf(beyond, 10), 0), []);
  assert.deepEqual(sorted(bestOf(candidatesOf(beyond, 10), 2000)), expectedBest(beyond, 2000));
  assert.deepEqual(sorted(bestOf(candidatesOf(beyond, 10), 1999)), expectedBest(beyond, 1999));
  assert.ok(SCORE_BINS > 1000);
});

test('Candidates keep what they hold when they grow', () => {
  const candidates = new Candidates();
  candidates.start(1, 10);
  candidates.reserve(3);
  candidates.scores.set([0.5, 0.25, 0.75]);
  candidates.ids.set([4, 5, 6]);
  candidates.size = 3;
  candidates.reserve(100_000);
  assert.ok(candidates.scores.length >= 100_003);
  assert.deepEqual([...candidates.scores.subarray(0, 3)], [0.5, 0.25, 0.75]);
  assert.deepEqual([...candidates.ids.subarray(0, 3)], [4, 5, 6]);
});

test('candidates pruned while they are gathered keep exactly the best limit, and the floor only rises', () => {
  const random = seededRandom(23);
  for (const limit of [1, 50, 1000]) {
    const items = Array.from({ length: 60_000 }, (_, i) => ({ id: (i * 7919) % 60_000, score: Math.fround(Math.floor(Math.pow(random(), 3) * 4000) / 200) }));
    const candidates = new Candidates();
    candidates.start(20, limit);
    candidates.reserve(items.length);
    let floors = 0;
    let lastFloor = 0;
    // What a gatherer does (bm25.ts collectSegment): skip what is below the floor, compact when full.
    for (const { id, score } of items) {
      if (score * candidates.binScale < candidates.floorBin) continue;
      candidates.scores[candidates.size] = score;
      candidates.ids[candidates.size++] = id;
      if (candidates.size === candidates.compactAt) {
        candidates.compact();
        assert.ok(candidates.floorBin >= lastFloor);
        if (candidates.floorBin > lastFloor) floors++;
        lastFloor = candidates.floorBin;
      }
    }
    assert.ok(floors > 0, `limit ${limit}: the floor rose`);
    assert.ok(candidates.size < items.length / 2, `limit ${limit}: most candidates were never kept (${candidates.size})`);
    assert.deepEqual(sorted(bestOf(candidates, limit)), expectedBest(items, limit), `limit ${limit}`);
  }
  assert.ok(COMPACT_MIN > 0);
});
