// SPEC.md: a read whose snapshot cannot catch up with the publication log in time answers 503
// publication_unavailable with Retry-After 1 (never a stale or partial answer), and the load goes on: the
// Client answers once it is loaded. Here the deadline (READ_CATCH_UP_TIMEOUT_MS, 10 ms) is far below what
// loading a Client of 5,000 chunks takes (its segment thread alone starts in more than that).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { api, KEYS, removeDir, startTestServer, tempDataDir } from '../helpers/server.ts';
import { seedVersions } from '../helpers/seed.ts';
import { until } from '../helpers/processes.ts';

const CHUNKS = 5_000;

test('a read that cannot catch up in time is 503 publication_unavailable with Retry-After 1, and answers once loaded', async () => {
  const dataDir = tempDataDir();
  const chunks = Array.from({ length: CHUNKS }, (_, i) => `Ledger line ${i}: transfer of RM ${i * 7} to account ${1000 + i}.`);
  await seedVersions(dataDir, 'client-alpha', 'ledger', [{ versionId: 'v1', text: chunks.join('\n'), chunks }]);
  const server = await startTestServer({ API_PROCESSES: '1', READ_CATCH_UP_TIMEOUT_MS: '10' }, dataDir);
  try {
    const late = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'ledger transfer' } });
    assert.equal(late.status, 503, late.text);
    assert.equal(late.json.error_code, 'publication_unavailable');
    assert.equal(late.headers.get('retry-after'), '1');
    assert.equal('results' in late.json, false, 'never a partial answer');
    const answered = await until('the Client to load', async () => {
      const search = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'ledger transfer', limit: 1 } });
      return search.status === 200 ? search : null;
    });
    assert.deepEqual(answered.json.results.map((row: any) => row.document_version.document_id), ['ledger']);
  } finally {
    await server.close();
    removeDir(dataDir);
  }
});
