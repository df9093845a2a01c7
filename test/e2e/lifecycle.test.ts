import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useTestServer, startTestServer, api, KEYS, removeDir, uploadText, waitForJob, spawnServer, baseEnv, tempDataDir, sendRaw } from '../helpers/server.ts';
import { until } from '../helpers/processes.ts';
import { FaultHolds, faultPauses } from '../helpers/faults.ts';

const server = useTestServer();

async function ingest(url: string, key: string, documentId: string, versionId: string, text: string) {
  const accepted = await uploadText(url, key, { document_id: documentId, version_id: versionId, text });
  const job = await waitForJob(url, key, accepted.json.job_id);
  assert.equal(job.status, 'completed', JSON.stringify(job));
  return accepted.json.job_id as string;
}

const versionsFound = async (url: string, key: string, query: string, includeDeleted = false) => {
  const response = await api(url, '/search', { key, body: { query, include_deleted: includeDeleted, limit: 50 } });
  assert.equal(response.status, 200, response.text);
  return response.json.results.map((row: any) => `${row.document_version.document_id}@${row.document_version.version_id}`).sort();
};

test('soft delete hides a version from list, text and search; restore brings it back', async () => {
  await ingest(server.url, KEYS.alpha, 'policy', 'v1', 'Overdraft policy version one for corporate accounts.');
  await ingest(server.url, KEYS.alpha, 'policy', 'v2', 'Overdraft policy version two for corporate accounts.');
  assert.deepEqual(await versionsFound(server.url, KEYS.alpha, 'overdraft policy'), ['policy@v1', 'policy@v2']);

  const deleted = await api(server.url, '/document/policy?version_id=v2', { method: 'DELETE', key: KEYS.alpha });
  assert.equal(deleted.status, 200);
  assert.equal(deleted.json.status, 'soft_deleted');
  assert.equal(deleted.json.document_id, 'policy');
  assert.ok(deleted.json.deleted_chunks >= 1);
  assert.deepEqual(await versionsFound(server.url, KEYS.alpha, 'overdraft policy'), ['policy@v1']);
  assert.deepEqual(await versionsFound(server.url, KEYS.alpha, 'overdraft policy', true), ['policy@v1', 'policy@v2']);

  const list = await api(server.url, '/documents?include_deleted=true', { key: KEYS.alpha });
  const v2 = list.json.documents.find((row: any) => row.document_id === 'policy' && row.version_id === 'v2');
  assert.equal(v2.deleted, true);
  assert.equal(v2.deleted_by, 'client-alpha');
  assert.match(v2.deleted_at, /^\d{4}-/);
  const plain = await api(server.url, '/documents', { key: KEYS.alpha });
  assert.equal(plain.json.documents.some((row: any) => row.version_id === 'v2'), false);
  assert.equal(plain.json.documents[0].deleted, undefined, 'deletion fields only with include_deleted');

  // Deleting it again: nothing visible to delete.
  assert.equal((await api(server.url, '/document/policy?version_id=v2', { method: 'DELETE', key: KEYS.alpha })).status, 404);

  const restored = await api(server.url, '/document/policy/restore?version_id=v2', { method: 'POST', key: KEYS.alpha });
  assert.equal(restored.status, 200);
  assert.equal(restored.json.status, 'restored');
  assert.ok(restored.json.restored_chunks >= 1);
  assert.deepEqual(await versionsFound(server.url, KEYS.alpha, 'overdraft policy'), ['policy@v1', 'policy@v2']);
  const after = await api(server.url, '/documents?include_deleted=true', { key: KEYS.alpha });
  const v2After = after.json.documents.find((row: any) => row.version_id === 'v2');
  assert.equal(v2After.deleted, false);
  assert.equal(v2After.deleted_at, null);
});

test('unscoped soft delete and restore cover every version; text reads follow', async () => {
  await ingest(server.url, KEYS.alpha, 'memo', 'a', 'Branch memo about cheque clearing times.');
  await ingest(server.url, KEYS.alpha, 'memo', 'b', 'Branch memo about cheque clearing fees.');
  const deleted = await api(server.url, '/document/memo', { method: 'DELETE', key: KEYS.alpha });
  assert.equal(deleted.json.status, 'soft_deleted');
  assert.deepEqual(await versionsFound(server.url, KEYS.alpha, 'cheque clearing'), []);
  const text = await api(server.url, '/document/memo/text', { key: KEYS.alpha });
  assert.equal(text.status, 404);
  assert.equal(text.json.detail, 'Document not found');
  assert.equal((await api(server.url, '/document/memo/text?include_deleted=true', { key: KEYS.alpha })).status, 200);
  const restored = await api(server.url, '/document/memo/restore', { method: 'POST', key: KEYS.alpha });
  assert.equal(restored.status, 200);
  assert.deepEqual(await versionsFound(server.url, KEYS.alpha, 'cheque clearing'), ['memo@a', 'memo@b']);
});

test('hard delete removes every generation and the job bindings; the job id then answers 404', async () => {
  const jobId = await ingest(server.url, KEYS.alpha, 'gone', 'v1', 'Temporary remittance slip for shipment 8812.');
  // Soft first (hard includes soft-deleted), and back and forth: every republication leaves a retired generation.
  for (const [method, path] of [['DELETE', '/document/gone'], ['POST', '/document/gone/restore'], ['DELETE', '/document/gone']]) {
    assert.equal((await api(server.url, path, { method, key: KEYS.alpha })).status, 200);
  }
  const hard = await api(server.url, '/document/gone?mode=hard', { method: 'DELETE', key: KEYS.alpha });
  assert.equal(hard.status, 200);
  assert.equal(hard.json.status, 'hard_deleted');
  assert.equal(hard.json.deleted_chunks, 1, 'the chunks the version served, not those of the generations it replaced');
  assert.deepEqual(await versionsFound(server.url, KEYS.alpha, 'remittance slip shipment', true), []);
  assert.equal((await api(server.url, `/status/${jobId}`, { key: KEYS.alpha })).status, 404);
  assert.equal((await api(server.url, '/document/gone/text?include_deleted=true', { key: KEYS.alpha })).status, 404);
  assert.equal((await api(server.url, '/document/gone/restore', { method: 'POST', key: KEYS.alpha })).status, 404);
  assert.equal((await api(server.url, '/document/gone?mode=hard', { method: 'DELETE', key: KEYS.alpha })).status, 404);
});

test('ids up to the maximum length are reachable on every document route', async () => {
  const id = `long-${'x'.repeat(245)}`;
  await ingest(server.url, KEYS.alpha, id, 'v1', 'Long identifier document about safe deposit boxes.');
  const path = `/document/${encodeURIComponent(id)}`;
  assert.equal((await api(server.url, `${path}/text`, { key: KEYS.alpha })).status, 200);
  assert.equal((await api(server.url, path, { method: 'DELETE', key: KEYS.alpha })).status, 200);
  assert.equal((await api(server.url, `${path}/restore`, { method: 'POST', key: KEYS.alpha })).status, 200);
});

test('delete and restore of another Client’s or an unknown document are 404', async () => {
  await ingest(server.url, KEYS.beta, 'beta-only', 'v1', 'Beta client ledger.');
  assert.equal((await api(server.url, '/document/beta-only', { method: 'DELETE', key: KEYS.alpha })).status, 404);
  assert.equal((await api(server.url, '/document/beta-only?mode=hard', { method: 'DELETE', key: KEYS.alpha })).status, 404);
  assert.equal((await api(server.url, '/document/nope/restore', { method: 'POST', key: KEYS.alpha })).status, 404);
  assert.equal((await api(server.url, '/document/beta-only?version_id=v9', { method: 'DELETE', key: KEYS.beta })).status, 404);
  assert.equal((await api(server.url, '/document/beta-only/text', { key: KEYS.beta })).status, 200);
});

test('delete -> restore -> hard delete round trip per version leaves the other version intact', async () => {
  await ingest(server.url, KEYS.beta, 'round', 'v1', 'Round trip loan agreement first edition.');
  await ingest(server.url, KEYS.beta, 'round', 'v2', 'Round trip loan agreement second edition.');
  assert.equal((await api(server.url, '/document/round?version_id=v1', { method: 'DELETE', key: KEYS.beta })).status, 200);
  assert.equal((await api(server.url, '/document/round/restore?version_id=v1', { method: 'POST', key: KEYS.beta })).status, 200);
  assert.equal((await api(server.url, '/document/round?version_id=v1&mode=hard', { method: 'DELETE', key: KEYS.beta })).status, 200);
  assert.deepEqual(await versionsFound(server.url, KEYS.beta, 'loan agreement edition', true), ['round@v2']);
  const list = await api(server.url, '/documents?include_deleted=true', { key: KEYS.beta });
  assert.deepEqual(list.json.documents.filter((row: any) => row.document_id === 'round').map((row: any) => row.version_id), ['v2']);
});

test('an invalid delete mode is a 400', async () => {
  const response = await api(server.url, '/document/x?mode=shred', { method: 'DELETE', key: KEYS.alpha });
  assert.equal(response.status, 400);
  assert.deepEqual(response.json.details[0].loc, ['query', 'mode']);
});

test('a hard delete killed mid-purge is finished by repeating the request', async () => {
  const dataDir = tempDataDir();
  // The first service is held after each version step of the purge until the test lets it go on.
  const holds = new FaultHolds(['lifecycle-step']);
  const env = baseEnv(dataDir);
  try {
    const first = await spawnServer({ ...env, ...holds.env() });
    const uploads: string[] = [];
    for (const version of ['v1', 'v2', 'v3']) uploads.push(await ingest(first.url, KEYS.alpha, 'purge-me', version, `Dormant account notice ${version}.`));
    const pending = api(first.url, '/document/purge-me?mode=hard', { method: 'DELETE', key: KEYS.alpha }).catch(() => null);
    // A purged version takes its jobs with it: v1's upload job is gone once v1 is purged. The steps go on one by
    // one until then, and the crash lands while the purge is held after it, v2 and v3 still to go.
    for (;;) {
      const step = await holds.reached('lifecycle-step');
      if ((await api(first.url, `/status/${uploads[0]}`, { key: KEYS.alpha })).status === 404) break;
      holds.pass(step);
    }
    await first.crash();
    await first.exited;
    await pending;

    const second = await spawnServer(env);
    try {
      // Versions under the open purge are not served after the restart.
      assert.deepEqual(await versionsFound(second.url, KEYS.alpha, 'dormant account notice', true), []);
      const resumed = await api(second.url, '/document/purge-me?mode=hard', { method: 'DELETE', key: KEYS.alpha });
      assert.equal(resumed.status, 200, resumed.text);
      assert.equal(resumed.json.status, 'hard_deleted');
      assert.equal((await api(second.url, '/document/purge-me?mode=hard', { method: 'DELETE', key: KEYS.alpha })).status, 404);
      const list = await api(second.url, '/documents?include_deleted=true', { key: KEYS.alpha });
      assert.equal(list.json.documents.length, 0);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  } finally {
    holds.remove();
    removeDir(dataDir);
  }
});

test('a purge past its deadline answers 503 publication_purge_timeout; repeating the request finishes it', async () => {
  // Time passing is the subject: each version step pauses three times the deadline, so the deadline passes
  // during the first pause however fast the machine is, and a slow machine only makes it pass sooner.
  const server = await startTestServer({ ...faultPauses({ 'lifecycle-step': 300 }), PURGE_DEADLINE_MS: '100' });
  try {
    for (const version of ['v1', 'v2', 'v3']) {
      const accepted = await uploadText(server.url, KEYS.alpha, { document_id: 'slow-purge', version_id: version, text: `Closed account letter ${version}.` });
      await waitForJob(server.url, KEYS.alpha, accepted.json.job_id);
    }
    const first = await api(server.url, '/document/slow-purge?mode=hard', { method: 'DELETE', key: KEYS.alpha });
    assert.equal(first.status, 503, first.text);
    assert.equal(first.json.error_code, 'publication_purge_timeout');
    assert.equal(first.headers.get('retry-after'), '1');
    // Hidden from every read at once, whatever is left of the purge.
    assert.deepEqual(await versionsFound(server.url, KEYS.alpha, 'closed account letter', true), []);
    // Each repetition resumes the purge (one version per 300 ms step against a 100 ms deadline) until it is done.
    const answer = await until('a repetition to finish the purge', async () => {
      const repeated = await api(server.url, '/document/slow-purge?mode=hard', { method: 'DELETE', key: KEYS.alpha });
      if (repeated.status !== 503) return repeated;
      assert.equal(repeated.json.error_code, 'publication_purge_timeout', repeated.text);
      return null;
    });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.json.status, 'hard_deleted');
    assert.equal((await api(server.url, '/document/slow-purge?mode=hard', { method: 'DELETE', key: KEYS.alpha })).status, 404);
  } finally {
    await server.close();
    removeDir(server.dataDir);
  }
});

test('a client sending Content-Type: application/json on every request can delete and restore (no body to parse)', async () => {
  await ingest(server.url, KEYS.alpha, 'json-client', 'v1', 'Standing instruction for the payroll account.');
  const json = { 'Content-Type': 'application/json' };
  const deleted = await api(server.url, '/document/json-client?mode=soft', { method: 'DELETE', key: KEYS.alpha, headers: json });
  assert.equal(deleted.status, 200, deleted.text);
  assert.equal(deleted.json.status, 'soft_deleted');
  const restored = await api(server.url, '/document/json-client/restore', { method: 'POST', key: KEYS.alpha, headers: json });
  assert.equal(restored.status, 200, restored.text);
  assert.equal(restored.json.status, 'restored');
  const text = await api(server.url, '/document/json-client/text', { key: KEYS.alpha, headers: json });
  assert.equal(text.status, 200, text.text);
  // A route that takes a body still refuses an empty one.
  const search = await sendRaw(server.url, '/search', { method: 'POST', headers: { ...json, 'X-API-Key': KEYS.alpha }, body: '' });
  assert.equal(search.status, 422, search.text);
  const hard = await api(server.url, '/document/json-client?mode=hard', { method: 'DELETE', key: KEYS.alpha, headers: json });
  assert.equal(hard.status, 200, hard.text);
  assert.equal(hard.json.status, 'hard_deleted');
});
