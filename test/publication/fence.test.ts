import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { FenceTimeout, LifecycleFence, fenceName } from '../../src/publication/fence.ts';
import { SqliteAuthorityRepository } from '../../src/storage/sqlite-authority.ts';
import { openDatabase } from '../../src/storage/sqlite.ts';
import { CONTROL_MIGRATIONS } from '../../src/storage/control-migrations.ts';
import { removeDir, tempDataDir } from '../helpers/server.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Two fences over two connections to one control database: two api processes sharing a store. */
function twoProcesses(leaseMs?: number) {
  const dir = tempDataDir();
  const path = join(dir, 'control.db');
  const dbs = [openDatabase(path, CONTROL_MIGRATIONS), openDatabase(path, CONTROL_MIGRATIONS)];
  const [a, b] = dbs.map((db) => new LifecycleFence(new SqliteAuthorityRepository(db), leaseMs));
  return { a, b, close: () => { dbs.forEach((db) => db.close()); removeDir(dir); } };
}

test('one holder at a time across processes; the other waits for its turn', async () => {
  const { a, b, close } = twoProcesses();
  try {
    const order: string[] = [];
    await Promise.all([
      a.run('c1', 1000, async () => {
        order.push('a-start');
        await sleep(60);
        order.push('a-end');
      }),
      sleep(10).then(() =>
        b.run('c1', 1000, async () => {
          order.push('b-start');
          order.push('b-end');
        }),
      ),
    ]);
    assert.deepEqual(order, ['a-start', 'a-end', 'b-start', 'b-end']);
    assert.equal(await a.held('c1'), false, 'released after use');
  } finally {
    close();
  }
});

test('a waiter gives up after its bound without running; another Client is not fenced', async () => {
  const { a, b, close } = twoProcesses();
  try {
    let ran = false;
    const holder = a.run('c1', 1000, () => sleep(150));
    await sleep(10);
    assert.equal(await b.held('c1'), true);
    await assert.rejects(b.run('c1', 40, async () => { ran = true; }), FenceTimeout);
    assert.equal(ran, false);
    assert.equal(await b.run('c2', 40, async () => 'other client'), 'other client');
    await holder;
    assert.equal(await b.run('c1', 40, async () => 'next'), 'next');
  } finally {
    close();
  }
});

test('a holder that died frees the fence when its lease expires', async () => {
  const dir = tempDataDir();
  const db = openDatabase(join(dir, 'control.db'), CONTROL_MIGRATIONS);
  try {
    const control = new SqliteAuthorityRepository(db);
    // A holder whose process died: its lease is never renewed nor released.
    assert.equal(await control.acquireLease(fenceName('c1'), 'dead-process', 120), true);
    const fence = new LifecycleFence(control);
    await assert.rejects(fence.run('c1', 30, async () => 'too early'), FenceTimeout);
    const started = Date.now();
    assert.equal(await fence.run('c1', 1000, async () => 'after expiry'), 'after expiry');
    assert.ok(Date.now() - started < 500);
  } finally {
    db.close();
    removeDir(dir);
  }
});
