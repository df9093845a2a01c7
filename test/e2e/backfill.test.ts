// Metadata Discovery backfill: an operator queues it, the Client polls it; contract violations block the
// Client's readiness (metadata and both scopes answer 409) and are reported without values.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useTestServer, api, baseEnv, KEYS, removeDir, spawnServer, tempDataDir, uploadText, waitForJob } from '../helpers/server.ts';
import { seedVersions } from '../helpers/seed.ts';
import { childPids, until } from '../helpers/processes.ts';
import { successorOf } from '../../src/publication/successor.ts';
import { Publisher } from '../../src/publication/publisher.ts';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { clientSql, controlSql, openTestStorage, TEST_STORE } from '../helpers/test-store.ts';
import { FaultHolds } from '../helpers/faults.ts';

const server = useTestServer();
const backfill = (clientId: string) => api(server.url, '/admin/backfill', { key: KEYS.operator, body: { client_id: clientId } });

test('a backfill for an unknown Client is refused and creates no storage for it', async () => {
  // What provisions a Client: a database file (SQLite, named in control.db) or a row of the Client registry (PostgreSQL).
  const provisioned = () => controlSql(server.dataDir, TEST_STORE === 'postgres' ? `SELECT client_id FROM clients WHERE client_id = 'nobody-at-all'` : `SELECT client_id FROM client_files WHERE client_id = 'nobody-at-all'`);
  const clientFiles = () => (existsSync(join(server.dataDir, 'clients')) ? readdirSync(join(server.dataDir, 'clients')).sort() : []);
  const before = clientFiles();
  const refused = await backfill('nobody-at-all');
  assert.equal(refused.status, 404);
  assert.equal(refused.json.error_code, 'not_found');
  // The refusal is answered after the request's own work; only a queued job could touch the store later.
  assert.deepEqual(await controlSql(server.dataDir, `SELECT job_id FROM jobs WHERE client_id = 'nobody-at-all'`), [], 'no job was queued');
  assert.deepEqual(await provisioned(), [], 'the Client was not provisioned');
  assert.deepEqual(clientFiles(), before, 'no database file was created');
});

test('a backfill over compliant versions converges to ready with its counters', async () => {
  for (const id of ['b1', 'b2']) {
    const accepted = await uploadText(server.url, KEYS.beta, { document_id: id, text: `Beta ${id} letter.`, metadata: { desk: 'trade' } });
    await waitForJob(server.url, KEYS.beta, accepted.json.job_id);
  }
  assert.equal((await api(server.url, '/admin/backfill', { key: KEYS.beta, body: { client_id: 'client-beta' } })).status, 401, 'Client keys never reach it');
  const accepted = await backfill('client-beta');
  assert.equal(accepted.status, 202);
  const job = await waitForJob(server.url, KEYS.beta, accepted.json.job_id);
  assert.equal(job.operation, 'metadata_backfill');
  assert.equal(job.document_id, '');
  assert.equal(job.status, 'completed');
  assert.equal(job.readiness_state, 'ready');
  assert.equal(job.versions_total, 2);
  assert.equal(job.versions_completed, 2);
  assert.equal(job.versions_backfilled, 0, 'leaves were indexed inline at upload');
  assert.equal(job.versions_blocked, 0);
  assert.deepEqual(job.violations, []);
  assert.equal(job.violations_total, 0);
  assert.equal(job.violations_truncated, false);
  assert.equal((await api(server.url, `/status/${accepted.json.job_id}`, { key: KEYS.alpha })).status, 404);
  const readiness = await api(server.url, '/discovery/readiness', { key: KEYS.beta });
  assert.equal(readiness.json.readiness_state, 'ready');
  assert.equal(readiness.json.backfill_job_id, accepted.json.job_id);
  assert.equal(readiness.json.versions_ready, 2);
});

test('uploads obey the contract: oversized custom metadata is a 422 and nothing is queued', async () => {
  const response = await uploadText(server.url, KEYS.alpha, { document_id: 'too-big', text: 'x', metadata: { blob: 'y'.repeat(70_000) } });
  assert.equal(response.status, 422);
  assert.equal(response.json.details[0].type, 'metadata_contract');
  assert.equal(response.json.details[0].input.code, 'metadata_canonical_json_bytes_limit');
  assert.equal((await api(server.url, '/documents', { key: KEYS.alpha })).json.total, 0);
});

test('a version over the contract blocks readiness; metadata scopes answer 409, content is unaffected', async () => {
  // Pre-discovery data: a version imported before the contract existed (written straight to the store).
  const accepted = await uploadText(server.url, KEYS.alpha, { document_id: 'legacy', text: 'Legacy ledger export.' });
  await waitForJob(server.url, KEYS.alpha, accepted.json.job_id);
  // And one within the contract, which no key confined to the legacy document sees.
  const compliant = await uploadText(server.url, KEYS.alpha, { document_id: 'compliant', text: 'Quarterly cash report.' });
  assert.equal((await waitForJob(server.url, KEYS.alpha, compliant.json.job_id)).status, 'completed');
  // Another process on the same durable store, as an import tool would be: the api processes learn of
  // its publication from the log.
  const storage = await openTestStorage(server.dataDir);
  try {
    const store = storage.client('client-alpha');
    const current = (await store.generations.loadGeneration((await store.generations.activeGeneration('legacy', 'legacy'))!.generation))!;
    const legacy = { ...current.canonicalMetadata, custom: { blob: 'y'.repeat(70_000) } };
    const publisher = new Publisher(storage, { enabled: true });
    assert.ok(await publisher.replace('client-alpha', [{ input: successorOf(current, { canonicalMetadata: legacy }), expected: current.generation }]));
  } finally {
    await storage.end();
  }

  const run = await backfill('client-alpha');
  const job = await waitForJob(server.url, KEYS.alpha, run.json.job_id);
  assert.equal(job.status, 'completed');
  assert.equal(job.readiness_state, 'blocked');
  assert.equal(job.versions_blocked, 1);
  assert.deepEqual(job.violations, [{ document_id: 'legacy', version_id: 'legacy', path: ['metadata', 'custom'], cap: 65536 }]);
  assert.equal(JSON.stringify(job).includes('yyyy'), false, 'never a value');

  const metadata = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'ledger', scope: 'metadata' } });
  assert.equal(metadata.status, 409);
  assert.equal(metadata.json.error_code, 'METADATA_DISCOVERY_NOT_READY');
  assert.equal(metadata.json.detail, 'Metadata Discovery is not ready for this Client');
  assert.deepEqual(metadata.json.details, { code: 'METADATA_DISCOVERY_NOT_READY', state: 'blocked', readiness: '/discovery/readiness', scopes_available: ['content'] });
  assert.equal((await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'ledger', scope: 'both' } })).status, 409);
  const content = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'ledger', scope: 'content' } });
  assert.equal(content.status, 200);
  assert.equal(content.json.results[0].document_version.document_id, 'legacy');
  const readiness = await api(server.url, '/discovery/readiness', { key: KEYS.alpha });
  assert.equal(readiness.json.readiness_state, 'blocked');
  assert.equal(readiness.json.versions_blocked, 1);
  assert.deepEqual(readiness.json.scopes_available, ['content']);
  assert.equal(readiness.json.backfill_job_id, run.json.job_id);

  // A key confined by a filter counts its own versions only, and is not named the Client's backfill job.
  const confinedReadiness = async (filter: Record<string, unknown>) => {
    const issued = await api(server.url, '/admin/clients/client-alpha/keys', { key: KEYS.operator, body: { filter } });
    assert.equal(issued.status, 201, issued.text);
    return until('the issued key to be known', async () => {
      const answer = await api(server.url, '/discovery/readiness', { key: issued.json.key });
      return answer.status === 401 ? null : answer;
    });
  };
  const elsewhere = await confinedReadiness({ document_id: 'no-such-document' });
  assert.equal(elsewhere.status, 200, elsewhere.text);
  assert.deepEqual([elsewhere.json.readiness_state, elsewhere.json.versions_total, elsewhere.json.versions_blocked, elsewhere.json.versions_ready, elsewhere.json.backfill_job_id], ['blocked', 0, 0, 0, null]);
  const own = await confinedReadiness({ document_id: 'legacy' });
  assert.deepEqual([own.json.versions_total, own.json.versions_blocked, own.json.versions_ready, own.json.backfill_job_id], [1, 1, 0, null]);
  assert.ok(readiness.json.versions_total > own.json.versions_total, 'the Client holds more than the key may see');

  // Remediation: bring the version under the contract, run the backfill again, metadata search opens.
  const fix = await api(server.url, '/update', { method: 'PATCH', key: KEYS.alpha, body: { document_id: 'legacy', metadata: { blob: null } } });
  assert.equal((await waitForJob(server.url, KEYS.alpha, fix.json.job_id)).status, 'completed');
  const again = await waitForJob(server.url, KEYS.alpha, (await backfill('client-alpha')).json.job_id);
  assert.equal(again.readiness_state, 'ready');
  assert.equal((await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'ledger', scope: 'metadata' } })).status, 200);
});

test('a backfill interrupted by a crash resumes where it stopped; its progress shows while it runs', async () => {
  const VERSIONS = 350;
  const dataDir = tempDataDir();
  await seedVersions(dataDir, 'client-alpha', 'ledger', Array.from({ length: VERSIONS }, (_, i) => ({ versionId: `v${i}`, text: `Ledger page ${i}.` })), {
    custom: { desk: 'treasury' },
    staleLeaves: true,
  });
  // The worker is held after the backfill's first recorded batch until it is killed there; the one started in
  // its place goes on (the point is opened after the kill).
  const holds = new FaultHolds(['job-stage']);
  const crashing = await spawnServer(baseEnv(dataDir, { ...holds.env(), JOB_LEASE_SECONDS: '2' }));
  try {
    const accepted = await api(crashing.url, '/admin/backfill', { key: KEYS.operator, body: { client_id: 'client-alpha' } });
    assert.equal(accepted.status, 202);
    await holds.reached('job-stage');
    const running = (await api(crashing.url, `/status/${accepted.json.job_id}`, { key: KEYS.alpha })).json;
    assert.ok(running.versions_completed >= 100 && running.versions_completed < VERSIONS, JSON.stringify(running));
    assert.equal(running.status, 'processing');
    assert.equal(running.readiness_state, 'backfilling');
    assert.equal(running.versions_total, VERSIONS);
    assert.equal((await api(crashing.url, '/discovery/readiness', { key: KEYS.alpha })).json.readiness_state, 'backfilling');
    // Metadata scopes are a capability conflict meanwhile, with a hint of when to come back.
    const conflict = await api(crashing.url, '/search', { key: KEYS.alpha, body: { query: 'treasury', scope: 'metadata' } });
    assert.equal(conflict.status, 409);
    assert.equal(conflict.json.details.state, 'backfilling');
    assert.ok(Number(conflict.headers.get('retry-after')) >= 1, 'Retry-After while backfilling');
    const [worker] = childPids(crashing, 'worker');
    process.kill(worker, 'SIGKILL');
    holds.open('job-stage');
    const done = await waitForJob(crashing.url, KEYS.alpha, accepted.json.job_id, { timeoutMs: 60_000 });
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(done.readiness_state, 'ready');
    assert.equal(done.versions_total, VERSIONS);
    assert.equal(done.versions_completed, VERSIONS);
    // Started over, the versions repaired before the crash would count as completed but not backfilled.
    assert.equal(done.versions_backfilled, VERSIONS, 'resumed from its recorded progress');
    assert.equal('cursor' in done, false);
    assert.equal((await api(crashing.url, '/discovery/readiness', { key: KEYS.alpha })).json.readiness_state, 'ready');
    const found = await api(crashing.url, '/search', { key: KEYS.alpha, body: { query: 'treasury', scope: 'metadata', limit: 5 } });
    assert.equal(found.status, 200);
    assert.equal(found.json.meta.total, VERSIONS, 'every version is in the metadata lane now');
  } finally {
    holds.remove();
    await crashing.stop();
    removeDir(dataDir);
  }
});

test('a backfill on a Client whose authority needs repair reports publication_authority_inconsistent', async () => {
  const dataDir = tempDataDir();
  await seedVersions(dataDir, 'client-beta', 'broken', [{ versionId: 'v1', text: 'Trade finance ledger.' }, { versionId: 'v2', text: 'Trade finance ledger, amended.' }]);
  const storage = await openTestStorage(dataDir);
  try {
    const store = storage.client('client-beta');
    const generation = (await store.generations.activeGeneration('broken', 'v2'))!.generation;
    await clientSql(dataDir, 'client-beta', `UPDATE generations SET manifest = '{}' WHERE generation = ?`, generation);
  } finally {
    await storage.end();
  }
  const server = await spawnServer(baseEnv(dataDir));
  try {
    const accepted = await api(server.url, '/admin/backfill', { key: KEYS.operator, body: { client_id: 'client-beta' } });
    const job = await waitForJob(server.url, KEYS.beta, accepted.json.job_id);
    assert.equal(job.status, 'failed');
    assert.equal(job.error_details.code, 'publication_authority_inconsistent');
    assert.deepEqual([job.error_details.document_id, job.error_details.version_id], ['broken', 'v2']);
    assert.equal((await api(server.url, '/discovery/readiness', { key: KEYS.beta })).json.readiness_state, 'blocked');
  } finally {
    await server.stop();
    removeDir(dataDir);
  }
});

test('not_started is reported for a Client whose pre-discovery data has not been backfilled; a backfill makes it ready', async () => {
  const dataDir = tempDataDir();
  // Imported data whose metadata lane was never indexed (written as a tool would, with its leaves missing).
  await seedVersions(dataDir, 'client-alpha', 'imported', [{ versionId: 'v1', text: 'Imported remittance register.' }], { custom: { desk: 'imports' }, staleLeaves: true });
  const server = await spawnServer(baseEnv(dataDir));
  try {
    const readiness = await api(server.url, '/discovery/readiness', { key: KEYS.alpha });
    assert.equal(readiness.json.readiness_state, 'not_started');
    assert.deepEqual(readiness.json.scopes_available, ['content']);
    const metadata = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'imports', scope: 'metadata' } });
    assert.equal(metadata.status, 409);
    assert.equal(metadata.json.details.state, 'not_started');
    assert.equal((await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'remittance register', scope: 'content' } })).status, 200);
    assert.equal((await api(server.url, '/discovery/readiness', { key: KEYS.beta })).json.readiness_state, 'ready', 'a Client without such data is ready');

    const accepted = await api(server.url, '/admin/backfill', { key: KEYS.operator, body: { client_id: 'client-alpha' } });
    const job = await waitForJob(server.url, KEYS.alpha, accepted.json.job_id);
    assert.equal(job.status, 'completed');
    assert.equal(job.versions_backfilled, 1);
    assert.equal((await api(server.url, '/discovery/readiness', { key: KEYS.alpha })).json.readiness_state, 'ready');
    const found = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'imports', scope: 'metadata' } });
    assert.equal(found.status, 200);
    assert.equal(found.json.results[0].document_version.document_id, 'imported');
  } finally {
    await server.stop();
    removeDir(dataDir);
  }
});
