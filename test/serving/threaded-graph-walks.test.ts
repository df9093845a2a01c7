// The graph thread walks a search's HNSW graphs beside its sparse lane: what it proposes is exactly what the
// event loop's own walk proposes, so a content search answers the same with it as without it; a graph the
// thread cannot map (its file gone from the graph cache, or never on disk) is walked on the event loop.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { join } from 'node:path';
import { ThreadedGraphWalks } from '../../src/serving/graphs/threaded-graph-walks.ts';
import { GraphBuilder } from '../../src/serving/graphs/graph-builder.ts';
import { applyChange, emptySnapshot } from '../../src/serving/snapshot.ts';
import { compactFully } from '../../src/serving/merging/merge-plans.ts';
import type { ClientSnapshot } from '../../src/serving/snapshot.ts';
import { QUANTIZED_MIN_ROWS } from '../../src/serving/segment.ts';
import { buildAnnGraph } from '../../src/serving/graphs/ann-index.ts';
import { graphWalks, searchDense } from '../../src/search/dense-lane.ts';
import { searchContent } from '../../src/search/content-lane.ts';
import { createHashingEmbedder } from '../../src/models/hashing-embedder.ts';
import { loadedGeneration } from '../helpers/generations.ts';
import { removeDir, tempDataDir } from '../helpers/server.ts';

const DIMENSIONS = 64;
const embedder = createHashingEmbedder({ dimensions: DIMENSIONS });
const WORDS = ['invoice', 'statement', 'account', 'payment', 'deposit', 'transfer', 'akaun', 'simpanan', 'bayaran', 'resit', 'branch', 'interest', 'loan', 'credit', 'debit', 'balance'];
const QUERIES = ['invoice payment', 'akaun simpanan', 'loan interest balance', 'credit transfer', 'resit bayaran deposit'];

/** A Client of 60 documents of 100 chunks (one large segment once merged), each chunk a few of WORDS. */
async function largeSnapshot(): Promise<ClientSnapshot> {
  let state = 11;
  const next = () => (state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0) % WORDS.length;
  const generations = [];
  for (let document = 0; document < 60; document++) {
    const texts = Array.from({ length: 100 }, () => Array.from({ length: 3 + (next() % 4) }, () => WORDS[next()]).join(' '));
    generations.push(loadedGeneration(`d${document}`, texts, { dimensions: DIMENSIONS, vectors: await embedder.embed(texts) }));
  }
  const snapshot = await compactFully(await applyChange(emptySnapshot('c', DIMENSIONS), { activated: generations }));
  assert.equal(snapshot.segments.length, 1);
  assert.ok(snapshot.segments[0].rows >= QUANTIZED_MIN_ROWS, 'large enough to be searched through its graph');
  return snapshot;
}

/** A graph cache in a temporary data directory, its builder and a graph thread, for the length of `run`. */
async function withGraphThread(run: (tools: { builder: GraphBuilder; walker: ThreadedGraphWalks; cacheDir: string }) => Promise<void>): Promise<void> {
  const data = tempDataDir();
  const cacheDir = join(data, 'graphs');
  const builder = new GraphBuilder({ dir: cacheDir, budgetBytes: 1 << 30 });
  const walker = new ThreadedGraphWalks();
  try {
    await run({ builder, walker, cacheDir });
  } finally {
    await walker.close();
    builder.close();
    removeDir(data);
  }
}

test('the graph thread proposes what the event loop would, and a content search answers the same with it', async () => {
  await withGraphThread(async ({ builder, walker }) => {
    const snapshot = await largeSnapshot();
    const [segment] = snapshot.segments;
    segment.ann.graph = await builder.graphOf(segment.codes, DIMENSIONS);
    const graph = segment.ann.graph;
    assert.ok(graph.file, 'a cached graph is mapped from a file the thread can map too');
    for (const query of QUERIES) {
      const [vector] = await embedder.embed([query]);
      const walks = graphWalks(snapshot.segments, vector, snapshot.live, 10);
      assert.equal(walks.length, 1);
      const proposals = await walker.start(vector, walks)!;
      assert.deepEqual(proposals.get(graph), graph.nearestGroups(vector, walks[0].count), `proposals for "${query}"`);
      assert.deepEqual(searchDense(snapshot.segments, vector, snapshot.live, { depth: 10, proposals }), searchDense(snapshot.segments, vector, snapshot.live, { depth: 10 }));
      const threaded = await searchContent(snapshot, query, 0.5, snapshot.live, embedder, 1000, 10, Number.POSITIVE_INFINITY, walker);
      const inline = await searchContent(snapshot, query, 0.5, snapshot.live, embedder, 1000, 10, Number.POSITIVE_INFINITY, null);
      const rows = (result: typeof inline) => result.versions.map((hit) => [hit.version.identity, hit.score, hit.tieBreak, hit.chunks.map((chunk) => chunk.ordinal)]);
      assert.ok(inline.versions.length > 0, `"${query}" matches`);
      assert.deepEqual(rows(threaded), rows(inline), `the same answer for "${query}"`);
      assert.equal(threaded.exhausted, inline.exhausted);
    }
  });
});

test('a graph whose file is gone before the thread maps it, or that was never on disk, is walked on the event loop', async () => {
  await withGraphThread(async ({ builder, walker, cacheDir }) => {
    const snapshot = await largeSnapshot();
    const [segment] = snapshot.segments;
    const [vector] = await embedder.embed(['invoice payment']);
    segment.ann.graph = await builder.graphOf(segment.codes, DIMENSIONS);
    const inline = searchDense(snapshot.segments, vector, snapshot.live, { depth: 10 });
    rmSync(cacheDir, { recursive: true, force: true }); // the cache pruned it: this process's mapping outlives the file
    const proposals = await walker.start(vector, graphWalks(snapshot.segments, vector, snapshot.live, 10))!;
    assert.equal(proposals.size, 0, 'the thread could not map it');
    assert.deepEqual(searchDense(snapshot.segments, vector, snapshot.live, { depth: 10, proposals }), inline, 'walked here instead');
    assert.equal(walker.start(vector, graphWalks(snapshot.segments, vector, snapshot.live, 10)), null, 'and not sent again');

    segment.ann.graph = buildAnnGraph(segment.codes, DIMENSIONS); // built in memory: no file
    assert.equal(walker.start(vector, graphWalks(snapshot.segments, vector, snapshot.live, 10)), null);
  });
});

test("the thread lets a graph's mapping go once the graph is collected here (its segment is gone)", async () => {
  setFlagsFromString('--expose-gc');
  const collect = runInNewContext('gc') as () => void;
  await withGraphThread(async ({ builder, walker }) => {
    // Only this function's frame holds the snapshot, its segment and its graph.
    await (async () => {
      const snapshot = await largeSnapshot();
      snapshot.segments[0].ann.graph = await builder.graphOf(snapshot.segments[0].codes, DIMENSIONS);
      const [vector] = await embedder.embed(['loan interest']);
      assert.equal((await walker.start(vector, graphWalks(snapshot.segments, vector, snapshot.live, 10)))!.size, 1);
    })();
    assert.equal(walker.releasedMappings, 0);
    // Wait for the event: collections until the finalizer has run and the thread has answered.
    for (let round = 0; round < 1000 && walker.releasedMappings === 0; round++) {
      collect();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(walker.releasedMappings, 1);
  });
});
