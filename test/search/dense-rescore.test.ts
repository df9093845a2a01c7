import { test } from 'node:test';
import assert from 'node:assert/strict';
import { searchDense } from '../../src/search/dense-lane.ts';
import { rescoreDenseHead } from '../../src/search/dense-rescore.ts';
import type { ChunkVectorReader } from '../../src/search/dense-rescore.ts';
import { applyChange, chunkByOrdinal, emptySnapshot } from '../../src/serving/snapshot.ts';
import { searchContent } from '../../src/search/content-lane.ts';
import type { Embedder } from '../../src/models/embedder.ts';
import { loadedGeneration } from '../helpers/generations.ts';

const DIMS = 64;

function normalized(values: number[]): Float32Array {
  const norm = Math.sqrt(values.reduce((sum, value) => sum + value * value, 0));
  return Float32Array.from(values, (value) => value / norm);
}

/** Ten vectors a hair apart (far below the int8 codes' step) along the direction the query leans to. */
async function nearTies() {
  const base = Array.from({ length: DIMS }, (_, i) => Math.sin(i + 1));
  const lean = Array.from({ length: DIMS }, (_, i) => (i % 2 === 0 ? 1 : -1) / Math.sqrt(DIMS));
  // And an eleventh far from them all: far below the band of the tenth, it is never read.
  const vectors = [...Array.from({ length: 10 }, (_, k) => normalized(base.map((value, i) => value + k * 1e-5 * lean[i]))), normalized(base.map((value) => -value))];
  const query = normalized(base.map((value, i) => value + 0.5 * lean[i]));
  const snapshot = await applyChange(emptySnapshot('c', DIMS), {
    activated: vectors.map((vector, k) => loadedGeneration(`doc-${k}`, [`chunk ${k}`], { dimensions: DIMS, vectors: [vector] })),
  });
  const stored = new Map<string, Float32Array>();
  for (let ordinal = 0; ordinal < snapshot.nextOrdinal; ordinal++) {
    const chunk = chunkByOrdinal(snapshot, ordinal)!;
    stored.set(`${chunk.version.generation}:${chunk.chunkIndex}`, vectors[Number(chunk.version.documentId.slice(4))]);
  }
  let reads = 0;
  const read: ChunkVectorReader = async (keys) => {
    reads += keys.length;
    return keys.map((key) => stored.get(`${key.generation}:${key.chunkIndex}`) ?? null);
  };
  const exact = (k: number) => vectors[k].reduce((sum, value, i) => sum + value * query[i], 0);
  return { snapshot, query, read, reads: () => reads, exact, stored };
}

const documentOf = (snapshot: Awaited<ReturnType<typeof nearTies>>['snapshot'], ordinal: number) => chunkByOrdinal(snapshot, ordinal)!.version.documentId;

test('the dense lane\'s best rows are ranked by their float32 cosine, which the int8 codes cannot tell apart', async () => {
  const { snapshot, query, read, reads, exact } = await nearTies();
  const { hits } = searchDense(snapshot.segments, query, snapshot.live, { floor: -1 });
  assert.equal(hits.length, 11);
  assert.ok(new Set(hits.map((hit) => hit.score)).size < hits.length, 'by the codes some rows tie');
  await rescoreDenseHead(snapshot, hits, query, 10, 32, read);
  assert.equal(reads(), 10, 'the ten near the tenth best were read; the far one was not');
  hits.sort((a, b) => b.score - a.score);
  assert.deepEqual(hits.map((hit) => documentOf(snapshot, hit.ordinal)), [...Array.from({ length: 10 }, (_, k) => `doc-${9 - k}`), 'doc-10'], 'the exact order');
  for (const hit of hits.slice(0, 10)) assert.ok(Math.abs(hit.score - exact(Number(documentOf(snapshot, hit.ordinal).slice(4)))) < 1e-6);
});

test('only the best `count` rows are read and rescored; a row whose vector is gone keeps its score from the codes', async () => {
  const { snapshot, query, read, reads, stored } = await nearTies();
  const { hits } = searchDense(snapshot.segments, query, snapshot.live, { floor: -1 });
  const before = hits.map((hit) => ({ ...hit }));
  const best = [...before].sort((a, b) => b.score - a.score || a.ordinal - b.ordinal).slice(0, 3).map((hit) => hit.ordinal);
  // The vector of one of the three best is gone (its generation purged meanwhile, say).
  const gone = chunkByOrdinal(snapshot, best[0])!;
  stored.delete(`${gone.version.generation}:${gone.chunkIndex}`);
  await rescoreDenseHead(snapshot, hits, query, 3, 3, read);
  assert.equal(reads(), 3);
  hits.forEach((hit, index) => {
    const changed = hit.score !== before[index].score;
    assert.equal(changed, best.slice(1).includes(hit.ordinal), `ordinal ${hit.ordinal}`);
  });
});

test('copies of one chunk (its text and codes) are read once and all get its exact cosine; rows of other texts are read apart', async () => {
  const base = normalized(Array.from({ length: DIMS }, (_, i) => Math.cos(i + 1)));
  const query = normalized(Array.from({ length: DIMS }, (_, i) => Math.cos(i + 1) + 0.3 * Math.sin(3 * i)));
  // Four copies of one text with one vector, and two rows with that vector under texts of their own.
  const texts = ['boilerplate clause', 'boilerplate clause', 'boilerplate clause', 'boilerplate clause', 'another text', 'a third text'];
  const snapshot = await applyChange(emptySnapshot('c', DIMS), {
    activated: texts.map((text, k) => loadedGeneration(`doc-${k}`, [text], { dimensions: DIMS, vectors: [base] })),
  });
  const keysRead: string[] = [];
  const read: ChunkVectorReader = async (keys) => {
    keysRead.push(...keys.map((key) => `${key.generation}:${key.chunkIndex}`));
    return keys.map(() => base);
  };
  const { hits } = searchDense(snapshot.segments, query, snapshot.live, { floor: -1 });
  assert.equal(hits.length, texts.length);
  await rescoreDenseHead(snapshot, hits, query, 10, 32, read);
  assert.equal(keysRead.length, 3, 'one read for the four copies, one for each other text');
  assert.equal(new Set(keysRead).size, 3);
  const exact = base.reduce((sum, value, i) => sum + value * query[i], 0);
  for (const hit of hits) assert.ok(Math.abs(hit.score - exact) < 1e-6, `ordinal ${hit.ordinal} has the exact cosine`);
});

test('copies of one chunk, however many, do not crowd the other chunks of the band out of the rescored head', async () => {
  const base = Array.from({ length: DIMS }, (_, i) => Math.sin(i + 1));
  const lean = Array.from({ length: DIMS }, (_, i) => (i % 2 === 0 ? 1 : -1) / Math.sqrt(DIMS));
  // Forty copies of one chunk (one text, one vector) stored first, so they hold the lowest ordinals and win every
  // tie by code; then six chunks a hair apart, the first of them another copy.
  const vectors = Array.from({ length: 6 }, (_, k) => normalized(base.map((value, i) => value + k * 1e-5 * lean[i])));
  const query = normalized(base.map((value, i) => value + 0.5 * lean[i]));
  const texts = [...Array.from({ length: 40 }, () => 'chunk 0'), ...Array.from({ length: 6 }, (_, k) => `chunk ${k}`)];
  const snapshot = await applyChange(emptySnapshot('c', DIMS), {
    activated: texts.map((text, k) => loadedGeneration(`doc-${k}`, [text], { dimensions: DIMS, vectors: [vectors[Number(text.slice(6))]] })),
  });
  const vectorOf = (generation: number, chunkIndex: number) => {
    for (let ordinal = 0; ordinal < snapshot.nextOrdinal; ordinal++) {
      const chunk = chunkByOrdinal(snapshot, ordinal)!;
      if (chunk.version.generation === generation && chunk.chunkIndex === chunkIndex) return vectors[Number(texts[Number(chunk.version.documentId.slice(4))].slice(6))];
    }
    return null;
  };
  let reads = 0;
  const read: ChunkVectorReader = async (keys) => {
    reads += keys.length;
    return keys.map((key) => vectorOf(key.generation, key.chunkIndex));
  };
  const { hits } = searchDense(snapshot.segments, query, snapshot.live, { floor: -1 });
  assert.equal(hits.length, texts.length);
  await rescoreDenseHead(snapshot, hits, query, 10, 6, read);
  assert.equal(reads, 6, 'one read for each of the six chunks, the copies included in the first');
  const textOf = (ordinal: number) => texts[Number(documentOf(snapshot, ordinal).slice(4))];
  hits.sort((a, b) => b.score - a.score || a.ordinal - b.ordinal);
  assert.deepEqual([...new Set(hits.map((hit) => textOf(hit.ordinal)))], ['chunk 5', 'chunk 4', 'chunk 3', 'chunk 2', 'chunk 1', 'chunk 0'], 'the six in their exact order');
  assert.equal(hits.slice(-41).every((hit) => textOf(hit.ordinal) === 'chunk 0'), true, 'every copy of chunk 0 has its exact cosine');
});

test('a filtered request rescores the rows the unfiltered one rescores, as far as the filter leaves them: each row keeps its score either way', async () => {
  const { snapshot, query, read } = await nearTies();
  const search = (eligible: Uint8Array) => searchDense(snapshot.segments, query, eligible, { floor: -1 }).hits;
  const unfiltered = search(snapshot.live);
  await rescoreDenseHead(snapshot, unfiltered, query, 3, 3, read);
  const scoreOf = new Map(unfiltered.map((hit) => [hit.ordinal, hit.score]));
  const byCode = search(snapshot.live).sort((a, b) => b.score - a.score || a.ordinal - b.ordinal);
  const rescored = byCode.filter((hit) => scoreOf.get(hit.ordinal) !== hit.score).map((hit) => hit.ordinal);
  assert.equal(rescored.length, 3, 'three rows got their exact cosine');
  const only = (keep: (ordinal: number) => boolean) => Uint8Array.from(snapshot.live, (live, ordinal) => (live === 1 && keep(ordinal) ? 1 : 0));
  // A filter that removes the three rescored rows, one that keeps one of them, and one that keeps the far row alone.
  for (const eligible of [only((ordinal) => !rescored.includes(ordinal)), only((ordinal) => ordinal !== rescored[0] && ordinal !== rescored[1]), only((ordinal) => ordinal === byCode.at(-1)!.ordinal)]) {
    const filtered = search(eligible);
    await rescoreDenseHead(snapshot, filtered, query, 3, 3, read, search(snapshot.live));
    assert.ok(filtered.length > 0);
    for (const hit of filtered) assert.equal(hit.score, scoreOf.get(hit.ordinal), `ordinal ${hit.ordinal} scores as without the filter`);
  }
  // Picked among the filtered rows alone, the band would move down to rows the unfiltered request leaves by code.
  const alone = search(only((ordinal) => !rescored.includes(ordinal)));
  await rescoreDenseHead(snapshot, alone, query, 3, 3, read);
  assert.ok(alone.some((hit) => hit.score !== scoreOf.get(hit.ordinal)), 'the filter would change scores');
});

test('the content lane gives a filtered request\'s dense rows the scores the unfiltered request gives them', async () => {
  const base = Array.from({ length: DIMS }, (_, i) => Math.sin(i + 1));
  const scale = Math.sqrt(base.reduce((sum, value) => sum + value * value, 0) / DIMS);
  const lean = Array.from({ length: DIMS }, (_, i) => (i % 2 === 0 ? scale : -scale));
  const along = (t: number) => normalized(base.map((value, i) => value + t * lean[i]));
  // Ten rows a hair apart near the query (the band an unfiltered first page rescores), and four a hair apart
  // further off, which only a band taken among fewer rows would reach.
  const near = Array.from({ length: 10 }, (_, k) => along(1 + k * 1e-5));
  const far = Array.from({ length: 4 }, (_, k) => along(0.6 + k * 1e-5));
  const vectors = [...near, ...far];
  const query = along(1.5);
  const snapshot = await applyChange(emptySnapshot('c', DIMS), {
    activated: vectors.map((vector, k) => loadedGeneration(`doc-${String(k).padStart(2, '0')}`, [`chunk ${k}`], { dimensions: DIMS, vectors: [vector] })),
  });
  const read: ChunkVectorReader = async (keys) =>
    keys.map((key) => {
      for (let ordinal = 0; ordinal < snapshot.nextOrdinal; ordinal++) {
        const chunk = chunkByOrdinal(snapshot, ordinal)!;
        if (chunk.version.generation === key.generation && chunk.chunkIndex === key.chunkIndex) return vectors[Number(chunk.version.documentId.slice(4))];
      }
      return null;
    });
  // The query vector is set a hair from the stored ones, which no embedder of text can be made to do: a fixed one
  // stands in for it (only the query's vector is asked of it).
  const embedder: Embedder = { provider: 'fixed', model: 'fixed', dimensions: DIMS, embed: async () => [query] };
  const run = (eligible: Uint8Array, unfiltered: Uint8Array | null) => searchContent(snapshot, 'chunk', 1, eligible, embedder, 1000, 0, Number.POSITIVE_INFINITY, null, read, unfiltered);
  const all = await run(snapshot.live, null);
  assert.equal(all.versions.length, vectors.length);
  const scores = new Map(all.versions.map((hit) => [hit.version.documentId, [hit.score, hit.tieBreak]]));
  // Keep three of the near rows: the tenth best among the rows left is then a far one.
  const kept = new Set(['doc-00', 'doc-04', 'doc-09', 'doc-10', 'doc-11', 'doc-12', 'doc-13']);
  const eligible = Uint8Array.from(snapshot.live, (live, ordinal) => (live === 1 && kept.has(chunkByOrdinal(snapshot, ordinal)!.version.documentId) ? 1 : 0));
  const filtered = await run(eligible, snapshot.live);
  assert.deepEqual(filtered.versions.map((hit) => hit.version.documentId), all.versions.map((hit) => hit.version.documentId).filter((id) => kept.has(id)), 'the unfiltered order');
  for (const hit of filtered.versions) assert.deepEqual([hit.score, hit.tieBreak], scores.get(hit.version.documentId), `${hit.version.documentId} scores as without the filter`);
  // Without the unfiltered rows to pick by, the far rows would be rescored here and not there.
  const alone = await run(eligible, null);
  assert.ok(alone.versions.some((hit) => hit.tieBreak !== scores.get(hit.version.documentId)![1]), 'the filter would change scores');
});
