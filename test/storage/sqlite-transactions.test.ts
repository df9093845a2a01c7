// A failed SQLite transaction reports the error that stopped it. SQLite ends a transaction by itself on some
// failures (SQLITE_FULL on a full disk, I/O errors), after which ROLLBACK or COMMIT fail with "no transaction is
// active"; that error used to replace the real one, so a full disk read as a generic failure. Here the statement
// that ends the transaction is run inside fn, as SQLite's own rollback would end it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openDatabase, readTransaction, transaction } from '../../src/storage/sqlite/database.ts';

const STOPPED = new Error('the failure that stopped the transaction');

test('a write transaction that SQLite already ended throws the failure that ended it', () => {
  const db = openDatabase(':memory:', ['CREATE TABLE t (a)']);
  try {
    assert.throws(
      () =>
        transaction(db, () => {
          db.prepare('INSERT INTO t VALUES (1)').run();
          db.exec('ROLLBACK');
          throw STOPPED;
        }),
      (error) => error === STOPPED,
    );
    assert.equal(db.isTransaction, false);
    // And a transaction still open when fn fails is rolled back as before.
    assert.throws(() => transaction(db, () => (db.prepare('INSERT INTO t VALUES (2)').run(), (() => { throw STOPPED; })())), (error) => error === STOPPED);
    assert.equal((db.prepare('SELECT COUNT(*) AS n FROM t').get() as { n: number }).n, 0);
  } finally {
    db.close();
  }
});

test('a read transaction that SQLite already ended throws the failure that ended it', () => {
  const db = openDatabase(':memory:', ['CREATE TABLE t (a)']);
  try {
    assert.throws(
      () =>
        readTransaction(db, () => {
          db.exec('ROLLBACK');
          throw STOPPED;
        }),
      (error) => error === STOPPED,
    );
    assert.equal(db.isTransaction, false);
    assert.equal(readTransaction(db, () => (db.prepare('SELECT COUNT(*) AS n FROM t').get() as { n: number }).n), 0);
  } finally {
    db.close();
  }
});
