// The serving index of an api process against a real store: it follows the publication log, rebuilds when
// the entries it needs were compacted away, and builds segments on its segment thread.

import { test } from 'node:test';
import { join } from 'node:path';
import { readdirSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { versionKey } from '../../src/domain/identity.ts';
import assert from 'node:assert/strict';
import { Storage } from '../../src/storage/storage.ts';
import { PUBLICATION_LOG_COMPACTION_EVERY } from '../../src/storage/sqlite-publication-log.ts';
import { ServingIndex } from '../../src/serving/serving-index.ts';
import { CONCURRENT_LOADS } from '../../src/serving/client-loader.ts';
import { ThreadedSegmentBuilder } from '../../src/serving/threaded-segment-builder.ts';
import { inlineSegmentBuilder } from '../../src/serving/segment.ts';
import { Publisher } from '../../src/publication/publisher.ts';
import { successorOf } from '../../src/publication/successor.ts';
import { createHashingEmbedder } from '../../src/models/hashing-embedder.ts';
import { removeDir, tempDataDir } from '../helpers/server.ts';
import { seedVersions } from '../helpers/seed.ts';
import type { ServedVersion } from '../../src/serving/served-types.ts';

const DIMENSIONS = createHashingEmbedder().dimensions;

function graphCacheIn(dir: string) {
  return { dir: join(dir, 'graphs'), budgetBytes: 1 << 30 };
}

function ids(index: ServingIndex, clientId: string): string[] {
  return [...index.snapshot(clientId).versions.values()].map((version) => `${version.documentId}/${version.versionId}${version.deletion.deleted ? ' (deleted)' : ''}`).sort();
}

test('a follower applies activations, replacements and removals from the log, on its segment thread', async () => {
  const dir = tempDataDir();
  const storage = new Storage(dir);
  const builder = new ThreadedSegmentBuilder({ graphCache: graphCacheIn(dir) });
  try {
    const index = new ServingIndex(storage, DIMENSIONS, builder);
    await seedVersions(dir, 'c', 'doc', [{ versionId: 'v1', text: 'Monthly ledger for March.' }, { versionId: 'v2', text: 'Monthly ledger for April.' }]);
    assert.deepEqual(ids(index, 'c'), [], 'nothing until the log is applied');
    const store = storage.client('c');
    await index.catchUp('c');
    assert.deepEqual(ids(index, 'c'), ['doc/v1', 'doc/v2']);
    assert.equal(index.appliedSeq('c'), await store.publicationLog.head());

    // Another process soft-deletes v1 and purges v2: two more log entries.
    const publisher = new Publisher(storage, { enabled: true });
    const v1 = (await store.generations.activeGeneration('doc', 'v1'))!;
    await publisher.replace('c', [{ input: successorOf((await store.generations.loadGeneration(v1.generation))!, { deletion: { deleted: true, deletedAt: 'now', deletedBy: 'c' } }), expected: v1.generation }]);
    await publisher.beginRemoval('c', 'doc', ['v2']);
    await index.catchUp('c');
    assert.deepEqual(ids(index, 'c'), ['doc/v1 (deleted)']);
    assert.equal(index.snapshot('c').liveChunkCount, 1);
    assert.equal(index.rebuilds, 0, 'followed, not rebuilt');
  } finally {
    await builder.close();
    storage.close();
    removeDir(dir);
  }
});

test('a follower whose entries were compacted away rebuilds from the store and then follows again', async () => {
  const dir = tempDataDir();
  const retained = PUBLICATION_LOG_COMPACTION_EVERY;
  const storage = new Storage(dir, { logRetained: retained });
  try {
    const index = new ServingIndex(storage, DIMENSIONS, inlineSegmentBuilder);
    await index.catchUp('c');
    // More publications than the log keeps, written by another process with the same retention.
    const writer = new Storage(dir, { logRetained: retained });
    const publisher = new Publisher(writer, { enabled: true });
    try {
      await seedVersions(dir, 'c', 'first', [{ versionId: 'v0', text: 'Opening balance.' }]);
      const store = writer.client('c');
      for (let i = 0; i < retained * 3; i++) {
        const current = (await store.generations.activeGeneration('first', 'v0'))!;
        const loaded = (await store.generations.loadGeneration(current.generation))!;
        await publisher.replace('c', [{ input: successorOf(loaded, { canonicalMetadata: { ...loaded.canonicalMetadata, custom: { round: i } } }), expected: current.generation }]);
      }
    } finally {
      writer.close();
    }
    await index.catchUp('c');
    assert.equal(index.rebuilds, 1, 'rebuilt instead of replaying');
    assert.deepEqual(ids(index, 'c'), ['first/v0']);
    assert.deepEqual([...index.snapshot('c').versions.values()][0].canonicalMetadata.custom, { round: retained * 3 - 1 });
    assert.equal(index.appliedSeq('c'), await storage.client('c').publicationLog.head());
    await seedVersions(dir, 'c', 'second', [{ versionId: 'v0', text: 'Closing balance.' }]);
    await index.catchUp('c');
    assert.equal(index.rebuilds, 1, 'then follows entry by entry again');
    assert.deepEqual(ids(index, 'c'), ['first/v0', 'second/v0']);
  } finally {
    storage.close();
    removeDir(dir);
  }
});

test('a rebuild at start-up serves exactly the active, unpurged generations', async () => {
  const dir = tempDataDir();
  await seedVersions(dir, 'c', 'doc', Array.from({ length: 30 }, (_, i) => ({ versionId: `v${i}`, text: `Entry ${i} of the cash book.` })));
  const storage = new Storage(dir);
  const builder = new ThreadedSegmentBuilder({ graphCache: graphCacheIn(dir) });
  try {
    await new Publisher(storage, { enabled: true }).beginRemoval('c', 'doc', ['v3']);
    const index = new ServingIndex(storage, DIMENSIONS, builder);
    await index.rebuild('c');
    assert.equal(index.snapshot('c').versions.size, 29);
    assert.equal(index.snapshot('c').liveChunkCount, 29);
    assert.equal(index.appliedSeq('c'), await storage.client('c').publicationLog.head());
  } finally {
    await builder.close();
    storage.close();
    removeDir(dir);
  }
});

test('evidence is verified on the segment thread as it is inline: good, non-authoritative and corrupt generations', async () => {
  const dir = tempDataDir();
  await seedVersions(dir, 'c', 'doc', [{ versionId: 'v1', text: 'Cash book entry one.' }, { versionId: 'v2', text: 'Cash book entry two.' }, { versionId: 'v3', text: 'Cash book entry three.' }]);
  const storage = new Storage(dir);
  const builder = new ThreadedSegmentBuilder({ graphCache: graphCacheIn(dir) });
  try {
    const store = storage.client('c');
    const load = async (key: string) => (await store.generations.loadGeneration((await store.generations.activeGeneration('doc', key))!.generation))!;
    const good = await load('v1');
    const foreign = { ...(await load('v2')), manifest: { ...(await load('v2')).manifest, record_id: 'f'.repeat(32) } };
    const altered = await load('v3');
    const corrupt = { ...altered, chunks: altered.chunks.map((chunk) => ({ ...chunk, text: `${chunk.text} (altered)` })) };
    const threaded = await builder.verify([good, foreign, corrupt]);
    assert.deepEqual(threaded.map((evidence) => evidence.state), ['verified', 'unauthoritative', 'corrupt']);
    assert.deepEqual(threaded, await inlineSegmentBuilder.verify([good, foreign, corrupt]));
    assert.equal((threaded[2] as { lane: string }).lane, 'content');
    // Served generations carry lane data: the segment thread gets their proof (digest, header count), not the blob.
    const [served] = await store.generations.loadActiveGenerations([good.generation]);
    assert.ok(served.lanes, 'a served generation carries its lane data');
    const flipped = served.lanes.slice();
    flipped[flipped.length - 1] ^= 1;
    const truncated = served.lanes.slice(0, 8); // not even a header
    const damaged = [served, { ...served, lanes: flipped }, { ...served, lanes: truncated }];
    const throughLanes = await builder.verify(damaged);
    assert.deepEqual(throughLanes.map((evidence) => evidence.state), ['verified', 'corrupt', 'corrupt']);
    assert.deepEqual(throughLanes.map((evidence) => 'lanesUnproven' in evidence), [false, true, true], 'damaged lane data is never decoded');
    assert.deepEqual(throughLanes, await inlineSegmentBuilder.verify(damaged));
    // A manifest of another record with the generation's own lane data: not authoritative, yet its bytes are proven.
    const [foreignServed] = await builder.verify([{ ...served, manifest: { ...served.manifest, record_id: 'f'.repeat(32) } }]);
    assert.deepEqual(foreignServed, { state: 'unauthoritative', reason: 'manifest of another record' });
  } finally {
    await builder.close();
    storage.close();
    removeDir(dir);
  }
});

test('a generation whose stored manifest is not JSON is malformed evidence, never served; the rest of its Client loads', async () => {
  const dir = tempDataDir();
  await seedVersions(dir, 'c', 'doc', [{ versionId: 'v1', text: 'Cash book entry one.' }, { versionId: 'v2', text: 'Cash book entry two.' }]);
  const storage = new Storage(dir);
  try {
    const store = storage.client('c');
    const damaged = (await store.generations.activeGeneration('doc', versionKey('v2')))!.generation;
    const file = join(dir, 'clients', readdirSync(join(dir, 'clients')).find((name) => name.endsWith('.db'))!);
    const db = new DatabaseSync(file);
    db.prepare(`UPDATE generations SET manifest = '{not json' WHERE generation = ?`).run(damaged);
    db.close();
    const index = new ServingIndex(storage, DIMENSIONS, inlineSegmentBuilder);
    await index.catchUp('c');
    const states = Object.fromEntries([...index.snapshot('c').versions.values()].map((version) => [version.versionId, version.evidence.state]));
    assert.deepEqual(states, { v1: 'verified', v2: 'malformed' });
  } finally {
    storage.close();
    removeDir(dir);
  }
});

test('Clients load on first use and the least recently used are evicted under the memory budget; every read stays correct', async () => {
  const dir = tempDataDir();
  const clients = ['c0', 'c1', 'c2', 'c3', 'c4', 'c5'];
  for (const [n, clientId] of clients.entries()) {
    await seedVersions(dir, clientId, `doc-${clientId}`, Array.from({ length: 20 + n }, (_, i) => ({ versionId: `v${i}`, text: `Ledger ${clientId} entry ${i}: transfer of RM ${i * 10}.` })));
  }
  const storage = new Storage(dir);
  try {
    // Measure one Client alone, then give the index room for about two of them.
    let probeChanges = 0;
    const probe = new ServingIndex(storage, DIMENSIONS, inlineSegmentBuilder, { changed: () => probeChanges++ });
    await probe.catchUp('c0');
    await probe.catchUp('c0');
    assert.equal(probeChanges, 1, 'a load tells the process (memory-pressure.ts collects once it settles); a catch-up with nothing new does not');
    const oneClient = probe.stats().estimatedBytes;
    assert.ok(oneClient > 0);
    let evictionRounds = 0;
    const index = new ServingIndex(storage, DIMENSIONS, inlineSegmentBuilder, { memoryBudgetBytes: Math.floor(oneClient * 2.5), evicted: () => evictionRounds++ });
    assert.deepEqual(index.loadedClientIds(), [], 'nothing is loaded before a read');
    for (let round = 0; round < 3; round++) {
      for (const [n, clientId] of clients.entries()) {
        await index.catchUp(clientId);
        // Every read sees exactly its own Client's versions, whether it was loaded, evicted or reloaded.
        const snapshot = index.snapshot(clientId);
        assert.equal(snapshot.versions.size, 20 + n, `${clientId} in round ${round}`);
        assert.ok([...snapshot.versions.values()].every((version) => version.documentId === `doc-${clientId}`));
        assert.ok(index.stats().estimatedBytes <= index.stats().budgetBytes, 'the estimate stays within the budget');
        assert.ok(index.loadedClientIds().length <= 3);
        // An evicted Client's database connection is let go with its snapshot.
        assert.ok(storage.openConnections <= index.loadedClientIds().length, `${storage.openConnections} connections open`);
      }
    }
    const stats = index.stats();
    assert.ok(stats.evictions >= clients.length * 3 - 3, `evictions: ${stats.evictions}`);
    assert.ok(evictionRounds > 0 && evictionRounds <= stats.evictions, `${evictionRounds} eviction rounds`);
    assert.equal(stats.loads, stats.evictions + stats.clients);

    // The most recently read Clients stay; reading one again moves it to the back of the eviction order.
    const loaded = index.loadedClientIds();
    assert.deepEqual(loaded.slice(-1), ['c5']);
    index.snapshot(loaded[0]);
    await index.catchUp('c1');
    assert.ok(index.isLoaded(loaded[0]), 'a recently read Client is not the one evicted');

    // A publication to an evicted Client is seen by its next read (it reloads from the store).
    const evicted = clients.find((clientId) => !index.isLoaded(clientId))!;
    await seedVersions(dir, evicted, 'late', [{ versionId: 'v1', text: 'A late ledger entry.' }]);
    await index.catchUp(evicted);
    assert.ok([...index.snapshot(evicted).versions.values()].some((version) => version.documentId === 'late'));
    await seedVersions(dir, 'c0', 'later', [{ versionId: 'v1', text: 'A later ledger entry.' }]);
    await probe.catchUp('c0');
    assert.equal(probeChanges, 2, 'so does a catch-up that applied entries');
  } finally {
    storage.close();
    removeDir(dir);
  }
});

test('at most CONCURRENT_LOADS Clients load at once; the others wait their turn and then load whole', async () => {
  const dir = tempDataDir();
  const clients = ['c0', 'c1', 'c2', 'c3', 'c4'];
  for (const clientId of clients) await seedVersions(dir, clientId, `doc-${clientId}`, [{ versionId: 'v1', text: `Ledger of ${clientId}.` }, { versionId: 'v2', text: `Statement of ${clientId}.` }]);
  const storage = new Storage(dir);
  try {
    // Each load asks for its Client's generations: held there until released, counting the loads under way.
    let loading = 0;
    let mostAtOnce = 0;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    for (const clientId of clients) {
      const generations = storage.client(clientId).generations;
      const servedGenerationIds = generations.servedGenerationIds.bind(generations);
      generations.servedGenerationIds = async () => {
        loading++;
        mostAtOnce = Math.max(mostAtOnce, loading);
        await released;
        loading--;
        return servedGenerationIds();
      };
    }
    const index = new ServingIndex(storage, DIMENSIONS, inlineSegmentBuilder);
    const reads = clients.map((clientId) => index.catchUp(clientId));
    while (loading < CONCURRENT_LOADS) await new Promise((resolve) => setImmediate(resolve));
    // Give the waiting loads every chance to start: none may while the first ones are under way.
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(loading, CONCURRENT_LOADS);
    release();
    await Promise.all(reads);
    assert.equal(mostAtOnce, CONCURRENT_LOADS);
    for (const clientId of clients) assert.deepEqual(ids(index, clientId), [`doc-${clientId}/v1`, `doc-${clientId}/v2`]);
  } finally {
    storage.close();
    removeDir(dir);
  }
});

test('a segment thread that is due to end when idle waits for the build sessions open on it', async () => {
  const dir = tempDataDir();
  await seedVersions(dir, 'c', 'doc', [{ versionId: 'v1', text: 'Cash book entry one.' }, { versionId: 'v2', text: 'Cash book entry two.' }]);
  const storage = new Storage(dir);
  // Every request with any input marks the thread to end when idle.
  const builder = new ThreadedSegmentBuilder({ graphCache: graphCacheIn(dir), recycleBytes: 0 });
  try {
    const store = storage.client('c');
    const [first, second] = await store.generations.loadActiveGenerations(await store.generations.servedGenerationIds());
    const session = builder.begin(DIMENSIONS);
    // Added lane data moves to the thread, so a blob used again later is added as a copy.
    await session.add([{ firstOrdinal: 0, source: { lanes: first.lanes!.slice() } }]);
    // A verify with input in between: the thread is idle after it, but the session's state lives there.
    assert.deepEqual((await builder.verify([second])).map((evidence) => evidence.state), ['verified']);
    await session.add([{ firstOrdinal: 1, source: { lanes: second.lanes! } }]);
    const versions = [first, second].map((generation, ordinal) => ({ firstOrdinal: ordinal, chunkCount: 1, generation: generation.generation }) as unknown as ServedVersion);
    const segment = await session.finish(versions);
    assert.equal(segment.rows, 2);
    assert.deepEqual([...segment.ordinals], [0, 1]);
    // An abandoned session releases the thread too.
    const abandoned = builder.begin(DIMENSIONS);
    await abandoned.add([{ firstOrdinal: 0, source: { lanes: first.lanes! } }]);
    await abandoned.abandon();
  } finally {
    await builder.close();
    storage.close();
    removeDir(dir);
  }
});

test('a segment thread left idle ends after its idle time, whatever it took, and the next build gets a new one', { timeout: 60_000 }, async () => {
  const dir = tempDataDir();
  await seedVersions(dir, 'c', 'doc', [{ versionId: 'v1', text: 'Petty cash voucher.' }]);
  const storage = new Storage(dir);
  const soon = new ThreadedSegmentBuilder({ graphCache: graphCacheIn(dir), idleMs: 20 });
  try {
    const store = storage.client('c');
    const [generation] = await store.generations.loadActiveGenerations(await store.generations.servedGenerationIds());
    const versions = [{ firstOrdinal: 0, chunkCount: 1, generation: generation.generation } as unknown as ServedVersion];
    const build = () => soon.build([{ firstOrdinal: 0, source: { lanes: generation.lanes!.slice() } }], versions, DIMENSIONS);
    assert.equal((await build()).rows, 1);
    assert.ok(soon.threadRunning, 'the thread that answered is still there');
    while (soon.threadRunning) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(await soon.threadBytes(), 0);
    assert.equal((await build()).rows, 1);
    assert.ok(soon.threadRunning);
  } finally {
    await soon.close();
    storage.close();
    removeDir(dir);
  }
});

test('a segment thread ends when idle once it has taken its input allowance, and the next build gets a new one', { timeout: 60_000 }, async () => {
  const dir = tempDataDir();
  await seedVersions(dir, 'c', 'doc', [{ versionId: 'v1', text: 'Petty cash voucher.' }]);
  const storage = new Storage(dir);
  const recycled = new ThreadedSegmentBuilder({ graphCache: graphCacheIn(dir), recycleBytes: 0 });
  const kept = new ThreadedSegmentBuilder({ graphCache: graphCacheIn(dir) });
  try {
    const store = storage.client('c');
    const [generation] = await store.generations.loadActiveGenerations(await store.generations.servedGenerationIds());
    const versions = [{ firstOrdinal: 0, chunkCount: 1, generation: generation.generation } as unknown as ServedVersion];
    const build = (builder: ThreadedSegmentBuilder) => builder.build([{ firstOrdinal: 0, source: { lanes: generation.lanes!.slice() } }], versions, DIMENSIONS);
    assert.equal((await build(kept)).rows, 1);
    assert.ok((await kept.threadBytes()) > 0, 'a thread under its allowance stays');
    assert.equal((await build(recycled)).rows, 1);
    // Ended once idle: no thread holds anything until the next request starts one.
    while ((await recycled.threadBytes()) > 0) await new Promise((resolve) => setImmediate(resolve));
    assert.equal((await build(recycled)).rows, 1);
  } finally {
    await recycled.close();
    await kept.close();
    storage.close();
    removeDir(dir);
  }
});
