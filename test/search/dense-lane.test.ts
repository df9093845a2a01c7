import { test } from 'node:test';
import assert from 'node:assert/strict';
import { searchDense } from '../../src/search/dense-lane.ts';
import { buildSegment, inlineSegmentBuilder, QUANTIZED_MIN_ROWS, wantsAnn } from '../../src/serving/segment.ts';
import type { Segment } from '../../src/serving/segment.ts';
import { quantizationAvailable, quantizedDot } from '../../src/serving/quantized-scan.ts';
import { ANN_MIN_ROWS } from '../../src/serving/graphs/ann-index.ts';
import type { ServedVersion } from '../../src/serving/served-types.ts';
import type { LaneChunk } from '../../src/codec/generation-lanes.ts';

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

interface Corpus {
  chunks: LaneChunk[];
  vectors: Float32Array[];
}

function corpus(count: number, next: () => number): Corpus {
  const vectors = Array.from({ length: count }, () => unit(next));
  const chunks = vectors.map((vector, ordinal) => ({ chunkIndex: ordinal, page: null, pageLabel: null, text: `chunk ${ordinal}`, vector, language: null }));
  return { chunks, vectors };
}

/** One generation holding every chunk, at ordinals 0 .. count - 1. */
const build = (all: Corpus) => {
  const version = { firstOrdinal: 0, chunkCount: all.chunks.length } as unknown as ServedVersion;
  return buildSegment([{ firstOrdinal: 0, source: { chunks: all.chunks, title: null } }], [version], DIMS);
};

/** The lane's measure scored over every row: the cosine of the query with each row's int8 codes. */
function bruteForce(segment: Segment, query: Float32Array, eligible: Uint8Array, cap: number, floor: number) {
  const scored = [...segment.ordinals]
    .map((ordinal, row) => ({ ordinal, score: quantizedDot(segment.codes, row, DIMS, query) }))
    .filter((hit) => eligible[hit.ordinal] === 1 && hit.score >= floor)
    .sort((a, b) => b.score - a.score || a.ordinal - b.ordinal);
  return { hits: scored.slice(0, cap), matched: scored.length };
}

function cosine(a: Float32Array, b: Float32Array): number {
  return a.reduce((sum, value, i) => sum + value * b[i], 0);
}

test('int8 codes score within quantization error of the float32 cosine', () => {
  const next = random(5);
  const all = corpus(500, next);
  const segment = build(all);
  const query = unit(next);
  for (let row = 0; row < all.vectors.length; row++) {
    assert.ok(Math.abs(quantizedDot(segment.codes, row, DIMS, query) - cosine(all.vectors[row], query)) < 0.01);
  }
});

test('the native int8 first pass returns exactly the top candidates of an exhaustive scan', () => {
  assert.ok(quantizationAvailable(), 'usearch loads (its prebuilt addon ships in the npm package)');
  const next = random(7);
  const all = corpus(QUANTIZED_MIN_ROWS + 1000, next);
  const segment = build(all);
  const eligible = new Uint8Array(all.chunks.length).fill(1);
  for (let i = 0; i < all.chunks.length; i += 10) eligible[i] = 0; // a few tombstones
  for (let q = 0; q < 5; q++) {
    const query = unit(next);
    const result = searchDense([segment], query, eligible, { cap: 50, floor: 0.1 });
    const expected = bruteForce(segment, query, eligible, 50, 0.1);
    assert.deepEqual(result.hits.map((hit) => hit.ordinal), expected.hits.map((hit) => hit.ordinal));
    result.hits.forEach((hit, i) => assert.ok(Math.abs(hit.score - expected.hits[i].score) < 1e-6));
    assert.equal(result.exhausted, expected.matched <= 50);
  }
});

test('a heavily filtered request scans only eligible rows and stays exact', () => {
  const next = random(11);
  const all = corpus(QUANTIZED_MIN_ROWS + 10, next);
  const segment = build(all);
  const eligible = new Uint8Array(all.chunks.length);
  for (let i = 0; i < all.chunks.length; i += 7) eligible[i] = 1;
  const query = unit(next);
  const result = searchDense([segment], query, eligible, { cap: 1000, floor: 0 });
  const expected = bruteForce(segment, query, eligible, 1000, 0);
  assert.deepEqual(result.hits.map((hit) => hit.ordinal), expected.hits.map((hit) => hit.ordinal));
  assert.equal(result.matched, expected.matched);
  assert.equal(result.exhausted, true);
});

test('small segments and vectors of another dimension', () => {
  const next = random(3);
  const all = corpus(100, next);
  const segment = build(all);
  const eligible = new Uint8Array(all.chunks.length).fill(1);
  const query = unit(next);
  const result = searchDense([segment], query, eligible, { cap: 5, floor: -1 });
  assert.deepEqual(result.hits.map((hit) => hit.ordinal), bruteForce(segment, query, eligible, 5, -1).hits.map((hit) => hit.ordinal));
  assert.equal(result.exhausted, false, 'more than the cap matched');
  assert.deepEqual(searchDense([segment], new Float32Array(DIMS + 1), eligible).hits, []);
});

test('a large segment is searched through its HNSW graph once attached: only eligible rows, near-exact top hits', async () => {
  const next = random(13);
  const all = corpus(ANN_MIN_ROWS, next);
  const segment = build(all);
  assert.ok(wantsAnn(segment));
  segment.ann.graph = await inlineSegmentBuilder.buildAnn(segment);
  assert.ok(segment.ann.graph, 'the graph is built');
  const eligible = new Uint8Array(all.chunks.length).fill(1);
  for (let i = 0; i < all.chunks.length; i += 9) eligible[i] = 0;
  let found = 0;
  let wanted = 0;
  for (let q = 0; q < 20; q++) {
    // Queries near stored vectors, as real queries are near their relevant chunks.
    const query = Float32Array.from(all.vectors[(q * 997) % all.vectors.length], (value) => value + (next() * 0.05));
    const norm = Math.sqrt(cosine(query, query));
    for (let d = 0; d < DIMS; d++) query[d] /= norm;
    const result = searchDense([segment], query, eligible, { cap: 1000, floor: -1 });
    assert.ok(result.hits.length >= 10 && result.hits.length <= 1000);
    assert.ok(result.hits.every((hit) => eligible[hit.ordinal] === 1), 'eligibility holds exactly');
    assert.equal(result.exhausted, false, 'a graph search stops early, so totals are a lower bound');
    const expected = bruteForce(segment, query, eligible, 10, -1).hits.map((hit) => hit.ordinal);
    const got = new Set(result.hits.slice(0, 10).map((hit) => hit.ordinal));
    wanted += expected.length;
    found += expected.filter((ordinal) => got.has(ordinal)).length;
  }
  assert.ok(found / wanted >= 0.9, `recall@10 against the exhaustive scan: ${found / wanted}`);
  // Filtered below ANN_MIN_ELIGIBLE_SHARE: the exhaustive path answers, exactly.
  const sparse = new Uint8Array(all.chunks.length);
  for (let i = 0; i < all.chunks.length; i += 5) sparse[i] = 1;
  const query = unit(next);
  assert.deepEqual(
    searchDense([segment], query, sparse, { cap: 100, floor: -1 }).hits.map((hit) => hit.ordinal),
    bruteForce(segment, query, sparse, 100, -1).hits.map((hit) => hit.ordinal),
  );
});

test('copies of one vector share a graph node; every eligible copy is still proposed and scored', async () => {
  const next = random(29);
  const distinct = corpus(ANN_MIN_ROWS / 4, next);
  // Four copies of each vector, spread over the segment as copies of a chunk in many documents would be.
  const vectors = Array.from({ length: ANN_MIN_ROWS }, (_, row) => distinct.vectors[row % distinct.vectors.length]);
  const all: Corpus = { vectors, chunks: vectors.map((vector, ordinal) => ({ chunkIndex: ordinal, page: null, pageLabel: null, text: `chunk ${ordinal}`, vector, language: null })) };
  const segment = build(all);
  segment.ann.graph = await inlineSegmentBuilder.buildAnn(segment);
  assert.ok(segment.ann.graph);
  assert.equal(segment.ann.graph.nodes, distinct.vectors.length, 'one node per distinct vector');
  const eligible = new Uint8Array(all.chunks.length).fill(1);
  const copiesOf = (row: number) => [0, 1, 2, 3].map((copy) => (row % distinct.vectors.length) + copy * distinct.vectors.length);
  eligible[copiesOf(7)[2]] = 0; // one copy is deleted
  let found = 0;
  let wanted = 0;
  for (let q = 0; q < 20; q++) {
    const target = (q * 389) % distinct.vectors.length;
    const query = Float32Array.from(distinct.vectors[target], (value) => value + next() * 0.02);
    const norm = Math.sqrt(cosine(query, query));
    for (let d = 0; d < DIMS; d++) query[d] /= norm;
    const result = searchDense([segment], query, eligible, { cap: 1000, floor: -1 });
    assert.ok(result.hits.every((hit) => eligible[hit.ordinal] === 1), 'eligibility holds for every copy');
    const expected = bruteForce(segment, query, eligible, 10, -1).hits;
    const cutoff = expected[expected.length - 1].score;
    wanted += expected.length;
    found += result.hits.slice(0, 10).filter((hit) => hit.score >= cutoff).length;
  }
  assert.ok(found / wanted >= 0.9, `recall@10 (ties count): ${found / wanted}`);
  const nearSeven = searchDense([segment], distinct.vectors[7], eligible, { cap: 1000, floor: -1 });
  assert.deepEqual(nearSeven.hits.slice(0, 3).map((hit) => hit.ordinal).sort((a, b) => a - b), copiesOf(7).filter((row) => eligible[row] === 1));
});
