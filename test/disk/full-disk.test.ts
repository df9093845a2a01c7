// A full disk loses nothing and says so (issue 45, item 10): the service runs with DATA_DIR on a small tmpfs
// mounted for the test, which is then filled. Writes that do not fit are refused whole (507 storage_full with
// Retry-After, naming the storage) and change nothing, no upload is kept cut short, the reads that need no
// write (search, list, text, status) keep answering, /health reports the state store degraded, and once space
// is freed the service works again without a restart. The service runs on SQLite whatever the suite's store
// (its files are what fill); a full PostgreSQL disk is postgres-full-disk.test.ts. Mounting needs root.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { api, baseEnv, KEYS, removeDir, spawnServer, tempDataDir, uploadFile, uploadText, waitForJob } from '../helpers/server.ts';
import type { ChildServer } from '../helpers/server.ts';
import { assertStorageFull, fillDisk, mountSmallDisk, unmount } from '../helpers/small-disk.ts';

/** Room for a started service and two small documents, with WAL files that grow to SQLite's 4 MiB checkpoint. */
const TMPFS_SIZE = '48m';
const CSV = readFileSync(new URL('../../../shared/corpus/txt/moh_facilities_master.csv', import.meta.url));
const TEXT = readFileSync(new URL('../../../shared/corpus/txt/tika_multi-language.txt', import.meta.url));

/** Free space left for the upload that does not fit: less than the file (426,547 bytes), more than nothing. */
const ROOM_LEFT_BYTES = 128 * 1024;

/** Jobs recorded in control.db (read only: a write would not fit). */
function jobCount(dataDir: string): number {
  const db = new DatabaseSync(join(dataDir, 'control.db'), { readOnly: true });
  try {
    return (db.prepare('SELECT COUNT(*) AS n FROM jobs').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

const SEARCH = { query: 'internship retainer', scope: 'content' };

test('a full disk: writes are refused whole with 507 and Retry-After, reads keep answering, health degrades, and freeing space recovers', async (t) => {
  const dataDir = mountSmallDisk(TMPFS_SIZE, mkdtempSync(join(tmpdir(), 'hds-full-disk-')));
  let server: ChildServer | undefined;
  try {
    // Per-request budget decisions (under the batch room of 1,024): every request asks the store, which is full.
    server = await spawnServer(baseEnv(dataDir, { STORE: 'sqlite', API_PROCESSES: '1', RATE_LIMIT_PER_MINUTE: '1000', SEARCH_RATE_LIMIT_PER_MINUTE: '1000' }));
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

    // Less room than the file: a write stores part of it and the next one fails. The upload is refused whole.
    const filler = join(dataDir, 'filler');
    const filled = fillDisk(filler);
    assert.ok(filled > ROOM_LEFT_BYTES, 'the disk took the filler');
    truncateSync(filler, filled - ROOM_LEFT_BYTES);
    const jobsBefore = jobCount(dataDir);
    const larger = await uploadFile(url, KEYS.alpha, { document_id: 'doc-2' }, { name: 'moh_facilities_master.csv', bytes: CSV, type: 'text/csv' });
    assertStorageFull(larger, 'uploads', 'a file upload larger than the free space');
    assert.deepEqual(readdirSync(join(dataDir, 'uploads')), [], 'no upload file, whole or cut short, is left behind');
    assert.equal(jobCount(dataDir), jobsBefore, 'no job was recorded for the refused upload');
    // And now no room at all.
    fillDisk(join(dataDir, 'filler-rest'));

    // Reads that need no write answer from the intact data, as before.
    const search = await api(url, '/search', { key: KEYS.alpha, body: SEARCH });
    assert.equal(search.status, 200, search.text);
    assert.deepEqual(search.json.results.map((row: any) => row.document_version), before.search.json.results.map((row: any) => row.document_version));
    const text = await api(url, '/document/doc-1/text', { key: KEYS.alpha });
    assert.equal(text.status, 200, text.text);
    assert.deepEqual(text.json.chunks.map((chunk: any) => chunk.text), before.text.json.chunks.map((chunk: any) => chunk.text));
    const list = await api(url, '/documents', { key: KEYS.alpha });
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.json.documents.map((row: any) => row.document_id), ['doc-1']);
    const status = await api(url, `/status/${first.json.job_id}`, { key: KEYS.alpha });
    assert.equal(status.status, 200, status.text);
    assert.equal(status.json.status, 'completed');

    // The state store is degraded, and /health still answers 200 (serving is safe).
    const health = await api(url, '/health', { key: null });
    assert.equal(health.status, 200, health.text);
    assert.equal(health.json.components.state_store, 'error', health.text);
    assert.equal(health.json.status, 'degraded');

    // A file upload larger than the free space: refused whole, nothing kept, no job recorded.
    const upload = await uploadFile(url, KEYS.alpha, { document_id: 'doc-2' }, { name: 'moh_facilities_master.csv', bytes: CSV, type: 'text/csv' });
    assertStorageFull(upload, 'uploads', 'a file upload');
    assert.deepEqual(readdirSync(join(dataDir, 'uploads')), [], 'no upload file, whole or cut short, is left behind');
    // A JSON upload whose text cannot fit in control.db: refused whole too.
    const json = await uploadText(url, KEYS.alpha, { document_id: 'doc-3', text: CSV.toString('utf8').repeat(12) });
    assertStorageFull(json, 'sqlite', 'a JSON upload');
    assert.equal(jobCount(dataDir), jobsBefore, 'no job was recorded for a refused upload');
    // Nothing a refused request did is visible.
    const after = await api(url, '/documents', { key: KEYS.alpha });
    assert.deepEqual(after.json.documents.map((row: any) => row.document_id), ['doc-1']);

    // A hard delete on the full disk: refused whole (507: still there), or stopped after it was journaled and
    // hidden (503 publication_purge_timeout: resumable), or done; never a 500, and never an error after it is done.
    const hard = await api(url, '/document/doc-1?mode=hard', { method: 'DELETE', key: KEYS.alpha });
    assert.ok([200, 503, 507].includes(hard.status), `hard delete on a full disk: ${hard.status} ${hard.text}`);
    if (hard.status === 507) {
      assertStorageFull(hard, 'sqlite', 'a hard delete');
      assert.equal((await api(url, '/document/doc-1/text', { key: KEYS.alpha })).status, 200, 'a refused delete changed nothing');
    }
    if (hard.status === 503) assert.equal(hard.json.error_code, 'publication_purge_timeout', hard.text);
    t.diagnostic(`hard delete on the full disk answered ${hard.status}`);

    // Space comes back: writes work again without a restart, and the upload refused before is stored whole.
    rmSync(filler);
    rmSync(join(dataDir, 'filler-rest'));
    const again = await uploadFile(url, KEYS.alpha, { document_id: 'doc-2' }, { name: 'moh_facilities_master.csv', bytes: CSV, type: 'text/csv' });
    assert.equal(again.status, 202, JSON.stringify(again.json));
    const againJob = await waitForJob(url, KEYS.alpha, again.json.job_id, { timeoutMs: 120_000 });
    assert.equal(againJob.status, 'completed', JSON.stringify(againJob));
    const stored = await api(url, '/document/doc-2/text', { key: KEYS.alpha });
    assert.equal(stored.status, 200);
    const storedText = stored.json.chunks.map((chunk: any) => chunk.text).join('\n');
    // The file's last bytes are indexed (its last cell and the name on its last row): the text was not cut short.
    const lastRow = CSV.toString('utf8').trim().split('\n').at(-1)!.split(',');
    for (const cell of [lastRow.at(-1)!, lastRow[4]]) assert.ok(storedText.includes(cell), `the stored text holds ${cell} of the file's last row`);
    // The hard delete finishes (repeated when it did not before); the document is gone.
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
    unmount(dataDir);
  }
});

test('uploads on a small disk of their own (control.db elsewhere): an upload larger than the free space is refused whole, never accepted cut short', async () => {
  const dataDir = tempDataDir();
  const uploads = mountSmallDisk('1m', join(dataDir, 'uploads'));
  let server: ChildServer | undefined;
  try {
    server = await spawnServer(baseEnv(dataDir, { STORE: 'sqlite', API_PROCESSES: '1' }));
    const filler = join(uploads, 'filler');
    truncateSync(filler, Math.max(0, fillDisk(filler) - ROOM_LEFT_BYTES));
    const jobsBefore = jobCount(dataDir);
    const upload = await uploadFile(server.url, KEYS.alpha, { document_id: 'doc-1' }, { name: 'moh_facilities_master.csv', bytes: CSV, type: 'text/csv' });
    assertStorageFull(upload, 'uploads', 'a file upload larger than the free space');
    assert.deepEqual(readdirSync(uploads), ['filler'], 'no upload file, whole or cut short, is left behind');
    assert.equal(jobCount(dataDir), jobsBefore, 'no job was recorded');
    // A file that fits is stored whole and indexed.
    const small = await uploadFile(server.url, KEYS.alpha, { document_id: 'doc-2' }, { name: 'tika_multi-language.txt', bytes: TEXT, type: 'text/plain' });
    assert.equal(small.status, 202, JSON.stringify(small.json));
    assert.equal((await waitForJob(server.url, KEYS.alpha, small.json.job_id)).status, 'completed');
  } finally {
    await server?.stop();
    unmount(uploads);
    removeDir(dataDir);
  }
});
