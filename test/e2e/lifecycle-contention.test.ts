// Lifecycle contention (SPEC.md DELETE rules 2-4): a held fence makes a second request wait, then answer
// 503 publication_busy before changing anything; contention mid-way reports changed and pending versions,
// and repeating the request finishes it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, api, KEYS, removeDir, uploadText, waitForJob } from '../helpers/server.ts';

test('a request that cannot get the fence in time is refused before any version changes', async () => {
  const server = await startTestServer({ PUBLICATION_LIFECYCLE_FENCE_WAIT_SECONDS: '0.2', FAULT_LIFECYCLE_STEP_DELAY_MS: '600' });
  try {
    for (const version of ['v1', 'v2']) {
      const accepted = await uploadText(server.url, KEYS.alpha, { document_id: 'held', version_id: version, text: `Standing order ${version}.` });
      await waitForJob(server.url, KEYS.alpha, accepted.json.job_id);
    }
    const accepted = await uploadText(server.url, KEYS.alpha, { document_id: 'other', text: 'Unrelated letter.' });
    await waitForJob(server.url, KEYS.alpha, accepted.json.job_id);

    const first = api(server.url, '/document/held', { method: 'DELETE', key: KEYS.alpha });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second = await api(server.url, '/document/other', { method: 'DELETE', key: KEYS.alpha });
    assert.equal(second.status, 503);
    assert.equal(second.json.error_code, 'publication_busy');
    assert.equal(second.headers.get('retry-after'), '1');
    assert.equal((await api(server.url, '/document/other/text', { key: KEYS.alpha })).status, 200, 'nothing changed');
    assert.equal((await first).status, 200);
    assert.equal((await api(server.url, '/document/other', { method: 'DELETE', key: KEYS.alpha })).status, 200, 'the retry succeeds');
  } finally {
    await server.close();
    removeDir(server.dataDir);
  }
});

test('contention after some versions changed reports changed and pending versions; repeating finishes it', async () => {
  const server = await startTestServer({ FAULT_LIFECYCLE_STEP_DELAY_MS: '700' });
  try {
    for (const version of ['v1', 'v2', 'v3']) {
      const accepted = await uploadText(server.url, KEYS.alpha, { document_id: 'multi', version_id: version, text: `Loan schedule ${version}.` });
      await waitForJob(server.url, KEYS.alpha, accepted.json.job_id);
    }
    const pending = api(server.url, '/document/multi', { method: 'DELETE', key: KEYS.alpha });
    await new Promise((resolve) => setTimeout(resolve, 300)); // v1 is republished, the request pauses
    await api(server.url, '/admin/authority/mode', { key: KEYS.operator, body: { mode: 'MAINTENANCE' } });
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
    await server.close();
    removeDir(server.dataDir);
  }
});
