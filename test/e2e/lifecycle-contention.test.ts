// Lifecycle contention (SPEC.md DELETE rules 2-4): a held fence makes a second request wait, then answer
// 503 publication_busy before changing anything; contention mid-way reports changed and pending versions,
// and repeating the request finishes it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, api, KEYS, removeDir, uploadText, waitForJob } from '../helpers/server.ts';
import { until } from '../helpers/processes.ts';
import { fenceName } from '../../src/publication/fence.ts';
import { openTestStorage } from '../helpers/test-store.ts';
import { FaultHolds } from '../helpers/faults.ts';

test('a request that cannot get the fence in time is refused before any version changes', async () => {
  const server = await startTestServer({ PUBLICATION_LIFECYCLE_FENCE_WAIT_SECONDS: '0.2' });
  // The store as another api process opens it (SQLite's control database, or the PostgreSQL database).
  const storage = await openTestStorage(server.dataDir);
  try {
    const accepted = await uploadText(server.url, KEYS.alpha, { document_id: 'other', text: 'Unrelated letter.' });
    await waitForJob(server.url, KEYS.alpha, accepted.json.job_id);
    // Another api process's lifecycle request holds the Client's fence (a lease in the shared store) for as long
    // as the test needs; fence.test.ts shows two fences taking turns.
    assert.equal(await storage.authority.acquireLease(fenceName('client-alpha'), 'another-api-process', 600_000), true);
    const refused = await api(server.url, '/document/other', { method: 'DELETE', key: KEYS.alpha });
    assert.equal(refused.status, 503);
    assert.equal(refused.json.error_code, 'publication_busy');
    assert.equal(refused.headers.get('retry-after'), '1');
    assert.equal((await api(server.url, '/document/other/text', { key: KEYS.alpha })).status, 200, 'nothing changed');
    await storage.authority.releaseLease(fenceName('client-alpha'), 'another-api-process');
    assert.equal((await api(server.url, '/document/other', { method: 'DELETE', key: KEYS.alpha })).status, 200, 'the retry succeeds');
  } finally {
    await storage.end();
    await server.close();
    removeDir(server.dataDir);
  }
});

test('contention after some versions changed reports changed and pending versions; repeating finishes it', async () => {
  // Each version step of the delete is held after it until the test lets it go on: the test sees v1 changed and
  // sets MAINTENANCE while the delete waits before v2's step, however long that takes.
  const holds = new FaultHolds(['lifecycle-step']);
  const server = await startTestServer(holds.env());
  try {
    for (const version of ['v1', 'v2', 'v3']) {
      const accepted = await uploadText(server.url, KEYS.alpha, { document_id: 'multi', version_id: version, text: `Loan schedule ${version}.` });
      await waitForJob(server.url, KEYS.alpha, accepted.json.job_id);
    }
    const pending = api(server.url, '/document/multi', { method: 'DELETE', key: KEYS.alpha });
    await holds.reached('lifecycle-step');
    await until('v1 to be republished deleted', async () => {
      const list = await api(server.url, '/documents?include_deleted=true', { key: KEYS.alpha });
      return list.json.documents.some((row: any) => row.version_id === 'v1' && row.deleted === true);
    });
    await api(server.url, '/admin/authority/mode', { key: KEYS.operator, body: { mode: 'MAINTENANCE' } });
    holds.open('lifecycle-step');
    const stopped = await pending;
    assert.equal(stopped.status, 503);
    assert.equal(stopped.json.error_code, 'publication_busy');
    assert.equal(stopped.headers.get('retry-after'), '1');
    assert.deepEqual(stopped.json.details.changed_versions, ['v1']);
    assert.deepEqual(stopped.json.details.pending_versions, ['v2', 'v3']);
    assert.equal(stopped.json.details.code, 'publication_busy');

    await api(server.url, '/admin/authority/mode', { key: KEYS.operator, body: { mode: 'READY' } });
    const repeated = await api(server.url, '/document/multi', { method: 'DELETE', key: KEYS.alpha });
    assert.equal(repeated.status, 200);
    const list = await api(server.url, '/documents?include_deleted=true', { key: KEYS.alpha });
    assert.deepEqual(list.json.documents.map((row: any) => row.deleted), [true, true, true]);
  } finally {
    holds.remove();
    await server.close();
    removeDir(server.dataDir);
  }
});
