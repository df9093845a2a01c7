// The upgrade that enters a Client's active generations in its publication log (sqlite/client-migrations.ts, the last
// migration) fills in only a log left empty: a Client whose log names anything is served from it already, and
// must not see its activations twice.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openDatabase } from '../../src/storage/sqlite/database.ts';
import { CLIENT_MIGRATIONS } from '../../src/storage/sqlite/client-migrations.ts';
import { removeDir, tempDataDir } from '../helpers/server.ts';

const BEFORE_UPGRADE = CLIENT_MIGRATIONS.slice(0, CLIENT_MIGRATIONS.findIndex((migration) => migration.includes('INSERT INTO publication_log')));

function generation(db: ReturnType<typeof openDatabase>, documentId: string, state: string): number {
  return (db
    .prepare(
      `INSERT INTO generations (document_id, version_key, state, created_at, staged_at, canonical_metadata, entities, embedding, chunk_count, manifest)
       VALUES (?, ?, ?, '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z', '{}', '{}', '{}', 0, '{}') RETURNING generation`,
    )
    .get(documentId, `v:${documentId}`, state) as { generation: number }).generation;
}

const logOf = (db: ReturnType<typeof openDatabase>) => db.prepare('SELECT seq, kind, document_id, generation FROM publication_log ORDER BY seq').all().map((row) => ({ ...row }));

test('an empty log gets one activation per active generation, in generation order; retired ones none', () => {
  const dir = tempDataDir();
  try {
    const path = join(dir, 'client.db');
    const old = openDatabase(path, BEFORE_UPGRADE);
    const first = generation(old, 'b', 'active');
    generation(old, 'a', 'retired');
    const second = generation(old, 'a', 'active');
    old.close();
    const upgraded = openDatabase(path, CLIENT_MIGRATIONS);
    assert.deepEqual(logOf(upgraded), [
      { seq: 1, kind: 'activate', document_id: 'b', generation: first },
      { seq: 2, kind: 'activate', document_id: 'a', generation: second },
    ]);
    upgraded.close();
  } finally {
    removeDir(dir);
  }
});

test('a log that names anything is left as it is', () => {
  const dir = tempDataDir();
  try {
    const path = join(dir, 'client.db');
    const old = openDatabase(path, BEFORE_UPGRADE);
    generation(old, 'a', 'active');
    const logged = generation(old, 'b', 'active');
    old.prepare("INSERT INTO publication_log (kind, document_id, version_key, generation, at) VALUES ('activate', 'b', 'v:b', ?, '2025-01-02T00:00:00.000Z')").run(logged);
    const before = logOf(old);
    old.close();
    const upgraded = openDatabase(path, CLIENT_MIGRATIONS);
    assert.deepEqual(logOf(upgraded), before);
    upgraded.close();
  } finally {
    removeDir(dir);
  }
});
