// A process keeps a bounded number of Client databases open: the least recently used connection beyond
// CLIENT_CONNECTIONS_MAX is closed, and its store connects again, unchanged to its callers, when next used.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { textsOf } from '../helpers/storage-adapters.ts';
import { Storage } from '../../src/storage/storage.ts';
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
