import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { SqliteSecretRepository } from '../../src/storage/sqlite/secrets.ts';
import { openDatabase } from '../../src/storage/sqlite/database.ts';
import { CONTROL_MIGRATIONS } from '../../src/storage/sqlite/control-migrations.ts';
import { removeDir, tempDataDir } from '../helpers/server.ts';

test('a deployment secret is created once and shared by every process of the store', async () => {
  const dir = tempDataDir();
  const path = join(dir, 'control.db');
  const first = openDatabase(path, CONTROL_MIGRATIONS);
  const second = openDatabase(path, CONTROL_MIGRATIONS);
  try {
    const a = await new SqliteSecretRepository(first).deploymentSecret('audit_query_fingerprint');
    const b = await new SqliteSecretRepository(second).deploymentSecret('audit_query_fingerprint');
    assert.match(a, /^[0-9a-f]{64}$/);
    assert.equal(b, a);
    assert.notEqual(await new SqliteSecretRepository(second).deploymentSecret('another'), a);
  } finally {
    first.close();
    second.close();
    removeDir(dir);
  }
});
