// Chunk texts as a search reads them for the rows of its answer: in the order asked, across generations,
// several of one generation by one statement (in batches), null for a chunk that is not there.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Storage } from '../../src/storage/storage.ts';
import { CHUNK_TEXT_READ_BATCH } from '../../src/storage/client-store.ts';
import { versionKey } from '../../src/domain/identity.ts';
import { removeDir, tempDataDir } from '../helpers/server.ts';
import { seedVersions } from '../helpers/seed.ts';

test('chunk texts come back in the order asked, across generations and batches, null where absent', async () => {
  const dir = tempDataDir();
  const storage = new Storage(dir);
  try {
    const many = Array.from({ length: CHUNK_TEXT_READ_BATCH * 2 + 1 }, (_, i) => `Ledger line ${i}.`);
    await seedVersions(dir, 'c', 'ledger', [{ versionId: 'ledger', text: many.join('\n'), chunks: many }]);
    await seedVersions(dir, 'c', 'memo', [{ versionId: 'memo', text: 'Memo one.\nMemo two.', chunks: ['Memo one.', 'Memo two.'] }]);
    const store = await storage.client('c');
    const first = (await store.activeGeneration('ledger', versionKey('ledger')))!.generation;
    const second = (await store.activeGeneration('memo', versionKey('memo')))!.generation;
    const keys = [
      { generation: second, chunkIndex: 1 },
      ...many.map((_, i) => ({ generation: first, chunkIndex: many.length - 1 - i })),
      { generation: second, chunkIndex: 0 },
      { generation: first, chunkIndex: 3 },
      { generation: first, chunkIndex: many.length },
      { generation: second + 100, chunkIndex: 0 },
    ];
    assert.deepEqual(await store.chunkTexts(keys), ['Memo two.', ...[...many].reverse(), 'Memo one.', 'Ledger line 3.', null, null]);
    assert.deepEqual(await store.chunkTexts([]), []);
  } finally {
    storage.close();
    removeDir(dir);
  }
});
