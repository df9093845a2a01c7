// A process keeps a bounded number of Client databases open: the least recently used connection beyond
// CLIENT_CONNECTIONS_MAX is closed, and its store connects again, unchanged to its callers, when next used.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { textsOf } from '../helpers/storage-adapters.ts';
import { Storage } from '../../src/storage/sqlite/sqlite-storage.ts';
import { CLIENT_DB_CACHE_KIB, CLIENT_DB_CACHE_MAX_KIB, CLIENT_DB_CACHE_REFIT_USES, CLIENT_DB_CACHE_SHARE } from '../../src/storage/sqlite/client-page-cache.ts';
import { fittedCacheKiB } from '../../src/storage/sqlite/database.ts';
import { versionKey } from '../../src/domain/identity.ts';
import { removeDir, tempDataDir } from '../helpers/server.ts';
import { seedVersions } from '../helpers/seed.ts';

test('beyond the bound the least recently used Client connection closes, and reconnects when used again', async () => {
  const dir = tempDataDir();
  for (const clientId of ['a', 'b', 'c']) {
    await seedVersions(dir, clientId, `${clientId}-doc`, [{ versionId: 'v1', text: `Invoice of ${clientId}.`, chunks: [`Invoice of ${clientId}.`] }]);
  }
  const storage = new Storage(dir, { connectionsMax: 2 });
  try {
    const [a, b, c] = ['a', 'b', 'c'].map((clientId) => storage.client(clientId));
    const generationOf = async (clientId: string) => (await storage.client(clientId).generations.activeGeneration(`${clientId}-doc`, versionKey('v1')))!.generation;
    const first = await generationOf('a');
    await generationOf('b');
    assert.deepEqual([a.isConnected, b.isConnected, c.isConnected], [true, true, false]);
    await generationOf('c');
    assert.equal(storage.openConnections, 2);
    assert.deepEqual([a.isConnected, b.isConnected, c.isConnected], [false, true, true], 'a, least recently used, was closed');
    // a connects again: its reads and writes work, and b (now least recently used) is the one closed.
    assert.equal(await generationOf('a'), first);
    assert.deepEqual(textsOf(await a.generations.chunkTexts([{ generation: first, chunkIndex: 0 }])), ['Invoice of a.']);
    await a.purges.begin('a-doc', [versionKey('v1')]);
    assert.deepEqual(await a.purges.open('a-doc'), [versionKey('v1')]);
    assert.deepEqual([a.isConnected, b.isConnected, c.isConnected], [true, false, true]);
    assert.equal(storage.openConnections, 2);
    // The same store object serves every caller: a store handed out before its connection closed still works.
    assert.equal(storage.client('b'), b);
    assert.ok((await b.publicationLog.head()) >= 1);
  } finally {
    storage.close();
    removeDir(dir);
  }
});

test('a closed store refuses to connect again', async () => {
  const dir = tempDataDir();
  const storage = new Storage(dir);
  const store = storage.client('a');
  await store.publicationLog.head();
  storage.close();
  try {
    await assert.rejects(() => store.publicationLog.head(), /closed/);
  } finally {
    removeDir(dir);
  }
});

test("a Client connection's page cache is a share of its file between a floor and a cap, refitted as the file grows", async () => {
  const fit = { share: CLIENT_DB_CACHE_SHARE, minKiB: CLIENT_DB_CACHE_KIB, maxKiB: CLIENT_DB_CACHE_MAX_KIB };
  assert.equal(fittedCacheKiB(1024 * 1024, fit), CLIENT_DB_CACHE_KIB, 'a small Client keeps the floor');
  assert.equal(fittedCacheKiB(864 * 1024 * 1024, fit), Math.floor((864 * 1024 * CLIENT_DB_CACHE_SHARE)), 'a large one its share');
  assert.equal(fittedCacheKiB(64 * 1024 ** 3, fit), CLIENT_DB_CACHE_MAX_KIB, 'a huge one the cap');
  const dir = tempDataDir();
  await seedVersions(dir, 'a', 'a-doc', [{ versionId: 'v1', text: 'Invoice of a.', chunks: ['Invoice of a.'] }]);
  const storage = new Storage(dir);
  try {
    const store = storage.client('a');
    const cacheKiB = () => -(store.database.db.prepare('PRAGMA cache_size').get() as { cache_size: number }).cache_size;
    assert.equal(cacheKiB(), CLIENT_DB_CACHE_KIB);
    // The file grows past what the floor covers (another writer, as a worker is to an api process).
    const grownBytes = Math.ceil((1.5 * CLIENT_DB_CACHE_KIB * 1024) / CLIENT_DB_CACHE_SHARE);
    store.database.db.exec(`CREATE TABLE filler (x BLOB); INSERT INTO filler VALUES (zeroblob(${grownBytes}))`);
    const { page_count: pages, page_size: pageSize } = store.database.db.prepare('SELECT * FROM pragma_page_count, pragma_page_size').get() as { page_count: number; page_size: number };
    for (let use = 0; use < CLIENT_DB_CACHE_REFIT_USES; use++) void store.database.db;
    assert.equal(cacheKiB(), fittedCacheKiB(pages * pageSize, fit));
    assert.ok(cacheKiB() > CLIENT_DB_CACHE_KIB, `${cacheKiB()} KiB`);
    // A connection opened again is fitted at once.
    store.release();
    assert.equal(cacheKiB(), fittedCacheKiB(pages * pageSize, fit));
  } finally {
    storage.close();
    removeDir(dir);
  }
});
