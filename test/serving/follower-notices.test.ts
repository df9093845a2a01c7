// A follower over PostgreSQL wakes on the store's announcements (LISTEN/NOTIFY), not on its poll: with a poll
// far longer than the test, a publication committed by another process is applied without any read asking.
// Over SQLite, which announces nothing, the poll applies it.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage.ts';
import { PublicationNotices } from '../../src/storage/postgres/publication-notices.ts';
import { Storage } from '../../src/storage/sqlite/sqlite-storage.ts';
import type { StoragePort } from '../../src/storage/port.ts';
import { ServingIndex } from '../../src/serving/serving-index.ts';
import { ReadGuard } from '../../src/serving/read-guard.ts';
import { Follower } from '../../src/serving/follower.ts';
import { inlineSegmentBuilder } from '../../src/serving/segment.ts';
import { generationInput, postgresCluster, stopPostgres } from '../helpers/storage-adapters.ts';
import type { PostgresCluster } from '../helpers/postgres-cluster.ts';
import { until } from '../helpers/processes.ts';
import { removeDir, tempDataDir } from '../helpers/server.ts';

const DIMENSIONS = 4;
const AN_HOUR_MS = 3_600_000;

let cluster: PostgresCluster;
before(async () => {
  cluster = await postgresCluster();
});
after(stopPostgres);

/** An api process's serving side over `storage`, with Client 'acme' loaded and followed. */
async function servingSide(storage: StoragePort, pollMs: number) {
  const index = new ServingIndex(storage, DIMENSIONS, inlineSegmentBuilder);
  const guard = new ReadGuard(storage, index, { enabled: true, catchUpDeadlineMs: 30_000 });
  guard.recovered();
  await index.catchUp('acme');
  assert.equal(index.isLoaded('acme'), true);
  const follower = new Follower({ storage, index, guard, pollMs });
  follower.start();
  await follower.listening();
  return { index, follower };
}

test('over PostgreSQL, a publication by another process is applied on its announcement, without a read or a poll', async () => {
  const url = await cluster.createDatabase();
  const reader = await PostgresStorage.open(url);
  const writer = await PostgresStorage.open(url);
  const { index, follower } = await servingSide(reader, AN_HOUR_MS);
  try {
    assert.equal(index.appliedSeq('acme'), 0);
    await writer.client('acme').generations.stageAndActivate(generationInput('doc-1', ['announced']));
    await until('the follower applied the announced publication', () => index.appliedSeq('acme') === 1);
    // A Client not loaded here is not loaded by an announcement: its first read loads it current.
    await writer.client('globex').generations.stageAndActivate(generationInput('doc-1', ['elsewhere']));
    await writer.client('acme').generations.stageAndActivate(generationInput('doc-2', ['again']));
    await until('the second publication applied', () => index.appliedSeq('acme') === 2);
    assert.equal(index.isLoaded('globex'), false);
  } finally {
    await follower.stop();
    index.close();
    await Promise.all([reader.end(), writer.end()]);
  }
});

test('a watch whose connection is lost opens it again and says announcements may have been missed', async () => {
  const url = await cluster.createDatabase();
  const storage = await PostgresStorage.open(url);
  const heard: Array<string | null> = [];
  const watch = storage.watchPublications((clientId) => heard.push(clientId)) as PublicationNotices;
  try {
    await watch.listening;
    // The server ends the listening connection (as a restart or a network fault would).
    await storage.pool.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN %' AND pid <> pg_backend_pid()`);
    await until('the watch says it may have missed announcements', () => heard.includes(null));
    await storage.client('acme').generations.stageAndActivate(generationInput('doc-1', ['after the fault']));
    await until('the watch hears again', () => heard.includes('acme'));
  } finally {
    await watch.stop();
    await storage.end();
  }
});

test('a follower sweeps the Clients held here once its watch listens and after each reconnect: announcements before were not heard', async () => {
  const url = await cluster.createDatabase();
  const storage = await PostgresStorage.open(url);
  const index = new ServingIndex(storage, DIMENSIONS, inlineSegmentBuilder);
  const guard = new ReadGuard(storage, index, { enabled: true, catchUpDeadlineMs: 30_000 });
  guard.recovered();
  let sweeps = 0;
  const follower = new Follower({ storage, index, guard, pollMs: AN_HOUR_MS, sweepHeld: async () => void sweeps++ });
  try {
    follower.start();
    await follower.listening();
    // A hard delete on another host announced before this watch listened would go unheard: the sweep covers it.
    await until('the follower swept once listening', () => sweeps === 1);
    await storage.pool.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN %' AND pid <> pg_backend_pid()`);
    await until('the follower swept again after the reconnect', () => sweeps === 2);
  } finally {
    await follower.stop();
    index.close();
    await storage.end();
  }
});

test('over SQLite, which announces nothing, the poll applies a publication by another process', async () => {
  const dir = tempDataDir();
  const reader = new Storage(dir);
  const writer = new Storage(dir);
  const { index, follower } = await servingSide(reader, 20);
  try {
    assert.equal((reader as StoragePort).watchPublications, undefined, 'SQLite announces nothing');
    await writer.client('acme').generations.stageAndActivate(generationInput('doc-1', ['polled']));
    await until('the follower applied the publication', () => index.appliedSeq('acme') === 1);
  } finally {
    await follower.stop();
    index.close();
    reader.close();
    writer.close();
    removeDir(dir);
  }
});
