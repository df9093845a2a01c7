// A durable store that cannot be reached or read answers 503 store_unavailable with Retry-After on every
// protected route, naming the storage, never 500 (issue 45, item 5): on SQLite with control.db overwritten by
// something that is not a database (what a botched copy or a failing disk leaves an operator), and on
// PostgreSQL with the server stopped. Each test runs the real service on a store of its own, so stopping or
// breaking it disturbs no other test; each runs in its store's pass of the suites (TEST_STORE), the PostgreSQL
// one on a private cluster, since it stops the server.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openSync, readFileSync, statSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { api, baseEnv, KEYS, removeDir, spawnServer, tempDataDir, uploadFile, waitForJob } from '../helpers/server.ts';
import type { ChildServer } from '../helpers/server.ts';
import { startPostgresCluster } from '../helpers/postgres-cluster.ts';
import { TEST_STORE } from '../helpers/test-store.ts';
import { STORE_UNAVAILABLE_RETRY_AFTER_SECONDS } from '../../src/domain/store-failure.ts';

/**
 * Under SLOT_BATCH_MIN_ROOM (1,024) every request is decided by the store, as with the default 30 a minute: no
 * batch of slots held from before the failure lets a request through without asking the store.
 */
const PER_REQUEST_LIMITS = { RATE_LIMIT_PER_MINUTE: '1000', SEARCH_RATE_LIMIT_PER_MINUTE: '1000', API_PROCESSES: '1' };

const CORPUS_TEXT = readFileSync(new URL('../../../shared/corpus/txt/tika_multi-language.txt', import.meta.url));

/** One request of each protected route (Client key), and the operator's. Bodies are valid: only the store fails. */
const PROTECTED: { name: string; path: string; method?: string; body?: unknown; key?: string }[] = [
  { name: 'POST /search', path: '/search', body: { query: 'language', scope: 'content' } },
  { name: 'POST /embed', path: '/embed', body: { document_id: 'later', text: 'a later upload' } },
  { name: 'GET /status', path: '/status/00000000-0000-0000-0000-000000000000' },
  { name: 'GET /documents', path: '/documents' },
  { name: 'GET /document/text', path: '/document/doc-1/text' },
  { name: 'DELETE /document', path: '/document/doc-1', method: 'DELETE' },
  { name: 'POST /restore', path: '/document/doc-1/restore', method: 'POST' },
  { name: 'PATCH /update', path: '/update', method: 'PATCH', body: { document_id: 'doc-1', metadata: { branch: 'KL' } } },
  { name: 'GET /discovery/readiness', path: '/discovery/readiness' },
  { name: 'GET /web-search/capabilities', path: '/web-search/capabilities' },
  { name: 'POST /web-search', path: '/web-search', body: { query: 'bank negara' } },
  { name: 'GET /admin/authority', path: '/admin/authority', key: KEYS.operator },
];

async function seedDocument(url: string): Promise<void> {
  const accepted = await uploadFile(url, KEYS.alpha, { document_id: 'doc-1' }, { name: 'tika_multi-language.txt', bytes: CORPUS_TEXT, type: 'text/plain' });
  assert.equal(accepted.status, 202, JSON.stringify(accepted.json));
  const job = await waitForJob(url, KEYS.alpha, accepted.json.job_id);
  assert.equal(job.status, 'completed', JSON.stringify(job));
}

/** Every protected route answers 503 store_unavailable with Retry-After, naming `storage`; none answers 500. */
async function assertEveryRouteRefuses(url: string, storage: string): Promise<void> {
  for (const route of PROTECTED) {
    const answer = await api(url, route.path, { method: route.method, key: route.key ?? KEYS.alpha, body: route.body });
    assert.equal(answer.status, 503, `${route.name}: ${answer.status} ${answer.text}`);
    assert.equal(answer.headers.get("retry-after"), String(STORE_UNAVAILABLE_RETRY_AFTER_SECONDS), `${route.name} carries Retry-After: ${answer.text}`);
    assert.equal(answer.json.error_code, 'store_unavailable', `${route.name}: ${answer.text}`);
    assert.equal(answer.json.details.storage, storage, `${route.name} names the storage: ${answer.text}`);
    assert.equal(typeof answer.json.request_id, 'string');
  }
}

/**
 * Overwrites control.db with bytes that are no database, as a failed copy would, and makes every connection of
 * the service see it at its next read.
 *
 * In WAL mode a connection keeps its cached pages for as long as the WAL index says nothing was committed, so
 * overwriting the file alone can go unseen: a connection of the service that read the file between the
 * checkpoint and the overwrite would answer from its cache (a read of the authority record answered 200 on a
 * busy CI machine). So the overwrite happens under a write transaction that then commits one row: the commit
 * changes the WAL index, every other connection drops its cache at its next read, and page 1, which the commit
 * does not touch (in WAL mode no change counter is written there), is read from the overwritten file.
 */
function breakControlDb(dataDir: string): void {
  const path = join(dataDir, 'control.db');
  const db = new DatabaseSync(path);
  try {
    db.exec('PRAGMA busy_timeout = 5000');
    db.exec('CREATE TABLE IF NOT EXISTS test_break_marker (n INTEGER NOT NULL)');
    db.exec('INSERT INTO test_break_marker (n) VALUES (0)');
    for (;;) {
      db.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get();
      db.exec('BEGIN IMMEDIATE');
      // A commit between the checkpoint and the lock would leave pages in the WAL: checkpoint again.
      if ((statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0) === 0) break;
      db.exec('ROLLBACK');
    }
    // The pages the commit below needs are read now, while the file is still a database.
    db.prepare('SELECT n FROM test_break_marker').all();
    const original = readFileSync(path);
    const fd = openSync(path, 'r+');
    try {
      writeSync(fd, Buffer.alloc(original.length, 'not a database '), 0, original.length, 0);
    } finally {
      closeSync(fd);
    }
    db.exec('UPDATE test_break_marker SET n = n + 1');
    db.exec('COMMIT');
  } finally {
    try {
      db.exec('ROLLBACK');
    } catch {
      // Committed, or the file under the lock is no database any more; the lock goes with the connection.
    }
    db.close();
  }
}

test('SQLite: with control.db unreadable every protected route answers 503 store_unavailable with Retry-After', { skip: TEST_STORE !== 'sqlite' ? 'runs in the SQLite pass of the suites' : false }, async () => {
  const dataDir = tempDataDir();
  let server: ChildServer | undefined;
  try {
    server = await spawnServer(baseEnv(dataDir, { STORE: 'sqlite', ...PER_REQUEST_LIMITS }));
    await seedDocument(server.url);
    breakControlDb(dataDir);
    await assertEveryRouteRefuses(server.url, 'sqlite');
    // GET /health is no protected route: it answers, and says the store failed.
    const health = await api(server.url, '/health', { key: null });
    assert.notEqual(health.status, 500, health.text);
    assert.equal(health.json.components.state_store, 'error', health.text);
  } finally {
    await server?.stop();
    removeDir(dataDir);
  }
});

test('PostgreSQL: with the server stopped every protected route answers 503 store_unavailable with Retry-After', { skip: TEST_STORE !== 'postgres' ? 'runs in the PostgreSQL pass of the suites (TEST_STORE=postgres)' : false }, async () => {
  const cluster = await startPostgresCluster();
  const dataDir = tempDataDir();
  let server: ChildServer | undefined;
  try {
    const url = await cluster.createDatabase();
    server = await spawnServer(baseEnv(dataDir, { STORE: 'postgres', DATABASE_URL: url, ...PER_REQUEST_LIMITS }));
    await seedDocument(server.url);
    cluster.stop();
    await assertEveryRouteRefuses(server.url, 'postgresql');
  } finally {
    await server?.stop();
    cluster.stop();
    removeDir(dataDir);
  }
});
