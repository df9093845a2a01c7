// A missing or unreadable publication authority record is corrupted publication state: /health answers 503
// (publication unavailable, authority_unreadable) and every read fails closed with 503 and Retry-After 1,
// never a 500 and never an answer served as current. The record is damaged in the real store (control.db, or
// PostgreSQL's shared tables) while the service runs, as an operator's mistake or a damaged disk would leave it.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { api, KEYS, removeDir, startTestServer, uploadText, waitForJob } from '../helpers/server.ts';
import type { TestServer } from '../helpers/server.ts';
import { fresh } from '../helpers/processes.ts';
import { controlSql } from '../helpers/test-store.ts';

let server: TestServer;

before(async () => {
  server = await startTestServer({ API_PROCESSES: '2' });
  const accepted = await uploadText(server.url, KEYS.alpha, { document_id: 'ledger', text: 'Quarterly ledger for the Ipoh office.' });
  assert.equal((await waitForJob(server.url, KEYS.alpha, accepted.json.job_id)).status, 'completed');
});

after(async () => {
  await server.close();
  removeDir(server.dataDir);
});

/** Statements on the store's shared tables, beside the running service, in order. */
async function control(...statements: string[]): Promise<void> {
  for (const sql of statements) await controlSql(server.dataDir, sql);
}

async function assertFailsClosed(): Promise<void> {
  // Fresh connections reach every api process in turn.
  for (let i = 0; i < 4; i++) {
    const health = await fresh(server.url, '/health');
    assert.equal(health.status, 503, JSON.stringify(health.json));
    assert.equal(health.json.components.publication, 'error');
    assert.equal(health.json.publishing.reason, 'authority_unreadable');
  }
  const reads = [
    await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'quarterly ledger' } }),
    await api(server.url, '/documents', { key: KEYS.alpha }),
    await api(server.url, '/document/ledger/text', { key: KEYS.alpha }),
  ];
  for (const read of reads) {
    assert.equal(read.status, 503, read.text);
    assert.equal(read.headers.get('retry-after'), '1');
  }
  assert.equal(reads[0].json.error_code, 'publication_authority_inconsistent');
}

test('a missing authority record: health 503, reads 503 with Retry-After 1', async () => {
  assert.equal((await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'quarterly ledger' } })).status, 200);
  await control('DELETE FROM authority');
  await assertFailsClosed();
});

test('an authority table that cannot be read: health 503, reads 503 with Retry-After 1; a repaired record serves again', async () => {
  await control('ALTER TABLE authority RENAME TO authority_damaged');
  await assertFailsClosed();
  await control('ALTER TABLE authority_damaged RENAME TO authority', `INSERT INTO authority (id, mode, authority_id, changed_at) VALUES (1, 'READY', 'repaired', '2026-01-01T00:00:00.000Z')`);
  const search = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'quarterly ledger' } });
  assert.equal(search.status, 200, search.text);
  assert.deepEqual(search.json.results.map((row: any) => row.document_version.document_id), ['ledger']);
});

test('a missing record stays missing across a restart of the service, until an operator sets a mode', async () => {
  await control('DELETE FROM authority');
  await server.close();
  // The whole service starts again over the same store: no process may recreate the record on its own.
  server = await startTestServer({ API_PROCESSES: '2' }, server.dataDir);
  await assertFailsClosed();
  const repaired = await api(server.url, '/admin/authority/mode', { key: KEYS.operator, body: { mode: 'READY' } });
  assert.equal(repaired.status, 200, repaired.text);
  assert.equal((await fresh(server.url, '/health')).status, 200);
  const search = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'quarterly ledger' } });
  assert.equal(search.status, 200, search.text);
  assert.deepEqual(search.json.results.map((row: any) => row.document_version.document_id), ['ledger']);
});
