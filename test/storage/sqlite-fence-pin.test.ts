// The SQLite adapter's fence position: its authority lives in the control database, apart from the Client
// files, so an append cannot be serialized with an operator's mode change, and a writer that read READY just
// before a fence may commit just after. FENCING pins reads by the Client's log position, recorded under the
// file's write lock by the first read in the fence: the same for every process, and nothing lands above it.
// No clock is compared (it pinned by the entries' times before).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { DatabaseSync } from 'node:sqlite';
import { ClientStore } from '../../src/storage/sqlite/client-store.ts';
import { CLIENT_MIGRATIONS } from '../../src/storage/sqlite/client-migrations.ts';
import { CONTROL_MIGRATIONS } from '../../src/storage/sqlite/control-migrations.ts';
import { SqliteAuthorityRepository } from '../../src/storage/sqlite/authority.ts';
import { openDatabase } from '../../src/storage/sqlite/database.ts';
import { PublicationPaused } from '../../src/domain/jobs.ts';
import { ServiceError } from '../../src/domain/service-error.ts';
import { PUBLICATION_RETRY_AFTER_SECONDS } from '../../src/spec-limits.ts';
import { generationInput } from '../helpers/storage-adapters.ts';
import { removeDir, tempDataDir } from '../helpers/server.ts';

const LOG_THREAD = new URL('../helpers/fence-log-thread.ts', import.meta.url);

function nextMessage<T extends { type: string }>(worker: Worker, type: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: T) => {
      if (message.type !== type) return;
      worker.off('message', onMessage);
      resolve(message);
    };
    worker.on('message', onMessage);
    worker.once('error', reject);
  });
}

function deployment() {
  const dir = tempDataDir();
  const clientPath = join(dir, 'c.db');
  const controlPath = join(dir, 'control.db');
  const authority = new SqliteAuthorityRepository(openDatabase(controlPath, CONTROL_MIGRATIONS));
  const store = new ClientStore('c', { open: () => openDatabase(clientPath, CLIENT_MIGRATIONS) }, { logRetained: 100, assertReady: () => authority.assertReady() });
  return { dir, clientPath, controlPath, authority, store, close: () => { store.close(); removeDir(dir); } };
}

test('a writer that straddles the fence is part of its position, whole, and every process reads that position while it lasts', async () => {
  const { clientPath, controlPath, authority, store, close } = deployment();
  const release = new Int32Array(new SharedArrayBuffer(4));
  const writer = new Worker(LOG_THREAD, { workerData: { role: 'writer', clientPath, controlPath, release } });
  const reader = new Worker(LOG_THREAD, { workerData: { role: 'reader', clientPath, controlPath, release } });
  try {
    await authority.setAuthorityMode('READY');
    await store.generations.stageAndActivate(generationInput('before', ['published before the fence']));
    const committed = nextMessage(writer, 'committed');
    // The writer's first removal is appended; its second has passed the READY check and waits, uncommitted.
    await nextMessage(writer, 'checked');
    const fencedAt = (await authority.setAuthorityMode('FENCING')).changedAt;
    // Another process's first read in the fence, while the straddling transaction is still open.
    const reading = nextMessage(reader, 'reading');
    const answer = nextMessage<{ type: string; head: number }>(reader, 'head');
    reader.postMessage({ type: 'read', fencedAt });
    await reading;
    // The reader waits for the writer's lock without stopping its thread: it answers meanwhile.
    const pong = nextMessage(reader, 'pong');
    reader.postMessage({ type: 'ping' });
    const first = await Promise.race([pong.then(() => 'pong'), answer.then(() => 'head')]);
    assert.equal(first, 'pong', 'the position is not read before the writer in flight commits');
    Atomics.store(release, 0, 1);
    Atomics.notify(release, 0);
    await committed;
    assert.equal((await answer).head, 3, 'the fence waited for the writer in flight: both of its removals are in, not one of them');
    assert.equal(await store.publicationLog.head(fencedAt), 3, 'a later read in the same fence reads the same position');
    const changes = await store.publicationLog.changesSince(0, 100, fencedAt);
    assert.deepEqual(changes.entries.map((entry) => `${entry.kind} ${entry.documentId}/${entry.versionKey}`), ['activate before/before', 'remove gone/v1', 'remove gone/v2']);
    assert.equal(await store.publicationLog.touchedSince(1, 'gone', 'v2', fencedAt), true);
  } finally {
    Atomics.store(release, 0, 1);
    Atomics.notify(release, 0);
    await Promise.all([writer.terminate(), reader.terminate()]);
    close();
  }
});

test('nothing lands above a fence\'s position while it lasts; READY serves everything again and a new fence has its own position', async () => {
  const { authority, store, close } = deployment();
  try {
    await store.generations.stageAndActivate(generationInput('doc-1', ['before the fence']));
    const fencedAt = (await authority.setAuthorityMode('FENCING')).changedAt;
    assert.equal(await store.publicationLog.head(fencedAt), 1);
    await assert.rejects(store.generations.stageAndActivate(generationInput('doc-2', ['during the fence'])), PublicationPaused);
    assert.equal(await store.publicationLog.head(fencedAt), 1);
    assert.equal(await store.publicationLog.touchedSince(0, 'doc-2', 'doc-2', fencedAt), false);
    await authority.setAuthorityMode('READY');
    await store.generations.stageAndActivate(generationInput('doc-2', ['after the fence']));
    assert.equal(await store.publicationLog.head(), 2, 'READY serves the head');
    assert.equal(await store.publicationLog.head(fencedAt), 1, 'a read still inside the old fence keeps its position');
    const second = (await authority.setAuthorityMode('FENCING')).changedAt;
    assert.notEqual(second, fencedAt);
    assert.equal(await store.publicationLog.head(second), 2);
    assert.deepEqual((await store.publicationLog.changesSince(1, 100, second)).entries.map((entry) => entry.documentId), ['doc-2']);
  } finally {
    close();
  }
});

test('two mode changes in one millisecond still name two fences: each change is later than the one before', async () => {
  const dir = tempDataDir();
  const db = openDatabase(join(dir, 'control.db'), CONTROL_MIGRATIONS);
  try {
    const frozen = Date.parse('2030-01-01T00:00:00.000Z');
    const authority = new SqliteAuthorityRepository(db, () => frozen);
    const first = (await authority.setAuthorityMode('FENCING')).changedAt;
    await authority.setAuthorityMode('READY');
    const second = (await authority.setAuthorityMode('FENCING')).changedAt;
    assert.equal(first, '2030-01-01T00:00:00.000Z');
    assert.equal(second, '2030-01-01T00:00:00.002Z');
  } finally {
    db.close();
    removeDir(dir);
  }
});

test("a writer holding the Client's file past the busy timeout fails a fence's first read as contention (publication_busy, Retry-After 1), never as a defect", async () => {
  const { clientPath, authority, store, close } = deployment();
  const holder = new DatabaseSync(clientPath);
  try {
    await authority.setAuthorityMode('READY');
    await store.generations.stageAndActivate(generationInput('before', ['published before the fence']));
    const fencedAt = (await authority.setAuthorityMode('FENCING')).changedAt;
    // Another connection holds the write lock and never lets go while the read waits for it.
    holder.exec('BEGIN IMMEDIATE');
    await assert.rejects(store.publicationLog.head(fencedAt), (error: unknown) => error instanceof ServiceError && error.code === 'publication_busy' && error.retryAfterSeconds === PUBLICATION_RETRY_AFTER_SECONDS);
    holder.exec('ROLLBACK');
    // Once the writer is gone the same read records the position.
    assert.equal(await store.publicationLog.head(fencedAt), 1);
  } finally {
    holder.close();
    close();
  }
});
