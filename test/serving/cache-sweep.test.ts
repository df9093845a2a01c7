// Hard-deleted versions leave no file in this host's caches (cache-sweep.ts), against a real store, real segment
// threads and real graph processes: a process serving the Client forgets the segment and graph files holding a
// version as it applies the removal; a sweep finds them for a Client no process here serves; a sweep keeps what
// every load still needs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Storage } from '../../src/storage/storage.ts';
import { ServingIndex } from '../../src/serving/serving-index.ts';
import { ThreadedSegmentBuilder } from '../../src/serving/threaded-segment-builder.ts';
import { GraphBuilder } from '../../src/serving/graphs/graph-builder.ts';
import { SegmentCache } from '../../src/serving/caches/segment-cache.ts';
import { CacheSweep } from '../../src/serving/caches/cache-sweep.ts';
import { Publisher } from '../../src/publication/publisher.ts';
import { createHashingEmbedder } from '../../src/models/hashing-embedder.ts';
import { removeDir, tempDataDir } from '../helpers/server.ts';
import { seedVersions } from '../helpers/seed.ts';
import { ANN_MIN_ROWS } from '../../src/serving/graphs/ann-index.ts';
import type { Segment } from '../../src/serving/segment.ts';

const DIMENSIONS = createHashingEmbedder().dimensions;
const VERSIONS = 12;

const graphFiles = (dir: string) => readdirSync(dir).filter((name) => name.endsWith('.usearch'));

async function withCaches(run: (context: { storage: Storage; builder: ThreadedSegmentBuilder; graphs: GraphBuilder; graphDir: string; cache: SegmentCache; serving: () => ServingIndex }) => Promise<void>) {
  const dir = tempDataDir();
  await seedVersions(dir, 'c', 'doc', Array.from({ length: VERSIONS }, (_, i) => ({ versionId: `v${i}`, text: '', chunks: [`Ledger ${i} opening balance.`, `Penyata ${i} bulanan akaun.`] })));
  const storage = new Storage(dir);
  const graphDir = join(dir, 'graphs');
  const builder = new ThreadedSegmentBuilder({ graphCache: { dir: graphDir, budgetBytes: 1 << 30 } });
  // Segments of a test Client are far below ANN_MIN_ROWS: their graph is built here as an api process builds one.
  const graphs = new GraphBuilder({ dir: graphDir, budgetBytes: 1 << 30 });
  const cache = new SegmentCache(join(dir, 'segments'), 1 << 30, { minRows: 4 });
  try {
    await run({ storage, builder, graphs, graphDir, cache, serving: () => new ServingIndex(storage, DIMENSIONS, builder, { segmentCache: cache }) });
  } finally {
    graphs.close();
    await builder.close();
    storage.close();
    removeDir(dir);
  }
}

/** Loads the Client, writes its segment to the cache and records a graph of it, as a settled api process does. */
async function loadCached(serving: ServingIndex, cache: SegmentCache, graphs: GraphBuilder): Promise<void> {
  await serving.catchUp('c');
  serving.flushCacheWrites();
  await cache.settled();
  const [segment] = serving.snapshot('c').segments;
  await graphs.graphOf(segment.codes, DIMENSIONS, { clientId: 'c', generations: segment.versions.map((version) => version.generation) });
}

test('a process serving the Client forgets the segment and graph files of a version as it applies its removal', async () => {
  await withCaches(async ({ storage, graphs, graphDir, cache, serving }) => {
    const follower = serving();
    await loadCached(follower, cache, graphs);
    assert.equal((await cache.entries('c')).length, 1);
    assert.equal(graphFiles(graphDir).length, 1);

    await new Publisher(storage, { enabled: true }).beginRemoval('c', 'doc', ['v2']);
    await follower.catchUp('c');
    await cache.settled();
    assert.deepEqual(await cache.entries('c'), []);
    assert.deepEqual(graphFiles(graphDir), []);
    follower.close();
  });
});

test('a sweep removes the files of a Client no process here serves that hold a version deleted for good, and keeps those every load needs', async () => {
  await withCaches(async ({ storage, builder, graphs, graphDir, cache, serving }) => {
    const loader = serving();
    await loadCached(loader, cache, graphs);
    loader.close(); // gone: nothing here serves the Client any more
    const sweep = new CacheSweep({ storage, segmentCache: cache, graphs: builder });
    assert.equal(await sweep.sweep('c'), 0, 'every generation is active: nothing goes');
    assert.equal((await cache.entries('c')).length, 1);
    assert.equal(graphFiles(graphDir).length, 1);
    assert.ok(await sweep.holds('c'));

    await new Publisher(storage, { enabled: true }).beginRemoval('c', 'doc', ['v5']);
    assert.equal(await sweep.sweepIfHeld('c'), 2, 'the segment file and the graph');
    assert.deepEqual(await cache.entries('c'), []);
    assert.deepEqual(graphFiles(graphDir), []);
    assert.equal(await sweep.holds('c'), false);
    assert.equal(await sweep.sweepIfHeld('c'), 0);

    // At start-up, after the next load wrote what is active now: that file stays, and so does its graph.
    const next = serving();
    await loadCached(next, cache, graphs);
    next.close();
    assert.equal(await sweep.sweepAll(), 0);
    assert.equal((await cache.entries('c'))[0].generations.length, VERSIONS - 1);
    assert.equal(graphFiles(graphDir).length, 1);
  });
});

test('a segment\'s graph built for a Client records its generations: a removal of one of them takes the graph file', async () => {
  await withCaches(async ({ builder, graphDir }) => {
    // A segment as large as one that gets a graph, of few dimensions so that the build is quick: only its codes,
    // dimensions, rows and versions reach the graph builder.
    const dimensions = 8;
    let state = 1;
    const codes = Int8Array.from({ length: ANN_MIN_ROWS * dimensions }, () => ((state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0) >>> 16) % 255 - 127);
    const segment = { rows: ANN_MIN_ROWS, dimensions, codes, versions: [{ generation: 41 }, { generation: 42 }] } as unknown as Segment;
    const graph = await builder.buildAnn(segment, 'c');
    assert.ok(graph, 'a graph where the native index loads');
    assert.equal(graphFiles(graphDir).length, 1);
    assert.ok(builder.holdsGraphs('c'));
    assert.equal(builder.forgetGraphs('c', (generation) => generation === 43), 0);
    assert.equal(builder.forgetGraphs('c', (generation) => generation === 42), 1);
    assert.deepEqual(graphFiles(graphDir), []);
  });
});
