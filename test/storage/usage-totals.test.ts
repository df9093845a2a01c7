// Per-Client quota usage from running totals kept by triggers: after activations, replacements, several
// versions of a document, retirements by purge and a database migrated with data already in it, usage()
// answers exactly what summing every active generation answers.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readdirSync } from 'node:fs';
import { Storage } from '../../src/storage/sqlite/sqlite-storage.ts';
import { CLIENT_MIGRATIONS } from '../../src/storage/sqlite/client-migrations.ts';
import { openDatabase } from '../../src/storage/sqlite/database.ts';
import { versionKey } from '../../src/domain/identity.ts';
import { removeDir, tempDataDir } from '../helpers/server.ts';
import { seedVersions } from '../helpers/seed.ts';

/** What usage() answered before the totals: a sum over every active generation. */
function summed(dataDir: string, besides: { documentId: string; versionKey: string }) {
  const file = readdirSync(join(dataDir, 'clients')).find((name) => name.endsWith('.db'))!;
  const db = openDatabase(join(dataDir, 'clients', file), CLIENT_MIGRATIONS);
  try {
    const row = db
      .prepare(
        `SELECT COUNT(DISTINCT document_id) AS documents, COALESCE(SUM(chunk_count), 0) AS chunks, COALESCE(SUM(text_bytes), 0) AS text_bytes,
           COALESCE(MAX(CASE WHEN document_id = ? THEN 1 ELSE 0 END), 0) AS present
         FROM generations WHERE state = 'active' AND NOT (document_id = ? AND version_key = ?)`,
      )
      .get(besides.documentId, besides.documentId, besides.versionKey) as { documents: number; chunks: number; text_bytes: number; present: number };
    return { documents: row.documents, chunks: row.chunks, textBytes: row.text_bytes, documentPresent: row.present === 1 };
  } finally {
    db.close();
  }
}

const probes = [
  { documentId: 'ledger', versionKey: versionKey('v1') },
  { documentId: 'ledger', versionKey: versionKey('v2') },
  { documentId: 'memo', versionKey: versionKey('memo') },
  { documentId: 'memo', versionKey: versionKey('other') },
  { documentId: 'absent', versionKey: versionKey('absent') },
];

async function agree(dataDir: string, label: string): Promise<void> {
  const storage = new Storage(dataDir);
  try {
    const store = await storage.client('c');
    for (const probe of probes) assert.deepEqual(await store.generations.usage(probe), summed(dataDir, probe), `${label}: besides ${probe.documentId}/${probe.versionKey}`);
  } finally {
    storage.close();
  }
}

test('quota usage from running totals equals the sum over active generations through every change', async () => {
  const dir = tempDataDir();
  try {
    await seedVersions(dir, 'c', 'ledger', [{ versionId: 'v1', text: 'Ledger entry one for the branch.' }, { versionId: 'v2', text: 'Ledger entry two, longer than the first one.' }]);
    await seedVersions(dir, 'c', 'memo', [{ versionId: 'memo', text: 'Memo about cheque clearing.' }]);
    await agree(dir, 'after activations');
    // A new generation of an existing version retires the old one.
    await seedVersions(dir, 'c', 'ledger', [{ versionId: 'v1', text: 'Ledger entry one, corrected and much longer than before.' }]);
    await agree(dir, 'after a replacement');
    const storage = new Storage(dir);
    try {
      const store = await storage.client('c');
      assert.equal((await store.generations.usage(probes[4])).documents, 2);
      await store.purges.purgeVersion('ledger', versionKey('v2'));
      assert.equal((await store.generations.usage(probes[4])).documents, 2, 'ledger keeps v1');
      await store.purges.purgeVersion('memo', versionKey('memo'));
      assert.equal((await store.generations.usage(probes[4])).documents, 1);
    } finally {
      storage.close();
    }
    await agree(dir, 'after purges');
  } finally {
    removeDir(dir);
  }
});

test('a database written before the totals existed starts them from its data', async () => {
  const dir = tempDataDir();
  try {
    await seedVersions(dir, 'c', 'ledger', [{ versionId: 'v1', text: 'Ledger entry one.' }, { versionId: 'v2', text: 'Ledger entry two.' }]);
    await seedVersions(dir, 'c', 'memo', [{ versionId: 'memo', text: 'Memo.' }]);
    const file = join(dir, 'clients', readdirSync(join(dir, 'clients')).find((name) => name.endsWith('.db'))!);
    // Back to the schema before the totals: drop them and forget the migration, as an older release left it.
    const db = openDatabase(file, CLIENT_MIGRATIONS);
    db.exec(`DROP TRIGGER usage_generation_enters; DROP TRIGGER usage_generation_leaves;
      DROP TRIGGER usage_active_generation_deleted; DROP TABLE usage_totals; DROP TABLE active_documents;
      PRAGMA user_version = ${CLIENT_MIGRATIONS.findIndex((migration) => migration.includes('CREATE TABLE usage_totals'))};`);
    db.close();
    await agree(dir, 'migrated');
  } finally {
    removeDir(dir);
  }
});
