// The segment cache against a real store and real segment threads: a load reads back the segments an earlier
// load or merge wrote, exactly as it would have built them from lane data, and never a file that is damaged or
// holds a generation that is no longer active; versions deleted for good take their files with them.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import { Storage } from '../../src/storage/storage.ts';
import { ServingIndex } from '../../src/serving/serving-index.ts';
import { ThreadedSegmentBuilder } from '../../src/serving/threaded-segment-builder.ts';
import { chooseEntries, SegmentCache } from '../../src/serving/caches/segment-cache.ts';
import type { CacheEntry } from '../../src/serving/caches/segment-cache.ts';
import type { Segment } from '../../src/serving/segment.ts';
import { chunksOf } from '../../src/serving/snapshot.ts';
import { Publisher } from '../../src/publication/publisher.ts';
import { createHashingEmbedder } from '../../src/models/hashing-embedder.ts';
import { removeDir, tempDataDir } from '../helpers/server.ts';
import { seedVersions } from '../helpers/seed.ts';
import { clientDbFile } from '../helpers/client-db.ts';

const DIMENSIONS = createHashingEmbedder().dimensions;
const VERSIONS = 30;

/** Everything a segment's index holds, as one digest (its arrays and string tables, byte for byte). */
function indexDigest(segment: Segment): string {
  const hash = createHash('sha256');
  const add = (value: unknown): void => {
    if (ArrayBuffer.isView(value)) hash.update(new Uint8Array(value.buffer, value.byteOffset, value.byteLength)).update(value.constructor.name);
    else if (Array.isArray(value)) value.forEach(add);
    else if (value && typeof value === 'object' && !(value instanceof Map)) for (const key of Object.keys(value).sort()) (hash.update(key), add((value as Record<string, unknown>)[key]));
    else hash.update(String(value));
  };
  const { versions: _versions, ann: _ann, ...index } = segment;
  add(index);
  return hash.digest('hex');
}

function versionsOf(index: ServingIndex): string[] {
  return [...index.snapshot('c').versions.values()].map((v) => `${v.identity} g${v.generation} @${v.firstOrdinal}+${v.chunkCount} ${v.evidence.state}`).sort();
}

interface Context {
  dir: string;
  storage: Storage;
  cache: () => SegmentCache;
  /** `changed`: told after each load, catch-up and background work (a merge, a cache write); `settleMs`: SEGMENT_SETTLE_MS. */
  index: (cache: SegmentCache, changed?: () => void, settleMs?: number) => ServingIndex;
  /** A new serving index that loads the Client, then writes its segments to `cache` (waited for). */
  loadAndWrite: (cache: SegmentCache) => Promise<ServingIndex>;
}

async function withStore(run: (context: Context) => Promise<void>) {
  const dir = tempDataDir();
  await seedVersions(dir, 'c', 'doc', Array.from({ length: VERSIONS }, (_, i) => ({ versionId: `v${i}`, text: '', chunks: [`Ledger ${i} opening balance.`, `Transfer ${i} of RM ${i * 7}.`, `Penyata ${i} bulanan akaun.`] })));
  const storage = new Storage(dir);
  const builder = new ThreadedSegmentBuilder({ graphCache: { dir: join(dir, 'graphs'), budgetBytes: 1 << 30 } });
  try {
    const index = (cache: SegmentCache, changed?: () => void, settleMs?: number) => new ServingIndex(storage, DIMENSIONS, builder, { segmentCache: cache, changed, settleMs });
    const loadAndWrite = async (cache: SegmentCache) => {
      const serving = index(cache);
      await serving.catchUp('c');
      serving.flushCacheWrites();
      await cache.settled();
      return serving;
    };
    await run({ dir, storage, cache: () => new SegmentCache(join(dir, 'segments'), 1 << 30, { minRows: 4 }), index, loadAndWrite });
  } finally {
    await builder.close();
    storage.close();
    removeDir(dir);
  }
}

test('a load reads back the segment an earlier load wrote: the same index, versions and evidence', async () => {
  await withStore(async ({ index, cache, loadAndWrite }) => {
    const writer = cache();
    const first = await loadAndWrite(writer);
    assert.equal(first.restoredSegments, 0, 'nothing to read back yet');
    const [entry] = await writer.entries('c');
    assert.equal(entry.rows, VERSIONS * 3);
    assert.equal(entry.generations.length, VERSIONS);

    const second = index(cache());
    await second.catchUp('c');
    assert.equal(second.restoredSegments, 1);
    assert.deepEqual(versionsOf(second), versionsOf(first));
    assert.equal(second.snapshot('c').segments.length, 1);
    assert.equal(indexDigest(second.snapshot('c').segments[0]), indexDigest(first.snapshot('c').segments[0]));
    assert.deepEqual(second.snapshot('c').live, first.snapshot('c').live);
  });
});

test('a damaged file is removed and its generations load from their lane data', async () => {
  await withStore(async ({ index, cache, loadAndWrite }) => {
    const writer = cache();
    const first = await loadAndWrite(writer);
    const [entry] = await writer.entries('c');
    const bytes = readFileSync(entry.path);
    bytes[bytes.length - 1] ^= 0xff; // the last section's last byte
    writeFileSync(entry.path, bytes);

    const reader = cache();
    const second = index(reader);
    await second.catchUp('c');
    assert.equal(second.restoredSegments, 0, 'the damaged file is not used');
    assert.equal(indexDigest(second.snapshot('c').segments[0]), indexDigest(first.snapshot('c').segments[0]));
    second.flushCacheWrites();
    await reader.settled();
    // It wrote what it built: the next load reads it back.
    const third = index(cache());
    await third.catchUp('c');
    assert.equal(third.restoredSegments, 1);
    assert.equal(indexDigest(third.snapshot('c').segments[0]), indexDigest(first.snapshot('c').segments[0]));
  });
});

/** Lane data damaged four ways: its last byte flipped, cut in half, its header kept over a garbage body, all garbage. */
const DAMAGES: Record<string, (lanes: Uint8Array) => Uint8Array> = {
  flipped: (lanes) => {
    const copy = lanes.slice();
    copy[copy.length - 1] ^= 0xff;
    return copy;
  },
  truncated: (lanes) => lanes.slice(0, lanes.length >> 1),
  garbageBody: (lanes) => {
    const copy = lanes.slice();
    const headerEnd = 12 + new DataView(copy.buffer).getUint32(8, true);
    for (let i = headerEnd; i < copy.length; i++) copy[i] = (i * 131 + 17) & 0xff;
    return copy;
  },
  garbage: (lanes) => Uint8Array.from(lanes, (_, i) => (i * 97 + 5) & 0xff),
};

test('lane data that is not what its manifest recorded (flipped, truncated, garbage) is never decoded: the other generations serve and are cached, and a repaired one serves after the next load', async () => {
  await withStore(async ({ dir, storage, cache, loadAndWrite }) => {
    const store = storage.client('c');
    const db = new DatabaseSync(clientDbFile(dir, 'c'));
    const damaged = new Map<number, Uint8Array>();
    for (const [n, damage] of Object.values(DAMAGES).entries()) {
      const generation = (await store.generations.activeGeneration('doc', `v${n + 3}`))!.generation;
      const { lanes } = db.prepare('SELECT lanes FROM generation_lanes WHERE generation = ?').get(generation) as { lanes: Uint8Array };
      damaged.set(generation, lanes);
      db.prepare('UPDATE generation_lanes SET lanes = ? WHERE generation = ?').run(damage(lanes), generation);
    }
    const healthy = VERSIONS - damaged.size;
    const stateOf = (serving: ServingIndex, generation: number) => [...serving.snapshot('c').versions.values()].find((version) => version.generation === generation)!.evidence;
    const indexed = (serving: ServingIndex) => serving.snapshot('c').segments.flatMap((segment) => segment.versions.map((version) => version.generation));

    const writer = cache();
    const first = await loadAndWrite(writer);
    for (const generation of damaged.keys()) {
      assert.deepEqual(stateOf(first, generation), { state: 'corrupt', lane: 'content', point: `generation ${generation}`, lanesUnproven: true });
      assert.ok(!indexed(first).includes(generation), 'no segment holds rows of unproven lane data');
    }
    assert.equal(first.snapshot('c').versions.size, VERSIONS, 'every version is served, its evidence as verified');
    assert.equal(indexed(first).length, healthy);
    assert.equal(first.snapshot('c').segments.reduce((rows, segment) => rows + segment.rows, 0), healthy * 3);
    // The segment holds only verified generations, so it is written: a damaged one can never come back from it.
    const [entry] = await writer.entries('c');
    assert.equal(entry.generations.length, healthy);
    assert.ok(entry.generations.every(({ generation }) => !damaged.has(generation)));

    const second = await loadAndWrite(cache());
    assert.equal(second.restoredSegments, 1);
    for (const generation of damaged.keys()) assert.equal(stateOf(second, generation).state, 'corrupt', 'still corrupt after a restart');

    // Repaired, the generations verify at the next load and are indexed beside the file read back.
    for (const [generation, lanes] of damaged) db.prepare('UPDATE generation_lanes SET lanes = ? WHERE generation = ?').run(lanes, generation);
    db.close();
    const third = await loadAndWrite(cache());
    assert.equal(third.restoredSegments, 1);
    for (const generation of damaged.keys()) assert.deepEqual(stateOf(third, generation), { state: 'verified' });
    assert.equal(indexed(third).length, VERSIONS);
    assert.equal(third.snapshot('c').segments.reduce((rows, segment) => rows + segment.rows, 0), VERSIONS * 3);
  });
});

test('lane data that no manifest digest proves (its manifest is missing) is decoded guarded: cut short, its generation holds no rows; whole, it keeps them, and the load goes on', async () => {
  await withStore(async ({ dir, storage, index, cache }) => {
    const store = storage.client('c');
    const db = new DatabaseSync(clientDbFile(dir, 'c'));
    const cut = (await store.generations.activeGeneration('doc', 'v7'))!.generation;
    const whole = (await store.generations.activeGeneration('doc', 'v8'))!.generation;
    db.prepare(`UPDATE generations SET manifest = '{}' WHERE generation IN (?, ?)`).run(cut, whole);
    const { lanes } = db.prepare('SELECT lanes FROM generation_lanes WHERE generation = ?').get(cut) as { lanes: Uint8Array };
    db.prepare('UPDATE generation_lanes SET lanes = ? WHERE generation = ?').run(lanes.slice(0, lanes.length >> 1), cut);
    db.close();

    const serving = index(cache());
    await serving.catchUp('c');
    const snapshot = serving.snapshot('c');
    const stateOf = (generation: number) => [...snapshot.versions.values()].find((version) => version.generation === generation)!.evidence.state;
    assert.equal(stateOf(cut), 'unauthoritative');
    assert.equal(stateOf(whole), 'unauthoritative');
    assert.equal(snapshot.segments.reduce((rows, segment) => rows + segment.rows, 0), (VERSIONS - 1) * 3, 'every generation but the one cut short has its rows');
    const versionOf = (generation: number) => [...snapshot.versions.values()].find((version) => version.generation === generation)!;
    assert.equal(chunksOf(snapshot, versionOf(cut)).length, 0);
    assert.equal(chunksOf(snapshot, versionOf(whole)).length, 3, 'rows a search can meet, and then fail closed on');
  });
});

test('deleting for good removes the files holding the version; a file holding a generation no longer active is neither used nor kept', async () => {
  await withStore(async ({ storage, index, cache, loadAndWrite }) => {
    const writer = cache();
    const first = await loadAndWrite(writer);
    const [written] = await writer.entries('c');
    const publisher = new Publisher(storage, { enabled: true });
    const store = storage.client('c');
    const generationOf = async (versionId: string) => (await store.generations.activeGeneration('doc', versionId))!.generation;

    // Applied by a process serving the Client, a deletion for good removes the files holding the version at once.
    const v1 = await generationOf('v1');
    assert.ok(written.generations.some(({ generation }) => generation === v1));
    await publisher.beginRemoval('c', 'doc', ['v1']);
    await first.catchUp('c');
    first.close(); // nothing more from it: its later writes would race the loads below
    await writer.settled();
    assert.deepEqual(await writer.entries('c'), []);
    assert.equal(first.snapshot('c').versions.size, VERSIONS - 1);

    // A process that did not see a deletion still has its file: the next load leaves it aside and removes it,
    // then writes what is active now.
    const again = cache();
    await loadAndWrite(again);
    const [stale] = await again.entries('c');
    const v2 = await generationOf('v2');
    await publisher.beginRemoval('c', 'doc', ['v2']);
    const reader = cache();
    const fresh = index(reader);
    await fresh.catchUp('c');
    fresh.flushCacheWrites();
    await reader.settled();
    assert.equal(fresh.restoredSegments, 0);
    assert.equal(fresh.snapshot('c').versions.size, VERSIONS - 2);
    const entries = await reader.entries('c');
    assert.deepEqual(entries.map((entry) => entry.rows), [(VERSIONS - 2) * 3]);
    assert.notEqual(entries[0].path, stale.path);
    assert.ok(entries[0].generations.every(({ generation }) => generation !== v1 && generation !== v2));
  });
});

test('segments a merge makes are written too, and a load reads them back beside the lane data of the rest', async () => {
  await withStore(async ({ dir, index, cache }) => {
    const writer = cache();
    let changes = 0;
    const follower = index(writer, () => changes++);
    await follower.catchUp('c'); // the load: one segment of every version
    // Four publications of one chunk each: one size class, merged in the background into a segment of four rows.
    for (let i = 0; i < 4; i++) {
      await seedVersions(dir, 'c', `late-${i}`, [{ versionId: 'v1', text: `Late ledger ${i}.` }]);
      await follower.catchUp('c');
    }
    await follower.mergesSettled();
    // The load and four catch-ups told the process, and so did each merge: the segments it replaced are garbage
    // that an idle process would otherwise keep until something else makes V8 collect.
    assert.ok(changes > 5, `${changes} changes told`);
    const beforeWrite = changes;
    follower.flushCacheWrites();
    await writer.settled();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(changes, beforeWrite + 1, 'the cache write told the process too (its file bytes are garbage once written)');
    // The load's segment and the four small ones are one size class: their merge replaced the load's file.
    const entries = await writer.entries('c');
    assert.deepEqual(entries.map((entry) => entry.rows), [VERSIONS * 3 + 3]);
    assert.deepEqual(follower.snapshot('c').segments.map((segment) => segment.rows), [VERSIONS * 3 + 3, 1]);
    await seedVersions(dir, 'c', 'later', [{ versionId: 'v1', text: 'Later ledger.' }]);

    const second = index(cache());
    await second.catchUp('c');
    assert.equal(second.restoredSegments, 1);
    assert.deepEqual(second.snapshot('c').segments.map((segment) => segment.rows), [VERSIONS * 3 + 3, 2], 'the file, then the lane data of the rest');
    const identities = (serving: ServingIndex) => [...serving.snapshot('c').versions.keys()].sort();
    await follower.catchUp('c');
    assert.deepEqual(identities(second), identities(follower));
    assert.equal(second.snapshot('c').liveChunkCount, VERSIONS * 3 + 5);
  });
});

test('once publications pause, a Client settles into one segment, the same chunks found, and that segment is what the cache keeps', { timeout: 60_000 }, async () => {
  await withStore(async ({ dir, index, cache }) => {
    const writer = cache();
    let changes = 0;
    let wake = () => {};
    const follower = index(writer, () => (changes++, wake()), 1);
    await follower.catchUp('c'); // the load: 90 rows
    // Publications of mixed sizes, each its own segment: no run of one size class forms, so only a settle merges them.
    for (const [n, size] of [300, 40, 100].entries()) {
      await seedVersions(dir, 'c', `late-${n}`, [{ versionId: 'v1', text: '', chunks: Array.from({ length: size }, (_, i) => `Ledger ${n} line ${i}.`) }]);
      await follower.catchUp('c');
    }
    const chunks = VERSIONS * 3 + 440;
    const ids = (serving: ServingIndex) => [...serving.snapshot('c').versions.keys()].sort();
    const publishedIds = ids(follower);
    // Waits for the events (the merge swapped in, the cache file written), however long the machine takes.
    for (;;) {
      const seen = changes;
      const entries = await writer.entries('c');
      if (follower.snapshot('c').segments.length === 1 && entries.length === 1 && entries[0].rows === chunks) break;
      if (changes === seen) await new Promise<void>((resolve) => (wake = resolve));
    }
    const [settled] = follower.snapshot('c').segments;
    assert.equal(settled.rows, chunks);
    assert.equal(follower.snapshot('c').liveChunkCount, chunks);
    assert.deepEqual(ids(follower), publishedIds);
    // The next load reads the settled segment back whole.
    const next = index(cache());
    await next.catchUp('c');
    assert.equal(next.restoredSegments, 1);
    assert.deepEqual(next.snapshot('c').segments.map((segment) => segment.rows), [chunks]);
    assert.equal(indexDigest(next.snapshot('c').segments[0]), indexDigest(settled));
  });
});

test('a load chooses the largest files first, none sharing a generation, each with every generation active', () => {
  const entry = (name: string, generations: number[]): CacheEntry => ({ path: name, key: name, generations: generations.map((generation) => ({ generation, lanesDigest: 'd', rows: 10 })), rows: generations.length * 10 });
  const whole = entry('whole', [1, 2, 3, 4]);
  const part = entry('part', [1, 2]);
  const other = entry('other', [5, 6]);
  const stale = entry('stale', [7, 8, 9]);
  assert.deepEqual(chooseEntries([part, other, whole, stale], new Set([1, 2, 3, 4, 5, 6, 8, 9])).map((chosen) => chosen.key), ['whole', 'other']);
  assert.deepEqual(chooseEntries([part, other, whole], new Set([1, 2, 5])).map((chosen) => chosen.key), ['part']);
  assert.deepEqual(chooseEntries([], new Set([1])), []);
});
