import { test } from 'node:test';
import assert from 'node:assert/strict';
import { searchDense } from '../../src/search/dense-lane.ts';
import { buildSegment, QUANTIZED_MIN_ROWS } from '../../src/serving/segment.ts';
import { quantizationAvailable } from '../../src/serving/quantized-scan.ts';
import type { ServedChunk, ServedVersion } from '../../src/serving/served-types.ts';
import { emptyEntities } from '../../src/domain/entities.ts';

const DIMS = 64;

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32 - 0.5;
  };
}

function unit(next: () => number): Float32Array {
  const vector = new Float32Array(DIMS);
  let norm = 0;
  for (let i = 0; i < DIMS; i++) {
    vector[i] = next();
    norm += vector[i] * vector[i];
  }
  for (let i = 0; i < DIMS; i++) vector[i] /= Math.sqrt(norm);
  return vector;
}

function chunks(count: number, next: () => number): ServedChunk[] {
  const version = { canonicalMetadata: { extracted: { title: null } } } as unknown as ServedVersion;
  return Array.from({ length: count }, (_, ordinal) => ({
    ordinal,
    chunkId: `c${ordinal}`,
    chunkIndex: 0,
    page: null,
    pageLabel: null,
    text: `chunk ${ordinal}`,
    entities: emptyEntities(),
    vector: unit(next),
    norm: 1,
    version,
  }));
}

function bruteForce(all: ServedChunk[], query: Float32Array, eligible: Uint8Array, cap: number, floor: number) {
  const scored = all
    .filter((chunk) => eligible[chunk.ordinal] === 1)
    .map((chunk) => ({ ordinal: chunk.ordinal, score: chunk.vector.reduce((sum, value, i) => sum + value * query[i], 0) }))
    .filter((hit) => hit.score >= floor)
    .sort((a, b) => b.score - a.score || a.ordinal - b.ordinal);
  return { hits: scored.slice(0, cap), matched: scored.length };
}

test('the native int8 first pass returns exactly the float32 top candidates with exact scores', () => {
  assert.ok(quantizationAvailable(), 'usearch loads (its prebuilt addon ships in the npm package)');
  const next = random(7);
  const all = chunks(QUANTIZED_MIN_ROWS + 1000, next);
  const segment = buildSegment(all, DIMS);
  assert.ok(segment.quantized, 'a large segment carries its int8 copy');
  const eligible = new Uint8Array(all.length).fill(1);
  for (let i = 0; i < all.length; i += 10) eligible[i] = 0; // a few tombstones
  for (let q = 0; q < 5; q++) {
    const query = unit(next);
    const result = searchDense([segment], query, eligible, { cap: 50, floor: 0.1 });
    const expected = bruteForce(all, query, eligible, 50, 0.1);
    assert.deepEqual(result.hits.map((hit) => hit.ordinal), expected.hits.map((hit) => hit.ordinal));
    result.hits.forEach((hit, i) => assert.ok(Math.abs(hit.score - expected.hits[i].score) < 1e-5));
    assert.equal(result.exhausted, expected.matched <= 50);
  }
});

test('a heavily filtered request scans only eligible rows and stays exact', () => {
  const next = random(11);
  const all = chunks(QUANTIZED_MIN_ROWS + 10, next);
  const segment = buildSegment(all, DIMS);
  const eligible = new Uint8Array(all.length);
  for (let i = 0; i < all.length; i += 7) eligible[i] = 1;
  const query = unit(next);
  const result = searchDense([segment], query, eligible, { cap: 1000, floor: 0 });
  const expected = bruteForce(all, query, eligible, 1000, 0);
  assert.deepEqual(result.hits.map((hit) => hit.ordinal), expected.hits.map((hit) => hit.ordinal));
  assert.equal(result.matched, expected.matched);
  assert.equal(result.exhausted, true);
});

test('small segments and vectors of another dimension', () => {
  const next = random(3);
  const all = chunks(100, next);
  const segment = buildSegment(all, DIMS);
  assert.equal(segment.quantized, null);
  const eligible = new Uint8Array(all.length).fill(1);
  const query = unit(next);
  const result = searchDense([segment], query, eligible, { cap: 5, floor: -1 });
  assert.deepEqual(result.hits.map((hit) => hit.ordinal), bruteForce(all, query, eligible, 5, -1).hits.map((hit) => hit.ordinal));
  assert.equal(result.exhausted, false, 'more than the cap matched');
  assert.deepEqual(searchDense([segment], new Float32Array(DIMS + 1), eligible).hits, []);
});
