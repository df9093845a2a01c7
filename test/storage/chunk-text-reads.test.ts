// Chunk texts as a search reads them for the rows of its answer: in the order asked, across generations, by
// one statement for a batch of keys, null for a chunk that is not there.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { textsOf } from '../helpers/storage-adapters.ts';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { CLIENT_MIGRATIONS } from '../../src/storage/sqlite/client-migrations.ts';
import { Storage } from '../../src/storage/sqlite/sqlite-storage.ts';
import { CHUNK_TEXT_READ_BATCH } from '../../src/storage/sqlite/generations.ts';
import { versionKey } from '../../src/domain/identity.ts';
import { removeDir, tempDataDir } from '../helpers/server.ts';
import { seedVersions } from '../helpers/seed.ts';

test('chunk texts come back in the order asked, across generations and batches, null where absent', async () => {
  const dir = tempDataDir();
  const storage = new Storage(dir);
  try {
    const many = Array.from({ length: CHUNK_TEXT_READ_BATCH + 5 }, (_, i) => `Ledger line ${i}.`);
    await seedVersions(dir, 'c', 'ledger', [{ versionId: 'ledger', text: many.join('\n'), chunks: many }]);
    await seedVersions(dir, 'c', 'memo', [{ versionId: 'memo', text: 'Memo one.\nMemo two.', chunks: ['Memo one.', 'Memo two.'] }]);
    const store = await storage.client('c');
    const first = (await store.generations.activeGeneration('ledger', versionKey('ledger')))!.generation;
    const second = (await store.generations.activeGeneration('memo', versionKey('memo')))!.generation;
    const keys = [
      { generation: second, chunkIndex: 1 },
      ...many.map((_, i) => ({ generation: first, chunkIndex: many.length - 1 - i })),
      { generation: second, chunkIndex: 0 },
      { generation: first, chunkIndex: 3 },
      { generation: first, chunkIndex: many.length },
      { generation: second + 100, chunkIndex: 0 },
    ];
    assert.deepEqual(textsOf(await store.generations.chunkTexts(keys)), ['Memo two.', ...[...many].reverse(), 'Memo one.', 'Ledger line 3.', null, null]);
    assert.deepEqual(await store.generations.chunkTexts([]), []);
  } finally {
    storage.close();
    removeDir(dir);
  }
});

test('chunks stored WITHOUT ROWID by an older release move to the rowid table whole', async () => {
  const dir = tempDataDir();
  try {
    await seedVersions(dir, 'c', 'ledger', [{ versionId: 'ledger', text: 'Line one.\nLine two.', chunks: ['Line one.', 'Line two.'] }]);
    const file = join(dir, 'clients', readdirSync(join(dir, 'clients')).find((name) => name.endsWith('.db'))!);
    // Back to the older layout: the same rows in a WITHOUT ROWID table, and the migration forgotten.
    const db = new DatabaseSync(file);
    db.exec(`BEGIN;
      CREATE TABLE old_chunks (generation INTEGER NOT NULL REFERENCES generations (generation) ON DELETE CASCADE, chunk_index INTEGER NOT NULL,
        page INTEGER, page_label TEXT, text TEXT NOT NULL, entities TEXT NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (generation, chunk_index)) WITHOUT ROWID;
      INSERT INTO old_chunks SELECT generation, chunk_index, page, page_label, text, entities, vector FROM chunks;
      DROP TABLE chunks; ALTER TABLE old_chunks RENAME TO chunks;
      PRAGMA user_version = ${CLIENT_MIGRATIONS.findIndex((migration) => migration.includes('chunks_by_rowid'))};
      COMMIT;`);
    const before = db.prepare('SELECT * FROM chunks ORDER BY generation, chunk_index').all();
    assert.match(String((db.prepare("SELECT sql FROM sqlite_master WHERE name = 'chunks'").get() as { sql: string }).sql), /WITHOUT ROWID/);
    db.close();
    const storage = new Storage(dir);
    try {
      const store = storage.client('c');
      const generation = (await store.generations.activeGeneration('ledger', versionKey('ledger')))!.generation;
      assert.deepEqual(textsOf(await store.generations.chunkTexts([{ generation, chunkIndex: 1 }, { generation, chunkIndex: 0 }])), ['Line two.', 'Line one.']);
    } finally {
      storage.close();
    }
    const after = new DatabaseSync(file, { readOnly: true });
    assert.doesNotMatch(String((after.prepare("SELECT sql FROM sqlite_master WHERE name = 'chunks'").get() as { sql: string }).sql), /WITHOUT ROWID/);
    // The same rows, each with no language and no rows (the migrations after it add those columns, empty for older chunks).
    const rows = after.prepare('SELECT * FROM chunks ORDER BY generation, chunk_index').all() as Record<string, unknown>[];
    assert.deepEqual(rows.map(({ language: _language, row_first: _first, row_last: _last, ...row }) => row), before.map((row) => ({ ...row })));
    assert.deepEqual(rows.map((row) => [row.language, row.row_first, row.row_last]), before.map(() => [null, null, null]));
    after.close();
  } finally {
    removeDir(dir);
  }
});
