// A hard delete leaves no copy under DATA_DIR (SPEC.md document visibility: irreversible): after it, no file of
// the data directory holds the deleted documents' text, their index terms or the uploaded file's bytes: not the
// databases (SQLite overwrites what it deletes and checkpoints its write-ahead log), not the segment cache, not
// the uploads. Checked on the running service right after the delete, by a process that never loaded the Client,
// and again after a restart over files that a host which did not see the delete left behind. On PostgreSQL the
// files under DATA_DIR are caches only (the database's dead tuples are VACUUM's business).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { api, KEYS, removeDir, startTestServer, tempDataDir, uploadFile, uploadText, waitForJob } from '../helpers/server.ts';
import { until } from '../helpers/processes.ts';
import { storeEnv, TEST_STORE } from '../helpers/test-store.ts';

const CORPUS = new URL('../../../shared/corpus/', import.meta.url).pathname;
/** Filler enough for one segment of the segment cache (SEGMENT_CACHE_MIN_ROWS, 4,096 rows) at 100-character chunks. */
const FILLER = 'txt/moh_facilities_master.csv';
/** A real bank statement (MT940), deleted for good. */
const STATEMENT = 'txt/mt940_ASNB_0708271685_09022020_164516.940.txt';
/** An invented word of the text upload deleted for good: its own stem, found nowhere else. */
const SECRET_WORD = 'qorvexmund';
/** Words of the statement that the filler does not hold (as indexed: lower case). */
const STATEMENT_TERMS = ['paulissen', 'sieraden'];

const SETTINGS = { API_PROCESSES: '1', WORKER_PROCESSES: '1', CHUNK_TARGET_CHARS: '100', CHUNK_OVERLAP_CHARS: '0', DOCUMENT_MAX_CHUNKS: '10000' };

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path, { throwIfNoEntry: false })?.isFile());
}

/** The files under `dir` holding any of the needles, with the needles each holds. */
function copiesUnder(dir: string, needles: Buffer[]): string[] {
  const found: string[] = [];
  for (const path of filesUnder(dir)) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch {
      continue; // removed while walking (a process's temporary file)
    }
    const held = needles.filter((needle) => bytes.includes(needle));
    if (held.length > 0) found.push(`${path.slice(dir.length + 1)}: ${held.map(String).join(', ')}`);
  }
  return found;
}

test('after a hard delete, no file under DATA_DIR holds the documents\' text, terms or uploaded bytes, on the running service and after a restart', { timeout: 600_000 }, async () => {
  const dataDir = tempDataDir();
  const statement = readFileSync(join(CORPUS, STATEMENT));
  // The statement's first line as uploaded: its bytes, and its text once parsed.
  const statementSlice = statement.subarray(0, statement.indexOf('\n'));
  const needles = [Buffer.from(SECRET_WORD), ...STATEMENT_TERMS.map((term) => Buffer.from(term)), statementSlice];
  try {
    const first = await startTestServer(SETTINGS, dataDir);
    try {
      const uploads = [
        await uploadFile(first.url, KEYS.alpha, { document_id: 'facilities' }, { name: 'facilities.csv', bytes: readFileSync(join(CORPUS, FILLER)), type: 'text/csv' }),
        await uploadFile(first.url, KEYS.alpha, { document_id: 'statement' }, { name: 'statement.txt', bytes: statement, type: 'text/plain' }),
        await uploadText(first.url, KEYS.alpha, { document_id: 'memo', text: `Escrow memorandum ${SECRET_WORD} for the Tawau branch, held in trust.` }),
      ];
      for (const accepted of uploads) assert.equal((await waitForJob(first.url, KEYS.alpha, accepted.json.job_id, { timeoutMs: 300_000 })).status, 'completed');
    } finally {
      await first.close();
    }

    // A load of the whole Client makes one segment of every document, written to the segment cache at the latest on
    // stop (the cache is emptied first, as it may be at any time: else the load would read back the filler's file).
    rmSync(join(dataDir, 'segments'), { recursive: true, force: true });
    const loader = await startTestServer(SETTINGS, dataDir);
    try {
      const found = await api(loader.url, '/search', { key: KEYS.alpha, body: { query: SECRET_WORD } });
      assert.equal(found.status, 200, found.text);
      assert.equal(found.json.results[0].document_version.document_id, 'memo');
    } finally {
      await loader.close();
    }
    const cached = copiesUnder(join(dataDir, 'segments'), [Buffer.from(SECRET_WORD)]);
    assert.ok(cached.length > 0, 'the segment cache holds the memo before the delete (else this test would prove nothing)');
    // What a host that never sees the delete keeps: put back after it, as a crash before the sweep would leave it.
    const staleCopy = tempDataDir();
    cpSync(join(dataDir, 'segments'), staleCopy, { recursive: true });

    // A process that has not loaded the Client deletes both for good; its host's caches are clean at once. With no
    // worker running, the statement uploaded again waits unparsed: its file goes with its job.
    const deleter = await startTestServer({ ...SETTINGS, WORKER_PROCESSES: '0' }, dataDir);
    try {
      const again = await uploadFile(deleter.url, KEYS.alpha, { document_id: 'statement' }, { name: 'statement.txt', bytes: statement, type: 'text/plain' });
      assert.equal(again.status, 202);
      if (TEST_STORE === 'sqlite') assert.ok(copiesUnder(join(dataDir, 'uploads'), [statementSlice]).length > 0, 'the waiting upload is a file');
      for (const documentId of ['memo', 'statement']) {
        const deleted = await api(deleter.url, `/document/${documentId}?mode=hard`, { method: 'DELETE', key: KEYS.alpha });
        assert.equal(deleted.status, 200, deleted.text);
        assert.equal(deleted.json.status, 'hard_deleted');
      }
      assert.deepEqual(copiesUnder(dataDir, needles), [], 'no copy while the service runs');
    } finally {
      await deleter.close();
    }

    cpSync(staleCopy, join(dataDir, 'segments'), { recursive: true });
    rmSync(staleCopy, { recursive: true, force: true });
    assert.ok(copiesUnder(join(dataDir, 'segments'), [Buffer.from(SECRET_WORD)]).length > 0, 'the stale file is back');
    const restarted = await startTestServer(SETTINGS, dataDir);
    try {
      assert.deepEqual(copiesUnder(dataDir, needles), [], 'no copy after a restart: the start-up sweep removed what a host that did not see the delete kept');
      const gone = await api(restarted.url, '/search', { key: KEYS.alpha, body: { query: SECRET_WORD } });
      assert.equal(gone.status, 200, gone.text);
      assert.ok(gone.json.results.every((row: any) => row.document_version.document_id === 'facilities'));
      const kept = await api(restarted.url, '/search', { key: KEYS.alpha, body: { query: 'Hospital Alor Gajah', alpha: 0 } });
      assert.equal(kept.status, 200, kept.text);
      assert.equal(kept.json.results[0].document_version.document_id, 'facilities', 'the documents kept still serve');
    } finally {
      await restarted.close();
    }
    assert.deepEqual(copiesUnder(dataDir, needles), [], 'no copy once stopped');
  } finally {
    removeDir(dataDir);
  }
});

test('PostgreSQL: a host whose process does not serve the Client clears its caches when another host hard-deletes a document', { timeout: 600_000, skip: TEST_STORE !== 'postgres' ? 'needs the suites on PostgreSQL (TEST_STORE=postgres): separate hosts share no SQLite files' : false }, async () => {
  const hostA = tempDataDir();
  const hostB = tempDataDir();
  // Two hosts: one database, a DATA_DIR each.
  const settings = { ...SETTINGS, ...storeEnv(hostA) };
  try {
    const a = await startTestServer(settings, hostA);
    try {
      const uploads = [
        await uploadFile(a.url, KEYS.alpha, { document_id: 'facilities' }, { name: 'facilities.csv', bytes: readFileSync(join(CORPUS, FILLER)), type: 'text/csv' }),
        await uploadText(a.url, KEYS.alpha, { document_id: 'memo', text: `Escrow memorandum ${SECRET_WORD} for the Tawau branch, held in trust.` }),
      ];
      for (const accepted of uploads) assert.equal((await waitForJob(a.url, KEYS.alpha, accepted.json.job_id, { timeoutMs: 300_000 })).status, 'completed');
      // Host B loads the Client (one segment of both documents, in its segment cache once stopped).
      const loader = await startTestServer({ ...settings, WORKER_PROCESSES: '0' }, hostB);
      try {
        assert.equal((await api(loader.url, '/search', { key: KEYS.alpha, body: { query: SECRET_WORD } })).json.results[0].document_version.document_id, 'memo');
      } finally {
        await loader.close();
      }
      assert.ok(copiesUnder(join(hostB, 'segments'), [Buffer.from(SECRET_WORD)]).length > 0, 'host B caches the memo');
      // Host B runs again without serving the Client; host A deletes the memo for good.
      const b = await startTestServer({ ...settings, WORKER_PROCESSES: '0' }, hostB);
      try {
        const deleted = await api(a.url, '/document/memo?mode=hard', { method: 'DELETE', key: KEYS.alpha });
        assert.equal(deleted.status, 200, deleted.text);
        await until('host B has cleared its copy', () => copiesUnder(hostB, [Buffer.from(SECRET_WORD)]).length === 0, 60_000);
        assert.deepEqual(copiesUnder(hostA, [Buffer.from(SECRET_WORD)]), []);
        const kept = await api(b.url, '/search', { key: KEYS.alpha, body: { query: 'Hospital Alor Gajah', alpha: 0 } });
        assert.equal(kept.json.results[0].document_version.document_id, 'facilities', 'host B still serves what is kept');
      } finally {
        await b.close();
      }
    } finally {
      await a.close();
    }
  } finally {
    removeDir(hostA);
    removeDir(hostB);
  }
});
