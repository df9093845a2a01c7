// The health probes' deadline, without comparing durations: a state-store read held by another connection's
// exclusive lock (SQLite waits out its 5-second busy timeout) misses the 2-second deadline, which counts it as
// late and gives its thread up; the next probes run on a new thread and read again once the lock is gone. A
// probe of another /health call queued behind the blocked read is made again on the new thread, and answers.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { HealthProbes, MAX_PROBE_RERUNS } from '../../src/health/health-probes.ts';
import { Storage } from '../../src/storage/sqlite/sqlite-storage.ts';
import { removeDir, tempDataDir } from '../helpers/server.ts';
import { clientDbFile } from '../helpers/client-db.ts';

test('a probe that blocks misses its deadline and gives its thread up; the next ones read on a new thread', async () => {
  const dir = tempDataDir();
  const storage = new Storage(dir);
  for (const clientId of ['alpha', 'beta']) await storage.client(clientId).publicationLog.head();
  storage.close();
  const probes = new HealthProbes(dir);
  const holder = new DatabaseSync(clientDbFile(dir, 'beta'));
  try {
    assert.equal(await probes.stateStore(), true);
    assert.equal(probes.late, 0);
    holder.exec('PRAGMA busy_timeout = 5000; PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; DELETE FROM publication_log WHERE 0');
    assert.equal(await probes.stateStore(), false, 'the blocked read reports the state store failed');
    assert.equal(probes.late, 1, 'at its deadline, not when the blocked read gave up');
    // A new thread answers what does not need the locked file.
    assert.equal((await probes.authority())?.mode, 'READY');
    holder.exec('ROLLBACK');
    holder.close();
    assert.equal(await probes.stateStore(), true, 'read again once the lock is gone');
  } finally {
    if (holder.isOpen) holder.close();
    await probes.close();
    removeDir(dir);
  }
});

test('a probe queued behind another call\'s blocked read is made again on the new thread: only the blocked one fails', async () => {
  const dir = tempDataDir();
  const storage = new Storage(dir);
  for (const clientId of ['alpha', 'beta']) await storage.client(clientId).publicationLog.head();
  storage.close();
  const probes = new HealthProbes(dir);
  const holder = new DatabaseSync(clientDbFile(dir, 'beta'));
  try {
    assert.equal((await probes.authority())?.mode, 'READY', 'the thread is up and its store open');
    holder.exec('PRAGMA busy_timeout = 5000; PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; DELETE FROM publication_log WHERE 0');
    // One call's state-store read blocks the thread; another call's authority read, made next, waits behind it.
    const [stateStore, authority] = await Promise.all([probes.stateStore(), probes.authority()]);
    assert.equal(stateStore, false);
    assert.equal(authority?.mode, 'READY', 'the other call\'s authority probe is not failed by the blocked read');
    assert.equal(probes.late, 1, 'only the blocked read missed its deadline');
  } finally {
    holder.exec('ROLLBACK');
    holder.close();
    await probes.close();
    removeDir(dir);
  }
});

test('a probe is made again at most MAX_PROBE_RERUNS times: then it fails without waiting out a deadline of its own', async () => {
  const dir = tempDataDir();
  const storage = new Storage(dir);
  for (const clientId of ['alpha', 'beta']) await storage.client(clientId).publicationLog.head();
  storage.close();
  const probes = new HealthProbes(dir);
  const holder = new DatabaseSync(clientDbFile(dir, 'beta'));
  try {
    assert.equal(await probes.stateStore(), true);
    holder.exec('PRAGMA busy_timeout = 5000; PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; DELETE FROM publication_log WHERE 0');
    // Each blocked read in turn holds the thread for a deadline and gives it up under the ones behind it. The
    // last probe is given up on that many times, and then fails as its component, never blocking a thread itself.
    const calls = MAX_PROBE_RERUNS + 2;
    const answers = await Promise.all(Array.from({ length: calls }, () => probes.stateStore()));
    assert.deepEqual(answers, Array(calls).fill(false));
    assert.equal(probes.late, MAX_PROBE_RERUNS + 1, 'the last probe missed no deadline of its own');
  } finally {
    holder.exec('ROLLBACK');
    holder.close();
    await probes.close();
    removeDir(dir);
  }
});
