import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { FenceTimeout, LifecycleFence, fenceName } from '../../src/publication/fence.ts';
import { SqliteAuthorityRepository } from '../../src/storage/sqlite/authority.ts';
import type { Database } from '../../src/storage/sqlite/database.ts';
import { openDatabase } from '../../src/storage/sqlite/database.ts';
import { CONTROL_MIGRATIONS } from '../../src/storage/sqlite/control-migrations.ts';
import { removeDir, tempDataDir } from '../helpers/server.ts';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

/** The leases' clock: it stands still unless a test moves it, so that no lease expires by itself. */
const clock = { now: 1_700_000_000_000 };

/** A control store on the test's clock that tells when a lease it was asked for was refused (the fence is held). */
class ObservedControl extends SqliteAuthorityRepository {
  private refusals: (() => void)[] = [];

  constructor(db: Database) {
    super(db, () => clock.now);
  }

  /** Resolves at the next refused acquisition: a writer has asked for the fence and must wait. */
  nextRefusal(): Promise<void> {
    return new Promise((resolve) => this.refusals.push(resolve));
  }

  override async acquireLease(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const acquired = await super.acquireLease(name, owner, ttlMs);
    if (!acquired) for (const tell of this.refusals.splice(0)) tell();
    return acquired;
  }
}

/** Two fences over two connections to one control database: two api processes sharing a store. */
function twoProcesses() {
  const dir = tempDataDir();
  const path = join(dir, 'control.db');
  const dbs = [openDatabase(path, CONTROL_MIGRATIONS), openDatabase(path, CONTROL_MIGRATIONS)];
  const [controlA, controlB] = dbs.map((db) => new ObservedControl(db));
  return { a: new LifecycleFence(controlA), b: new LifecycleFence(controlB), controlB, close: () => { dbs.forEach((db) => db.close()); removeDir(dir); } };
}

test('one holder at a time across processes; the other waits for its turn', async () => {
  const { a, b, controlB, close } = twoProcesses();
  const aMayLeave = deferred();
  try {
    const order: string[] = [];
    const aEntered = deferred();
    const first = a.run('c1', 1000, async () => {
      order.push('a-start');
      aEntered.resolve();
      await aMayLeave.promise;
      order.push('a-end');
    });
    await aEntered.promise;
    const bWaits = controlB.nextRefusal();
    const second = b.run('c1', 30_000, async () => {
      order.push('b-start');
      order.push('b-end');
    });
    await Promise.race([bWaits, second]);
    aMayLeave.resolve();
    await Promise.all([first, second]);
    assert.deepEqual(order, ['a-start', 'a-end', 'b-start', 'b-end']);
    assert.equal(await a.held('c1'), false, 'released after use');
  } finally {
    aMayLeave.resolve();
    close();
  }
});

test('a waiter gives up after its bound without running; another Client is not fenced', async () => {
  const { a, b, close } = twoProcesses();
  const mayLeave = deferred();
  try {
    let ran = false;
    const entered = deferred();
    const holder = a.run('c1', 1000, async () => {
      entered.resolve();
      await mayLeave.promise;
    });
    await entered.promise;
    assert.equal(await b.held('c1'), true);
    await assert.rejects(b.run('c1', 40, async () => { ran = true; }), FenceTimeout);
    assert.equal(ran, false);
    assert.equal(await b.run('c2', 40, async () => 'other client'), 'other client');
    mayLeave.resolve();
    await holder;
    assert.equal(await b.run('c1', 40, async () => 'next'), 'next');
  } finally {
    mayLeave.resolve();
    close();
  }
});

test('a holder that died frees the fence when its lease expires, not before', async () => {
  const dir = tempDataDir();
  const db = openDatabase(join(dir, 'control.db'), CONTROL_MIGRATIONS);
  try {
    const control = new ObservedControl(db);
    // A holder whose process died: its lease is never renewed nor released.
    assert.equal(await control.acquireLease(fenceName('c1'), 'dead-process', 120), true);
    const fence = new LifecycleFence(control);
    await assert.rejects(fence.run('c1', 30, async () => 'too early'), FenceTimeout);
    const expiresAt = clock.now + 120;
    let waited = control.nextRefusal();
    const after = fence.run('c1', 30_000, async () => clock.now);
    await Promise.race([waited, after]);
    waited = control.nextRefusal();
    clock.now = expiresAt; // the lease's last millisecond: still held
    await Promise.race([waited, after]);
    clock.now = expiresAt + 1;
    assert.equal(await after, expiresAt + 1, 'taken at the first try after the expiry');
  } finally {
    db.close();
    removeDir(dir);
  }
});
