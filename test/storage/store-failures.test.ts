// Which driver and file-system errors mean the store itself failed (unreachable or unreadable, or full), and
// which are anything else (a defect stays a 500). Real ones: a real node:sqlite error on a file that is no
// database, and a real node-postgres error from a port nothing listens on.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { fileFailure, storeFailureOf } from '../../src/storage/shared/store-failures.ts';
import { StoreFailure } from '../../src/domain/store-failure.ts';
import { removeDir, tempDataDir } from '../helpers/server.ts';

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

test('a SQLite file that is no database is an unreachable store; a statement error is not a store failure', () => {
  const dir = tempDataDir();
  try {
    const path = join(dir, 'control.db');
    writeFileSync(path, Buffer.alloc(8192, 'not a database '));
    const notADatabase = caught(() => new DatabaseSync(path).prepare('SELECT 1 FROM authority').get());
    assert.deepEqual([storeFailureOf(notADatabase, 'sqlite')?.kind, storeFailureOf(notADatabase, 'sqlite')?.storage], ['unreachable', 'sqlite']);
    const noSuchTable = caught(() => new DatabaseSync(':memory:').prepare('SELECT 1 FROM nowhere').get());
    assert.equal(storeFailureOf(noSuchTable, 'sqlite'), null);
  } finally {
    removeDir(dir);
  }
});

test('SQLITE_FULL and its extended codes are a full store; so are ENOSPC and EDQUOT of the files', () => {
  assert.equal(storeFailureOf(Object.assign(new Error('database or disk is full'), { errcode: 13 }), 'sqlite')?.kind, 'full');
  assert.equal(storeFailureOf(Object.assign(new Error('disk I/O error'), { errcode: 10 | (4 << 8) }), 'sqlite')?.kind, 'unreachable');
  const noSpace = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  assert.deepEqual([fileFailure(noSpace, 'uploads')?.kind, fileFailure(noSpace, 'uploads')?.storage], ['full', 'uploads']);
  assert.equal(fileFailure(Object.assign(new Error('quota'), { code: 'EDQUOT' }), 'uploads')?.kind, 'full');
  assert.equal(fileFailure(Object.assign(new Error('gone'), { code: 'ENOENT' }), 'uploads'), null, 'a missing file is no store failure');
});

test('PostgreSQL: a server that is not there is unreachable, disk_full is full, a constraint violation is neither', async () => {
  // A port that was free a moment ago: nothing listens on it.
  const port = await new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = server.address() as { port: number };
      server.close(() => resolve(free));
    });
  });
  const client = new pg.Client({ connectionString: `postgres://app@127.0.0.1:${port}/none` });
  const refused = await client.connect().then(() => null, (error: unknown) => error);
  assert.equal(storeFailureOf(refused, 'postgres')?.kind, 'unreachable');
  assert.equal(storeFailureOf(refused, 'sqlite'), null, 'a refused socket means nothing to the embedded store');
  assert.equal(storeFailureOf(Object.assign(new Error('could not extend file'), { code: '53100' }), 'postgres')?.kind, 'full');
  assert.equal(storeFailureOf(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }), 'postgres')?.kind, 'unreachable');
  assert.equal(storeFailureOf(new Error('Connection terminated unexpectedly'), 'postgres')?.kind, 'unreachable');
  assert.equal(storeFailureOf(Object.assign(new Error('duplicate key'), { code: '23505' }), 'postgres'), null);
});

test('a failure wrapped on its way up keeps its cause; a StoreFailure is itself', () => {
  const full = Object.assign(new Error('database or disk is full'), { errcode: 13 });
  assert.equal(storeFailureOf(new Error('the step failed', { cause: full }), 'sqlite')?.kind, 'full');
  const failure = new StoreFailure('full', 'uploads', 'no room');
  assert.equal(storeFailureOf(failure, 'postgres'), failure);
  assert.equal(storeFailureOf(new TypeError('a defect'), 'sqlite'), null);
  assert.equal(storeFailureOf('a string', 'sqlite'), null);
});
