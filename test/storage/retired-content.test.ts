// A retired generation's content (chunks, leaves, lane data) stays readable for a grace period, so a read that
// began on the snapshot still serving it can fetch its chunk texts; it is removed once the grace has passed.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Storage } from '../../src/storage/sqlite/sqlite-storage.ts';
import { Publisher, RETIRED_CONTENT_GRACE_MS } from '../../src/publication/publisher.ts';
import { removeDir, tempDataDir } from '../helpers/server.ts';
import { seedVersions } from '../helpers/seed.ts';

test('retired content stays readable through the grace period and goes after it', async () => {
  const dir = tempDataDir();
  await seedVersions(dir, 'c', 'doc', [{ versionId: 'v1', text: 'First text of the ledger.' }]);
  const storage = new Storage(dir);
  try {
    const store = storage.client('c');
    const first = (await store.generations.activeGeneration('doc', 'v1'))!;
    const loaded = (await store.generations.loadGeneration(first.generation))!;
    // A replacement through the one publisher retires the first generation.
    const { generation: _g, state: _s, stagedAt: _st, activatedAt: _a, chunkCount: _c, lanes: _l, ...input } = loaded;
    await new Publisher(storage, { enabled: true }).replace('c', [{ input: { ...input, chunks: loaded.chunks.map((chunk) => ({ ...chunk, text: 'Second text.' })) }, expected: first.generation }]);
    assert.equal((await store.generations.generation(first.generation))!.state, 'retired');
    assert.deepEqual(await store.generations.chunkTexts([{ generation: first.generation, chunkIndex: 0 }]), [{ text: 'First text of the ledger.', language: null, rows: null }], 'readable right after its retirement');

    assert.equal(await store.generations.cleanupRetiredBefore(new Date(Date.now() - RETIRED_CONTENT_GRACE_MS).toISOString()), 0, 'nothing retired before the grace period');
    assert.equal(await store.generations.cleanupRetiredBefore(new Date(Date.now() + 1000).toISOString()), 1);
    assert.deepEqual(await store.generations.chunkTexts([{ generation: first.generation, chunkIndex: 0 }]), [null]);
    assert.ok(await store.generations.manifest(first.generation), 'the manifest stays for successor verification');
    assert.equal(await store.generations.cleanupRetiredBefore(new Date(Date.now() + 1000).toISOString()), 0, 'removed once');
  } finally {
    storage.close();
    removeDir(dir);
  }
});
