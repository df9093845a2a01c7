// A full disk loses nothing and says so on the PostgreSQL store too (issue 45, item 10; full-disk.test.ts is
// the SQLite pass). On PostgreSQL everything durable is in the database, uploaded files included (the uploads
// table: a worker on another host must read them), so the disk that fills is PostgreSQL's. Here the tables of
// the service's database live in a tablespace on a small tmpfs of a private cluster, while the cluster's data
// directory and its WAL stay on the ordinary disk: PostgreSQL then refuses a write that needs a new page with
// SQLSTATE 53100 ("could not extend file") and goes on serving. The second test puts the whole cluster, WAL
// included, on a small tmpfs and makes the server need a new WAL segment on the full disk (a WAL record and a
// segment switch, from a session of its own, so the PANIC happens at a placed point rather than in whichever
// request of the service first wrote WAL): the server PANICs, its restart cannot write WAL either, and it stays
// down until space is freed and it is started again, meanwhile answered 503 store_unavailable. Each test starts
// a private cluster of its own, whatever the suite's store; mounting needs root.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { api, baseEnv, KEYS, removeDir, spawnServer, tempDataDir, uploadFile, uploadText, waitForJob } from '../helpers/server.ts';
import type { ChildServer } from '../helpers/server.ts';
import { APP_ROLE, startPostgresCluster } from '../helpers/postgres-cluster.ts';
import type { PostgresCluster } from '../helpers/postgres-cluster.ts';
import { STORE_UNAVAILABLE_RETRY_AFTER_SECONDS } from '../../src/domain/store-failure.ts';
import { assertStorageFull, fillDisk, mountSmallDisk, unmount } from '../helpers/small-disk.ts';

const CSV = readFileSync(new URL('../../../shared/corpus/txt/moh_facilities_master.csv', import.meta.url));
const TEXT = readFileSync(new URL('../../../shared/corpus/txt/tika_multi-language.txt', import.meta.url));

/** Room for a new database (a copy of template1, about 8 MiB), the service's tables and two small documents. */
const TABLESPACE_SIZE = '64m';
/** Free space left on the uploads disk: less than the file (426,547 bytes), more than nothing. */
const ROOM_LEFT_BYTES = 128 * 1024;
const TABLESPACE = 'full_disk';

async function asSuperuser<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

const SEARCH = { query: 'internship retainer', scope: 'content' };

test("PostgreSQL: its tables' disk full: writes are refused whole with 507 naming PostgreSQL, reads keep answering, health degrades, and freeing space recovers", async (t) => {
  const diskDir = mountSmallDisk(TABLESPACE_SIZE, mkdtempSync(join(tmpdir(), 'hds-pg-full-disk-')));
  // The tablespace is the server's: its directory belongs to the postgres user (the server runs as it here).
  const owner = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const tablespaceDir = join(diskDir, 'tablespace');
  mkdirSync(tablespaceDir);
  chownSync(tablespaceDir, owner('-u'), owner('-g'));
  const dataDir = tempDataDir();
  let cluster: PostgresCluster | undefined;
  let server: ChildServer | undefined;
  let database = '';
  try {
    // A private cluster: a full tablespace must not touch the suites' cluster that other files run on.
    cluster = await startPostgresCluster();
    const admin = cluster.superuserUrl('postgres');
    database = `full_disk_${process.pid}`;
    await asSuperuser(admin, async (client) => {
      await client.query(`CREATE TABLESPACE ${TABLESPACE} LOCATION '${tablespaceDir}'`);
      await client.query(`CREATE DATABASE ${database} OWNER ${APP_ROLE} TABLESPACE ${TABLESPACE}`);
    });
    const databaseUrl = `postgres://${APP_ROLE}@127.0.0.1:${cluster.port}/${database}`;
    const count = (table: string) => asSuperuser(cluster!.superuserUrl(database), async (client) => Number((await client.query(`SELECT COUNT(*) AS n FROM ${table}`)).rows[0].n));
    const jobs = () => count('jobs');
    const uploadRows = () => count('uploads');

    // Per-request budget decisions (under the batch room of 1,024): every request asks the store, which is full.
    server = await spawnServer(baseEnv(dataDir, { STORE: 'postgres', DATABASE_URL: databaseUrl, API_PROCESSES: '1', RATE_LIMIT_PER_MINUTE: '1000', SEARCH_RATE_LIMIT_PER_MINUTE: '1000' }));
    const { url } = server;
    const first = await uploadFile(url, KEYS.alpha, { document_id: 'doc-1' }, { name: 'tika_multi-language.txt', bytes: TEXT, type: 'text/plain' });
    assert.equal(first.status, 202);
    const firstJob = await waitForJob(url, KEYS.alpha, first.json.job_id);
    assert.equal(firstJob.status, 'completed', JSON.stringify(firstJob));
    const before = {
      search: await api(url, '/search', { key: KEYS.alpha, body: SEARCH }),
      text: await api(url, '/document/doc-1/text', { key: KEYS.alpha }),
    };
    assert.equal(before.search.status, 200);
    assert.ok(before.search.json.results.length > 0);

    // Less room than the file: its row (TOASTed into pages of the uploads table) stores part of it and then
    // cannot extend the table. The upload is refused whole and no row of it stays, cut short or whole.
    const filler = join(diskDir, 'filler');
    const filled = fillDisk(filler);
    assert.ok(filled > ROOM_LEFT_BYTES, 'the disk took the filler');
    truncateSync(filler, filled - ROOM_LEFT_BYTES);
    const jobsBefore = await jobs();
    const larger = await uploadFile(url, KEYS.alpha, { document_id: 'doc-2' }, { name: 'moh_facilities_master.csv', bytes: CSV, type: 'text/csv' });
    assertStorageFull(larger, 'postgresql', 'a file upload larger than the free space');
    assert.equal(await uploadRows(), 0, 'no upload row, whole or cut short, is left behind');
    assert.equal(await jobs(), jobsBefore, 'no job was recorded for the refused upload');
    // And now no room at all for a new page of any table or index of the database.
    fillDisk(join(diskDir, 'filler-rest'));

    // A JSON upload whose text needs new pages: refused whole, naming PostgreSQL, no job recorded.
    const json = await uploadText(url, KEYS.alpha, { document_id: 'doc-3', text: CSV.toString('utf8').repeat(12) });
    assertStorageFull(json, 'postgresql', 'a JSON upload');
    const file = await uploadFile(url, KEYS.alpha, { document_id: 'doc-2' }, { name: 'moh_facilities_master.csv', bytes: CSV, type: 'text/csv' });
    assertStorageFull(file, 'postgresql', 'a file upload');
    assert.equal(await uploadRows(), 0, 'no upload row of a refused upload is left behind');
    assert.equal(await jobs(), jobsBefore, 'no job was recorded for a refused upload');

    // Reads that need no write answer from the intact data, as before.
    const search = await api(url, '/search', { key: KEYS.alpha, body: SEARCH });
    assert.equal(search.status, 200, search.text);
    assert.deepEqual(search.json.results.map((row: any) => row.document_version), before.search.json.results.map((row: any) => row.document_version));
    const text = await api(url, '/document/doc-1/text', { key: KEYS.alpha });
    assert.equal(text.status, 200, text.text);
    assert.deepEqual(text.json.chunks.map((chunk: any) => chunk.text), before.text.json.chunks.map((chunk: any) => chunk.text));
    const list = await api(url, '/documents', { key: KEYS.alpha });
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.json.documents.map((row: any) => row.document_id), ['doc-1'], 'nothing a refused request did is visible');
    const status = await api(url, `/status/${first.json.job_id}`, { key: KEYS.alpha });
    assert.equal(status.status, 200, status.text);
    assert.equal(status.json.status, 'completed');

    // A hard delete on the full disk: refused whole (507: still there), or stopped after it was journaled and
    // hidden (503 publication_purge_timeout: resumable), or done; never a 500.
    const hard = await api(url, '/document/doc-1?mode=hard', { method: 'DELETE', key: KEYS.alpha });
    assert.ok([200, 503, 507].includes(hard.status), `hard delete on a full disk: ${hard.status} ${hard.text}`);
    if (hard.status === 507) {
      assertStorageFull(hard, 'postgresql', 'a hard delete');
      assert.equal((await api(url, '/document/doc-1/text', { key: KEYS.alpha })).status, 200, 'a refused delete changed nothing');
    }
    if (hard.status === 503) assert.equal(hard.json.error_code, 'publication_purge_timeout', hard.text);
    t.diagnostic(`hard delete on the full disk answered ${hard.status}`);

    // The state store is degraded (its budget writes are refused), and /health still answers 200.
    const health = await api(url, '/health', { key: null });
    assert.equal(health.status, 200, health.text);
    assert.equal(health.json.components.state_store, 'error', health.text);
    assert.equal(health.json.status, 'degraded');

    // Space comes back: writes work again without a restart, and the upload refused before is stored whole.
    rmSync(filler);
    rmSync(join(diskDir, 'filler-rest'));
    const again = await uploadFile(url, KEYS.alpha, { document_id: 'doc-2' }, { name: 'moh_facilities_master.csv', bytes: CSV, type: 'text/csv' });
    assert.equal(again.status, 202, JSON.stringify(again.json));
    const againJob = await waitForJob(url, KEYS.alpha, again.json.job_id, { timeoutMs: 120_000 });
    assert.equal(againJob.status, 'completed', JSON.stringify(againJob));
    const stored = await api(url, '/document/doc-2/text', { key: KEYS.alpha });
    assert.equal(stored.status, 200);
    const storedText = stored.json.chunks.map((chunk: any) => chunk.text).join('\n');
    const lastRow = CSV.toString('utf8').trim().split('\n').at(-1)!.split(',');
    for (const cell of [lastRow.at(-1)!, lastRow[4]]) assert.ok(storedText.includes(cell), `the stored text holds ${cell} of the file's last row`);
    if (hard.status !== 200) {
      const repeated = await api(url, '/document/doc-1?mode=hard', { method: 'DELETE', key: KEYS.alpha });
      assert.equal(repeated.status, 200, repeated.text);
      assert.equal(repeated.json.status, 'hard_deleted');
    }
    assert.equal((await api(url, '/document/doc-1/text', { key: KEYS.alpha })).status, 404);
    const recovered = await api(url, '/health', { key: null });
    assert.equal(recovered.json.components.state_store, 'ok', recovered.text);
  } finally {
    await server?.stop();
    // The cluster goes with its data directory; the tablespace's files live on the tmpfs, removed with it.
    cluster?.stop();
    unmount(diskDir);
    removeDir(dataDir);
  }
});

/** Room for a cluster (initdb's files, a WAL segment or two of 16 MiB), the service's database and a document. */
const CLUSTER_DISK_SIZE = '128m';
/** How long the server may take to stop after its PANIC (its restart fails too, for the same want of WAL room). */
const SERVER_DOWN_TIMEOUT_MS = 60_000;

/** Waits until `condition` holds, checking every few milliseconds; fails after `timeoutMs`. */
async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('PostgreSQL: its WAL disk full: the server PANICs and stays down, every route answers 503 store_unavailable with Retry-After (never 500), nothing is half-written, and a restarted server serves again', async () => {
  const diskDir = mountSmallDisk(CLUSTER_DISK_SIZE, mkdtempSync(join(tmpdir(), 'hds-pg-wal-full-')));
  const owner = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  chownSync(diskDir, owner('-u'), owner('-g'));
  const dataDir = tempDataDir();
  let cluster: PostgresCluster | undefined;
  let server: ChildServer | undefined;
  try {
    // The whole cluster, WAL included, on the small disk.
    cluster = await startPostgresCluster({ at: diskDir });
    const databaseUrl = await cluster.createDatabase();
    const database = new URL(databaseUrl).pathname.slice(1);
    server = await spawnServer(baseEnv(dataDir, { STORE: 'postgres', DATABASE_URL: databaseUrl, API_PROCESSES: '1', RATE_LIMIT_PER_MINUTE: '1000', SEARCH_RATE_LIMIT_PER_MINUTE: '1000' }));
    const { url } = server;
    const first = await uploadFile(url, KEYS.alpha, { document_id: 'doc-1' }, { name: 'tika_multi-language.txt', bytes: TEXT, type: 'text/plain' });
    assert.equal(first.status, 202);
    assert.equal((await waitForJob(url, KEYS.alpha, first.json.job_id)).status, 'completed');
    const before = await api(url, '/document/doc-1/text', { key: KEYS.alpha });
    assert.equal(before.status, 200);
    const jobs = async () => asSuperuser(cluster!.superuserUrl(database), async (client) => Number((await client.query('SELECT COUNT(*) AS n FROM jobs')).rows[0].n));
    const jobsBefore = await jobs();

    // Fill the disk, then make PostgreSQL need a new WAL segment: a WAL record, then a switch to the next
    // segment, until one cannot be created. Where the PANIC happens is thereby placed: in this session, not
    // in a request of the service (an ordinary write first fails on its table, 53100, as the test above shows).
    const filler = join(diskDir, 'filler');
    fillDisk(filler);
    const pidFile = join(diskDir, 'data', 'postmaster.pid');
    const admin = new pg.Client({ connectionString: cluster.superuserUrl('postgres') });
    admin.on('error', () => {}); // the PANIC ends this connection: the failed query says so
    await admin.connect();
    let panic: Error | null = null;
    try {
      for (let segment = 0; segment < 100 && panic === null; segment++) {
        await admin.query("SELECT pg_logical_emit_message(true, 'full-disk', repeat('x', 1000))");
        await admin.query('SELECT pg_switch_wal()');
      }
    } catch (error) {
      panic = error as Error;
    }
    await admin.end().catch(() => {});
    assert.ok(panic, 'a new WAL segment did not fit');
    // Crash recovery needs WAL room too: the server stops for good until an operator frees space.
    await until(() => !existsSync(pidFile), SERVER_DOWN_TIMEOUT_MS, 'the server stopping');

    // Every route answers a retryable 503 naming PostgreSQL: writes and reads alike (nothing serves without it).
    const answers = {
      'a JSON upload': await uploadText(url, KEYS.alpha, { document_id: 'doc-3', text: 'a later upload' }),
      'a file upload': await uploadFile(url, KEYS.alpha, { document_id: 'doc-2' }, { name: 'moh_facilities_master.csv', bytes: CSV, type: 'text/csv' }),
      search: await api(url, '/search', { key: KEYS.alpha, body: SEARCH }),
      text: await api(url, '/document/doc-1/text', { key: KEYS.alpha }),
      status: await api(url, `/status/${first.json.job_id}`, { key: KEYS.alpha }),
      'a hard delete': await api(url, '/document/doc-1?mode=hard', { method: 'DELETE', key: KEYS.alpha }),
    };
    for (const [what, answer] of Object.entries(answers)) {
      assert.equal(answer.status, 503, `${what}: ${answer.status} ${JSON.stringify(answer.json)}`);
      assert.equal(answer.json.error_code, 'store_unavailable', what);
      assert.equal(answer.headers.get('retry-after'), String(STORE_UNAVAILABLE_RETRY_AFTER_SECONDS), `${what} carries Retry-After`);
      assert.equal(answer.json.details.storage, 'postgresql', what);
    }
    const health = await api(url, '/health', { key: null });
    assert.notEqual(health.status, 500, health.text);
    assert.equal(health.json.components.state_store, 'error', health.text);

    // Space freed and the server started again (its crash recovery replays the WAL): the service reconnects by
    // itself, the refused requests left nothing, and writes work.
    rmSync(filler);
    cluster.start();
    assert.equal(await jobs(), jobsBefore, 'no job was recorded for a refused request');
    const text = await api(url, '/document/doc-1/text', { key: KEYS.alpha });
    assert.equal(text.status, 200, text.text);
    assert.deepEqual(text.json.chunks.map((chunk: any) => chunk.text), before.json.chunks.map((chunk: any) => chunk.text), 'the document is intact');
    const list = await api(url, '/documents', { key: KEYS.alpha });
    assert.deepEqual(list.json.documents.map((row: any) => row.document_id), ['doc-1']);
    const again = await uploadFile(url, KEYS.alpha, { document_id: 'doc-2' }, { name: 'moh_facilities_master.csv', bytes: CSV, type: 'text/csv' });
    assert.equal(again.status, 202, JSON.stringify(again.json));
    assert.equal((await waitForJob(url, KEYS.alpha, again.json.job_id, { timeoutMs: 120_000 })).status, 'completed');
  } finally {
    await server?.stop();
    cluster?.stop();
    unmount(diskDir);
    removeDir(dataDir);
  }
});
